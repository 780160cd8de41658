package interp

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
		var out internalErrorWatch
		s := NewSession(Options{Stdout: &out, Stderr: &out, Stdin: strings.NewReader("")})
		m, err := s.Compile("fuzz.harn", []byte(src))
		if err != nil {
			if strings.Contains(err.Error(), internalError) {
				t.Fatalf("compiling: %v", err)
			}
			return
		}
		timer := time.AfterFunc(200*time.Millisecond, s.VM.Interrupt)
		defer timer.Stop()
		done := make(chan struct{})
		go func() {
			defer close(done)
			if _, err := s.Run(m); err != nil && strings.Contains(err.Error(), internalError) {
				out.seen.Store(true)
			}
		}()
		select {
		case <-done:
			if out.seen.Load() {
				t.Fatalf("the run reported an %s (a recovered Go panic)", internalError)
			}
		case <-time.After(fuzzHangLimit):
			buf := make([]byte, 1<<20)
			t.Fatalf("still running %v after the interrupt:\n%s", fuzzHangLimit, buf[:runtime.Stack(buf, true)])
		}
	})
}

// internalError is the text of a Go panic that the VM recovered in a
// builtin (vm.recoverNative): still a bug, though the process goes on.
const internalError = "internal error"

// internalErrorWatch discards what a fuzzed program prints, noting whether
// it contained internalError (a program may catch the error and print it).
type internalErrorWatch struct {
	mu   sync.Mutex
	tail []byte
	seen atomic.Bool
}

func (w *internalErrorWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.tail, p...)
	if bytes.Contains(buf, []byte(internalError)) {
		w.seen.Store(true)
	}
	keep := min(len(buf), len(internalError)-1)
	w.tail = append(w.tail[:0], buf[len(buf)-keep:]...)
	return len(p), nil
}

// fuzzHangLimit is how long a run may go on after its interrupt before
// FuzzRun reports it as a hang (a loop that never checks for Ctrl-C).
const fuzzHangLimit = 5 * time.Second

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
