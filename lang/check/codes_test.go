package check

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// Diagnostics carry the codes the references give (docs/spec/newer.md
// §3.1: HARN-TYP-007 for every `<context>: expected T, found U`), and no
// code where no reference names one.
func TestDiagnosticCodes(t *testing.T) {
	cases := []struct{ src, msg, code string }{
		{"let label: string = 42", "let binding `label`: expected string, found int", "HARN-TYP-007"},
		{"fn f() -> int {\n  return \"x\"\n}", "return value: expected int, found string", "HARN-TYP-007"},
		{"fn add(a: int, b: int) {\n  return a + b\n}\nadd(\"x\", 2)", "argument 1 `a`: expected int, found string", "HARN-TYP-007"},
		{"println(uppercase(nil))", "argument 1 `s`: expected string, found nil", "HARN-TYP-007"},
		{"fn f(x) -> int {\n  if x {\n    return 1\n  }\n}", "function can fall through without returning int", ""},
		{"let p = Piont { x: 1 }", "unknown struct type `Piont`", ""},
		{"struct P {\n  x: int\n}\nlet p = P { x: 1 }\nprintln(p.y)", "field `y` does not exist on", ""},
		{"let n = 5\nprintln(n!)", "unnecessary non-null assertion", "HARN-LNT-063"},
	}
	u := universe{}
	for n := range testLib {
		if !strings.Contains(n, ".") {
			u[n] = true
		}
	}
	for _, c := range cases {
		f, err := syntax.Parse("test.harn", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range File(f, resolve.File(f, resolve.Options{Universe: u}), Options{Library: testLib}) {
			if !strings.HasPrefix(d.Msg, c.msg) {
				continue
			}
			found = true
			if d.Code != c.code {
				t.Errorf("%q: code %q, want %q", d.Msg, d.Code, c.code)
			}
		}
		if !found {
			t.Errorf("%s: no diagnostic %q", c.src, c.msg)
		}
	}
}
