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

// TestLimitEnvValidated: a HARN_MAX_MEMORY or HARN_MAX_DEPTH the VM cannot
// read was ignored, so the program ran with the default ceiling the user
// meant to change; it is a usage error, for every command.
func TestLimitEnvValidated(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"HARN_MAX_MEMORY", "lots", "error: HARN_MAX_MEMORY=lots: invalid size (bytes, or with a K/M/G/T suffix)\n"},
		{"HARN_MAX_MEMORY", "0", "error: HARN_MAX_MEMORY=0: invalid size"},
		{"HARN_MAX_DEPTH", "-1", "error: HARN_MAX_DEPTH=-1: expected a positive number of call frames (at most 100000)\n"},
		{"HARN_MAX_DEPTH", "deep", "error: HARN_MAX_DEPTH=deep: expected a positive number"},
	} {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			t.Setenv(c.name, c.value)
			for _, args := range [][]string{{"run", "-e", "println(1)"}, {"version"}} {
				var out, errb bytes.Buffer
				if code := run(args, strings.NewReader(""), &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), c.want) || out.Len() > 0 {
					t.Errorf("%v: status %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
				}
			}
		})
	}
	t.Setenv("HARN_MAX_MEMORY", "512MB")
	t.Setenv("HARN_MAX_DEPTH", "200000") // capped at 100000, as documented
	var out, errb bytes.Buffer
	if code := run([]string{"run", "-e", "println(1)"}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != "1\n" {
		t.Errorf("valid values: status %d, %q %q", code, out.String(), errb.String())
	}
}
