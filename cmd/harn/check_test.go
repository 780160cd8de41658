package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.harn", "fn f(a) {\n  return a\n}\nprintln(f(1, 2))\n")
	bad := write("bad.harn", "println(\"never\")\nlet n: int = \"five\"\n")
	cases := []struct {
		args   []string
		status int
		want   []string
	}{
		{[]string{good}, 0, []string{"warning: Function 'f' expects 1 argument, got 2", "good.harn:4:9"}},
		{[]string{good, bad}, 1, []string{"error: let binding `n`: expected int, found string", "bad.harn:2:14", "2 | let n: int = \"five\"", "^"}},
		{[]string{filepath.Join(dir, "missing.harn")}, 1, []string{"cannot read"}},
		{nil, 2, []string{"needs at least one FILE"}},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		status := run(append([]string{"check"}, c.args...), strings.NewReader(""), &stdout, &stderr)
		if status != c.status {
			t.Errorf("harn check %v: status %d, want %d\n%s", c.args, status, c.status, stderr.String())
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("harn check %v: stderr lacks %q:\n%s", c.args, w, stderr.String())
			}
		}
		if stdout.Len() > 0 {
			t.Errorf("harn check %v wrote to stdout: %s", c.args, stdout.String())
		}
	}
}
