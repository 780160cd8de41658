package vm_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/vm"
)

// testUniverse is a minimal universe so these tests exercise the VM alone.
func testUniverse() *vm.Universe {
	u := vm.NewUniverse()
	u.AddBuiltin(vm.NewBuiltin("println", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() > 0 {
			io.WriteString(th.VM().Stdout, a.Text(0))
		}
		io.WriteString(th.VM().Stdout, "\n")
		return vm.Nil, nil
	}))
	// apply(f, x) calls f(x) as a callback (failures are relabelled).
	u.AddBuiltin(vm.NewBuiltin("apply", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return th.Call(a.At(0), a.At(1))
	}))
	// each1(f, n) and eachp(f, n) call f(0) … f(n-1) and return the last
	// result: each1 through Call1, eachp through a Callback1 prepared once.
	u.AddBuiltin(vm.NewBuiltin("each1", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return repeatCall(a, func(i vm.Value) (vm.Value, error) { return th.Call1(a.At(0), i) })
	}))
	u.AddBuiltin(vm.NewBuiltin("eachp", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c := th.Prepare1(a.At(0))
		return repeatCall(a, c.Call)
	}))
	// fold2(f, n) and foldp(f, n) fold 0 … n-1 from 0 with f(acc, i), as
	// reduce does: fold2 through Call with two arguments, foldp through a
	// Callback2 prepared once.
	u.AddBuiltin(vm.NewBuiltin("fold2", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return repeatFold(a, func(acc, i vm.Value) (vm.Value, error) { return th.Call(a.At(0), acc, i) })
	}))
	u.AddBuiltin(vm.NewBuiltin("foldp", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		c := th.Prepare2(a.At(0))
		return repeatFold(a, c.Call)
	}))
	u.AddBuiltin(vm.NewBuiltin("Err", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Of(vm.Err(a.At(0))), nil
	}))
	// crash() is a builtin with a bug: it panics in Go.
	u.AddBuiltin(vm.NewBuiltin("crash", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var xs []int
		return vm.IntOf(int64(xs[3])), nil
	}))
	// gostruct() is an R struct made in Go, fields h then w: its names are
	// not the program's strings, and its layout is not a literal's.
	u.AddBuiltin(vm.NewBuiltin("gostruct", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Of(&vm.StructValue{Name: strings.Clone("R"), Fields: []vm.Field{
			{Name: strings.Clone("h"), Value: vm.IntOf(20)}, {Name: strings.Clone("w"), Value: vm.IntOf(10)}}}), nil
	}))
	u.AddGlobal("e", vm.FloatOf(float64(2.718281828459045)))
	return u
}

// repeatCall calls call(0) … call(n-1), n the second argument, and
// returns the last result.
func repeatCall(a vm.Args, call func(vm.Value) (vm.Value, error)) (vm.Value, error) {
	n, _ := a.At(1).AsInt()
	r := vm.Nil
	for i := int64(0); i < int64(n); i++ {
		var err error
		if r, err = call(vm.IntOf(i)); err != nil {
			return vm.Value{}, err
		}
	}
	return r, nil
}

// repeatFold folds call over 0 … n-1 from 0, n the second argument.
func repeatFold(a vm.Args, call func(acc, i vm.Value) (vm.Value, error)) (vm.Value, error) {
	n, _ := a.At(1).AsInt()
	acc := vm.IntOf(0)
	for i := int64(0); i < int64(n); i++ {
		var err error
		if acc, err = call(acc, vm.IntOf(i)); err != nil {
			return vm.Value{}, err
		}
	}
	return acc, nil
}

// run compiles and runs src, returning stdout and the failure text.
func run(t *testing.T, src string) (string, string) {
	t.Helper()
	f, err := syntax.Parse("t.harn", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	u := testUniverse()
	info := resolve.File(f, resolve.Options{Universe: u})
	if len(info.Errors) > 0 {
		t.Fatalf("resolve: %v", info.Errors)
	}
	prog, err := compiler.Compile(f, info)
	if err != nil {
		return "", err.Error()
	}
	machine := vm.New(u)
	var out bytes.Buffer
	machine.Stdout = &out
	_, err = machine.NewThread().RunModule(machine.NewModule(prog))
	if err != nil {
		return out.String(), err.(*vm.Error).UncaughtText()
	}
	return out.String(), ""
}

func TestSemantics(t *testing.T) {
	cases := []struct {
		name, src, out, err string
	}{
		{"arith", "println(7 / 2)\nprintln(-7 % 3)\nprintln(9223372036854775807 + 1)\nprintln(2 ** 10)\nprintln(2 ** -1)", "3\n-1\n9223372036854776000\n1024\n0.5\n", ""},
		{"tail call", "fn t(n, a) { if n == 0 { return a }\n return t(n - 1, a + 1) }\nprintln(t(100000, 0))", "100000\n", ""},
		{"overflow", "fn d(n) { return 1 + d(n + 1) }\nd(0)", "", "Stack overflow: too many nested calls"},
		{"511 nested calls", "fn d(n) { if n == 0 { return 0 }\n return 1 + d(n - 1) }\nprintln(d(510))", "510\n", ""},
		{"closure shares variable", "fn mk() { let n = 0\n return { -> n = n + 1\n n } }\nconst c = mk()\nc()\nc()\nprintln(c())", "3\n", ""},
		{"loop vars fresh", "let fs = []\nfor i in [1, 2] { fs = fs + [{ -> i }] }\nfor f in fs { println(f()) }", "1\n2\n", ""},
		{"finally before catch", "try { throw \"b\" } catch (e) { println(\"c ${e}\") } finally { println(\"f\") }", "f\nc b\n", ""},
		{"finally on return", "fn f() { try { return 1 } finally { println(\"f\") } }\nprintln(f())", "f\n1\n", ""},
		{"finally on break", "for i in [1, 2] { try { break } finally { println(\"f${i}\") } }", "f1\n", ""},
		{"defer order", "fn f() { defer { println(\"a\") }\n defer { println(\"b\") }\n println(\"body\") }\nf()", "body\nb\na\n", ""},
		{"propagate runs finally", "fn f(x) { try { let v = x?\n return v } finally { println(\"leave\") } }\nprintln(f(Err(3)))", "leave\nResult.Err(3)\n", ""},
		{"typed catch", "enum E { A }\nlet r = try { try { throw \"s\" } catch (e: E) { \"no\" } } catch (e) { \"outer ${e}\" }\nprintln(r)", "outer s\n", ""},
		{"bare try", "println(try { 1 / 0 })\nprintln(try { 5 })", "Result.Err(Division by zero)\nResult.Ok(5)\n", ""},
		{"retry rethrows", "let n = 0\nlet r = try { retry 3 { n += 1\n throw \"x\" } }\nprintln(n)\nprintln(r)", "3\nResult.Err(x)\n", ""},
		{"callback relabel", "let r = try { apply({ x -> 1 / x }, 0) } catch (e) { e }\nprintln(r)", "Runtime error: Division by zero (line 1)\n", ""},
		{"uncaught callback", "apply({ x -> 1 / x }, 0)", "", "Runtime error: Division by zero (line 1) (line 1)"},
		{"match list rest", "println(match [1, 2, 3] { [a] -> { \"one\" }\n [a, ...r] -> { \"${a} ${r}\" }\n _ -> { \"x\" } })", "1 [2, 3]\n", ""},
		{"match fail", "match 3 { 1 -> { 1 } }", "", "Thrown: No match arm matched the value"},
		{"const assign", "const x = 1\nx = 2", "", "Cannot assign to immutable binding: x"},
		{"const redeclare", "const x = 1\nconst x = 2", "", "Cannot redeclare immutable variable 'x'"},
		{"undefined caught", "let r = try { nope } catch (e) { e }\nprintln(r)", "Undefined variable: nope\n", ""},
		{"owned dict aliasing", "let d = {}\nd[\"a\"] = 1\nlet s = d\nd[\"b\"] = 2\nprintln(s)\nprintln(d)", "{a: 1}\n{a: 1, b: 2}\n", ""},
		{"owned list aliasing", "let xs = [1, 2]\nxs[0] = 5\nlet ys = xs\nxs[1] = 6\nprintln(ys)\nprintln(xs)", "[5, 2]\n[5, 6]\n", ""},
		{"owned dict self insert", "let d = {a: 1}\nd.a = 2\nd.me = d\nprintln(d)", "{a: 2, me: {a: 2}}\n", ""},
		{"nested path", "let d = {a: {b: {c: 1}}}\nd.a.b.c = 5\nd.a.b.c += 1\nprintln(d)", "{a: {b: {c: 6}}}\n", ""},
		{"list index errors", "let xs = [1]\nxs[3] = 1", "", "Index 3 out of bounds for list of length 1"},
		{"pipeline entry", "let g = \"hi\"\nprintln(\"ignored\")\npipeline default() { println(g) }", "hi\n", ""},
		{"later variable hidden", "fn f() { return n }\nlet n = 1\nprintln(try { f() })", "Result.Err(Runtime error: Undefined variable: n (did you mean `e`?))\n", ""},
		{"functions late bound", "fn a() { return b() }\nfn b() { return 2 }\nprintln(a())", "2\n", ""},
		{"int result", "return 3", "", ""},
		{"string build", "let s = \"\"\nlet i = 0\nwhile i < 3 { s = s + \"ab\"\n i += 1 }\nlet t = s\ns = s + \"!\"\nprintln(t)\nprintln(s)", "ababab\nababab!\n", ""},
		{"spread call", "fn f(a, b, ...r) { return [a, b, r] }\nprintln(f(...[1, 2, 3, 4]))", "[1, 2, [3, 4]]\n", ""},
		{"defaults per call", "fn f(a, b = a + 1) { return b }\nprintln(f(1))\nprintln(f(1, nil))", "2\nnil\n", ""},
		{"struct literal filters", "struct P { x, y }\nprintln(P { y: 2, x: 1, z: 3 })", "P {x: 1, y: 2}\n", ""},
		{"callback growing the frame stack", "let y = apply({ x -> x }, 1)\nfn g() {\n println(\"in g\")\n return 5\n}\nprintln(g())", "in g\n5\n", ""},
		{"impl methods", "struct P { x }\nimpl P { fn get(self) { return self.x } }\nprintln(P { x: 4 }.get())", "4\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, c.src)
			if out != c.out {
				t.Errorf("stdout %q, want %q", out, c.out)
			}
			if c.err == "" && err != "" || c.err != "" && !strings.Contains(err, c.err) {
				t.Errorf("error %q, want %q", err, c.err)
			}
		})
	}
}

// A Go panic inside a builtin is a catchable run-time error (issue 17),
// and the thread goes on running after it.
func TestNativePanicIsCatchable(t *testing.T) {
	out, fail := run(t, `
let r = try { crash() } catch (e) { "caught" }
println(r)
println("after")
`)
	if fail != "" || out != "caught\nafter\n" {
		t.Fatalf("out %q fail %q", out, fail)
	}
	_, fail = run(t, "crash()")
	if !strings.Contains(fail, "crash failed: internal error") {
		t.Fatalf("uncaught: %q", fail)
	}
}
