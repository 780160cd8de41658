package vm

import "testing"

// copyGrown copies exactly what copy does, across and around its chunk
// boundaries.
func TestCopyGrownCopiesEveryItem(t *testing.T) {
	for _, n := range []int{0, 1, growChunk - 1, growChunk, growChunk + 1, 3*growChunk + 7} {
		src := make([]Value, n)
		for i := range src {
			src[i] = IntOf(int64(i))
		}
		dst := make([]Value, n, n+5)
		copyGrown(dst, src)
		for i := range src {
			if !Equal(dst[i], src[i]) {
				t.Fatalf("n=%d: item %d is %v, want %v", n, i, dst[i], src[i])
			}
		}
	}
}
