package vm_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// runCounting compiles and runs src with the full library, and returns
// what it printed and the heap allocations the run made.
func runCounting(t *testing.T, src string) (string, uint64) {
	t.Helper()
	f, err := syntax.Parse("t.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	u := stdlib.NewUniverse(stdlib.Config{})
	prog, err := compiler.Compile(f, resolve.File(f, resolve.Options{Universe: u}))
	if err != nil {
		t.Fatal(err)
	}
	machine := vm.New(u)
	var out strings.Builder
	machine.Stdout = &out
	th, m := machine.NewThread(), machine.NewModule(prog)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := th.RunModule(m); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return out.String(), after.Mallocs - before.Mallocs
}

// `"item" + to_string(i)` of a local int makes one string, not the int's
// text and then the sum (NAME_CALL_LOCAL writes the text into the sum),
// both before an operator and before a store.
func TestToStringConcatAllocatesOnce(t *testing.T) {
	if vm.RaceEnabled {
		t.Skip("allocation counts do not hold under -race")
	}
	const n = 20000
	for _, body := range []string{
		`let k = "item" + to_string(i)
    t = t + len(k)`,
		`t = t + len("item" + to_string(i))`,
	} {
		src := `fn run(n) {
  var t = 0
  for i in 100000 to 100000 + n exclusive {
    ` + body + `
  }
  return t
}
println(run(20000))`
		out, allocs := runCounting(t, src)
		if out != "200000\n" {
			t.Errorf("%s: printed %q", body, out)
		}
		if per := float64(allocs) / n; per > 1.1 {
			t.Errorf("%s: %.2f allocations per iteration, want 1", body, per)
		}
	}
}

// A builtin of a local called by name (NAME_CALL_LOCAL) allocates no
// argument slice and no callee: `len(xs)` in a loop allocates nothing.
func TestBuiltinOfLocalAllocatesNothing(t *testing.T) {
	if vm.RaceEnabled {
		t.Skip("allocation counts do not hold under -race")
	}
	out, allocs := runCounting(t, `fn run() {
  let xs = [1, 2, 3]
  var t = 0
  for i in 0 to 20000 exclusive { t = t + len(xs) }
  return t
}
println(run())`)
	if out != "60000\n" {
		t.Errorf("printed %q", out)
	}
	if allocs > 200 {
		t.Errorf("%d allocations for 20,000 calls", allocs)
	}
}

// The text to_string gives is the builtin's for every kind of argument
// the fused call sees: ints (the VM's own text) and everything else (the
// builtin).
func TestNameCallLocalMatchesBuiltin(t *testing.T) {
	out, _ := runCounting(t, `fn show(x) {
  let a = "<" + to_string(x)
  var b = "<"
  b = b + to_string(x)
  println([a, b, to_string(x), "<" + to_string(x) == "<" + "${x}"])
}
for x in [0, -1, 42, 9223372036854775807, 1.5, nil, true, "s", [1, "a"], {k: 1}] {
  show(x)
}`)
	want := `[<0, <0, 0, true]
[<-1, <-1, -1, true]
[<42, <42, 42, true]
[<9223372036854775807, <9223372036854775807, 9223372036854775807, true]
[<1.5, <1.5, 1.5, true]
[<nil, <nil, nil, true]
[<true, <true, true, true]
[<s, <s, s, true]
[<[1, a], <[1, a], [1, a], true]
[<{k: 1}, <{k: 1}, {k: 1}, true]
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
