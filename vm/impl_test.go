package vm_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/vm"
)

// runError compiles and runs src and returns stdout and the uncaught
// failure (nil when none).
func runError(t *testing.T, src string) (string, *vm.Error) {
	t.Helper()
	f, err := syntax.Parse("t.harn", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	u := testUniverse()
	info := resolve.File(f, resolve.Options{Universe: u})
	prog, err := compiler.Compile(f, info)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	machine := vm.New(u)
	var out bytes.Buffer
	machine.Stdout = &out
	_, err = machine.NewThread().RunModule(machine.NewModule(prog))
	if err == nil {
		return out.String(), nil
	}
	return out.String(), err.(*vm.Error)
}

// errorCase is a program (after a shared prelude), the stdout it prints
// and the description of its uncaught failure ("" for none).
type errorCase struct{ name, src, out, err string }

// runErrorCases runs each case's src after prelude as a subtest.
func runErrorCases(t *testing.T, prelude string, cases []errorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, e := runError(t, prelude+c.src)
			got := ""
			if e != nil {
				got = describe(e)
			}
			if out != c.out || got != c.err {
				t.Errorf("got\n  out %q\n  err %q\nwant\n  out %q\n  err %q", out, got, c.out, c.err)
			}
		})
	}
}

// describe renders what a failure carries: its text, position and trace.
func describe(e *vm.Error) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s @%d:%d", e.UncaughtText(), e.Line, e.Col)
	for _, fr := range e.Trace {
		fmt.Fprintf(&sb, " | %s %s:%d:%d", fr.Func, fr.File, fr.Line, fr.Col)
	}
	return sb.String()
}

const implSrc = `struct P { x: int }
impl P {
  fn div(self, k) {
    return self.x / k
  }
  fn twice(self, k) {
    return self.div(k) * 2
  }
  fn boom(self) {
    throw "boom ${self.x}"
  }
}
let p = P { x: 4 }
`

// Failures inside impl methods keep their message, line and column, and
// the call site's line, whether the method runs for the first time or
// through a call site that already ran it (a warmed cache).
func TestImplMethodErrors(t *testing.T) {
	cases := []errorCase{
		{"first call", "p.div(0)",
			"",
			"Runtime error: Division by zero (line 4) (line 14) @14:1 | div t.harn:4:19 |  t.harn:14:1"},
		{"second call at one site", "for k in [2, 0] { println(p.div(k)) }",
			"2\n",
			"Runtime error: Division by zero (line 4) (line 14) @14:27 | div t.harn:4:19 |  t.harn:14:27"},
		{"nested methods", "for k in [1, 0] { println(p.twice(k)) }",
			"8\n",
			"Runtime error: Division by zero (line 4) (line 7) (line 14) @14:27 | div t.harn:4:19 | twice t.harn:7:12 |  t.harn:14:27"},
		{"thrown", "for i in [1, 2] { try { p.boom() } catch (e) { println(e) } }\np.boom()",
			"boom 4\nboom 4\n",
			"Thrown: boom 4 @0:0 | boom t.harn:10:5 |  t.harn:15:1"},
		{"caught runtime error", "for k in [0, 0] { try { p.div(k) } catch (e) { println(e) } }",
			"Runtime error: Division by zero (line 4)\nRuntime error: Division by zero (line 4)\n", ""},
		{"missing method", "for i in [1, 2] { p.nope() }",
			"",
			"Runtime error: value of type struct has no method `nope` (line 14) @14:19 |  t.harn:14:19"},
		{"arity", "for i in [1, 2] { println(p.div()) }",
			"",
			"Runtime error: Cannot divide int by nil (line 4) (line 14) @14:27 | div t.harn:4:19 |  t.harn:14:27"},
	}
	runErrorCases(t, implSrc, cases)
}

// An impl block is looked up like a variable in the calling code's
// scopes (docs/spec/language.md §10.3): a function sees only the impls created
// before it, a nested scope's impl replaces the outer one inside that
// scope only, and an impl block that runs again replaces its methods, also
// for call sites that already called the old ones.
func TestImplScopes(t *testing.T) {
	src := `struct P { x: int }
let p = P { x: 1 }
fn early() { return p.name() }
impl P { fn name(self) { return "top" } }
fn show() { return p.name() }
println([early(), show(), p.name()])
if true {
  impl P { fn name(self) { return "inner" } }
  println([early(), show(), p.name()])
}
fn local(tag) {
  impl P { fn name(self) { return tag } }
  return p.name()
}
println([local("a"), local("b"), p.name()])
if true {
  impl P { fn other(self) { return "other" } }
  try { p.name() } catch (e) { println(e) }
}
fn make_probe() {
  impl P { fn other(self) { return "other" } }
  return { -> p.name() }
}
let probe = make_probe()
if true { impl P { fn name(self) { return "later" } } }
try { probe() } catch (e) { println(e) }
`
	out, e := runError(t, src)
	want := "[nil, top, top]\n[nil, top, inner]\n[a, b, top]\nRuntime error: value of type struct has no method `name`\n" +
		"Runtime error: value of type struct has no method `name`\n"
	if e != nil || out != want {
		t.Errorf("got %q (%v), want %q", out, e, want)
	}
}

// A method call site that sees receivers of different kinds answers each
// the way it would answer it alone.
func TestMethodSiteSeesManyReceivers(t *testing.T) {
	src := `struct A { v: int }
struct B { v: int }
impl A { fn get(self) { return "A${self.v}" } }
impl B { fn get(self) { return "B${self.v}" } }
let d = { get: { -> "dict" } }
for x in [A { v: 1 }, B { v: 2 }, A { v: 3 }, d, B { v: 4 }] {
  println(x.get())
  println(x.v)
}
`
	out, e := runError(t, src)
	want := "A1\n1\nB2\n2\nA3\n3\ndict\nnil\nB4\n4\n"
	if e != nil || out != want {
		t.Errorf("got %q (%v), want %q", out, e, want)
	}
}

// A method whose last act is a call (a tail call) still reports the
// failure of that call as leaving a method.
func TestImplMethodTailCall(t *testing.T) {
	src := `fn divide(a, b) { return a / b }
struct P { x: int }
impl P { fn via(self, k) { return divide(self.x, k) } }
let p = P { x: 6 }
for k in [3, 0] { println(p.via(k)) }
`
	out, e := runError(t, src)
	got := ""
	if e != nil {
		got = describe(e)
	}
	want := "Runtime error: Division by zero (line 1) (line 5) @5:27 | divide t.harn:1:28 | via t.harn:3:35 |  t.harn:5:27"
	if out != "2\n" || got != want {
		t.Errorf("got %q %q, want %q", out, got, want)
	}
}

// A property read site answers for structs of any layout and for field
// names that are not the program's own strings (a struct made in Go), and
// an impl method finds such a struct too.
func TestFieldSiteSeesManyLayouts(t *testing.T) {
	src := `struct R { w: int, h: int }
struct S { h: int }
impl R { fn area(self) { return self.w * self.h } }
for x in [R { w: 1, h: 2 }, gostruct(), S { h: 3 }, gostruct(), R { w: 4, h: 5 }] {
  println(x.h)
  println(x.w)
}
for x in [gostruct(), R { w: 2, h: 3 }, gostruct()] { println(x.area()) }
`
	out, e := runError(t, src)
	want := "2\n1\n20\n10\n3\nnil\n20\n10\n5\n4\n200\n6\n200\n"
	if e != nil || out != want {
		t.Errorf("got %q (%v), want %q", out, e, want)
	}
}

// A method frame has no callee slot: its result replaces the receiver,
// so values the caller stacked below the call stay where they were, on
// return and when a failure inside is caught.
func TestMethodFrameKeepsCallerOperands(t *testing.T) {
	src := `struct P { x: int }
impl P {
  fn get(self, k) { return self.x + k }
  fn bad(self) { return self.x / 0 }
}
fn f(p) {
  var out = []
  for i in [1, 2] {
    out = out + [[10, p.get(i), 20 + p.get(i) * 2]]
    try { out = out + [100 + p.bad()] } catch (e) { out = out + [-i] }
  }
  return out
}
println(f(P { x: 1 }))
`
	out, e := runError(t, src)
	want := "[[10, 2, 24], -1, [10, 3, 26], -2]\n"
	if e != nil || out != want {
		t.Errorf("got %q (%v), want %q", out, e, want)
	}
}

// A method called with no arguments on a local (LOCAL_CALL_METHOD, and
// LOCALS_CALL_METHOD after another local) fails as CALL_METHOD did, on
// the first call and through a warmed site: the same message, position
// and trace.
func TestLocalMethodCallErrors(t *testing.T) {
	fns := `struct Q { x: int }
impl Q { fn inv(self) { return 10 / self.x } }
fn each(xs) {
  var out = []
  for x in xs {
    let v = x.inv()
    out = out.push(v)
  }
  return out
}
fn size(x) { return x.reverse() }
`
	// v + x.m() (LOCALS_CALL_METHOD)
	sum := "fn sum(xs) {\n  var t = 0\n  for x in xs { t = t + x.inv() }\n  return t\n}\n"
	cases := []errorCase{
		{"error on the second call", "println(each([Q { x: 5 }, Q { x: 2 }]))\nprintln(each([Q { x: 1 }, Q { x: 0 }]))",
			"[2, 5]\n",
			"Runtime error: Division by zero (line 15) (line 19) @19:13 | inv t.harn:15:35 | each t.harn:19:13 |  t.harn:26:9"},
		{"thrown", "fn bang(x) { return x.boom() }\nbang(p)",
			"",
			"Thrown: boom 4 @0:0 | boom t.harn:10:5 | bang t.harn:25:21 |  t.harn:26:1"},
		{"missing method", "println(each([Q { x: 1 }, [1]]))",
			"",
			"Runtime error: value of type list has no method `inv` (line 19) @19:13 | each t.harn:19:13 |  t.harn:25:9"},
		{"nil receiver", "println(size(nil))",
			"",
			"Runtime error: value of type nil has no method `reverse` (line 24) @24:21 | size t.harn:24:21 |  t.harn:25:9"},
		{"added, error on the second call", sum + "println(sum([Q { x: 5 }, Q { x: 2 }]))\nprintln(sum([Q { x: 1 }, Q { x: 0 }]))",
			"7\n",
			"Runtime error: Division by zero (line 15) (line 27) @27:25 | inv t.harn:15:35 | sum t.harn:27:25 |  t.harn:31:9"},
		{"added, missing method", sum + "println(sum([Q { x: 1 }, nil]))",
			"",
			"Runtime error: value of type nil has no method `inv` (line 27) @27:25 | sum t.harn:27:25 |  t.harn:30:9"},
		{"dict member", "fn call(d) { return d.f() }\nprintln(call({ f: { -> 1 } }))\nprintln(call({ f: { -> 2 } }))",
			"1\n2\n", ""},
	}
	runErrorCases(t, implSrc+fns, cases)
}

// A spread method call finds impls like a plain one (docs/spec/language.md
// §10.3): the impl its site sees, nil when it sees none, and an optional
// spread call on nil is nil.
func TestImplScopesSpread(t *testing.T) {
	src := `struct P { x: int }
let p = P { x: 1 }
fn early(args) { return p.add(...args) }
impl P { fn add(self, k) { return "top ${self.x + k}" } }
println([early([1]), p.add(...[2])])
if true {
  impl P { fn add(self, k) { return "inner ${self.x + k}" } }
  println([early([1]), p.add(...[3])])
}
let q = nil
println([p.add(...[4]), q?.add(...[5])])
`
	out, e := runError(t, src)
	want := "[nil, top 3]\n[nil, inner 4]\n[top 5, nil]\n"
	if e != nil || out != want {
		t.Errorf("got %q (%v), want %q", out, e, want)
	}
}
