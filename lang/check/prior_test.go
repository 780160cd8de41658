package check

import (
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// Options.Prior: the leading items (a REPL session's earlier entries)
// give their types to the rest of the file, and nothing is reported
// about them — not their own errors, not their functions' unused locals.
func TestPrior(t *testing.T) {
	prior := `fn gg() -> string { return "s" }
let stale: int = gg()
let y: int = 3
fn h(v: int) {
  let unused = 1
  return v
}
`
	entry := `y = "s"
let bad = h("x")
let ok = h(y)
`
	f, err := syntax.Parse("entry.harn", []byte(prior+entry))
	if err != nil {
		t.Fatal(err)
	}
	n := 4 // the items of prior
	info := resolve.File(f, resolve.Options{Universe: testUniverse})
	got := format(File(f, info, Options{Prior: n}))
	want := "error: assignment to `y`: expected int, found string\n" +
		"error: argument 1 `v`: expected int, found string\n"
	if got != want {
		t.Errorf("with Prior %d:\n%s\nwant:\n%s", n, got, want)
	}
	// the same file checked whole reports the prior items' problems too
	if all := format(File(f, info, Options{})); all == got {
		t.Errorf("without Prior the prior items' diagnostics should show:\n%s", all)
	}
}

// A closure bound by an earlier REPL entry may have been replaced by an
// assignment in another entry, which the file does not hold: its calls
// are not checked against it.
func TestPriorHeldClosure(t *testing.T) {
	src := "let c = { x: int -> x + 1 }\nprintln(c(\"a\"))\n"
	f, err := syntax.Parse("entry.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info := resolve.File(f, resolve.Options{Universe: testUniverse})
	if got := format(File(f, info, Options{Prior: 1})); got != "" {
		t.Errorf("with the closure in a prior entry:\n%s\nwant nothing", got)
	}
	if got := format(File(f, info, Options{})); got != "error: argument 1 `x`: expected int, found string\n" {
		t.Errorf("checked whole:\n%s", got)
	}
}
