package diag

import (
	"fmt"
	"strings"
)

// DidYouMean is ` (did you mean "x"?)` for the candidate closest to
// name (Suggest), or "": the one wording of a suggestion for a misspelt
// key, option or name.
func DidYouMean(name string, candidates []string) string {
	if s := Suggest(name, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// Suggest returns the closest candidate to name by the rule of
// docs/spec/language.md §3.2, or "" when none is close enough:
// edit distance (EditDistance: a swap of neighbouring bytes is one edit)
// ≤ 1 for names of 1–2 bytes, ≤ 2 for 3–5 bytes, ≤ 3 for
// longer ones; names starting with "__" are never suggested; ties go to the
// smallest distance, then the closest length, then the byte-wise smallest.
//
// The allowance is taken from the shorter of the two names, so a short
// candidate is not proposed for a longer name it shares a letter or two
// with: a one-byte candidate (the global `e`) is proposed only for a name
// of one byte or for a two-byte name containing it (`q` and `xe` get `e`;
// `qz` and `abe` get nothing).
func Suggest(name string, candidates []string) string {
	best, bestDist, bestLenDiff := "", 0, 0
	for _, c := range candidates {
		if c == name || strings.HasPrefix(c, "__") {
			continue
		}
		limit := allowance(min(len(name), len(c)))
		lenDiff := len(c) - len(name)
		if lenDiff < 0 {
			lenDiff = -lenDiff
		}
		if lenDiff > limit {
			continue
		}
		d := EditDistance(name, c, limit)
		if d > limit {
			continue
		}
		if best == "" || d < bestDist ||
			(d == bestDist && (lenDiff < bestLenDiff || (lenDiff == bestLenDiff && c < best))) {
			best, bestDist, bestLenDiff = c, d, lenDiff
		}
	}
	return best
}

// allowance is the largest edit distance a suggestion may have when the
// shorter of the two names is n bytes long.
func allowance(n int) int {
	switch {
	case n <= 2:
		return 1
	case n <= 5:
		return 2
	}
	return 3
}

// EditDistance is the edit distance over bytes in which inserting,
// deleting or replacing a byte, or swapping two adjacent bytes, costs one
// (optimal string alignment: `lenght` is one edit from `length`, `Flaot`
// two from `float`). It gives up early, returning limit+1, once every
// cell of a row exceeds limit. It is the one distance behind every
// suggestion: the "did you mean" of names, fields, methods and types, and
// the keyword lookalikes of lang/syntax.
func EditDistance(a, b string, limit int) int {
	prev2 := make([]int, len(b)+1) // row i-2, for a swap
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
