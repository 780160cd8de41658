package main

import (
	"io"
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
	if code != 1 || !strings.Contains(errOut, "fixed 3 findings") {
		t.Fatalf("--fix: exit %d:\n%s", code, errOut)
	}
	got, _ := os.ReadFile(path)
	// deleting the unreachable println leaves b unused, a finding without
	// a fix (renaming it would change how f prints)
	want := "let _ = 1\n\nfn f(a, b) {\n  return a\n}\n\nprintln(f(1, 2))\n"
	if string(got) != want {
		t.Errorf("--fix wrote:\n%s\nwant:\n%s", got, want)
	}
	if _, errOut, code := runHarn("lint", "--disable", "naming,missing-doc", path); code != 1 ||
		!strings.Contains(errOut, "parameter `b` is never used [unused-parameter]") || strings.Contains(errOut, "help: fix") ||
		!strings.HasSuffix(errOut, "1 finding\n") {
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

// TestLintStopsOnCheckErrors: docs/lint.md analyses each file as harn
// check does, so a file check rejects is reported with check's errors
// (exit 1), not passed as clean; --fix leaves it alone.
func TestLintStopsOnCheckErrors(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ src, want string }{
		"import.harn":    {"import { x } from \"missing\"\nvar y = x\nprintln(y)\n", "missing.harn'"},
		"undefined.harn": {"var y = 1\nundefined_fn_xyz(y)\n", "`undefined_fn_xyz` is not defined"},
		"break.harn":     {"var y = 1\nprintln(y)\nbreak\n", "break outside of loop"},
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(c.src), 0o644)
		_, errOut, code := runHarn("lint", path)
		if code != 1 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, name+":") || strings.Contains(errOut, "prefer-let") {
			t.Errorf("%s: exit %d:\n%s", name, code, errOut)
		}
		if _, _, code := runHarn("lint", "--fix", path); code != 1 {
			t.Errorf("%s: --fix: exit %d", name, code)
		}
		if got, _ := os.ReadFile(path); string(got) != c.src {
			t.Errorf("%s: --fix rewrote the file:\n%s", name, got)
		}
	}
}

// TestLintImportedModuleErrorsOnce: docs/check.md prints each module's
// diagnostics once per command and docs/lint.md prints errors as check
// does, so a broken module two linted files import is reported once.
func TestLintImportedModuleErrorsOnce(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("pub fn a() {\n  nope()\n}\n"), 0o644)
	x, y := filepath.Join(dir, "x.harn"), filepath.Join(dir, "y.harn")
	os.WriteFile(x, []byte("import { a } from \"lib\"\n\na()\n"), 0o644)
	os.WriteFile(y, []byte("import { a } from \"lib\"\n\na()\n"), 0o644)
	_, errOut, code := runHarn("lint", x, y)
	if code != 1 || strings.Count(errOut, "nope") == 0 {
		t.Fatalf("exit %d, want 1 with the module's error:\n%s", code, errOut)
	}
	if n := strings.Count(errOut, "lib.harn:2:3"); n != 1 {
		t.Errorf("the module's error appears %d times, want once:\n%s", n, errOut)
	}
}

// TestLintFixReplacesTheFileWhole: `harn lint --fix` rewrites a script as
// `harn fmt` does, renaming a new file over it: a reader that opened the
// file before reads the whole original.
func TestLintFixReplacesTheFileWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tool.harn")
	src := "var x = 1\nprintln(x)\n"
	os.WriteFile(path, []byte(src), 0o644)
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, errOut, _ := runHarn("lint", "--fix", path); !strings.Contains(errOut, "fixed") {
		t.Fatalf("--fix fixed nothing:\n%s", errOut)
	}
	if old, _ := io.ReadAll(reader); string(old) != src {
		t.Errorf("a reader opened before --fix reads %q, want the original", old)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "let x = 1") {
		t.Errorf("not fixed: %s", b)
	}
}

// TestLintFixKeepsWindowsConventions: --fix rewrites a file with a byte
// order mark and CRLF line endings with both.
func TestLintFixKeepsWindowsConventions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "win.harn")
	os.WriteFile(path, []byte("\uFEFFvar x = 1\r\nprintln(x)\r\n"), 0o644)
	if _, errOut, code := runHarn("lint", "--fix", "--disable", "missing-doc", path); !strings.Contains(errOut, "fixed 1 finding") {
		t.Fatalf("--fix: exit %d:\n%s", code, errOut)
	}
	got, _ := os.ReadFile(path)
	if want := "\uFEFFlet x = 1\r\nprintln(x)\r\n"; string(got) != want {
		t.Errorf("--fix wrote %q, want %q", got, want)
	}
}
