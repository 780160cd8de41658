package interp

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/vm"
)

func newInteractive(t *testing.T) (*Interactive, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	s := NewSession(Options{Stdout: &out, Stderr: &out})
	return s.NewInteractive(t.TempDir()), &out
}

func evalAll(t *testing.T, in *Interactive, entries ...string) {
	t.Helper()
	for _, e := range entries {
		if err := in.Eval(e); err != nil {
			t.Fatalf("%q: %v", e, err)
		}
	}
}

func TestInteractivePersistsAcrossEntries(t *testing.T) {
	in, out := newInteractive(t)
	evalAll(t, in,
		"let n = 1",
		"fn show() { return n }",
		"n = 5",
		"show()",
		"const greeting = \"hi\"",
		"greeting + \"!\"",
		"enum Color { Red, Green }",
		"Color.Green",
		"struct P { x }",
		"P { x: 1, y: 2 }",
		"println(\"side effect\")",
		"nil",
		"1; 2",
	)
	want := "5\nhi!\nColor.Green\nP {x: 1}\nside effect\n1\n2\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestInteractiveStaticErrorChangesNothing(t *testing.T) {
	in, out := newInteractive(t)
	evalAll(t, in, "let a = 1")
	if err := in.Eval("let a = 2\nnot_a_function()"); err == nil {
		t.Fatal("want a static error")
	}
	evalAll(t, in, "a")
	if out.String() != "1\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestInteractiveRuntimeErrorKeepsEarlierWork(t *testing.T) {
	in, out := newInteractive(t)
	err := in.Eval("let b = 2\nlet z = 1 / 0\nlet c = 3")
	var e *vm.Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "Division by zero") {
		t.Fatalf("got %v", err)
	}
	evalAll(t, in, "b")
	if err := in.Eval("c"); err == nil || !strings.Contains(err.Error(), "Undefined variable: c") {
		t.Errorf("c should be unset, got %v", err)
	}
	if out.String() != "2\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestInteractiveImportsPersist(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"lib.harn": "let hits = 0\npub fn hit() {\n  hits += 1\n  return hits\n}\n",
	})
	var out bytes.Buffer
	in := NewSession(Options{Stdout: &out}).NewInteractive(dir)
	evalAll(t, in, `import { hit } from "lib"`, "hit()", "hit()")
	// Running an import again binds what it bound (docs/repl.md): the
	// module loaded once, so its state goes on.
	evalAll(t, in, `import "lib"`, `import { hit } from "lib"`, "hit()")
	if out.String() != "1\n2\n3\n" {
		t.Errorf("got %q", out.String())
	}
}

// TestInteractiveReimportOfOtherValueCollides: only an import that binds
// a name to the value it already has may run again; another module's
// function, or one the session declared, under that name still collides
// (docs/spec/language.md §11.3).
func TestInteractiveReimportOfOtherValueCollides(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.harn": "pub fn f() { return \"a\" }\n",
		"b.harn": "pub fn f() { return \"b\" }\n",
	})
	var out bytes.Buffer
	in := NewSession(Options{Stdout: &out}).NewInteractive(dir)
	evalAll(t, in, `import { f } from "a"`, `import * as ns from "a"`, `import * as ns from "a"`)
	for _, entry := range []string{`import { f } from "b"`, `import * as ns from "b"`} {
		if err := in.Eval(entry); err == nil || !strings.Contains(err.Error(), "Import collision") {
			t.Errorf("%s: want an import collision, got %v", entry, err)
		}
	}
	evalAll(t, in, `fn f() { return "own" }`)
	if err := in.Eval(`import { f } from "a"`); err == nil || !strings.Contains(err.Error(), "Import collision: 'f'") {
		t.Errorf("importing over the session's own f: want an import collision, got %v", err)
	}
	evalAll(t, in, "f()", "ns.f()")
	if out.String() != "own\na\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestInteractiveInterrupt(t *testing.T) {
	in, _ := newInteractive(t)
	done := make(chan error, 1)
	go func() { done <- in.Eval("let i = 0\nwhile true { i += 1 }") }()
	time.Sleep(50 * time.Millisecond)
	in.Interrupt()
	select {
	case err := <-done:
		var e *vm.Error
		if !errors.As(err, &e) || e.Kind != vm.KindCancelled {
			t.Fatalf("got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Interrupt did not stop the entry")
	}
	evalAll(t, in, "i > 0") // the session still works
}

func TestInteractiveTypeOf(t *testing.T) {
	in, _ := newInteractive(t)
	evalAll(t, in, "let n = 1", "fn f(x: int) -> string { return \"s\" }")
	for expr, want := range map[string]string{
		"n":         "int",
		"n + 0.5":   "float",
		"f(n)":      "string",
		"[1, 2]":    "list<int>",
		"f":         "fn(int) -> string",
		"\"a\" + n": "",
	} {
		got, err := in.TypeOf(expr)
		if want == "" {
			if err == nil {
				t.Errorf(":type %s: want an error, got %s", expr, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf(":type %s = %q, %v; want %q", expr, got, err, want)
		}
	}
	if _, err := in.TypeOf("missing"); err == nil {
		t.Error(":type of an undefined name should fail")
	}
	if names := strings.Join(in.Names(), " "); names != "f n" {
		t.Errorf("Names() = %q", names)
	}
}

func TestInteractiveRecoversFromFailedImports(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"bad.harn":  "import { nope } from \"good\"\npub fn bad() { return 1 }\n",
		"good.harn": "pub fn good() { return \"good\" }\n",
		"flaky.harn": `fn check() {
  throw "not yet"
}
let v = check()
pub fn flaky() { return v }
`,
	})
	var out bytes.Buffer
	in := NewSession(Options{Stdout: &out}).NewInteractive(dir)
	for i := 0; i < 2; i++ {
		if err := in.Eval(`import { bad } from "bad"`); err == nil || !strings.Contains(err.Error(), "does not exist in `good`") {
			t.Fatalf("attempt %d: got %v", i, err)
		}
	}
	evalAll(t, in, `import { good } from "good"`, "good()")
	for i := 0; i < 2; i++ {
		if err := in.Eval(`import { flaky } from "flaky"`); err == nil || !strings.Contains(err.Error(), "not yet") {
			t.Fatalf("attempt %d: got %v", i, err)
		}
	}
	if out.String() != "good\n" {
		t.Errorf("got %q", out.String())
	}
}

// An entry's imported module ran on a thread of its own that ended: it
// must not count as a thread that may still send, or no wait after an
// import is ever reported as a deadlock (docs/repl.md).
func TestInteractiveDeadlockAfterImport(t *testing.T) {
	in, _ := newInteractive(t)
	evalAll(t, in, `import { clamp } from "std/math"`)
	done := make(chan error, 1)
	go func() { done <- in.Eval("receive(channel(1))") }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "deadlock") {
			t.Fatalf("got %v, want the deadlock error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the receive hung: no deadlock reported after an import")
	}
}

// An entry is type-checked after the declarations of the earlier ones, as
// if the session were one script: a static error there changes nothing
// and is not reported again by later entries or :type (docs/repl.md).
func TestInteractiveChecksAgainstEarlierEntries(t *testing.T) {
	in, out := newInteractive(t)
	evalAll(t, in, `fn gg() -> string { return "s" }`, "let y: int = 3", "fn h(v: int) { return v }", "fn ff(a) { return a }")
	for entry, want := range map[string]string{
		"let r: int = gg()": "let binding `r`: expected int, found string",
		`y = "s"`:           "assignment to `y`: expected int, found string",
		`let bad = h("x")`:  "argument 1 `v`: expected int, found string",
	} {
		err := in.Eval(entry)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", entry, err, want)
		}
	}
	if w := in.Warnings(); len(w) != 0 {
		t.Errorf("warnings of rejected entries: %v", w)
	}
	evalAll(t, in, "ff(1, 2)")
	if w := in.Warnings(); len(w) != 1 || !strings.Contains(w[0].Msg, "expects 1 argument, got 2") {
		t.Errorf("arity warning of a call to an earlier function: %v", w)
	}
	evalAll(t, in, "y", "let zz = 5")
	for expr, want := range map[string]string{"zz": "int", "y + 1": "int", "gg()": "string"} {
		if got, err := in.TypeOf(expr); err != nil || got != want {
			t.Errorf(":type %s = %q, %v; want %q", expr, got, err, want)
		}
	}
	for _, name := range []string{"r", "bad"} {
		if err := in.Eval(name); err == nil || !strings.Contains(err.Error(), "Undefined variable: "+name) {
			t.Errorf("%s was bound by a rejected entry: %v", name, err)
		}
	}
	if out.String() != "1\n3\n" {
		t.Errorf("output %q", out.String())
	}
}

// What an earlier entry imports stays visible as in one script
// (docs/repl.md, "Persistence"): an imported enum builds and matches
// variants, also through a namespace, and an imported struct keeps its
// declared fields; a later declaration of the name replaces the import.
func TestInteractiveImportedTypesPersist(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"shapes.harn": "pub enum Shape { Circle(r), Square(s) }\npub struct Box { w: int }\n",
	})
	var out bytes.Buffer
	in := NewSession(Options{Stdout: &out}).NewInteractive(dir)
	evalAll(t, in,
		`import { Shape, Box } from "shapes"`,
		"Shape.Circle(1)",
		"match Shape.Square(2) { Shape.Circle(r) -> { r }, Shape.Square(s) -> { s * 10 } }",
		"Box { w: 1, extra: 2 }",
		`import * as ns from "shapes"`,
		"ns.Shape.Square(3)",
		"match ns.Shape.Circle(4) { ns.Shape.Circle(r) -> { r }, ns.Shape.Square(s) -> { s } }",
	)
	// variants of an imported enum must be qualified (docs/spec/newer.md §1.12)
	if err := in.Eval("match Shape.Circle(1) { Circle(r) -> { r }, Square(s) -> { s } }"); err == nil || !strings.Contains(err.Error(), "call target `Circle` is not defined") {
		t.Errorf("bare variants of an imported enum: got %v", err)
	}
	evalAll(t, in, "let Shape = 5", "Shape + 1")
	want := "Shape.Circle(1)\n20\nBox {w: 1}\nShape.Square(3)\n4\n6\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// Bare variant patterns (docs/spec/newer.md §1.12) name the variants of
// an enum an earlier entry declared, the latest declaration of it.
func TestInteractiveBareVariantsOfEarlierEnum(t *testing.T) {
	in, out := newInteractive(t)
	evalAll(t, in,
		"enum Light { Red, Amber(secs) }",
		"enum Light { Red, Amber(secs), Green }",
		"let l = Light.Amber(4)",
		"match l { Red -> { 0 }, Amber(s) -> { s }, Green -> { 1 } }",
		`fn say(l) { return match l { Red -> { "stop" }, Amber(s) -> { "wait ${s}" }, Green -> { "go" } } }`,
		"say(Light.Green)",
	)
	if out.String() != "4\ngo\n" {
		t.Errorf("got %q", out.String())
	}
}

// A tool declared by an earlier entry is a value later entries use; as in
// a script, calling it by name is an error that says how to call its
// handler (docs/spec/language.md §9.3).
func TestInteractiveToolAcrossEntries(t *testing.T) {
	in, out := newInteractive(t)
	evalAll(t, in, `tool tt(x: int) -> int { description "T"; x + 1 }`, "tool_list(tt).map({ t -> t.name })", "tool_count(tt)")
	if out.String() != "[tt]\n1\n" {
		t.Errorf("got %q", out.String())
	}
	if err := in.Eval("tt(1)"); err == nil || !strings.Contains(err.Error(), "`tt` is a tool declaration, which binds a tool registry, not a function") {
		t.Errorf("calling a tool by name: got %v", err)
	}
}

// Calls of functions an earlier entry imported are type-checked as in a
// script, selective and namespace imports alike (docs/repl.md, "Checking").
func TestInteractiveChecksImportedCalls(t *testing.T) {
	dir := writeFiles(t, map[string]string{"m.harn": "pub fn inc(x: int) -> int { return x + 1 }\n"})
	var out bytes.Buffer
	in := NewSession(Options{Stdout: &out}).NewInteractive(dir)
	evalAll(t, in, `import { inc } from "m"`, `import * as m from "m"`)
	for _, entry := range []string{`inc("s")`, `m.inc("s")`, `let n: string = inc(1)`} {
		if err := in.Eval(entry); err == nil || !strings.Contains(err.Error(), "found") {
			t.Errorf("%s: got %v, want a type error", entry, err)
		}
	}
	evalAll(t, in, "inc(1, 2)")
	if w := in.Warnings(); len(w) != 1 || !strings.Contains(w[0].Msg, "expects 1 argument, got 2") {
		t.Errorf("arity warning of a call to an earlier import: %v", w)
	}
	if got, err := in.TypeOf("inc(1)"); err != nil || got != "int" {
		t.Errorf(":type inc(1) = %q, %v", got, err)
	}
	// a later declaration of the name is what later entries check against
	evalAll(t, in, "fn inc(s: string) { return s }", `inc("ok")`)
	if out.String() != "2\nok\n" {
		t.Errorf("got %q", out.String())
	}
}

// An entry that declares a name twice makes two variables (a closure made
// between keeps the first), and the slots of both stay in place for the
// entries after it: the name's variable is the last one, and an entry
// declaring the name again reuses it.
func TestInteractiveRedeclarationInOneEntry(t *testing.T) {
	in, out := newInteractive(t)
	evalAll(t, in,
		"let x = 1; let early = { -> x }; let x = 2; let late = { -> x }",
		"println([early(), late(), x])",
		"x = 3",
		"println([early(), late(), x])",
		"let y = 10",
		"println([early(), late(), x, y])",
		"let x = 4",
		"println([early(), late(), x])",
	)
	want := "[1, 2, 2]\n[1, 3, 3]\n[1, 3, 3, 10]\n[1, 4, 4]\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
