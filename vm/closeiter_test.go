package vm_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/vm"
)

// closable is an iterable whose iterators count 0 … n-1 and report their
// close on stdout, as a generator's finally block would; one named "bad"
// fails its close, and one named "loud" also reports a close after its end.
type closable struct {
	name string
	n    int64
}

func (c *closable) Type() string                { return "closable" }
func (c *closable) Truth() bool                 { return true }
func (c *closable) Display(sb *strings.Builder) { sb.WriteString("<closable>") }
func (c *closable) Iterate() vm.Iterator        { return &closableIter{c: c} }

type closableIter struct {
	c      *closable
	i      int64
	closed bool
}

func (it *closableIter) Next() (vm.Value, bool, error) {
	if it.closed || it.i >= it.c.n {
		return vm.Value{}, false, nil
	}
	it.i++
	return vm.IntOf(it.i - 1), true, nil
}

func (it *closableIter) CloseIter(th *vm.Thread) error {
	if it.closed || it.i >= it.c.n {
		if it.c.name == "loud" {
			fmt.Fprintln(th.VM().Stdout, "close of a finished loud")
		}
		return nil // finished: nothing to close
	}
	it.closed = true
	fmt.Fprintf(th.VM().Stdout, "close %s at %d\n", it.c.name, it.i)
	if it.c.name == "bad" {
		return vm.Throw(vm.Str("close failed"))
	}
	return nil
}

// runClosable runs src with the builtin closable(name, n).
func runClosable(t *testing.T, src string) (string, string) {
	t.Helper()
	u := testUniverse()
	u.AddBuiltin(vm.NewBuiltin("closable", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		n, _ := a.At(1).AsInt()
		return vm.Of(&closable{name: a.Text(0), n: int64(n)}), nil
	}))
	f, err := syntax.Parse("t.harn", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	info := resolve.File(f, resolve.Options{Universe: u})
	if len(info.Errors) > 0 {
		t.Fatalf("resolve: %v", info.Errors)
	}
	prog, err := compiler.Compile(f, info)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	machine := vm.New(u)
	var out bytes.Buffer
	machine.Stdout = &out
	machine.Stderr = io.Discard
	_, err = machine.NewThread().RunModule(machine.NewModule(prog))
	if err != nil {
		return out.String(), err.(*vm.Error).UncaughtText()
	}
	return out.String(), ""
}

// A for loop closes the source it stops iterating early, whatever the
// way out, and only then; a failure that a handler inside the loop takes
// does not leave it.
func TestForLoopClosesAbandonedSource(t *testing.T) {
	cases := []struct{ name, src, out, err string }{
		{"break", `for x in closable("a", 3) { if x == 1 { break } }
println("after")`, "close a at 2\nafter\n", ""},
		{"exhausted is not closed", `for x in closable("a", 2) { }
println("after")`, "after\n", ""},
		{"continue is not a close", `for x in closable("a", 2) { continue }
println("after")`, "after\n", ""},
		{"return", `fn f() { for x in closable("a", 3) { return x } }
println(f())`, "close a at 1\n0\n", ""},
		{"return closes nested loops innermost first", `fn f() {
  for x in closable("outer", 3) { for y in closable("inner", 3) { return y } }
}
println(f())`, "close inner at 1\nclose outer at 1\n0\n", ""},
		{"return runs inner finally, closes, then outer finally", `fn f() {
  try {
    for x in closable("a", 3) { try { return x } finally { println("inner finally") } }
  } finally { println("outer finally") }
}
println(f())`, "inner finally\nclose a at 1\nouter finally\n0\n", ""},
		{"tail call", `fn id(v) { return v }
fn f() { for x in closable("a", 3) { return id(x) } }
println(f())`, "close a at 1\n0\n", ""},
		{"question mark", `fn f() { for x in closable("a", 3) { let v = Err("e")?
 println(v) } }
println(f())`, "close a at 1\nResult.Err(e)\n", ""},
		{"throw caught outside", `try { for x in closable("a", 3) { throw "boom" } } catch (e) { println("caught ${e}") }`,
			"close a at 1\ncaught boom\n", ""},
		{"throw caught inside the loop", `for x in closable("a", 2) { try { throw "x" } catch (e) { println(x) } }`,
			"0\n1\n", ""},
		{"failure through frames", `fn f() { for x in closable("a", 3) { let y = 1 / 0
 println(y) } }
try { f() } catch (e) { println(e) }`, "close a at 1\nDivision by zero\n", ""},
		{"uncaught failure", `for x in closable("a", 3) { throw "boom" }`, "close a at 1\n", "Thrown: boom"},
		{"break out of inner loop only", `for x in closable("outer", 2) { for y in closable("inner", 3) { break } }
println("done")`, "close inner at 1\nclose inner at 1\ndone\n", ""},
		{"close error at break propagates", `let r = try { for x in closable("bad", 3) { break }
 "none" } catch (e) { e }
println(r)`, "close bad at 1\nclose failed\n", ""},
		{"failure in flight wins over close error", `let r = try { for x in closable("bad", 3) { throw "body" } } catch (e) { e }
println(r)`, "close bad at 1\nbody\n", ""},
		{"a loop run to the end is forgotten, not closed later", `fn f() { for x in closable("loud", 1) { } }
f()
for y in closable("a", 1) { }
println("done")`, "done\n", ""},
		{"many loops track nothing after they end", `let n = 0
for i in [1, 2, 3, 4, 5] { for x in closable("a", 2) { n = n + x } }
println(n)`, "5\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runClosable(t, c.src)
			if out != c.out {
				t.Errorf("stdout %q, want %q", out, c.out)
			}
			if c.err == "" && err != "" || c.err != "" && !strings.Contains(err, c.err) {
				t.Errorf("error %q, want %q", err, c.err)
			}
		})
	}
}
