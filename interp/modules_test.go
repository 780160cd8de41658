package interp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// writeFiles creates files (name → text) under a new temporary directory.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runFile runs dir/main.harn and returns its stdout and error.
func runFile(t *testing.T, dir string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	s := NewSession(Options{Stdout: &out, Stderr: &out})
	m, err := s.LoadFile(filepath.Join(dir, "main.harn"))
	if err != nil {
		return out.String(), err
	}
	_, err = s.Run(m)
	return out.String(), err
}

func TestModuleInitialisedOncePerSession(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.harn": `import { a } from "a"
import { b } from "sub/b"
println(a() + b())
`,
		"a.harn": `import { tick } from "sub/counter"
pub fn a() { return tick() }
`,
		"sub/b.harn": `import { tick } from "./counter"
pub fn b() { return tick() }
`,
		"sub/counter.harn": `fn announce() {
  println("counter loaded")
  return 0
}
let n = announce()
pub fn tick() {
  n += 1
  return n
}
`,
	})
	out, err := runFile(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if out != "counter loaded\n3\n" {
		t.Errorf("got %q", out)
	}
}

func TestCycleAcrossThreeModules(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.harn": `import { a } from "a"
println(a(5))
`,
		"a.harn": `import { b } from "b"
pub fn a(n) { return n <= 0 ? "a" : b(n - 1) }
`,
		"b.harn": `import { c } from "c"
pub fn b(n) { return n <= 0 ? "b" : c(n - 1) }
`,
		"c.harn": `import { a } from "a"
pub fn c(n) { return n <= 0 ? "c" : a(n - 1) }
`,
	})
	out, err := runFile(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if out != "c\n" {
		t.Errorf("got %q", out)
	}
}

func TestPubImportCycleNamesModules(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.harn": `import "a"
`,
		"a.harn": `import "b"
pub fn a() { return 1 }
`,
		"b.harn": `pub import "c"
`,
		"c.harn": `import "a"
pub fn c() { return 1 }
`,
	})
	_, err := runFile(t, dir)
	e, ok := err.(*vm.Error)
	if !ok {
		t.Fatalf("want a run-time load error, got %v", err)
	}
	for _, name := range []string{"a.harn", "b.harn", "c.harn"} {
		if !strings.Contains(e.Msg, name) {
			t.Errorf("message %q does not name %s", e.Msg, name)
		}
	}
}

func TestImportErrorNamesBothFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.harn": "import { helper } from \"./lib\"\n",
		"lib.harn":  "fn helper() { return 1 }\n",
	})
	s := NewSession(Options{})
	_, err := s.LoadFile(filepath.Join(dir, "main.harn"))
	list, ok := err.(diag.List)
	if !ok || len(list) != 1 {
		t.Fatalf("want one diagnostic, got %v", err)
	}
	d := list[0]
	if d.Code != "HARN-IMP-002" || d.Line != 1 || d.Col != 10 || !strings.HasSuffix(d.File, "main.harn") {
		t.Errorf("diagnostic at %s:%d:%d code %s", d.File, d.Line, d.Col, d.Code)
	}
	if len(d.Notes) != 1 || !strings.HasSuffix(d.Notes[0].File, "lib.harn") || d.Notes[0].Line != 1 || d.Notes[0].Col != 4 {
		t.Fatalf("note should point at lib.harn:1:4, got %+v", d.Notes)
	}
	text := s.RenderError(err)
	for _, want := range []string{"main.harn:1:10", "lib.harn:1:4", "fn helper()"} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered error lacks %q:\n%s", want, text)
		}
	}
}

func TestCheckFileGoesOnAfterErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.harn": `import { gone } from "missing"
import { hidden } from "lib"
import { ok } from "lib"
println(ok())
`,
		"lib.harn": `fn hidden() { return 1 }
pub fn ok() { return 2 }
let unused_typo: int = "x"
`,
	})
	s := NewSession(Options{})
	diags, err := s.CheckFile(filepath.Join(dir, "main.harn"))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, d.Msg)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"Import error: cannot read", "not exported by `lib`", "expected int, found string"} {
		if !strings.Contains(all, want) {
			t.Errorf("CheckFile diagnostics lack %q:\n%s", want, all)
		}
	}
}

func TestStdModulePreparedOncePerProcess(t *testing.T) {
	saved := stdSource
	defer func() { stdSource = saved }()
	stdSource = func(name string) ([]byte, bool) {
		switch name {
		case "testonly_a":
			return []byte("import { twice } from \"std/testonly_b\"\npub fn quad(x) { return twice(twice(x)) }\n"), true
		case "testonly_b":
			return []byte("pub fn twice(x) { return x * 2 }\n"), true
		}
		return saved(name)
	}
	dir := writeFiles(t, map[string]string{"main.harn": "import \"std/testonly_a\"\nprintln(quad(3))\n"})
	var progs []any
	for i := 0; i < 2; i++ {
		var out bytes.Buffer
		s := NewSession(Options{Stdout: &out})
		m, err := s.LoadFile(filepath.Join(dir, "main.harn"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(m); err != nil {
			t.Fatal(err)
		}
		if out.String() != "12\n" {
			t.Errorf("run %d printed %q", i, out.String())
		}
		progs = append(progs, m.Imports[0].Module.Program)
	}
	if progs[0] != progs[1] {
		t.Error("std/testonly_a was compiled twice")
	}
}

func TestOSErrorText(t *testing.T) {
	_, err := os.ReadFile(filepath.Join(t.TempDir(), "nope.harn"))
	if got := stdlib.OSErrorText(err); got != "No such file or directory (os error 2)" {
		t.Errorf("got %q", got)
	}
}

// project writes a synthetic project of about lines lines: an entry that
// imports every module, each module importing the previous one.
func project(t testing.TB, modules, fnsPerModule int) (dir string, lines int) {
	files := map[string]string{}
	var main strings.Builder
	for i := 0; i < modules; i++ {
		var b strings.Builder
		if i > 0 {
			fmt.Fprintf(&b, "import { m%d_f0 } from \"./m%d\"\n", i-1, i-1)
		}
		fmt.Fprintf(&b, "let state_%d = 0\n", i)
		for j := 0; j < fnsPerModule; j++ {
			fmt.Fprintf(&b, `/// Function %d of module %d.
pub fn m%d_f%d(x: int, ys: list<int>) -> int {
  let total = x
  for y in ys {
    if y > %d {
      total += y * 2
    } else {
      total -= 1
    }
  }
  let d = {name: "m%d", n: total}
  state_%d += 1
  return total + len(d.name)
}
`, j, i, i, j, j, i, i)
		}
		if i > 0 {
			fmt.Fprintf(&b, "pub fn chain_%d() { return m%d_f0(1, [1, 2]) }\n", i, i-1)
		}
		text := b.String()
		lines += strings.Count(text, "\n")
		files[fmt.Sprintf("m%d.harn", i)] = text
		fmt.Fprintf(&main, "import { m%d_f0 } from \"./m%d\"\n", i, i)
	}
	main.WriteString("println(m0_f0(1, [1, 2, 3]))\n")
	files["main.harn"] = main.String()
	lines += strings.Count(main.String(), "\n")
	return writeFiles(t, files), lines
}

// TestLoadingLargeProject checks a 5,000-line project of 26 modules
// without errors. Its speed (budget 100 ms) is measured by
// BenchmarkCheckProject5000Lines, not asserted here: a wall-clock limit
// fails on a loaded machine.
func TestLoadingLargeProject(t *testing.T) {
	dir, lines := project(t, 25, 15)
	if lines < 5000 {
		t.Fatalf("project has only %d lines", lines)
	}
	start := time.Now()
	s := NewSession(Options{})
	diags, err := s.CheckFile(filepath.Join(dir, "main.harn"))
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diags {
		if d.Severity == diag.SevError {
			t.Fatalf("unexpected error: %s", d)
		}
	}
	t.Logf("checked %d lines in %d modules in %v", lines, len(s.Modules()), elapsed)
}

func BenchmarkCheckProject5000Lines(b *testing.B) {
	dir, _ := project(b, 25, 15)
	path := filepath.Join(dir, "main.harn")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := NewSession(Options{})
		if _, err := s.CheckFile(path); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCheckImportedCallees: `harn check` types calls of imported functions
// with their module's signatures (docs/spec/language.md §9.2), including
// across an import cycle, where the other module is not typed yet.
func TestCheckImportedCallees(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.harn": `import { clamp } from "std/math"
import * as a from "a"
import { twice } from "b"
clamp(1, 2)
a.hello(1)
twice(1, 2)
`,
		"a.harn": `import { twice } from "b"
pub fn hello() { return twice(1) }
`,
		"b.harn": `import { hello } from "a"
pub fn twice(n: int) { return n * 2 }
pub fn greet() { return hello(1, 2) }
`,
	})
	diags, err := NewSession(Options{}).CheckFile(filepath.Join(dir, "main.harn"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%s:%d %s", filepath.Base(d.File), d.Line, d.Msg))
	}
	want := []string{
		"main.harn:4 Function 'clamp' expects at least 3 arguments, got 2",
		"main.harn:5 Function 'a.hello' expects 0 arguments, got 1",
		"main.harn:6 Function 'twice' expects 1 argument, got 2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMissingSymbolNote: the note of HARN-IMP-002 for a symbol a module
// lacks names a user module's file, but a std module only once.
func TestMissingSymbolNote(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.harn": "import { nope } from \"std/math\"\nimport { gone } from \"./lib\"\n",
		"lib.harn":  "pub fn here() { return 1 }\n",
	})
	diags, err := NewSession(Options{}).CheckFile(filepath.Join(dir, "main.harn"))
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, d := range diags {
		for _, n := range d.Notes {
			notes = append(notes, n.Msg)
		}
	}
	want := []string{
		"`std/math` exports `argsort`, `avg`, `chebyshev_distance`, `clamp`",
		"`./lib` is " + filepath.Join(dir, "lib.harn") + ", which exports `here`",
	}
	if len(notes) != len(want) {
		t.Fatalf("notes %q, want %d", notes, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(notes[i], w) {
			t.Errorf("note %d = %q, want it to start with %q", i, notes[i], w)
		}
	}
}

// TestMissingSymbolSuggestion: a selective import of a misspelt name is
// offered the closest export.
func TestMissingSymbolSuggestion(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.harn": "import { quarterr } from \"std/calendar\"\nimport { gone } from \"./lib\"\n",
		"lib.harn":  "pub fn here() { return 1 }\n",
	})
	diags, err := NewSession(Options{}).CheckFile(filepath.Join(dir, "main.harn"))
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 2 {
		t.Fatalf("diagnostics %v", diags)
	}
	if diags[0].Help != "did you mean `quarter`?" {
		t.Errorf("help = %q, want the close export", diags[0].Help)
	}
	if diags[1].Help != "update the import to a symbol exported by `./lib`" {
		t.Errorf("help = %q, want the generic help when no export is close", diags[1].Help)
	}
}

// TestPubImportNamespaceReexported: `pub import * as ns` re-exports the
// namespace it binds (docs/spec/language.md §11.1), not the members.
func TestPubImportNamespaceReexported(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.harn": "import * as m from \"mid\"\nimport { b } from \"mid\"\nprintln(m.b.hi() + b.hi())\n",
		"mid.harn":  "pub import * as b from \"base\"\n",
		"base.harn": "pub fn hi() { return \"hi\" }\n",
	})
	out, err := runFile(t, dir)
	if err != nil || out != "hihi\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	s := NewSession(Options{})
	m, err := s.LoadModule(filepath.Join(dir, "mid.harn"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Exports(); len(got) != 1 || got[0] != "b" {
		t.Errorf("exports of mid = %v, want [b]", got)
	}
}
