package exports

import (
	"os"
	"path/filepath"
	"testing"
)

// TestChooseReportsSkippedMain: auto's choice of exports skips main only
// when the module declares an entry main; explicit surfaces never do.
func TestChooseReportsSkippedMain(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		src, surface, want string
		skipsMain          bool
	}{
		{"pub fn f() -> int { return 1 }\nfn main(harness: Harness) {}\n", SurfaceAuto, SurfaceExports, true},
		{"pub fn f() -> int { return 1 }\n", SurfaceAuto, SurfaceExports, false},
		{"pub fn f() -> int { return 1 }\nfn main() {}\n", SurfaceAuto, SurfaceExports, false},
		{"fn f() -> int { return 1 }\nfn main(harness: Harness) {}\n", SurfaceAuto, SurfaceScript, false},
		{"pub fn f() -> int { return 1 }\nfn main(harness: Harness) {}\n", SurfaceExports, SurfaceExports, false},
		{"pub fn f() -> int { return 1 }\nfn main(harness: Harness) {}\n", SurfaceScript, SurfaceScript, false},
	}
	for i, c := range cases {
		p := filepath.Join(dir, "m.harn")
		os.WriteFile(p, []byte(c.src), 0o644)
		got, skips := Choose(c.surface, p)
		if got != c.want || skips != c.skipsMain {
			t.Errorf("case %d: Choose(%s) = %s, %v; want %s, %v", i, c.surface, got, skips, c.want, c.skipsMain)
		}
	}
}
