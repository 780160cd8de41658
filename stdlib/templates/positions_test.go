package templates

import "testing"

// TestTplPositions checks the incremental positions against a count from
// the start, in increasing order and after going back.
func TestTplPositions(t *testing.T) {
	src := "ab\né—ü {{ x }}\n\n  {{ y }}"
	want := func(i int) tplPos {
		p := tplPos{1, 1}
		for _, r := range src[:i] {
			if r == '\n' {
				p = tplPos{p.line + 1, 1}
			} else {
				p.col++
			}
		}
		return p
	}
	offsets := []int{0, 1, 3, 11, 11, 16, 22, 5, 0, len(src)}
	ps := newTplPositions(src, 1)
	for _, i := range offsets {
		if got := ps.at(i); got != want(i) {
			t.Errorf("at(%d) = %v, want %v", i, got, want(i))
		}
	}
}
