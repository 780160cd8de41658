package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runShared runs harn with stdout and stderr going to one buffer, so the
// test sees the order in which the two streams were written.
func runShared(t *testing.T, src string, args ...string) (string, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.harn")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var both bytes.Buffer
	code := run(append([]string{"run", path}, args...), strings.NewReader(""), &both, &both)
	return both.String(), code
}

// TestRunKeepsOutputBeforeError: what a program printed before an
// uncaught error stays printed, and comes before the error's report.
func TestRunKeepsOutputBeforeError(t *testing.T) {
	out, code := runShared(t, "println(\"first\")\nprint(\"partial\")\nthrow \"boom\"\n")
	if code != 1 {
		t.Fatalf("status %d, want 1\n%s", code, out)
	}
	i, j := strings.Index(out, "first\npartial"), strings.Index(out, "Thrown: boom")
	if i < 0 || j < 0 || i > j {
		t.Fatalf("printed output must survive and precede the report:\n%s", out)
	}
}

// TestRunFlushesOnExit: exit() keeps what was printed, including output
// that is still in the block buffer.
func TestRunFlushesOnExit(t *testing.T) {
	out, code := runShared(t, "print(\"a\")\nprintln(\"b\")\nexit(3)\nprintln(\"never\")\n")
	if code != 3 || out != "ab\n" {
		t.Fatalf("status %d output %q, want 3 and \"ab\\n\"", code, out)
	}
}

// TestRunFlushesBeforeResultText: an Err result's text follows stdout.
func TestRunFlushesBeforeResultText(t *testing.T) {
	out, code := runShared(t, "pipeline default() {\n  println(\"work\")\n  return Err(\"bad\")\n}\n")
	if code != 1 || out != "work\nbad\n" {
		t.Fatalf("status %d output %q", code, out)
	}
}
