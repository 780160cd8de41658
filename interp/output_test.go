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
