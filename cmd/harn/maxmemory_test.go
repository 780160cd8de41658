package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/vm"
)

// TestMaxMemoryFlag: --max-memory sets the ceiling a growing program hits
// (a catchable out of memory error), before the command name and after
// `run`; a bad size is a usage error.
func TestMaxMemoryFlag(t *testing.T) {
	defer vm.SetMaxMemory(0)
	path := filepath.Join(t.TempDir(), "grow.harn")
	src := `let r = try {
  let xs = []
  for i in 0 to 100000000 {
    xs = xs.push("item number ${i}")
  }
  "finished"
} catch (e) {
  "caught: " + to_string(e)
}
println(r)
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--max-memory", "32M", "run", path},
		{"run", "--max-memory=32M", path},
	} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: status %d\n%s", args, code, errb.String())
		}
		if !strings.Contains(out.String(), "caught:") || !strings.Contains(out.String(), "out of memory") {
			t.Errorf("%v: want a caught out of memory error, got %q", args, out.String())
		}
		vm.SetMaxMemory(0)
	}
	for _, args := range [][]string{{"--max-memory", "lots", "run", path}, {"--max-memory"}, {"run", "--max-memory", "0", path}} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "--max-memory") {
			t.Errorf("%v: want status 2 naming --max-memory, got %d %q", args, code, errb.String())
		}
	}
}
