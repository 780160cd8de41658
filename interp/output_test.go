package interp

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestOutputBuffering(t *testing.T) {
	var pipe, tty bytes.Buffer
	block, line := NewOutput(&pipe, false), NewOutput(&tty, true)
	for _, o := range []*Output{block, line} {
		o.Write([]byte("one\n"))
		o.Write([]byte("tw"))
	}
	if pipe.Len() != 0 {
		t.Fatalf("block-buffered output reached the pipe early: %q", pipe.String())
	}
	if tty.String() != "one\n" {
		t.Fatalf("line-buffered output = %q, want the first line only", tty.String())
	}
	block.Flush()
	line.Flush()
	if pipe.String() != "one\ntw" || tty.String() != "one\ntw" {
		t.Fatalf("after Flush: pipe %q tty %q", pipe.String(), tty.String())
	}
}

// TestRunProgramCapturesOutputOnFailure: the captured stdout of a failed
// program holds what it printed before the failure.
func TestRunProgramCapturesOutputOnFailure(t *testing.T) {
	var errb bytes.Buffer
	r := RunProgram("t.harn", []byte("println(\"kept\")\nlet x = 1 / 0\n"), Options{Stderr: &errb})
	if r.Status != ExitFailure || string(r.Stdout) != "kept\n" {
		t.Fatalf("status %d stdout %q stderr %s", r.Status, r.Stdout, errb.String())
	}
}

// TestErrResultTooDeep: a program whose Result.Err value is nested past
// vm.MaxValueDepth reports the limit as an error (exit 1), not as an
// internal error with a Go trace (docs/spec/language.md §12.3).
func TestErrResultTooDeep(t *testing.T) {
	var errb bytes.Buffer
	r := RunProgram("t.harn", []byte("let x = []\nfor i in range(20000) { x = [x] }\nreturn Err(x)\n"), Options{Stderr: &errb})
	if r.Status != ExitFailure || bytes.Contains(errb.Bytes(), []byte("goroutine")) ||
		!bytes.Contains(errb.Bytes(), []byte("value nested too deeply to display")) {
		t.Fatalf("status %d stderr %.300s", r.Status, errb.String())
	}
}

// TestStderrKeepsOrderWithStdout: with stdout and stderr going to one
// place (`2>&1`), a line written to stderr comes after what the program
// printed to stdout before it, although stdout is block-buffered.
func TestStderrKeepsOrderWithStdout(t *testing.T) {
	var both bytes.Buffer
	src := "println(\"out1\")\neprintln(\"err1\")\nprintln(\"out2\")\nlog_warn(\"careful\")\n"
	r := RunProgram("t.harn", []byte(src), Options{Stdout: &both, Stderr: &both})
	got := both.String()
	if r.Status != ExitOK || !strings.HasPrefix(got, "out1\nerr1\nout2\n") {
		t.Fatalf("status %d, combined output %q", r.Status, got)
	}
}

// stampedWriter records when each write arrives.
type stampedWriter struct {
	mu    sync.Mutex
	first time.Time
	buf   bytes.Buffer
}

func (w *stampedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first.IsZero() {
		w.first = time.Now()
	}
	return w.buf.Write(p)
}

// TestSleepFlushesStdout: what a program printed before a real sleep
// reaches a block-buffered destination before the sleep ends.
func TestSleepFlushesStdout(t *testing.T) {
	var out stampedWriter
	start := time.Now()
	r := RunProgram("t.harn", []byte("println(\"working\")\nsleep(400ms)\nprintln(\"done\")\n"), Options{Stdout: &out, Stderr: io.Discard})
	end := time.Now()
	if r.Status != ExitOK || out.buf.String() != "working\ndone\n" {
		t.Fatalf("status %d stdout %q", r.Status, out.buf.String())
	}
	if out.first.IsZero() || end.Sub(out.first) < 300*time.Millisecond {
		t.Fatalf("first write %v after start, run took %v: stdout was not flushed before the sleep", out.first.Sub(start), end.Sub(start))
	}
}
