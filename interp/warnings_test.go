package interp

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// manyWarnings is a program with n unused variables: n warnings.
func manyWarnings(n int) []byte {
	var b strings.Builder
	b.WriteString("fn main() {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  let v%d = 1\n", i)
	}
	b.WriteString("}\nmain()\n")
	return []byte(b.String())
}

// Past MaxWarnings, warnings are counted in one line (issue 17 item 11).
func TestWarningsAreCapped(t *testing.T) {
	var errb bytes.Buffer
	r := RunProgram("w.harn", manyWarnings(MaxWarnings+57), Options{Stderr: &errb})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	got := errb.String()
	if n := strings.Count(got, "warning: unused variable"); n != MaxWarnings {
		t.Errorf("%d warnings printed, want %d", n, MaxWarnings)
	}
	if !strings.HasSuffix(got, "… and 57 more warnings\n") {
		t.Errorf("no count line at the end: %q", got[max(0, len(got)-200):])
	}
	errb.Reset()
	RunProgram("w.harn", manyWarnings(MaxWarnings), Options{Stderr: &errb})
	if strings.Contains(errb.String(), "more warnings") || strings.Count(errb.String(), "warning: ") != MaxWarnings {
		t.Errorf("exactly MaxWarnings warnings: %q", errb.String())
	}
}
