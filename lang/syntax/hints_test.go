package syntax

import (
	"errors"
	"testing"

	"github.com/harnlang/harn/lang/diag"
)

func TestParseErrorHints(t *testing.T) {
	for _, tc := range []struct{ src, msg, help string }{
		{"fn f(x) {\n  if x {\n    println(1)\n", "unexpected end of file, expected }", "the `{` opened at 2:8 is never closed"},
		{"println(len([1, 2)\n", "expected ], found )", ""},
		{"let xs = [1, (2\n", "unexpected end of file, expected )", "the `(` opened at 1:14 is never closed"},
		{"fn f(x) {\n  retrun x\n}\n", "expected statement separator (`;` or newline), found `x`", "`retrun` is not a keyword; did you mean `return`?"},
		{"def f(x) {\n  return x\n}\n", "expected top-level item separator (`;` or newline), found `f`", "`def` is not a keyword; did you mean `fn`?"},
		{"if true {\n} esle {\n}\n", "expected top-level item separator (`;` or newline), found `esle`", "`esle` is not a keyword; did you mean `else`?"},
		{"let a = 1 b\n", "expected top-level item separator (`;` or newline), found `b`", ""},
		{"let s = \"a\" \"b\"\n", "expected top-level item separator (`;` or newline), found string \"b\"", ""},
	} {
		_, err := Parse("t.harn", []byte(tc.src))
		var de *diag.Error
		if !errors.As(err, &de) {
			t.Fatalf("%q: no parse error", tc.src)
		}
		if de.Msg != tc.msg || de.Help != tc.help {
			t.Errorf("%q:\n got %q / help %q\nwant %q / help %q", tc.src, de.Msg, de.Help, tc.msg, tc.help)
		}
	}
}
