package syntax

import "sort"

// Keywords returns the reserved words of docs/spec/language.md §1.4, sorted (the
// REPL completes them).
func Keywords() []string {
	out := make([]string, 0, len(keywords))
	for k := range keywords {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
