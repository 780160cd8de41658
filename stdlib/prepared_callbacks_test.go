package stdlib_test

import (
	"bytes"
	"testing"

	"github.com/harnlang/harn/interp"
)

// TestPreparedCallbacks pins what a program prints and how it fails
// (message, caret, trace, depth limit) when reduce, the lazy iterator
// stages and the iterator sinks call a callback per item: they call it
// through a callback prepared once (vm.Callback1, vm.Callback2), and
// must behave exactly as a plain call of each item did.
func TestPreparedCallbacks(t *testing.T) {
	cases := []struct{ name, src, out, stderr string }{
		{"list reduce", "println([1, 2, 3].reduce(0, { acc, x -> acc + x }))", "6\n", ""},
		{"iter reduce", "println(iter([1, 2, 3]).reduce(10, { acc, x -> acc * x }))", "60\n", ""},
		{"reduce with a named function", "fn add(a, b) { return a + b }\nprintln([1, 2].reduce(0, add))", "3\n", ""},
		{"reduce callback with one parameter", "println([1, 2, 3].reduce(0, { acc -> acc + 1 }))", "3\n", ""},
		{"reduce callback with three parameters", "println([1, 2, 3].reduce(0, { acc, x, y -> y }))", "nil\n", ""},
		{"reduce with a builtin", "println([1, 2].reduce(0, max))", "2\n", ""},
		{"reduce with a rest parameter", "fn all(...xs) { return xs }\nprintln([1, 2].reduce(0, all))", "[[0, 1], 2]\n", ""},
		{"list reduce error", "[1, 2, 3].reduce(0, { acc, x -> acc / (2 - x) })", "", "error: Runtime error: Division by zero (line 1) (line 1)\n  --> t.harn:1:37\n  |\n1 | [1, 2, 3].reduce(0, { acc, x -> acc / (2 - x) })\n  |                                     ^\n  at <closure> (t.harn:1)\n  at <top level> (t.harn:1)\n"},
		{"iter reduce error deeper", "fn inv(n) { return 1 / n }\niter([1, 2, 3]).reduce(0, { acc, x -> inv(x - 2) })", "", "error: Runtime error: Division by zero (line 1) (line 2)\n  --> t.harn:1:22\n  |\n1 | fn inv(n) { return 1 / n }\n  |                      ^\n  at inv (t.harn:1)\n  at <closure> (t.harn:2)\n  at <top level> (t.harn:2)\n"},
		{"reduce error caught", "let r = try { [1, 2].reduce(0, { a, x -> 1 / (x - 2) }) } catch (e) { e }\nprintln(r)", "Runtime error: Division by zero (line 1)\n", ""},
		{"list reduce overflow", "fn d(n) { return [1].reduce(0, { a, x -> d(n + 1) }) }\nd(0)", "", "error: Runtime error: Stack overflow: too many nested calls (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1)\n  --> t.harn:1:18\n  |\n1 | fn d(n) { return [1].reduce(0, { a, x -> d(n + 1) }) }\n  |                  ^\n  at d (t.harn:1)\n  at <closure> (t.harn:1)\n  [the 2 frames above repeated 4,998 more times]\n  at d (t.harn:1)\n  at <top level> (t.harn:2)\n"},
		{"iter reduce overflow", "fn d(n) { return iter([1]).reduce(0, { a, x -> d(n + 1) }) }\nd(0)", "", "error: Runtime error: Stack overflow: too many nested calls (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1)\n  --> t.harn:1:18\n  |\n1 | fn d(n) { return iter([1]).reduce(0, { a, x -> d(n + 1) }) }\n  |                  ^\n  at d (t.harn:1)\n  at <closure> (t.harn:1)\n  [the 2 frames above repeated 4,998 more times]\n  at d (t.harn:1)\n  at <top level> (t.harn:2)\n"},
		{"lazy map", "println(iter([1, 2, 3]).map({ x -> x * 2 }).to_list())", "[2, 4, 6]\n", ""},
		{"lazy filter", "println(iter([1, 2, 3, 4]).filter({ x -> x % 2 == 0 }).to_list())", "[2, 4]\n", ""},
		{"lazy flat_map", "println(iter([1, 2]).flat_map({ x -> [x, x * 10] }).to_list())", "[1, 10, 2, 20]\n", ""},
		{"lazy take_while", "println(iter([1, 2, 3, 1]).take_while({ x -> x < 3 }).to_list())", "[1, 2]\n", ""},
		{"lazy skip_while", "println(iter([1, 2, 3, 1]).skip_while({ x -> x < 3 }).to_list())", "[3, 1]\n", ""},
		{"lazy map without parameter", "println(iter([1, 2, 3]).map({ -> 7 }).to_list())", "[7, 7, 7]\n", ""},
		{"lazy map with a builtin", "println(iter([1, 2, 3]).map(type_of).to_list())", "[int, int, int]\n", ""},
		{"lazy map nested", "println(iter([1, 2, 3]).map({ x -> iter([x]).map({ y -> y + x }).to_list() }).to_list())", "[[2], [4], [6]]\n", ""},
		{"lazy map error", "iter([1, 2, 3]).map({ x -> 10 / (2 - x) }).to_list()", "", "error: Runtime error: Division by zero (line 1) (line 1)\n  --> t.harn:1:31\n  |\n1 | iter([1, 2, 3]).map({ x -> 10 / (2 - x) }).to_list()\n  |                               ^\n  at <closure> (t.harn:1)\n  at <top level> (t.harn:1)\n"},
		{"lazy filter error deeper", "fn inv(n) { return 1 / n }\niter([1, 2]).filter({ x -> inv(x - 2) > 0 }).to_list()", "", "error: Runtime error: Division by zero (line 1) (line 2)\n  --> t.harn:1:22\n  |\n1 | fn inv(n) { return 1 / n }\n  |                      ^\n  at inv (t.harn:1)\n  at <closure> (t.harn:2)\n  at <top level> (t.harn:2)\n"},
		{"lazy flat_map error", "iter([1, 2]).flat_map({ x -> [1 / (x - 2)] }).to_list()", "", "error: Runtime error: Division by zero (line 1) (line 1)\n  --> t.harn:1:33\n  |\n1 | iter([1, 2]).flat_map({ x -> [1 / (x - 2)] }).to_list()\n  |                                 ^\n  at <closure> (t.harn:1)\n  at <top level> (t.harn:1)\n"},
		{"lazy take_while error", "iter([1, 2]).take_while({ x -> 1 / (x - 2) }).to_list()", "", "error: Runtime error: Division by zero (line 1) (line 1)\n  --> t.harn:1:34\n  |\n1 | iter([1, 2]).take_while({ x -> 1 / (x - 2) }).to_list()\n  |                                  ^\n  at <closure> (t.harn:1)\n  at <top level> (t.harn:1)\n"},
		{"lazy skip_while error", "iter([1, 2]).skip_while({ x -> 1 / (x - 2) }).to_list()", "", "error: Runtime error: Division by zero (line 1) (line 1)\n  --> t.harn:1:34\n  |\n1 | iter([1, 2]).skip_while({ x -> 1 / (x - 2) }).to_list()\n  |                                  ^\n  at <closure> (t.harn:1)\n  at <top level> (t.harn:1)\n"},
		{"lazy map error caught", "let r = try { iter([1, 2]).map({ x -> 1 / (x - 2) }).to_list() } catch (e) { e }\nprintln(r)", "Runtime error: Division by zero (line 1)\n", ""},
		{"lazy map overflow", "fn d(n) { return iter([1]).map({ x -> d(n + 1) }).to_list() }\nd(0)", "", "error: Runtime error: Stack overflow: too many nested calls (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1)\n  --> t.harn:1:18\n  |\n1 | fn d(n) { return iter([1]).map({ x -> d(n + 1) }).to_list() }\n  |                  ^\n  at d (t.harn:1)\n  at <closure> (t.harn:1)\n  [the 2 frames above repeated 4,998 more times]\n  at d (t.harn:1)\n  at <top level> (t.harn:2)\n"},
		{"lazy filter overflow", "fn d(n) { return iter([1]).filter({ x -> d(n + 1) }).to_list() }\nd(0)", "", "error: Runtime error: Stack overflow: too many nested calls (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1) (line 1)\n  --> t.harn:1:18\n  |\n1 | fn d(n) { return iter([1]).filter({ x -> d(n + 1) }).to_list() }\n  |                  ^\n  at d (t.harn:1)\n  at <closure> (t.harn:1)\n  [the 2 frames above repeated 4,998 more times]\n  at d (t.harn:1)\n  at <top level> (t.harn:2)\n"},
		{"lazy map pulled on another thread", "let it = iter([1, 2, 3]).map({ x -> x + 1 })\nlet t = spawn { it.to_list() }\nprintln(await(t))", "[2, 3, 4]\n", ""},
		{"lazy map pulled on two threads", "let it = iter([1, 2, 3]).map({ x -> x + 1 })\nprintln(it.first())\nlet t = spawn { it.to_list() }\nprintln(await(t))", "2\n[3, 4]\n", ""},
		{"for_each after a lazy map", "println(iter([1, 2, 3]).map({ x -> x * 2 }).for_each({ x -> println(x) }))", "2\n4\n6\nnil\n", ""},
		{"for_each error", "iter([1, 2]).for_each({ x -> 1 / (x - 2) })", "", "error: Runtime error: Division by zero (line 1) (line 1)\n  --> t.harn:1:32\n  |\n1 | iter([1, 2]).for_each({ x -> 1 / (x - 2) })\n  |                                ^\n  at <closure> (t.harn:1)\n  at <top level> (t.harn:1)\n"},
		{"all", "println(iter([1, 2, 3]).all({ x -> x > 0 }))", "true\n", ""},
		{"all error", "iter([1, 2]).all({ x -> 1 / (x - 2) })", "", "error: Runtime error: Division by zero (line 1) (line 1)\n  --> t.harn:1:27\n  |\n1 | iter([1, 2]).all({ x -> 1 / (x - 2) })\n  |                           ^\n  at <closure> (t.harn:1)\n  at <top level> (t.harn:1)\n"},
		{"find", "println(iter([1, 2, 3]).find({ x -> x > 1 }))", "2\n", ""},
		{"any error", "iter([1, 2]).any({ x -> 1 / (x - 1) })", "", "error: Runtime error: Division by zero (line 1) (line 1)\n  --> t.harn:1:27\n  |\n1 | iter([1, 2]).any({ x -> 1 / (x - 1) })\n  |                           ^\n  at <closure> (t.harn:1)\n  at <top level> (t.harn:1)\n"},
		{"for over a lazy map", "for x in iter([1, 2]).map({ x -> x * 3 }) { println(x) }", "3\n6\n", ""},
		{"for over a lazy map error", "for x in iter([1, 2]).map({ x -> 1 / (x - 2) }) { println(x) }", "-1\n", "error: Runtime error: Division by zero (line 1) (line 1)\n  --> t.harn:1:36\n  |\n1 | for x in iter([1, 2]).map({ x -> 1 / (x - 2) }) { println(x) }\n  |                                    ^\n  at <closure> (t.harn:1)\n  at <top level> (t.harn:1)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			r := interp.RunProgram("t.harn", []byte(c.src), interp.Options{Stderr: &stderr})
			if string(r.Stdout) != c.out || stderr.String() != c.stderr {
				t.Errorf("got stdout %q, stderr\n%s\nwant stdout %q, stderr\n%s", r.Stdout, stderr.String(), c.out, c.stderr)
			}
		})
	}
}
