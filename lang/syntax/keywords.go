package syntax

// Keywords returns the reserved words of docs/spec/language.md §1.4, sorted (the
// REPL completes them).
func Keywords() []string { return append([]string(nil), keywordList[:]...) }

// IsCallableKeyword reports whether the reserved word s also names a
// builtin that a call may name: `select(…)` is the builtin
// (docs/spec/builtins.md §5), `select {…}` the expression.
func IsCallableKeyword(s string) bool { return s == "select" }

// SuggestableName reports whether a "did you mean" may offer name, a
// visible variable, global or builtin (docs/spec/language.md §3.2): never
// a reserved word, which cannot be written where a name is read, except,
// for a call, one that a call may name.
func SuggestableName(name string, call bool) bool {
	return !IsKeyword(name) || call && IsCallableKeyword(name)
}
