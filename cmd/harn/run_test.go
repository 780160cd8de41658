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
	out, code := runShared(t, "print(\"a\")\nprintln(\"b\")\nif true { exit(3) }\nprintln(\"never\")\n")
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

// TestRunDeepRecursion: 9,000 nested Harn calls work, and so do 9,000
// frames of callbacks that recurse through a builtin on the Go stack.
func TestRunDeepRecursion(t *testing.T) {
	src := `fn f(n) {
  if n == 0 { return 0 }
  return 1 + f(n - 1)
}
println(f(9000))
fn g(n) {
  if n == 0 { return 0 }
  return [n].map({ x -> g(x - 1) })[0] + 1
}
println(g(4500))
`
	out, code := runShared(t, src)
	if code != 0 || out != "9000\n4500\n" {
		t.Fatalf("status %d output:\n%s", code, out)
	}
}

// TestRunStackOverflowTrace: running past the limit is a Harn error whose
// stack trace collapses the repeated frames.
func TestRunStackOverflowTrace(t *testing.T) {
	out, code := runShared(t, "fn f(n) {\n  return 1 + f(n + 1)\n}\nf(0)\n")
	if code != 1 {
		t.Fatalf("status %d output:\n%s", code, out)
	}
	for _, want := range []string{
		"Stack overflow: too many nested calls",
		"  at f (", "p.harn:2)\n  [repeated 9,998 more times]\n  at <top level> (",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n > 20 {
		t.Fatalf("trace not collapsed (%d lines)", n)
	}
}

// TestRunClosureFrameNamed: a failing callback's frame reads <closure>,
// not <top level>, in the stack trace.
func TestRunClosureFrameNamed(t *testing.T) {
	out, code := runShared(t, "fn a(x) {\n  let y = x.map({ v -> 10 / v })\n  return y\n}\nprintln(a([1, 0]))\n")
	if code != 1 {
		t.Fatalf("status %d output:\n%s", code, out)
	}
	want := "p.harn:2)\n  at a ("
	if !strings.Contains(out, "  at <closure> (") || !strings.Contains(out, want) || strings.Count(out, "<top level>") != 1 {
		t.Fatalf("closure frame not named in:\n%s", out)
	}
}

// TestRunDeepCallbackOverflow: overflowing through thousands of nested
// callbacks is a catchable error with a bounded message, not a Go crash.
func TestRunDeepCallbackOverflow(t *testing.T) {
	src := `fn g(n) {
  return [n].map({ x -> g(x + 1) })[0]
}
let r = try { g(0) } catch (e) { e }
println(len(r) < 200)
println(r.starts_with("Runtime error: Stack overflow: too many nested calls (line 2)"))
`
	out, code := runShared(t, src)
	if code != 0 || out != "true\ntrue\n" {
		t.Fatalf("status %d output:\n%s", code, out)
	}
}

// TestRunProgramResultExitStatus: the program result decides the exit
// status (docs/spec/language.md §12.3, docs/spec/newer.md §2.24): an int is
// clamped to 0…255, any other value exits 0, and pipeline_on_finish may
// replace the entry pipeline's result first.
func TestRunProgramResultExitStatus(t *testing.T) {
	cases := []struct {
		name, src string
		want      int
	}{
		{"pipeline return", "pipeline default() {\n  return 7\n}\n", 7},
		{"pipeline last expression", "pipeline default() {\n  42\n}\n", 42},
		{"clamped high", "pipeline default() {\n  return 300\n}\n", 255},
		{"clamped low", "pipeline default() {\n  return -5\n}\n", 0},
		{"non-int result", "pipeline default() {\n  return \"text\"\n}\n", 0},
		{"on_finish replaces", "pipeline default() {\n  pipeline_on_finish(fn(h, rv) { return rv + 1 })\n  return 3\n}\n", 4},
		{"top-level return", "return 4\n", 4},
		{"main result", "fn main(harness: Harness) {\n  return 9\n}\n", 9},
	}
	for _, c := range cases {
		if out, code := runShared(t, c.src); code != c.want {
			t.Errorf("%s: status %d, want %d\n%s", c.name, code, c.want, out)
		}
	}
}

// `harn run DIR` runs DIR/main.harn (what harn init writes); a directory
// without one, and a missing file, are clear errors.
func TestRunDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.harn"), []byte(`println("from main")`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"run", dir}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != "from main\n" {
		t.Errorf("harn run DIR: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	empty := t.TempDir()
	for arg, want := range map[string]string{
		empty:                             "error: " + empty + " is a directory without a main.harn; name the file to run\n",
		filepath.Join(empty, "nope.harn"): "error: cannot read " + filepath.Join(empty, "nope.harn") + ": No such file or directory (os error 2)\n",
	} {
		out.Reset()
		errb.Reset()
		if code := run([]string{"run", arg}, strings.NewReader(""), &out, &errb); code != 1 || errb.String() != want {
			t.Errorf("harn run %s: exit %d, stderr %q, want %q", arg, code, errb.String(), want)
		}
	}
}

// TestRunParseErrorsReworded: `harn run` prints every parse error in the
// reworded form (docs/spec/language.md §12.2), also those whose "got" is
// no single token: an attribute before a statement and the nesting limit.
func TestRunParseErrorsReworded(t *testing.T) {
	deep := "let x = " + strings.Repeat("(", 65) + "1" + strings.Repeat(")", 65) + "\n"
	for src, want := range map[string]string{
		"@deprecated\nlet x = 1\n": "error: expected fn/tool/skill/pipeline/struct/enum/type/interface/impl declaration after `@attr`, found non-declaration statement",
		deep:                       "error: expected parser nesting depth within 64 levels, found parenthesized expression nesting depth exceeded",
	} {
		out, code := runShared(t, src)
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("status %d output %q, want 1 and %q", code, out, want)
		}
	}
}

// TestRunCompileErrorFormat: a compile error reads `compile error: Compile
// error at line N: <message>` (docs/spec/language.md §12.2).
func TestRunCompileErrorFormat(t *testing.T) {
	out, code := runShared(t, "println(\"a\")\nbreak\n")
	want := "error: compile error: Compile error at line 2: break outside of loop"
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("status %d output %q, want 1 and %q", code, out, want)
	}
}

// TestRunUnknownOption: an unknown option before FILE is a usage error
// (exit 2, docs/version.md) in `harn run` and `harn tool run`, not a file
// to read; `--` ends the options, and what follows FILE stays the
// script's (docs/run.md).
func TestRunUnknownOption(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "args.harn")
	if err := os.WriteFile(file, []byte("println(argv)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"run"}, {"tool", "run"}} {
		var out, errb bytes.Buffer
		args := append(append([]string{}, cmd...), "--bogus", file)
		if code := run(args, strings.NewReader(""), &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), "error: unknown option --bogus\n") {
			t.Errorf("harn %s --bogus FILE: exit %d, stderr %q", strings.Join(cmd, " "), code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"run", "--", file, "--bogus", "-x"}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != "[--bogus, -x]\n" {
		t.Errorf("harn run -- FILE --bogus -x: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestMissingFileWording: every command that reads a FILE reports a
// missing one in the same words (stdlib.OSErrorText), not Go's
// "open X: no such file or directory" in some of them.
func TestMissingFileWording(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.harn")
	other := filepath.Join(dir, "other.harn")
	if err := os.WriteFile(other, []byte("println(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "cannot read " + missing + ": No such file or directory (os error 2)"
	for _, args := range [][]string{
		{"run", missing}, {"check", missing}, {"fmt", missing}, {"lint", missing},
		{"tool", "run", missing}, {"tool", "schema", missing}, {"tool", "diff", missing, other},
		{"serve", "mcp", missing},
	} {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		if code == 0 || !strings.Contains(errb.String(), want) {
			t.Errorf("harn %s: exit %d, stderr %q, want it to hold %q", strings.Join(args, " "), code, errb.String(), want)
		}
	}
}

// An undefined call target is reported at the called name, like every
// other run-time error at its failing sub-expression (docs/run.md), in
// a program and in a module's initialiser.
func TestRunUndefinedCalleePosition(t *testing.T) {
	out, code := runShared(t, "println(lenn([1]))\nfn lenn(x) { return 1 }\n")
	if code != 1 || !strings.Contains(out, "Undefined builtin: lenn") || !strings.Contains(out, "p.harn:1:9\n") {
		t.Errorf("status %d\n%s", code, out)
	}
	writeTree(t, map[string]string{
		"lib/mi.harn": "pub let W = throw_it()\npub fn throw_it() { return 1 }\n",
		"mi.harn":     "import { W } from \"./lib/mi\"\nprintln(W)\n",
	})
	_, stderr, code := runHarn("run", "mi.harn")
	if code != 1 || !strings.Contains(stderr, "--> lib/mi.harn:1:13\n") {
		t.Errorf("module initialiser: status %d\n%s", code, stderr)
	}
}

// Alternating recursion (f calling a callback calling f) overflows with
// a trace that folds the repeated cycle of frames (docs/run.md) instead
// of printing ten thousand lines.
func TestRunAlternatingRecursionTrace(t *testing.T) {
	out, code := runShared(t, "fn f(n) {\n  return [n].map({ x -> f(x + 1) })\n}\nf(0)\n")
	if code != 1 || !strings.Contains(out, "  at f (") || !strings.Contains(out, "  at <closure> (") ||
		!strings.Contains(out, "  [the 2 frames above repeated 4,998 more times]\n") || len(out) > 2000 {
		t.Errorf("status %d, %d bytes:\n%.3000s", code, len(out), out)
	}
}

// TestRunStandardInput: `harn run -` runs the program read from standard
// input, named <stdin> in reports, with the arguments after the `-`.
func TestRunStandardInput(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "-", "a", "b"}, strings.NewReader("println(argv)\n"), &stdout, &stderr)
	if code != 0 || stdout.String() != "[a, b]\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"run", "-"}, strings.NewReader("let x = \n"), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "--> <stdin>:") {
		t.Errorf("a parse error: exit %d, stderr %q", code, stderr.String())
	}
}
