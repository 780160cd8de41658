package check

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// mathLib holds the math descriptors' signatures as stdlib/math writes
// them (upstream's `int | float` wording).
var mathLib = testLibrary{
	"decimal": "decimal(v) -> decimal",
	"abs":     "abs(n: int | float) -> int | float | nil",
	"round":   "round(n: int | float) -> int?",
	"floor":   "floor(n: int | float) -> int?",
	"ceil":    "ceil(n: int | float) -> int?",
	"sign":    "sign(n: int | float) -> int | float | nil",
	"pow":     "pow(base, exp) -> int | float | nil",
	"min":     "min(a: int | float, b: int | float) -> int | float | nil",
	"max":     "max(a: int | float, b: int | float) -> int | float | nil",
	"sqrt":    "sqrt(n: int | float) -> float?",
	"println": "println(...)",
}

// The math builtins that take a decimal (docs/language.md §2) are typed
// by decimalMath: no argument warning, and the decimal result.
func TestDecimalMathBuiltins(t *testing.T) {
	cases := []checkCase{
		{"round of a decimal is an int", "let r: int = round(decimal(\"2.5\"))\nprintln(r)", nil},
		{"floor and ceil of a decimal", "let a: int = floor(decimal(\"2.5\"))\nlet b: int = ceil(decimal(\"2.5\"))\nprintln([a, b])", nil},
		{"abs of a decimal", "let a: decimal = abs(decimal(\"-1.50\"))\nprintln(a)", nil},
		{"sign of a decimal is an int", "let s: int = sign(decimal(\"-1\"))\nprintln(s)", nil},
		{"pow of a decimal with an int exponent", "let p: decimal = pow(decimal(\"1.5\"), 2)\nprintln(p)", nil},
		{"min of a decimal and an int", "let m = min(decimal(\"1.5\"), 1)\nprintln(m)", nil},
		{"abs of a decimal into a string", "let s: string = abs(decimal(\"1\"))\nprintln(s)",
			[]string{"error: let binding `s`: expected string, found decimal"}},
		{"round of a decimal into a decimal", "let d: decimal = round(decimal(\"1\"))\nprintln(d)",
			[]string{"error: let binding `d`: expected decimal, found int"}},
		{"max of two decimals into an int", "let n: int = max(decimal(\"1\"), decimal(\"2\"))\nprintln(n)",
			[]string{"error: let binding `n`: expected int, found decimal"}},
		{"round of a string keeps upstream's warning", "println(round(\"x\"))",
			[]string{"warning: argument 1 `n`: expected int | float, found string"}},
		{"sqrt of a decimal is still warned about", "println(sqrt(decimal(\"2\")))",
			[]string{"warning: argument 1 `n`: expected int | float, found decimal"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := syntax.Parse("test.harn", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			u := universe{}
			for n := range mathLib {
				u[n] = true
			}
			got := File(f, resolve.File(f, resolve.Options{Universe: u}), Options{Library: mathLib})
			text := format(got)
			if len(tc.want) == 0 && len(got) != 0 {
				t.Fatalf("unexpected diagnostics:\n%s", text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in:\n%s", w, text)
				}
			}
		})
	}
}
