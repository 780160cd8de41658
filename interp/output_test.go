package interp

import (
	"bytes"
	"testing"
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
