package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected REPL transcripts")

// TestREPLTranscripts feeds each testdata/repl/NAME.in to `harn repl`
// through liner's non-terminal fallback and compares what it prints
// (stdout and stderr interleaved, as on a terminal) with NAME.out.
func TestREPLTranscripts(t *testing.T) {
	inputs, err := filepath.Glob("testdata/repl/*.in")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".in")
		t.Run(name, func(t *testing.T) {
			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := runREPL(t, input)
			want := strings.TrimSuffix(in, ".in") + ".out"
			if *update {
				if err := os.WriteFile(want, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			exp, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, exp) {
				t.Errorf("transcript differs from %s\n--- want\n%s\n--- got\n%s", want, exp, got)
			}
		})
	}
}

// runREPL runs `harn repl` in testdata/repl with input on stdin and
// returns its combined output.
func runREPL(t *testing.T, input []byte) []byte {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "repl")
	cmd.Dir = "testdata/repl"
	cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1", "HARN_REPL_HISTORY=", "NO_COLOR=1")
	cmd.Stdin = bytes.NewReader(input)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}
