package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.harn")
	os.WriteFile(path, []byte("var x = 1\nfn f(a,b) {\n  return a\n  println(b)\n}\nprintln(f(1, 2))\n"), 0o644)

	_, errOut, code := runHarn("lint", dir)
	for _, want := range []string{"[prefer-let]", "[unused-variable]", "[unreachable-code]", "main.harn:4:3", "= help: fix:",
		"3 findings (3 fixable with harn lint --fix)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("lint output lacks %q:\n%s", want, errOut)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}

	_, errOut, code = runHarn("lint", "--fix", path)
	if code != 0 {
		t.Fatalf("--fix: exit %d:\n%s", code, errOut)
	}
	got, _ := os.ReadFile(path)
	want := "let _ = 1\n\nfn f(a, _b) {\n  return a\n}\n\nprintln(f(1, 2))\n"
	if string(got) != want {
		t.Errorf("--fix wrote:\n%s\nwant:\n%s", got, want)
	}
	if _, errOut, code := runHarn("lint", "--disable", "naming,missing-doc", path); code != 0 || errOut != "" {
		t.Errorf("after --fix: exit %d: %s", code, errOut)
	}
}

func TestLintExplainAndUsage(t *testing.T) {
	out, _, code := runHarn("lint", "--explain", "unused-import")
	if code != 0 || !strings.HasPrefix(out, "unused-import: ") || !strings.Contains(out, "re-export") {
		t.Errorf("--explain: exit %d: %s", code, out)
	}
	if _, errOut, code := runHarn("lint", "--explain", "nope"); code != 2 || !strings.Contains(errOut, "unused-variable") {
		t.Errorf("unknown rule: exit %d: %s", code, errOut)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.harn")
	os.WriteFile(bad, []byte("let = 1\n"), 0o644)
	if _, errOut, code := runHarn("lint", bad); code != 1 || !strings.Contains(errOut, "bad.harn:1:5") {
		t.Errorf("parse error: exit %d: %s", code, errOut)
	}
}
