package syntax

// Keywords returns the reserved words of docs/spec/language.md §1.4, sorted (the
// REPL completes them).
func Keywords() []string { return append([]string(nil), keywordList[:]...) }
