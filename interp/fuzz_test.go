package interp

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/vm"
)

// FuzzRun parses, checks, compiles and runs arbitrary programs: any input
// may fail, but nothing may panic or hang.
func FuzzRun(f *testing.F) {
	// Seeds that save state (the store, checkpoints) write under a
	// temporary state root, not into the package directory.
	f.Setenv("HARN_STATE_DIR", f.TempDir())
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s := NewSession(Options{Stdout: io.Discard, Stderr: io.Discard, Stdin: strings.NewReader("")})
		m, err := s.Compile("fuzz.harn", []byte(src))
		if err != nil {
			return
		}
		timer := time.AfterFunc(200*time.Millisecond, s.VM.Interrupt)
		defer timer.Stop()
		_, err = s.Run(m)
		if e, ok := err.(*vm.Error); ok && e.Kind == vm.KindExit {
			return
		}
	})
}

// fuzzSeeds returns the conformance programs as seeds.
func fuzzSeeds(f *testing.F) []string {
	var out []string
	filepath.WalkDir("../conformance", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".harn") && len(out) < 400 {
			if b, err := os.ReadFile(p); err == nil {
				out = append(out, string(b))
			}
		}
		return nil
	})
	if len(out) == 0 {
		out = append(out, "println(1 + 2)")
	}
	return out
}
