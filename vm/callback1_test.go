package vm_test

import (
	"strings"
	"testing"
)

// TestCallback1MatchesCall1 runs each program with EACH standing for
// each1 (Thread.Call1 per item) and for eachp (a Callback1 prepared once)
// and checks both print and fail alike, with the wanted output or
// failure text (which includes the position and the trace).
func TestCallback1MatchesCall1(t *testing.T) {
	cases := []preparedCase{
		{"fast body", "println(EACH({ x -> x * 2 }, 5))", "8\n", ""},
		{"no parameter", "println(EACH({ -> 7 }, 3))", "7\n", ""},
		{"two parameters", "println(EACH({ a, b -> b == nil }, 2))", "true\n", ""},
		{"rest parameter", "fn f(...xs) { return xs }\nprintln(EACH(f, 2))", "[1]\n", ""},
		{"calls a function", "fn sq(n) { var t = 0\n for i in 0 to n exclusive { t = t + n }\n return t }\nprintln(EACH({ x -> sq(x) + 1 }, 4))", "10\n", ""},
		{"slow op deeper", "fn g(n) { return apply({ y -> y + 1 }, n) }\nprintln(EACH({ x -> g(x) * 10 }, 3))", "30\n", ""},
		{"nested", "println(EACH({ x -> EACH({ y -> x * 10 + y }, 3) }, 4))", "32\n", ""},
		{"return in block", "println(EACH({ x ->\n if x > 1 { return \"big\" }\n return \"small\" }, 3))", "big\n", ""},
		{"error in callback", "EACH({ x -> 10 / (2 - x) }, 4)", "", "Division by zero (line 1)"},
		{"error deeper", "fn inv(n) { return 1 / n }\nEACH({ x -> inv(x - 1) }, 3)", "", "Runtime error: Division by zero (line 1) (line 2)"},
		{"caught", "let r = try { EACH({ x -> 1 / (x - 2) }, 5) } catch (e) { e }\nprintln(r)", "Runtime error: Division by zero (line 1)\n", ""},
		{"overflow", "fn d(n) { return EACH({ x -> d(n + 1) }, 1) }\nd(0)", "", "Stack overflow: too many nested calls"},
	}
	matchPrepared(t, "EACH", "each1", "eachp", cases)
}

// TestCallback2MatchesCall runs each program with FOLD standing for fold2
// (Thread.Call with two arguments per item) and for foldp (a Callback2
// prepared once) and checks both print and fail alike, with the wanted
// output or failure text (which includes the position and the trace).
func TestCallback2MatchesCall(t *testing.T) {
	cases := []preparedCase{
		{"fast body", "println(FOLD({ acc, x -> acc + x }, 5))", "10\n", ""},
		{"no parameter", "println(FOLD({ -> 7 }, 3))", "7\n", ""},
		{"one parameter", "println(FOLD({ acc -> acc + 1 }, 3))", "3\n", ""},
		{"three parameters", "println(FOLD({ a, b, c -> c == nil }, 2))", "true\n", ""},
		{"default parameter", "fn f(a, b = 5, c = 9) { return a + b + c }\nprintln(FOLD(f, 2))", "19\n", ""},
		{"rest parameter", "fn f(...xs) { return xs }\nprintln(FOLD(f, 2))", "[[0, 0], 1]\n", ""},
		{"calls a function", "fn sq(n) { return n * n }\nprintln(FOLD({ acc, x -> acc + sq(x) }, 4))", "14\n", ""},
		{"slow op deeper", "fn g(n) { return apply({ y -> y + 1 }, n) }\nprintln(FOLD({ acc, x -> acc + g(x) }, 3))", "6\n", ""},
		{"nested", "println(FOLD({ acc, x -> acc + FOLD({ a, y -> a + x * y }, 3) }, 4))", "18\n", ""},
		{"error in callback", "FOLD({ acc, x -> 10 / (2 - x) }, 4)", "", "Division by zero (line 1)"},
		{"error deeper", "fn inv(n) { return 1 / n }\nFOLD({ acc, x -> inv(x - 1) }, 3)", "", "Runtime error: Division by zero (line 1) (line 2)"},
		{"caught", "let r = try { FOLD({ acc, x -> 1 / (x - 2) }, 5) } catch (e) { e }\nprintln(r)", "Runtime error: Division by zero (line 1)\n", ""},
		{"overflow", "fn d(n) { return FOLD({ acc, x -> d(n + 1) }, 1) }\nd(0)", "", "Stack overflow: too many nested calls"},
	}
	matchPrepared(t, "FOLD", "fold2", "foldp", cases)
}

type preparedCase struct{ name, src, out, err string }

// matchPrepared runs each case's program with word standing for the
// builtin plain and for prepared, and checks both print and fail alike
// (but for the builtin's name), with the wanted output or failure text.
func matchPrepared(t *testing.T, word, plain, prepared string, cases []preparedCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out1, err1 := run(t, strings.ReplaceAll(c.src, word, plain))
			outp, errp := run(t, strings.ReplaceAll(c.src, word, prepared))
			if outp != out1 || strings.ReplaceAll(errp, prepared, plain) != err1 {
				t.Fatalf("%s differs from %s:\n%s: %q %q\n%s: %q %q", prepared, plain, plain, out1, err1, prepared, outp, errp)
			}
			if outp != c.out || !strings.Contains(errp, c.err) || (c.err == "") != (errp == "") {
				t.Fatalf("got %q, failure %q; want %q, failure containing %q", outp, errp, c.out, c.err)
			}
		})
	}
}
