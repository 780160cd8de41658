package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
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
		{[]string{good, bad}, 1, []string{"error[HARN-TYP-007]: let binding `n`: expected int, found string", "bad.harn:2:14", "2 | let n: int = \"five\"", "^"}},
		{[]string{filepath.Join(dir, "missing.harn")}, 1, []string{"cannot read"}},
		{[]string{dir}, 1, []string{"good.harn:4:9", "bad.harn:2:14"}},
		{[]string{good, "--strict"}, 2, []string{"error: unknown option --strict (did you mean \"--strict-types\"?)\n\nUsage: harn check [--strict-types] [PATH...]"}},
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

// With no PATH, harn check checks every .harn file under the working
// directory (subdirectories too, hidden ones and node_modules not).
func TestCheckWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"main.harn":                "println(1)\n",
		"lib/util.harn":            "pub fn f() { return \"x\" + 1 }\n",
		".hidden/skip.harn":        "let broken = \n",
		"node_modules/x/skip.harn": "let broken = \n",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	status := run([]string{"check"}, strings.NewReader(""), &stdout, &stderr)
	got := stderr.String()
	if status != 1 || !strings.Contains(got, filepath.Join("lib", "util.harn")+":1:") || strings.Contains(got, "skip.harn") {
		t.Errorf("harn check in a project: status %d\n%s", status, got)
	}
}

// TestWarningsMode: HARN_WARNINGS=error makes `harn check` and `harn run`
// fail on a warning (the program does not run); =off hides warnings.
func TestWarningsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.harn")
	src := "fn f(a) {\n  return a\n}\nprintln(\"ran\")\nprintln(f(1, 2))\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const warning = "Function 'f' expects 1 argument, got 2"
	cases := []struct {
		mode, cmd   string
		status      int
		stdout      string
		stderr      []string
		quietStderr bool
	}{
		{"", "run", 0, "ran\n1\n", []string{"warning: " + warning}, false},
		{"error", "run", 1, "", []string{"error: " + warning, "w.harn:5:9", "1 warning treated as error (HARN_WARNINGS=error)"}, false},
		{"off", "run", 0, "ran\n1\n", nil, true},
		{"error", "check", 1, "", []string{"error: " + warning, "1 warning treated as error"}, false},
		{"off", "check", 0, "", nil, true},
		{"errors", "run", 2, "", []string{"HARN_WARNINGS=errors: expected `error`, `off` or `warn`"}, false},
		{"errors", "check", 2, "", []string{"HARN_WARNINGS=errors"}, false},
	}
	for _, c := range cases {
		t.Setenv("HARN_WARNINGS", c.mode)
		var stdout, stderr bytes.Buffer
		status := run([]string{c.cmd, path}, strings.NewReader(""), &stdout, &stderr)
		label := "HARN_WARNINGS=" + c.mode + " harn " + c.cmd
		if status != c.status {
			t.Errorf("%s: status %d, want %d\n%s", label, status, c.status, stderr.String())
		}
		if stdout.String() != c.stdout {
			t.Errorf("%s: stdout %q, want %q", label, stdout.String(), c.stdout)
		}
		for _, w := range c.stderr {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%s: stderr lacks %q:\n%s", label, w, stderr.String())
			}
		}
		if c.quietStderr && stderr.Len() > 0 {
			t.Errorf("%s: stderr should be empty:\n%s", label, stderr.String())
		}
	}
}

// harn check prints every error but at most interp.MaxWarnings
// warnings, then counts the rest (issue 17 item 11).
func TestCheckCapsWarnings(t *testing.T) {
	var src strings.Builder
	src.WriteString("fn main() {\n")
	for i := 0; i < interp.MaxWarnings+3; i++ {
		fmt.Fprintf(&src, "  let v%d = 1\n", i)
	}
	src.WriteString("  let n: int = \"five\"\n}\n")
	p := filepath.Join(t.TempDir(), "w.harn")
	if err := os.WriteFile(p, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if status := run([]string{"check", p}, strings.NewReader(""), &stdout, &stderr); status != 1 {
		t.Errorf("status %d", status)
	}
	got := stderr.String()
	if n := strings.Count(got, "warning: "); n != interp.MaxWarnings || !strings.Contains(got, "error[HARN-TYP-007]: let binding `n`") ||
		!strings.HasSuffix(got, "… and 4 more warnings\n") {
		t.Errorf("%d warnings:\n%s", n, got[max(0, len(got)-600):])
	}
}

// TestCheckKnowsArgv: `harn run` defines argv, so `harn check` of a script
// that reads it must not warn (check and run agree on what is defined).
func TestCheckKnowsArgv(t *testing.T) {
	p := filepath.Join(t.TempDir(), "args.harn")
	if err := os.WriteFile(p, []byte("println(len(argv))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if status := run([]string{"check", p}, strings.NewReader(""), &stdout, &stderr); status != 0 || stderr.Len() > 0 {
		t.Errorf("harn check: status %d, stderr:\n%s", status, stderr.String())
	}
}

// TestCheckUnknownCallHidesNothing: a call to an undefined function is an
// error, and the file's type errors are still reported next to it.
func TestCheckUnknownCallHidesNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "many.harn")
	if err := os.WriteFile(p, []byte("foo()\nlet x: int = \"s\"\nbar()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if status := run([]string{"check", p}, strings.NewReader(""), &stdout, &stderr); status != 1 {
		t.Errorf("harn check: status %d, want 1", status)
	}
	for _, want := range []string{"call target `foo`", "let binding `x`: expected int, found string", "call target `bar`"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// writeTree writes files (slash-separated names) under a new directory
// and makes it the working directory.
func writeTree(t *testing.T, files map[string]string) {
	t.Helper()
	t.Chdir(writeFiles(t, files))
}

// writeFiles writes files (slash-separated names) under a new directory
// and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// harn run reports the warnings of the modules a program imports, as
// harn check does, and HARN_WARNINGS=error stops it on them
// (docs/check.md); a module imported twice warns once.
func TestRunReportsModuleWarnings(t *testing.T) {
	writeTree(t, map[string]string{
		"lib/warn.harn": "pub fn w() {\n  let unused_local = 1\n  return len(1, 2)\n}\n",
		"lib/also.harn": "import { w } from \"./warn\"\npub fn v() { return w() }\n",
		"mw.harn":       "import { w } from \"./lib/warn\"\nimport { v } from \"./lib/also\"\nprintln(w())\n",
	})
	_, check, _ := runHarn("check", "mw.harn")
	out, stderr, status := runHarn("run", "mw.harn")
	if status != 0 || out == "" || stderr != check {
		t.Errorf("harn run: status %d, stdout %q\nstderr:\n%s\nharn check printed:\n%s", status, out, stderr, check)
	}
	for _, w := range []string{"lib/warn.harn:2:7", "lib/warn.harn:3:10"} {
		if strings.Count(stderr, w) != 1 {
			t.Errorf("harn run: want %s once in stderr:\n%s", w, stderr)
		}
	}
	t.Setenv("HARN_WARNINGS", "error")
	out, stderr, status = runHarn("run", "mw.harn")
	if status != 1 || out != "" || !strings.Contains(stderr, "2 warnings treated as errors") {
		t.Errorf("HARN_WARNINGS=error harn run: status %d, stdout %q\n%s", status, out, stderr)
	}
}

// When the program and a module it imports both have static errors,
// harn run (a file or -e) reports both, as harn check does, module first.
func TestRunReportsEveryStaticError(t *testing.T) {
	writeTree(t, map[string]string{
		"lib/bad.harn": "pub fn e() {\n  let z: int = \"no\"\n  return z\n}\n",
		"me.harn":      "import { e } from \"./lib/bad\"\nlet q: string = 1\nprintln(e())\n",
	})
	_, check, _ := runHarn("check", "me.harn")
	_, stderr, status := runHarn("run", "me.harn")
	mod, main := strings.Index(stderr, "lib/bad.harn:2:16"), strings.Index(stderr, "me.harn:2:17")
	if status != 1 || stderr != check || mod < 0 || main < mod {
		t.Errorf("harn run: status %d\n%s\nharn check printed:\n%s", status, stderr, check)
	}
	src, _ := os.ReadFile("me.harn")
	_, stderr, status = runHarn("run", "-e", string(src))
	if status != 1 || !strings.Contains(stderr, "lib/bad.harn:2:16") || !strings.Contains(stderr, "<-e>:2:17") {
		t.Errorf("harn run -e: status %d\n%s", status, stderr)
	}
}

// A module several checked files import is reported once
// (docs/check.md).
func TestCheckSharedModuleOnce(t *testing.T) {
	importer := "import { e } from \"./lib/bad\"\nprintln(e())\n"
	writeTree(t, map[string]string{
		"lib/bad.harn": "pub fn e() {\n  let z: int = \"no\"\n  return z\n}\n",
		"a.harn":       importer,
		"b.harn":       importer,
	})
	for _, args := range [][]string{{"check"}, {"check", "a.harn", "b.harn"}} {
		_, stderr, status := runHarn(args...)
		if status != 1 || strings.Count(stderr, "lib/bad.harn:2:16") != 1 {
			t.Errorf("harn %v: status %d, want lib/bad.harn:2:16 once:\n%s", args, status, stderr)
		}
	}
}

// TestCheckStrictTypes: strict types (docs/check.md) is off by default,
// on with --strict-types or `[check] strict_types = true` in the
// harn.toml above the file, and a non-bool value there is an error.
func TestCheckStrictTypes(t *testing.T) {
	src := "let data = json_parse(\"{}\")\nprintln(data.name)\nif schema_is(data, {type: \"object\"}) {\n  println(data.name)\n}\n"
	want := "Direct property access `data.name` on unvalidated value 'data' from `json_parse` (strict types)"
	write := func(dir, name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write(t.TempDir(), "p.harn", src)
	if _, stderr, code := runHarn("check", plain); code != 0 || stderr != "" {
		t.Errorf("harn check without strict types: status %d\n%s", code, stderr)
	}
	_, stderr, code := runHarn("check", "--strict-types", plain)
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "p.harn:2:9") || strings.Contains(stderr, "p.harn:4:") {
		t.Errorf("harn check --strict-types: status %d\n%s", code, stderr)
	}
	project := t.TempDir()
	write(project, "harn.toml", "[package]\nname = \"p\"\n\n[check]\nstrict_types = true\n")
	if err := os.Mkdir(filepath.Join(project, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	inProject := write(filepath.Join(project, "src"), "main.harn", src)
	if _, stderr, code := runHarn("check", inProject); code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("harn check under [check] strict_types = true: status %d\n%s", code, stderr)
	}
	bad := t.TempDir()
	write(bad, "harn.toml", "[check]\nstrict_types = \"yes\"\n")
	badFile := write(bad, "main.harn", src)
	if _, stderr, code := runHarn("check", badFile); code != 1 || !strings.Contains(stderr, "[check]: strict_types must be true or false") {
		t.Errorf("harn check under a bad strict_types: status %d\n%s", code, stderr)
	}
}

// `harn check -` checks the program on standard input, named <stdin>.
func TestCheckStandardInput(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"check", "-"}, strings.NewReader("println(1)\n"), &stdout, &stderr)
	if code != 0 || stderr.Len() != 0 {
		t.Errorf("a clean program: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	code = run([]string{"check", "-", "-"}, strings.NewReader("let n: int = \"x\"\nprintln(n)\n"), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "--> <stdin>:1:14") || strings.Count(stderr.String(), "error") != 1 {
		t.Errorf("a type error, stdin named twice: exit %d, stderr %q", code, stderr.String())
	}
}

// A module that does not parse fails with one message in both commands
// (docs/spec/language.md §11.1, docs/modules.md): harn run reports it as
// the run-time error the spec makes import failures (§8.2, §12.2:
// `Runtime error: ` and the importing line), harn check, which runs
// nothing, as a plain error; the text between is the same, and both
// point into the module.
func TestImportParseErrorRunAndCheck(t *testing.T) {
	writeTree(t, map[string]string{
		"lib/broken.harn": "pub fn f() { return 1 +  }\n",
		"main.harn":       "import { f } from \"./lib/broken\"\nprintln(f())\n",
	})
	const msg = "Import parse error: Expected expression, got } at 1:26"
	_, check, status := runHarn("check", "main.harn")
	if status != 1 || !strings.HasPrefix(check, "error: "+msg+"\n  --> lib/broken.harn:1:26\n") || strings.Contains(check, "Runtime error") {
		t.Errorf("harn check: status %d\n%s", status, check)
	}
	out, run, status := runHarn("run", "main.harn")
	if status != 1 || out != "" || !strings.HasPrefix(run, "error: Runtime error: "+msg+" (line 1)\n  --> lib/broken.harn:1:26\n") {
		t.Errorf("harn run: status %d, stdout %q\n%s", status, out, run)
	}
}
