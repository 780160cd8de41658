package diag

import "strings"

// Suggest returns the closest candidate to name by the rule of
// docs/spec/language.md §3.2, or "" when none is close enough:
// edit distance ≤ 1 for names of 1–2 bytes, ≤ 2 for 3–5 bytes, ≤ 3 for
// longer ones; names starting with "__" are never suggested; ties go to the
// smallest distance, then the closest length, then the byte-wise smallest.
func Suggest(name string, candidates []string) string {
	limit := 3
	switch n := len(name); {
	case n <= 2:
		limit = 1
	case n <= 5:
		limit = 2
	}
	best, bestDist, bestLenDiff := "", limit+1, 0
	for _, c := range candidates {
		if c == name || strings.HasPrefix(c, "__") {
			continue
		}
		lenDiff := len(c) - len(name)
		if lenDiff < 0 {
			lenDiff = -lenDiff
		}
		if lenDiff > limit {
			continue
		}
		d := editDistance(name, c, limit)
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

// editDistance is the Levenshtein distance over bytes, giving up early
// (returning limit+1) once every cell of a row exceeds limit.
func editDistance(a, b string, limit int) int {
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
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
