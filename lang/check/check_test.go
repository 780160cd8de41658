package check

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// universe is a stand-in for the standard library's predeclared names.
type universe map[string]bool

func (u universe) IsPredeclared(name string) bool { return u[name] }
func (u universe) PredeclaredNames() []string {
	var out []string
	for n := range u {
		out = append(out, n)
	}
	return out
}

var testUniverse = universe{}

func init() {
	for _, n := range strings.Fields(`println print log eprintln eprint len to_string to_int to_float
		type_of Ok Err is_ok is_err unwrap unwrap_or range set pair harness pi e assert assert_eq
		json_stringify json_parse keys values unreachable exit stream`) {
		testUniverse[n] = true
	}
}

func checkSrc(t *testing.T, src string) diag.List {
	t.Helper()
	return checkWith(t, src, resolve.Options{Universe: testUniverse})
}

func checkWith(t *testing.T, src string, opts resolve.Options) diag.List {
	t.Helper()
	f, err := syntax.Parse("test.harn", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	info := resolve.File(f, opts)
	if len(info.Errors) > 0 {
		t.Fatalf("resolve: %v", info.Errors)
	}
	return File(f, info, Options{})
}

func format(l diag.List) string {
	var sb strings.Builder
	for _, d := range l {
		if d.Severity == diag.SevWarning {
			sb.WriteString("warning: ")
		} else {
			sb.WriteString("error: ")
		}
		sb.WriteString(d.Msg)
		sb.WriteByte('\n')
	}
	return sb.String()
}

type checkCase struct {
	name string
	src  string
	want []string // "error: …" / "warning: …" substrings, in order
}

func runCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := checkSrc(t, tc.src)
			lines := strings.Split(strings.TrimRight(format(got), "\n"), "\n")
			if len(got) == 0 {
				lines = nil
			}
			if len(lines) != len(tc.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(lines), len(tc.want), format(got))
			}
			for i, w := range tc.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("diagnostic %d = %q, want it to contain %q", i, lines[i], w)
				}
			}
		})
	}
}

func TestBindingTypes(t *testing.T) {
	runCases(t, []checkCase{
		{"let annotation mismatch", `let n: int = "five"`,
			[]string{"error: let binding `n`: expected int, found string"}},
		{"let annotation ok", "let n: float = 1\nlet s: string? = nil\nlet xs: list<int> = [1, 2]\nprintln([n, s, xs])", nil},
		{"literal union annotation", `let s: "a" | "b" = "c"`,
			[]string{"error: let binding `s`: expected \"a\" | \"b\", found \"c\""}},
		{"reassign incompatible", "let n = 0\nn = \"x\"",
			[]string{"error: assignment to `n`: expected int, found string"}},
		{"int into float var", "let f = 1.5\nf = 2\nprintln(f)", nil},
		{"float into int var", "let n = 1\nn = 2.5\nprintln(n)",
			[]string{"error: assignment to `n`: expected int, found float"}},
		{"nil init takes one type", "let x = nil\nx = 1\nx = nil\nx = \"s\"\nprintln(x)",
			[]string{"error: assignment to `x`: expected int?, found string"}},
		{"collections keep their kind only", "let xs = [1]\nxs = [\"a\"]\nlet d = {a: 1}\nd = {b: \"x\"}\nprintln([xs, d])", nil},
		{"unknown values are accepted", "fn f() { return 1 }\nlet n = 0\nn = f()\nprintln(n)", nil},
		{"compound assignment", "let s = \"a\"\ns += 1\nprintln(s)",
			[]string{"error: can't add string and int"}},
		// each top-level declaration is a variable of its own, as in a block
		{"redeclared global is checked like a local", "let x = 1\nlet x = \"s\"\nx = [1]\nprintln(x)",
			[]string{"error: assignment to `x`: expected string, found list<int>"}},
		{"redeclared global keeps its own type", "let x = \"s\"\nlet x = 1\nx = 2\nprintln(x)", nil},
		{"for variable", "for x in [1, 2] {\n  x = \"s\"\n  println(x)\n}", nil},
	})
}

func TestImmutableAssignment(t *testing.T) {
	runCases(t, []checkCase{
		{"const", "const fixed = 1\nfixed = 2",
			[]string{"warning: Cannot assign to 'fixed': variable is immutable (declared with 'const'); use 'let' for a mutable binding"}},
		{"const path", "const d = {a: 1}\nd.a = 2",
			[]string{"warning: Cannot mutate 'd' through an immutable binding (declared with 'const'); use 'let' for a mutable binding"}},
		{"parameter", "fn f(x) {\n  x = 1\n  return x\n}\nprintln(f(0))",
			[]string{"warning: Cannot assign to 'x'"}},
		{"let is fine", "let d = {a: 1}\nd.a = 2\nd = {}\nprintln(d)", nil},
		// fn and tool names are immutable like const (docs/spec/language.md §3.1, §3.3)
		{"fn name", "fn helper() {\n  return 1\n}\nhelper = 2",
			[]string{"warning: Cannot assign to 'helper': variable is immutable (declared with 'fn'); use 'let' for a mutable binding"}},
		{"local fn name", "fn outer() {\n  fn inner() {\n    return 1\n  }\n  inner = 2\n}\nouter()",
			[]string{"warning: Cannot assign to 'inner': variable is immutable (declared with 'fn')"}},
		{"tool name", "tool t() {\n  description \"d\"\n  1\n}\nt = 5",
			[]string{"warning: Cannot assign to 't': variable is immutable (declared with 'tool'); use 'let' for a mutable binding"}},
		{"tool path", "tool t() {\n  description \"d\"\n  1\n}\nt.tools = []",
			[]string{"warning: Cannot mutate 't' through an immutable binding (declared with 'tool'); use 'let' for a mutable binding"}},
		{"local let shadows fn and tool", "fn helper() {\n  return 1\n}\ntool t() {\n  description \"d\"\n  1\n}\nfn f() {\n  let helper = 2\n  helper = 3\n  let t = 4\n  t += 1\n  return helper + t\n}\nprintln(f())", nil},
		{"parameter shadows fn", "fn helper() {\n  return 1\n}\nfn f(helper) {\n  return helper\n}\nprintln(f(2))", nil},
		{"top-level let redeclares fn", "fn helper() {\n  return 1\n}\nlet helper = 2\nhelper = 3\nprintln(helper)", nil},
	})
}

func TestOperators(t *testing.T) {
	runCases(t, []checkCase{
		{"add string int", `let s = "n=" + 1`, []string{"error: can't add string and int"}},
		{"subtract", `println("a" - 1)`, []string{"error: can't use '-' on string and int (needs numeric operands)"}},
		{"multiply", `println(true * 2)`, []string{"error: can't multiply bool and int (try string * int)"}},
		{"valid", "println(1 + 2.5)\nprintln(\"ab\" * 3)\nprintln(3 * \"ab\")\nprintln([1] + [2])\nprintln({a: 1} + {b: 2})\nprintln(\"a\" + \"b\")", nil},
		{"duration literals are untyped", "println(5s + 1s)", nil},
		{"annotated durations", "fn f(d: duration) {\n  return d + d\n}\nprintln(f(1s))",
			[]string{"error: can't add duration and duration"}},
		{"unions need one valid pair", "fn f(x: int | string) {\n  return x + 1\n}\nprintln(f(1))", nil},
		{"nilable operand", "fn f(x: int?) {\n  return x + 1\n}\nprintln(f(1))",
			[]string{"error: operator `+` cannot be applied to nilable type `int?`; the operand may be nil at runtime"}},
		{"narrowed operand", "fn f(x: int?) {\n  if x != nil {\n    return x + 1\n  }\n  return 0\n}\nprintln(f(1))", nil},
		{"unknown operands", "fn f(a, b) {\n  return a + b\n}\nprintln(f(\"a\", 1))", nil},
		{"list comparison is lexicographic", "println([1] < [2])", nil},
		{"dict comparison", "println({a: 1} < {a: 2})",
			[]string{"warning: Comparison '<' may not be meaningful for types dict and dict"}},
		{"mixed comparison", `println("a" < 1)`,
			[]string{"warning: Comparing string with int using '<' may give unexpected results"}},
	})
}

func TestCalls(t *testing.T) {
	runCases(t, []checkCase{
		{"argument type", "fn double(n: int) {\n  return n * 2\n}\nprintln(double(\"x\"))",
			[]string{"error: argument 1 `n`: expected int, found string"}},
		{"arity", "fn f(a, b) {\n  return a\n}\nprintln(f(1, 2, 3))",
			[]string{"warning: Function 'f' expects 2 arguments, got 3"}},
		{"arity with defaults", "fn f(a, b = 1) {\n  return a\n}\nprintln(f())",
			[]string{"warning: Function 'f' expects 1-2 arguments, got 0"}},
		{"spread skips arity", "fn f(a, b) {\n  return a\n}\nlet xs = [1, 2]\nprintln(f(...xs))", nil},
		{"rest parameter", "fn f(a, ...rest) {\n  return rest\n}\nprintln(f(1, 2, 3, 4))", nil},
		{"generic", "fn id<T>(x: T) -> T {\n  return x\n}\nprintln(id(1) + 1)\nprintln(id<string>(\"a\"))", nil},
		{"return type", "fn f() -> int {\n  return \"x\"\n}\nprintln(f())",
			[]string{"error: return value: expected int, found string"}},
		{"return type ok", "fn f(x) -> int? {\n  if x {\n    return nil\n  }\n  return 1\n}\nprintln(f(1) ?? 0)", nil},
		{"result of annotated function", "fn f() -> string {\n  return \"a\"\n}\nprintln(f() + 1)",
			[]string{"error: can't add string and int"}},
		{"deprecated", "@deprecated(since: \"0.8\", use: \"new_fn\")\nfn old_fn() {\n  return 1\n}\nprintln(old_fn())",
			[]string{"warning: `old_fn` is deprecated (since 0.8)"}},
	})
}

func TestMainSignature(t *testing.T) {
	runCases(t, []checkCase{
		{"ok", "fn main(harness: Harness) {\n  harness.stdio.println(\"x\")\n}", nil},
		{"underscore", "fn main(_harness: Harness) {\n  println(1)\n}", nil},
		{"parameterless", "fn main() {\n  println(1)\n}\nmain()", nil},
		{"two params", "fn main(harness: Harness, extra) {\n}",
			[]string{"error: `main` must take exactly one parameter (`harness: Harness`), found 2"}},
		{"name", "fn main(h: Harness) {\n}",
			[]string{"error: `main` parameter is named `h`, expected `harness` or `_harness`"}},
		{"annotation", "fn main(harness) {\n}",
			[]string{"error: `main(harness: Harness)` requires an explicit `Harness` type annotation"}},
		{"type", "fn main(harness: string) {\n}",
			[]string{"error: `main(harness: …)` parameter type must be `Harness`, found `string`"}},
		{"default", "fn main(harness: Harness = nil) {\n}",
			[]string{"error: `main(harness: …)` parameter type must be `Harness`, found `Harness`"}},
		// docs/spec/language.md §5.3/§5.4: a pipeline puts the file in
		// pipeline mode, where main is never called
		{"pipeline mode", "pipeline report(n: int) -> int {\n  return n\n}\nfn main(harness: Harness) {\n  println(report(1))\n}",
			[]string{"warning: `main` is never called: a file that declares a `pipeline` runs in pipeline mode, and its entry is `report`"}},
		{"pipeline mode default entry", "pipeline first() {\n}\npipeline default() {\n}\nfn main(harness: Harness) {\n}",
			[]string{"warning: `main` is never called: a file that declares a `pipeline` runs in pipeline mode, and its entry is `default`"}},
		{"parameterless main with a pipeline", "fn main() {\n}\npipeline default() {\n  main()\n}", nil},
	})
	d := checkSrc(t, "fn main(h: Harness) {\n}")
	if d[0].Code != "HARN-NAM-101" || !strings.HasPrefix(d[0].Help, "rewrite as `fn main(harness: Harness) { ... }`") {
		t.Errorf("code/help = %q / %q", d[0].Code, d[0].Help)
	}
}

func TestPairLoopOverRecords(t *testing.T) {
	runCases(t, []checkCase{
		{"dict", "for (k, v) in {a: 1} {\n  println(k)\n}",
			[]string{"warning: `for (k, v)` over a dict binds nil: a dict yields `{key, value}` dicts, and the pair form reads `.first` and `.second`"}},
		{"dict parameter", "fn f(d: dict) {\n  for (k, v) in d {\n    println(v)\n  }\n}\nf({})",
			[]string{"warning: `for (k, v)` over a dict binds nil: a dict yields `{key, value}` dicts, and the pair form reads `.first` and `.second`"}},
		{"list enumerate", "for (i, x) in [\"a\"].enumerate() {\n  println(i)\n}",
			[]string{"warning: `for (i, x)` over a list's `.enumerate()` binds nil: it yields `{index, value}` dicts, and the pair form reads `.first` and `.second`"}},
		{"pairs", "for (k, v) in {a: 1}.iter() {\n  println(k)\n}\nfor (i, x) in [\"a\"].iter().enumerate() {\n  println(i)\n}\nfor (a, b) in [pair(1, 2)] {\n  println(a)\n}", nil},
		{"records", "for {key, value} in {a: 1} {\n  println(key)\n}\nfor {index, value} in [\"a\"].enumerate() {\n  println(index)\n}", nil},
	})
}

func TestEmptyLoop(t *testing.T) {
	runCases(t, []checkCase{
		{"string", "const w = \"hey\"\nfor c in w {\n  println(c)\n}", []string{"warning: a `for` loop over a string runs zero times"}},
		{"int", "for i in 5 {\n  println(i)\n}", []string{"warning: a `for` loop over an int runs zero times"}},
		{"bool", "for b in true {\n  println(b)\n}", []string{"warning: a `for` loop over a bool runs zero times"}},
		{"iterables", "for c in \"hey\".chars() {\n  println(c)\n}\nfor i in range(3) {\n  println(i)\n}\nfor i in 1 to 3 {\n  println(i)\n}\nfn f(v) {\n  for x in v {\n    println(x)\n  }\n}\nf(1)", nil},
	})
}

func TestMissingListStringProperty(t *testing.T) {
	runCases(t, []checkCase{
		{"string length", "const s = \"abc\"\nprintln(s.length)", []string{"warning: `length` is not a property of string; it reads nil"}},
		{"list size", "let xs = [1]\nprintln(xs.size)", []string{"warning: `size` is not a property of list; it reads nil"}},
		{"typed string", "fn f(s: string) {\n  return s.lenght\n}\nprintln(f(\"a\"))", []string{"warning: `lenght` is not a property of string; it reads nil"}},
		{"properties", "const s = \"abc\"\nlet xs = [1]\nprintln([s.count, s.empty, xs.count, xs.empty, xs.first, xs.last])\nconst d = {length: 2}\nprintln(d.length)", nil},
	})
	d := checkSrc(t, "let xs = [1]\nprintln(xs.frist)")
	if len(d) != 1 || d[0].Help != "did you mean `first`?" {
		t.Fatalf("diagnostics %v", d)
	}
	d = checkSrc(t, "const s = \"abc\"\nprintln(s.length)")
	if len(d) != 1 || d[0].Help != "the length is `len(…)` or the `count` property" {
		t.Fatalf("diagnostics %v", d)
	}
}

func TestDiscardedCopy(t *testing.T) {
	runCases(t, []checkCase{
		{"list push", "let xs = [1]\nxs.push(2)\nprintln(xs)", []string{"warning: the result of `.push(…)` is discarded: it returns a new list and leaves `xs` unchanged"}},
		{"dict merge", "let d = {a: 1}\nd.merge({b: 2})\nprintln(d)", []string{"warning: the result of `.merge(…)` is discarded: it returns a new dict and leaves `d` unchanged"}},
		{"string trim", "fn f(s: string) {\n  s.trim()\n  return s\n}\nprintln(f(\" a \"))", []string{"warning: the result of `.trim(…)` is discarded: it returns a new string and leaves `s` unchanged"}},
		{"used or last", "let xs = [1]\nxs = xs.push(2)\nconst f = { x -> xs.appending(x) }\nprintln(f(3))\nfn g() {\n  return xs.sorted()\n}\nprintln(g())\nxs.sorted()", nil},
		{"side effects and stored callables", "let xs = [1]\nxs.map({ x -> println(x) })\nconst ops = {merge: { -> 1 }}\nops.merge()\nprintln(xs)", nil},
	})
}

func TestAddStringHelp(t *testing.T) {
	d := checkSrc(t, "let n = 3\nlet s = \"n=\" + n\nprintln(s)")
	if len(d) != 1 || !strings.HasPrefix(d[0].Help, "Harn does not convert to string implicitly") {
		t.Fatalf("diagnostics %v", d)
	}
	d = checkSrc(t, "let b = true + 1\nprintln(b)")
	if len(d) != 1 || d[0].Help != "" {
		t.Fatalf("diagnostics %v: no string, no help", d)
	}
}

func TestHarnessCapabilitySuggestion(t *testing.T) {
	d := checkSrc(t, "fn main(harness: Harness) {\n  harness.stdo.println(\"x\")\n}")
	if len(d) != 1 || d[0].Help != "did you mean `stdio`?" {
		t.Fatalf("diagnostics %v", d)
	}
	d = checkSrc(t, "println(harness.qqqqq)")
	if len(d) != 1 || d[0].Help != "" {
		t.Fatalf("diagnostics %v: no capability is close to qqqqq", d)
	}
}

func TestHarness(t *testing.T) {
	runCases(t, []checkCase{
		{"unknown capability", "fn main(harness: Harness) {\n  harness.banana.println(\"x\")\n}",
			[]string{"error: `Harness` has no capability `banana`"}},
		{"global handle", `println(harness.nope)`,
			[]string{"error: `Harness` has no capability `nope`"}},
		{"sub-handle property", "fn load(fs: HarnessFs) {\n  return fs.net\n}\nprintln(load(harness.fs))",
			[]string{"error: cannot access property `net` on HarnessFs"}},
		{"capability suggestion", "fn main(harness: Harness) {\n  harness.stdo.println(\"x\")\n}",
			[]string{"error: `Harness` has no capability `stdo`"}},
		{"capabilities and methods", "let io = harness.stdio\nio.println(\"a\")\nharness.tools.mcp_tools({})\nprintln(harness.unsettled_state())", nil},
	})
}

func TestStructsAndEnums(t *testing.T) {
	runCases(t, []checkCase{
		{"field type", "struct Point {\n  x: int\n  y: int\n}\nlet p = Point { x: \"one\", y: 2 }\nprintln(p)",
			[]string{"error: field `x` in struct `Point`: expected int, found string"}},
		{"unknown and missing fields", "struct Point {\n  x: int\n  y: int\n  label?: string\n}\nprintln(Point { x: 1, z: 3 })",
			[]string{"warning: Missing field 'y' in struct 'Point' construction", "warning: Unknown field 'z' in struct 'Point'"}},
		{"optional field takes nil", "struct Point {\n  x: int\n  label?: string\n}\nprintln(Point { x: 1, label: nil })", nil},
		{"constructor call", "struct Point {\n  x: int\n}\nprintln(Point({x: \"a\"}))",
			[]string{"error: field `x` in struct `Point`: expected int, found string"}},
		{"field read type", "struct Point {\n  x: int\n}\nlet p = Point { x: 1 }\nprintln(p.x + \"a\")",
			[]string{"error: can't add int and string"}},
		{"variants", "enum Shape {\n  Circle(r)\n  Rect(w, h)\n  Dot\n}\nprintln(Shape.Rect(1))\nprintln(Shape.Oval)",
			[]string{"warning: Shape.Rect expects 2 argument(s), got 1", "warning: Unknown variant 'Oval' in enum 'Shape'"}},
		{"impl method result", "struct P {\n  x: int\n}\nimpl P {\n  fn name(self) -> string {\n    return \"p\"\n  }\n  fn any(self) {\n    return 1\n  }\n}\nlet p = P { x: 1 }\nprintln(p.any() + \"a\")\nprintln(p.name() + 1)",
			[]string{"error: can't add string and int"}},
		{"generic struct", "struct Box<T> {\n  v: T\n}\nprintln(Box { v: 1 })\nprintln(Box { v: \"a\" })", nil},
		// an enum's impl block makes it satisfy an interface (docs/language.md §4)
		{"enum impl satisfies an interface", "interface Named {\n  fn name(self) -> string\n}\nenum E {\n  A\n}\nimpl E {\n  fn name(self) -> string {\n    return \"a\"\n  }\n}\nfn show(n: Named) -> string {\n  return n.name()\n}\nprintln(show(E.A))", nil},
		{"enum without impl does not", "interface Named {\n  fn name(self) -> string\n}\nenum E {\n  A\n}\nfn show(n: Named) -> string {\n  return n.name()\n}\nprintln(show(E.A))",
			[]string{"error: argument 1 `n`: expected Named, found E"}},
	})
}

func TestValueArity(t *testing.T) {
	runCases(t, []checkCase{
		{"too many through a fn type", "let f: fn(int) -> int = { x -> x + 1 }\nprintln(f(1, 2))",
			[]string{"warning: Function 'f' expects 1 argument, got 2"}},
		{"too few through a parameter", "fn twice(g: fn(int, int) -> int) -> int {\n  return g(1)\n}\nprintln(twice({ a, b -> a }))",
			[]string{"warning: Function 'g' expects at least 2 arguments, got 1"}},
		{"defaults of a held closure", "let add = { x: int, y: int = 2 -> x + y }\nprintln(add(1))\nprintln(add(1, 2))", nil},
		{"spread is left alone", "let f: fn(int) -> int = { x -> x + 1 }\nlet xs = [1, 2]\nprintln(f(...xs))", nil},
	})
}

func TestInterfaceValueMethod(t *testing.T) {
	iface := "interface Animal {\n  fn name(self) -> string\n}\n"
	runCases(t, []checkCase{
		{"undeclared", iface + "fn show(a: Animal) {\n  println(a.nme())\n}",
			[]string{"error: Method 'nme' not found in interface 'Animal'"}},
		{"declared", iface + "fn show(a: Animal) {\n  println(a.name())\n}", nil},
		{"associated types only", "interface Box {\n  type Item\n}\nfn show(b: Box) {\n  println(b.get())\n}", nil},
	})
}

func TestBuiltinMethodResults(t *testing.T) {
	runLibCases(t, []checkCase{
		{"upper is a string", "let n: int = \"a\".upper()",
			[]string{"error: let binding `n`: expected int, found string"}},
		{"split is a list of strings", "let xs: list<int> = \"a,b\".split(\",\")",
			[]string{"error: let binding `xs`: expected list<int>, found list<string>"}},
		{"sorted keeps the element type", "let xs: list<int> = [2, 1]\nlet ys: list<string> = xs.sorted()",
			[]string{"error: let binding `ys`: expected list<string>, found list<int>"}},
		{"a short lenient call stays open", "let s: int = \"abc\".replace(\"a\")",
			[]string{"warning: Builtin function 'string.replace' expects 2 arguments, got 1"}},
		{"nilable results stay open", "let xs: list<int> = [2, 1]\nlet f: int = xs.first()\nlet c: string = \"a\".char_at(3)", nil},
	})
}

func TestElementWrite(t *testing.T) {
	runCases(t, []checkCase{
		{"list", "let xs: list<int> = [0]\nxs[0] = \"a\"",
			[]string{"error: assignment to an element of `xs`: expected int, found string"}},
		{"dict", "let d: dict<string, int> = {}\nd[\"k\"] = \"v\"",
			[]string{"error: assignment to a value of `d`: expected int, found string"}},
		{"nested", "let g: list<list<int>> = [[1]]\ng[0][0] = \"x\"",
			[]string{"error: assignment to an element of a collection: expected int, found string"}},
		{"fitting and untyped", "let fs: list<float> = [1.0]\nfs[0] = 2\nlet m: list<int?> = [1]\nm[0] = nil\nvar l = [1]\nl[0] = \"s\"", nil},
	})
}

func TestMatch(t *testing.T) {
	shape := "enum Shape {\n  Circle(r)\n  Dot\n  Rect(w, h)\n}\n"
	runCases(t, []checkCase{
		{"missing variant", shape + "fn name(s: Shape) {\n  return match s {\n    Shape.Circle(r) -> { \"circle\" }\n  }\n}\nprintln(name(Shape.Dot))",
			[]string{`error: Non-exhaustive match on enum Shape: missing variants "Dot", "Rect"`}},
		{"catch-all", shape + "fn name(s: Shape) {\n  return match s {\n    Shape.Circle(r) -> { \"circle\" }\n    other -> { \"other\" }\n  }\n}\nprintln(name(Shape.Dot))", nil},
		{"guard does not cover", shape + "fn name(s: Shape) {\n  return match s {\n    Shape.Circle(r) if r > 1 -> { \"big\" }\n    Shape.Circle(r) -> { \"c\" }\n    Shape.Dot | Shape.Rect -> { \"x\" }\n  }\n}\nprintln(name(Shape.Dot))", nil},
		{"unknown scrutinee", shape + "fn name(s) {\n  return match s {\n    Shape.Dot -> { \"dot\" }\n  }\n}\nprintln(name(Shape.Dot))", nil},
		{"result", "fn f(r: Result<int, string>) {\n  return match r {\n    Result.Ok(v) -> { v + 1 }\n  }\n}\nprintln(f(Ok(1)))",
			[]string{`error: Non-exhaustive match on enum Result: missing variants "Err"`}},
		{"optional enum without nil arm", shape + "fn name(s: Shape?) {\n  return match s {\n    Shape.Circle(r) -> { 1 }\n    Shape.Dot -> { 2 }\n    Shape.Rect(w, h) -> { 3 }\n  }\n}\nprintln(name(nil))",
			[]string{`error: Non-exhaustive match on enum Shape: missing variants nil`}},
		{"optional enum with nil arm", shape + "fn name(s: Shape?) {\n  return match s {\n    Shape.Circle(r) -> { 1 }\n    Shape.Dot -> { 2 }\n    Shape.Rect(w, h) -> { 3 }\n    nil -> { 0 }\n  }\n}\nprintln(name(nil))", nil},
		{"inferred nilable enum", shape + "let xs: list<Shape> = [Shape.Dot]\nprintln(match xs[0] {\n  Shape.Circle(r) -> { 1 }\n  Shape.Dot -> { 2 }\n  Shape.Rect(w, h) -> { 3 }\n})", nil},
		{"bool missing false", "fn f(b: bool) {\n  return match b {\n    true -> { 1 }\n  }\n}\nprintln(f(true))",
			[]string{`error: Non-exhaustive match on literal union: missing false`}},
		{"bool computed patterns", "let n = 1\nprintln(match true {\n  n > 0 -> { 1 }\n})", nil},
		{"literal union", "fn f(s: \"pass\" | \"fail\") {\n  return match s {\n    \"pass\" -> { 1 }\n  }\n}\nprintln(f(\"pass\"))",
			[]string{`error: Non-exhaustive match on literal union: missing "fail"`}},
		{"pattern kind", "fn f(n: int) {\n  return match n {\n    \"one\" -> { 1 }\n    _ -> { 0 }\n  }\n}\nprintln(f(1))",
			[]string{"warning: Match pattern type mismatch: matching int against string literal"}},
		{"payload binding type", "fn f(r: Result<int, string>) {\n  return match r {\n    Result.Ok(v) -> { v + \"a\" }\n    Result.Err(e) -> { e }\n  }\n}\nprintln(f(Ok(1)))",
			[]string{"error: can't add int and string"}},
	})
}

func TestThrows(t *testing.T) {
	errEnum := "enum ParseError {\n  Bad\n}\n"
	runCases(t, []checkCase{
		{"uncovered string", errEnum + "fn parse(s) throws ParseError {\n  if s == \"\" {\n    throw \"empty\"\n  }\n  return s\n}\nprintln(parse(\"x\"))",
			[]string{"error: this callable can throw `string`, which its declared `throws ParseError` does not cover"}},
		{"covered", errEnum + "fn parse(s) throws ParseError {\n  throw ParseError.Bad\n}\nprintln(try { parse(\"x\") })", nil},
		{"handled by catch", errEnum + "fn parse(s) throws ParseError {\n  try {\n    throw \"x\"\n  } catch (e) {\n    println(e)\n  }\n  return 1\n}\nprintln(parse(1))", nil},
		{"typed catch does not handle strings", errEnum + "fn parse(s) throws ParseError {\n  try {\n    throw \"x\"\n  } catch (e: ParseError) {\n    println(e)\n  }\n  return 1\n}\nprintln(parse(1))",
			[]string{"error: this callable can throw `string`"}},
		{"throw in catch escapes", errEnum + "fn parse(s) throws ParseError {\n  try {\n    return 1\n  } catch (e) {\n    throw \"again\"\n  }\n}\nprintln(parse(1))",
			[]string{"error: this callable can throw `string`"}},
		{"propagation", errEnum + "fn parse(s) throws ParseError {\n  let v = Err(\"no\")?\n  return v\n}\nprintln(parse(1))",
			[]string{"error: this callable can throw `string`"}},
		{"undeclared is not checked", "fn parse(s) {\n  throw \"x\"\n}\nprintln(try { parse(1) })", nil},
		// a catch that returns gives the try form only the body's type
		{"catch that returns", "fn g() -> int {\n  return 1\n}\nfn f() -> Result<int, string> {\n  let d = try { g() } catch (e) { return Err(\"x\") }\n  return Ok(d)\n}\nprintln(f())", nil},
		{"catch that falls through may give nil", "fn g() -> int {\n  return 1\n}\nfn f() -> string {\n  let d = try { g() } catch (e) { nil }\n  let s: string = d\n  return s\n}\nprintln(f())",
			[]string{"error: let binding `s`: expected string, found int?"}},
	})
	d := checkSrc(t, errEnum+"fn p() throws ParseError {\n  throw 1\n}\nprintln(try { p() })")
	if len(d) != 1 || d[0].Code != "HARN-TYP-026" {
		t.Errorf("diagnostics = %v", d)
	}
}

func TestDestructuring(t *testing.T) {
	runCases(t, []checkCase{
		{"dict pattern on list", "let {a} = [1, 2]\nprintln(a)",
			[]string{"error: Type error: cannot destructure list with {...} pattern — expected dict"}},
		{"list pattern on dict", "let [x] = {a: 1}\nprintln(x)",
			[]string{"error: Type error: cannot destructure dict with [...] pattern — expected list"}},
		{"struct", "struct P {\n  x: int\n}\nlet {x} = P { x: 1 }\nprintln(x)",
			[]string{"error: Type error: cannot destructure struct with {...} pattern — expected dict"}},
		{"for pattern", "for [k, v] in {a: 1} {\n  println(k)\n  println(v)\n}",
			[]string{"error: Type error: cannot destructure dict with [...] pattern — expected list"}},
		{"valid", "let {a, b = 2, ...rest} = {a: 1, c: 3}\nlet [x, ...ys] = [1, 2]\nfor {key, value} in {a: 1} {\n  println(key + \"=\" + to_string(value))\n}\nfor (i, v) in [1].iter().enumerate() {\n  println(i)\n  println(v)\n}\nprintln([a, b, rest, x, ys])", nil},
		{"unknown value", "fn f() {\n  return [1]\n}\nlet {a} = f()\nprintln(a)", nil},
	})
}

func TestWarnings(t *testing.T) {
	runCases(t, []checkCase{
		{"unused local", "fn f() {\n  let unused = 1\n  let _ignored = 2\n  return 3\n}\nprintln(f())",
			[]string{"warning: unused variable `unused`"}},
		{"globals are not reported", "let top = 1", nil},
		{"impl declared after the calling function", "struct P {\n  x: int\n}\nfn f(p: P) {\n  return p.twice()\n}\nimpl P {\n  fn twice(self) {\n    return self.x * 2\n  }\n}\nprintln(f(P { x: 1 }))",
			[]string{"warning: no `impl P` is visible here, so `.twice()` yields nil"}},
		{"spread call, impl declared after the calling function", "struct P {\n  x: int\n}\nfn f(p: P, args) {\n  return p.plus(...args)\n}\nimpl P {\n  fn plus(self, k) {\n    return self.x + k\n  }\n}\nprintln(f(P { x: 1 }, [2]))",
			[]string{"warning: no `impl P` is visible here, so `.plus()` yields nil"}},
		{"optional call, impl declared after the calling function", "struct P {\n  x: int\n}\nfn f(p: P) {\n  return p?.twice()\n}\nimpl P {\n  fn twice(self) {\n    return self.x * 2\n  }\n}\nprintln(f(P { x: 1 }))",
			[]string{"warning: no `impl P` is visible here, so `.twice()` yields nil"}},
		{"spread and optional calls, impl declared before the calling function", "struct P {\n  x: int\n}\nimpl P {\n  fn plus(self, k) {\n    return self.x + k\n  }\n}\nfn f(p: P, args) {\n  return [p.plus(...args), p?.plus(1)]\n}\nprintln(f(P { x: 1 }, [2]))", nil},
		{"impl declared before the calling function", "struct P {\n  x: int\n}\nimpl P {\n  fn twice(self) {\n    return self.x * 2\n  }\n}\nfn f(p: P) {\n  return p.twice()\n}\nprintln(f(P { x: 1 }))", nil},
		{"shadowing", "fn f(x) {\n  let y = 1\n  if x {\n    let y = 2\n    println(y)\n  }\n  return y\n}\nprintln(f(1))",
			[]string{"warning: variable `y` shadows a variable of an enclosing block"}},
		{"same-scope redeclaration is not shadowing", "fn f() {\n  let y = 1\n  println(y)\n  let y = 2\n  return y\n}\nprintln(f())", nil},
		{"top-level shadowing is not reported", "let label = \"outer\"\nif true {\n  let label = \"inner\"\n  println(label)\n}\nprintln(label)", nil},
		{"unreachable", "fn f() {\n  return 1\n  println(\"never\")\n}\nprintln(f())",
			[]string{"warning: unreachable code"}},
		{"unreachable after an if whose branches exit", "fn f(x) {\n  if x {\n    return 1\n  } else {\n    throw \"no\"\n  }\n  println(\"never\")\n}\nprintln(f(1))",
			[]string{"warning: unreachable code"}},
		{"pipeline mode: declarations after a top-level return are created", "return 5\nfn shout(s) {\n  return s + \"!\"\n}\npipeline default() {\n  println(shout(\"ran\"))\n}", nil},
		{"pipeline mode: nothing follows a top-level exit", "exit(4)\nlet n = 1\nprintln(n)\npipeline default() {\n  println(n)\n}", nil},
		{"pipeline mode: a pipeline body still has unreachable code", "pipeline default() {\n  return 1\n  println(\"never\")\n}",
			[]string{"warning: unreachable code"}},
		{"script mode: a fn declared after a top-level return is never created", "return 5\nfn f() {\n  return 1\n}",
			[]string{"warning: unreachable code"}},
		{"reachable after an if without else", "fn f(x) {\n  if x {\n    return 1\n  }\n  return 2\n}\nprintln(f(1))", nil},
		{"reachable after while true left by a break in a let's if", "fn f(n) {\n  var i = 0\n  while true {\n    let _s = if i > n { break } else { 1 }\n    i = i + 1\n  }\n  return i\n}\nprintln(f(2))", nil},
		{"reachable after while true left by a break in a deadline", "fn f(n) {\n  var i = 0\n  while true {\n    deadline 5s {\n      if i > n { break }\n    }\n    i = i + 1\n  }\n  return i\n}\nprintln(f(2))", nil},
		{"unreachable after while true whose break leaves an inner loop", "fn f() {\n  while true {\n    for x in [1] {\n      let _y = if x > 0 { break } else { 1 }\n    }\n  }\n  return 1\n}\nprintln(f())",
			[]string{"warning: unreachable code"}},
		{"unknown attribute", "@frobnicate\nfn f() {\n  return 1\n}\nprintln(f())",
			[]string{"warning: unknown attribute `@frobnicate`"}},
		{"test on a struct", "@test\nstruct S {\n  x: int\n}\nprintln(S { x: 1 })",
			[]string{"warning: `@test` only marks functions and pipelines; it has no effect here"}},
		{"known attributes", "@test\npipeline test_x() {\n  println(1)\n}\n@test\nfn check_y() {\n  return 1\n}\n@deprecated(since: \"1\")\n@annotations(readOnly: true)\npub fn g() {\n  return 1\n}", nil},
	})
}

// TestModuleMode: in an imported module struct literals keep unknown
// fields (§11.2) but enums are recognised (docs/modules.md), so a
// non-exhaustive match is still an error.
func TestModuleMode(t *testing.T) {
	src := "enum Shape {\n  Dot\n  Ring\n}\nstruct P {\n  x: int\n}\n" +
		"pub fn f(s: Shape) {\n  let b = match s {\n    Shape.Dot -> { 2 }\n  }\n  return [b, P { x: 1, extra: 2 }]\n}\n"
	d := checkWith(t, src, resolve.Options{Universe: testUniverse, Module: true})
	var sawMatch bool
	for _, e := range d {
		if strings.Contains(e.Msg, "Non-exhaustive match on enum Shape") {
			sawMatch = true
		}
		if strings.Contains(e.Msg, "field") {
			t.Errorf("unexpected: %s", e.Msg)
		}
	}
	if !sawMatch {
		t.Error("non-exhaustive match in a module was not reported")
	}
}

// A `while` loop that no `break` leaves ends with its condition false, so
// the code after it is narrowed like the code after a `guard`
// (docs/spec/newer.md §3.5 early exits).
// A const holding the result of a function declared `-> T?` is watched by
// nil safety like a let (docs/spec/newer.md §3.5).
func TestConstDeclaredNilable(t *testing.T) {
	const find = "fn find(xs: list<string>) -> string? {\n  return xs.find({ x -> x != \"\" })\n}\n"
	runCases(t, []checkCase{
		{"const method call", find + "const v = find([\"a\"])\nprintln(v.upper())",
			[]string{"error: cannot access method `upper` on nilable type `string?`; the value may be nil at runtime"}},
		{"let method call", find + "let v = find([\"a\"])\nprintln(v.upper())",
			[]string{"error: cannot access method `upper` on nilable type `string?`; the value may be nil at runtime"}},
		{"const narrowed", find + "const v = find([\"a\"])\nif v != nil {\n  println(v.upper())\n}", nil},
		{"const defaulted", find + "const v = find([\"a\"]) ?? \"none\"\nprintln(v.upper())", nil},
	})
}

// A binding holding the result of an impl method declared `-> T?` is
// watched by nil safety too.
func TestMethodDeclaredNilable(t *testing.T) {
	const acc = "struct Acc {\n  owner: string\n}\nimpl Acc {\n  fn find(self) -> string? {\n    return self.owner == \"\" ? nil : self.owner\n  }\n}\nconst a = Acc {owner: \"ada\"}\n"
	runCases(t, []checkCase{
		{"method result", acc + "const o = a.find()\nprintln(o.upper())",
			[]string{"error: cannot access method `upper` on nilable type `string?`; the value may be nil at runtime"}},
		{"method result in a let", acc + "let o = a.find()\nprintln(o + \"!\")",
			[]string{"error: operator `+` cannot be applied to nilable type `string?`; the operand may be nil at runtime"}},
		{"method result narrowed", acc + "const o = a.find()\nif o != nil {\n  println(o.upper())\n}", nil},
		{"optional call stays unwatched", acc + "const o = a?.find()\nprintln(o ?? \"-\")", nil},
	})
}

// A call of a function declared `-> T?` or `-> A | B` is held to the whole
// union where it goes, as a binding annotated with that type is
// (docs/spec/newer.md §3.3, §3.5); each error has a passing twin.
func TestDeclaredUnionResult(t *testing.T) {
	const decls = "struct U {\n  name: string\n}\nimpl U {\n  fn kid(self) -> U? {\n    return nil\n  }\n}\n" +
		"fn mk() -> U? {\n  return nil\n}\nfn num() -> int? {\n  return nil\n}\n" +
		"fn either() -> int | string {\n  return 1\n}\nfn takes(n: int) -> int {\n  return n\n}\n" +
		"fn id<T>(x: T) -> T {\n  return x\n}\nfn loose() {\n  return nil\n}\n"
	runCases(t, []checkCase{
		{"let of T?", decls + "let a: U = mk()", []string{"error: let binding `a`: expected U, found U?"}},
		{"argument of T?", decls + "takes(num())", []string{"error: argument 1 `n`: expected int, found int?"}},
		{"let of a union", decls + "let d: int = either()", []string{"error: let binding `d`: expected int, found int | string"}},
		{"argument of a union", decls + "takes(either())", []string{"error: argument 1 `n`: expected int, found int | string"}},
		{"return of T?", decls + "fn r() -> int {\n  return num()\n}", []string{"error: return value: expected int, found int?"}},
		{"method result", decls + "let u = U {name: \"a\"}\nlet k: U = u.kid()", []string{"error: let binding `k`: expected U, found U?"}},
		{"twins: narrowed, defaulted, asserted", decls +
			"let x = num()\nif x != nil {\n  takes(x)\n}\ntakes(num() ?? 0)\ntakes(num()!)\nconst y = num()\nguard y != nil else {\n  return\n}\ntakes(y)", nil},
		{"twins: wider targets", decls +
			"fn opt(n: int?) -> int {\n  return n ?? 0\n}\nfn anyp(n: any) {\n  return n\n}\nfn bare(n) {\n  return n\n}\n" +
			"opt(num())\nanyp(num())\nbare(num())\nlet w: int | string = either()\nlet o: U? = mk()\n" +
			"fn pass() -> int? {\n  return num()\n}\nfn both() -> int | string {\n  return either()\n}", nil},
		{"twins: generic, unannotated, builtin, inferred union", decls +
			"let g: int = id(5)\nlet l: int = loose()\nlet n: int = len([1])\nlet t: int = true ? 1 : \"a\"\ntakes(if true { 1 } else { \"a\" })", nil},
	})
}

// A binding that keeps the closure it was initialised with is called as
// the closure: its arguments are checked (docs/spec/newer.md §3.1).
func TestHeldClosureCall(t *testing.T) {
	runCases(t, []checkCase{
		{"let never reassigned", "let c = { x: int -> x + 1 }\nc(\"a\")", []string{"error: argument 1 `x`: expected int, found string"}},
		{"local let", "fn f() {\n  let k = { s: string -> s }\n  return k(1)\n}\nf()", []string{"error: argument 1 `s`: expected string, found int"}},
		{"twin: valid call", "let c = { x: int -> x + 1 }\nprintln(c(2))", nil},
		{"twin: reassigned binding", "let c = { x: int -> x + 1 }\nc = { s -> s }\nprintln(c(\"a\"))", nil},
		{"twin: untyped parameter", "let c = { x -> x }\nprintln(c(\"a\"))", nil},
	})
}

func TestWhileExitNarrows(t *testing.T) {
	runCases(t, []checkCase{
		{"early exit loop", "fn f(x: int?) -> int {\n  while x == nil {\n    return 0\n  }\n  return x + 1\n}\nprintln(f(1))", nil},
		{"loop that assigns", "fn f(s: int?) -> int {\n  var x: int? = s\n  while x == nil {\n    x = 3\n  }\n  return x + 1\n}\nprintln(f(nil))", nil},
		{"a break leaves with the condition true", "fn f(x: int?) -> int {\n  while x == nil {\n    if true {\n      break\n    }\n    return 0\n  }\n  return x + 1\n}\nprintln(f(1))",
			[]string{"error: operator `+` cannot be applied to nilable type `int?`; the operand may be nil at runtime"}},
		{"a break of an inner loop does not count", "fn f(x: int?) -> int {\n  while x == nil {\n    for i in [1] {\n      break\n    }\n    return 0\n  }\n  return x + 1\n}\nprintln(f(1))", nil},
		{"inside the loop the condition holds", "fn f(x: int?) -> int {\n  while x != nil {\n    return x + 1\n  }\n  return 0\n}\nprintln(f(1))", nil},
	})
}

// `{...a, ...b}` of declared records is typed like `a + b`: right-biased,
// in order (docs/spec/newer.md §1.6). A plain literal stays a dict, and a
// record that a path write may change becomes one.
func TestSpreadMerges(t *testing.T) {
	recs := "let a: {id: int, name: string} = {id: 1, name: \"x\"}\nlet b: {id: string} = {id: \"one\"}\n"
	runCases(t, []checkCase{
		{"right-biased", recs + "let m = {...a, ...b}\nlet n: int = m.id\nprintln(n)",
			[]string{"error: let binding `n`: expected int, found string"}},
		{"fields of both sides", recs + "let m = {...b, ...a}\nlet s: string = m.id\nprintln(s)",
			[]string{"error: let binding `s`: expected string, found int"}},
		{"a literal key after the spread wins", recs + "let m = {...a, name: 3}\nlet s: string = m.name\nprintln(s)",
			[]string{"error: let binding `s`: expected string, found int"}},
		{"valid merges", recs + "let m = {...a, ...b, extra: true}\nlet id: string = m.id\nlet name: string = m.name\nlet e: bool = m.extra\nprintln([id, name, e])", nil},
		{"a spread of a dict gives a dict", recs + "fn f(d: dict) {\n  let m = {...a, ...d}\n  let n: int = m.name\n  return n\n}\nprintln(f({}))", nil},
		{"a plain literal bound once keeps its fields", "let m = {id: 1}\nlet s: string = m.id\nprintln(s)",
			[]string{"error: let binding `s`: expected string, found int"}},
		{"a reassigned plain literal stays a dict", "var m = {id: 1}\nm = {id: \"a\"}\nlet s: string = m.id\nprintln(s)", nil},
		{"a plain literal's nested list is not held invariantly", "fn f(c: {xs: list<float>}) -> int {\n  return len(c.xs)\n}\nlet c = {xs: [1, 2]}\nprintln(f(c))", nil},
		{"a path write makes it a dict", recs + "fn takes(v: {id: int, z: int}) -> int {\n  return v.z\n}\nvar m = {...a}\nm.z = 1\nprintln(takes(m))", nil},
	})
}

// TestResultNote: a typed body's tail value that does not fit carries
// the secondary label naming the result annotation, as a `return` does
// (docs/spec/newer.md §3.3).
func TestResultNote(t *testing.T) {
	for _, src := range []string{
		"pipeline p(task) -> int {\n  \"str\"\n}\n",
		"fn f() -> int {\n  return \"str\"\n}\n",
	} {
		got := checkSrc(t, src)
		if len(got) != 1 || len(got[0].Notes) != 1 || got[0].Notes[0].Msg != "return type declared here" || got[0].Notes[0].Line != 1 {
			t.Errorf("%q: want one error with the note on line 1, got %s", src, format(got))
		}
	}
}

// Narrowing sees through type aliases, generic ones too; an un-narrowed
// use still names the alias (docs/spec/newer.md §3.5).
func TestAliasNarrowing(t *testing.T) {
	decls := "type User = {name: string}\ntype MaybeUser = User?\ntype Maybe<T> = T | nil\ntype Val = string | nil\n"
	runCases(t, []checkCase{
		{"== nil and an early exit", decls + "fn a(u: MaybeUser) -> string {\n  if u == nil { return \"anon\" }\n  return u.name\n}", nil},
		{"non-nil assertion", decls + "fn b(u: MaybeUser) -> string { return u!.name }", nil},
		{"!= nil of a generic alias", decls + "fn c(x: Maybe<int>) -> int {\n  if x != nil { return x + 1 }\n  return 0\n}", nil},
		{"truthiness", decls + "fn d(v: Val) -> string {\n  if v { return v.upper() }\n  return \"\"\n}", nil},
		{"guard", decls + "fn e(v: Val) -> string {\n  guard v != nil else { return \"\" }\n  return v.upper()\n}", nil},
		{"assignment", decls + "fn f(x: Maybe<int>) -> int {\n  var y: Maybe<int> = x\n  y = 2\n  return y + 1\n}", nil},
		{"alias unnarrowed", decls + "fn a(u: MaybeUser) -> string {\n  return u.name\n}",
			[]string{"error: cannot access property `name` on nilable type `MaybeUser`; the value may be nil at runtime"}},
		{"generic alias unnarrowed", decls + "fn c(x: Maybe<int>) -> int {\n  return x + 1\n}",
			[]string{"error: operator `+` cannot be applied to nilable type `Maybe<int>`; the operand may be nil at runtime"}},
		{"alias of a non-nil type keeps its name", "type Id = int\nfn f(x: Id) -> Id { return x! }",
			[]string{"warning: unnecessary non-null assertion: a value of type `Id` is never nil"}},
		// a `!` on a value only the flow made non-nil restates the guard:
		// no HARN-LNT-063
		{"assertion after an early exit", decls + "fn g(u: User?) -> string {\n  if u == nil { return \"\" }\n  let v = u!\n  return v.name\n}", nil},
		{"assertion after a guard", decls + "fn h(u: User?) -> string {\n  guard u != nil else { return \"\" }\n  return u!.name\n}", nil},
	})
}

// After an if chain or a match, the narrowings are those of the branches
// that can fall through, each with the facts of how it was reached.
func TestBranchJoinNarrowing(t *testing.T) {
	err := []string{"error: cannot access property `name` on nilable type `{name: string}?`; the value may be nil at runtime"}
	runCases(t, []checkCase{
		{"else if exits", "fn a(u: {name: string}?, anon: bool) -> string {\n  if anon {\n    return \"anon\"\n  } else if u == nil {\n    return \"none\"\n  }\n  return u.name\n}", nil},
		{"nested else exits", "fn c(u: {name: string}?, anon: bool) -> string {\n  if anon { return \"anon\" } else { if u == nil { return \"none\" } }\n  return u.name\n}", nil},
		{"both branches narrow", "fn f(u: {name: string}?, k: bool) -> string {\n  if k {\n    guard u != nil else { return \"a\" }\n  } else {\n    if u == nil { return \"b\" }\n  }\n  return u.name\n}", nil},
		{"assigned in the nil branch", "fn e(x: int?) -> int {\n  var y: int? = x\n  if y == nil { y = 0 }\n  return y + 1\n}", nil},
		{"continue leaves the branch", "fn f(xs: list<int?>) -> int {\n  var total = 0\n  for x in xs {\n    let v: int? = x\n    if v == nil { continue }\n    total = total + v\n  }\n  return total\n}", nil},
		{"a branch falls through with nil", "fn a(u: {name: string}?, anon: bool) -> string {\n  if anon {\n    println(\"anon\")\n  } else if u == nil {\n    return \"none\"\n  }\n  return u.name\n}", err},
		{"nil branch without exit", "fn a(u: {name: string}?) -> string {\n  if u == nil { println(\"none\") }\n  return u.name\n}", err},
		{"nested else falls through", "fn c(u: {name: string}?, anon: bool) -> string {\n  if anon { println(\"anon\") } else { if u == nil { return \"none\" } }\n  return u.name\n}", err},
		{"reassigned to nil in a branch", "fn g(u: {name: string}?, k: bool) -> string {\n  var v: {name: string}? = u\n  if v == nil { return \"\" }\n  if k { v = nil }\n  return v.name\n}",
			[]string{"error: cannot access property `name` on nilable type `{name: string}?`"}},
		{"ternary leaves no facts", "fn t(u: {name: string}?) -> string {\n  let s = u == nil ? \"a\" : \"b\"\n  return u.name + s\n}", err},
		{"match nil arm exits", "fn d(v: string?) -> string {\n  match v {\n    nil -> { return \"none\" }\n    _ -> { }\n  }\n  return v.lower()\n}", nil},
		{"match nil arm falls through", "fn d(v: string?) -> string {\n  match v {\n    nil -> { println(\"none\") }\n    _ -> { }\n  }\n  return v.lower()\n}",
			[]string{"error: cannot access method `lower` on nilable type `string?`"}},
		{"match catch-all before nil arm", "fn d(v: string?) -> string {\n  match v {\n    x -> { println(x) }\n    nil -> { return \"none\" }\n  }\n  return v.lower()\n}",
			[]string{"error: cannot access method `lower` on nilable type `string?`"}},
	})
}

// `x op= e` is `x = x op e` (docs/spec/language.md §3.3): a nilable
// operand is reported as in the binary form, and arithmetic on non-nil
// operands leaves the target non-nil (docs/spec/newer.md §3.5).
func TestCompoundAssignmentNil(t *testing.T) {
	nilPlus := "error: operator `+` cannot be applied to nilable type `int?`; the operand may be nil at runtime"
	runCases(t, []checkCase{
		{"nilable value", "fn f(a: int?) -> int {\n  var t = 0\n  t += a\n  return t\n}\nprintln(f(1))", []string{nilPlus}},
		{"nilable target", "fn f(a: int?) -> int {\n  var t: int? = a\n  t += 1\n  return 0\n}\nprintln(f(1))", []string{nilPlus}},
		{"nilable field", "fn f(c: {n?: int}) -> int {\n  var d: {n?: int} = c\n  d.n += 1\n  return 0\n}\nprintln(f({}))", []string{nilPlus}},
		{"narrowed target stays narrowed", "fn f(a: int?) -> int {\n  var t: int? = 0\n  t += 1\n  var u: int? = a\n  if u == nil {\n    u = 0\n  }\n  u *= 2\n  return t + u\n}\nprintln(f(1))", nil},
		{"narrowed field stays narrowed", "fn f(c: {n?: int}) -> int {\n  var d: {n?: int} = c\n  if d.n == nil {\n    return 0\n  }\n  d.n += 1\n  return d.n * 2\n}\nprintln(f({}))", nil},
		{"defaulted value", "fn f(m: dict<string, int>) -> int {\n  var t = 0\n  t += m[\"x\"] ?? 0\n  return t\n}\nprintln(f({}))", nil},
	})
}

// A loop over a collection whose type the program wrote down yields
// elements as declared: `T?` and unions are held in full
// (docs/spec/newer.md §3.1, §3.5).
func TestLoopVariableDeclared(t *testing.T) {
	runCases(t, []checkCase{
		{"nilable element", "fn f(xs: list<int?>) -> int {\n  var t = 0\n  for x in xs {\n    let y: int = x\n    t = t + y\n  }\n  return t\n}\nprintln(f([1]))",
			[]string{"error: let binding `y`: expected int, found int?"}},
		{"nilable element in arithmetic", "fn f(xs: list<int?>) -> int {\n  var t = 0\n  for x in xs {\n    t = t + x\n  }\n  return t\n}\nprintln(f([1]))",
			[]string{"error: operator `+` cannot be applied to nilable type `int?`; the operand may be nil at runtime"}},
		{"union element", "fn g(n: int) -> int {\n  return n\n}\nfn f(xs: list<int | string>) {\n  for x in xs {\n    g(x)\n  }\n}\nf([1])",
			[]string{"error: argument 1 `n`: expected int, found int | string"}},
		{"narrowed element", "fn f(xs: list<int?>) -> int {\n  var t = 0\n  for x in xs {\n    if x != nil {\n      t = t + x\n    }\n  }\n  return t\n}\nprintln(f([1]))", nil},
		{"inferred list", "fn f() -> int {\n  var t = 0\n  for x in [1, nil] {\n    let y: int = x\n    t = t + y\n  }\n  return t\n}\nprintln(f())", nil},
	})
}

// A match arm's guard narrows its body, and a name a catch-all pattern
// binds from a watched `T?` scrutinee may be nil as the scrutinee may,
// until a `nil` arm has taken nil (docs/spec/newer.md §3.5).
func TestMatchArmNil(t *testing.T) {
	nilPlus := "error: operator `+` cannot be applied to nilable type `int?`; the operand may be nil at runtime"
	runCases(t, []checkCase{
		{"guard narrows the body", "fn f(x: int?, k: int) -> int {\n  return match k {\n    1 if x != nil -> { x + 1 }\n    _ -> { 0 }\n  }\n}\nprintln(f(1, 1))", nil},
		{"binding of a nilable scrutinee", "fn f(x: int?) -> int {\n  match x {\n    n -> { return n + 1 }\n  }\n}\nprintln(f(1))", []string{nilPlus}},
		{"binding after a nil arm", "fn f(x: int?) -> int {\n  match x {\n    nil -> { return 0 }\n    n -> { return n + 1 }\n  }\n}\nprintln(f(1))", nil},
		{"binding narrowed by its guard", "fn f(x: int?) -> int {\n  return match x {\n    n if n != nil -> { n * 2 }\n    _ -> { 0 }\n  }\n}\nprintln(f(1))", nil},
	})
}

// `let y = x` copies a watched `T?` value: y may be nil as x may
// (docs/spec/newer.md §3.5).
func TestCopiedNilable(t *testing.T) {
	runCases(t, []checkCase{
		{"copy of a parameter", "fn f(x: int?) -> int {\n  let y = x\n  return y + 1\n}\nprintln(f(1))",
			[]string{"error: operator `+` cannot be applied to nilable type `int?`; the operand may be nil at runtime"}},
		{"copy of an optional field", "fn f(u: {name?: string}) -> string {\n  let n = u.name\n  return n.upper()\n}\nprintln(f({}))",
			[]string{"error: cannot access method `upper` on nilable type `string?`; the value may be nil at runtime"}},
		{"copy after narrowing", "fn f(x: int?) -> int {\n  if x == nil {\n    return 0\n  }\n  let y = x\n  return y + 1\n}\nprintln(f(1))", nil},
		{"copy narrowed itself", "fn f(x: int?) -> int {\n  let y = x\n  if y == nil {\n    return 0\n  }\n  return y + 1\n}\nprintln(f(1))", nil},
	})
}

// Destructuring a declared value binds its `T?` fields and tuple slots
// as declared (docs/spec/newer.md §3.5).
func TestDestructuredNilable(t *testing.T) {
	nilPlus := "error: operator `+` cannot be applied to nilable type `int?`; the operand may be nil at runtime"
	runCases(t, []checkCase{
		{"dict pattern", "fn f(p: {a: int?, b: int}) -> int {\n  let {a, b} = p\n  return a + b\n}\nprintln(f({a: 1, b: 2}))", []string{nilPlus}},
		{"tuple pattern", "fn f(p: tuple<int?, int>) -> int {\n  let [a, b] = p\n  return a + b\n}\nprintln(1)", []string{nilPlus}},
		{"for pattern", "fn f(ps: list<{a: int?}>) -> int {\n  var t = 0\n  for {a} in ps {\n    t = t + a\n  }\n  return t\n}\nprintln(f([]))", []string{nilPlus}},
		{"narrowed field", "fn f(p: {a: int?, b: int}) -> int {\n  let {a, b} = p\n  if a == nil {\n    return b\n  }\n  return a + b\n}\nprintln(f({a: 1, b: 2}))", nil},
		{"literal source", "let {x, y} = {x: 1, y: nil}\nprintln(x + 1)", nil},
	})
}

// A copy of a declared `unknown` value, and the variable of a loop over
// a declared `list<unknown>`, must be narrowed before use as the
// original must (docs/spec/newer.md §3.7).
func TestCopiedUnknown(t *testing.T) {
	runCases(t, []checkCase{
		{"copy read", "fn f(v: unknown) {\n  let x = v\n  return x.name\n}\nprintln(f(1))",
			[]string{"warning: property access `.name` on an `unknown` value will fail at runtime if the value is not a shape with that field"}},
		{"copy returned", "fn f(v: unknown) -> int {\n  let x = v\n  return x\n}\nprintln(f(1))",
			[]string{"error: return value: expected int, found unknown"}},
		{"loop variable", "fn f(vs: list<unknown>) {\n  for v in vs {\n    println(v.name)\n  }\n}\nf([])",
			[]string{"warning: property access `.name` on an `unknown` value will fail at runtime if the value is not a shape with that field"}},
		{"narrowed copy", "fn f(v: unknown) -> string {\n  let x = v\n  if type_of(x) == \"string\" {\n    return x.upper()\n  }\n  return \"\"\n}\nprintln(f(1))", nil},
		{"copy of a narrowed value", "fn f(v: unknown) -> int {\n  if type_of(v) != \"int\" {\n    return 0\n  }\n  let x = v\n  return x + 1\n}\nprintln(f(1))", nil},
	})
}

// The variable of a loop over a declared collection has the declared
// element type: the fields of a declared shape or struct, optional ones
// nilable, apply to paths rooted at it (docs/spec/newer.md §3.5, §3.6).
func TestLoopVariableFields(t *testing.T) {
	runCases(t, []checkCase{
		{"optional field of a struct element", "struct Item {\n  tags?: list<string>\n}\nfn f(items: list<Item>) -> int {\n  var n = 0\n  for it in items {\n    n = n + it.tags.count\n  }\n  return n\n}\nprintln(f([]))",
			[]string{"error: cannot access property `count` on nilable type `list<string>?`; the value may be nil at runtime"}},
		{"unknown field of a shape element", "fn f(items: list<{name: string}>) {\n  for it in items {\n    println(it.nme)\n  }\n}\nf([])",
			[]string{"error: field `nme` does not exist on shape `{name: string}` — did you mean `name`?"}},
		{"narrowed optional field", "struct Item {\n  tags?: list<string>\n}\nfn f(items: list<Item>) -> int {\n  var n = 0\n  for it in items {\n    if it.tags != nil {\n      n = n + it.tags.count\n    }\n  }\n  return n\n}\nprintln(f([]))", nil},
		{"inferred list", "fn f() {\n  for it in [{a: 1}] {\n    println(it.b)\n  }\n}\nf()", nil},
	})
}

// `self` in an impl method has the struct's declared fields: an optional
// one is nilable (docs/spec/newer.md §3.5).
func TestSelfOptionalField(t *testing.T) {
	runCases(t, []checkCase{
		{"optional field through self", "struct Item {\n  tags?: list<string>\n}\nimpl Item {\n  fn n(self) -> int {\n    return self.tags.count\n  }\n}\nprintln(Item {}.n())",
			[]string{"error: cannot access property `count` on nilable type `list<string>?`; the value may be nil at runtime"}},
		{"narrowed through self", "struct Item {\n  tags?: list<string>\n}\nimpl Item {\n  fn n(self) -> int {\n    if self.tags == nil {\n      return 0\n    }\n    return self.tags.count\n  }\n}\nprintln(Item {}.n())", nil},
	})
}

func TestClosureTailResult(t *testing.T) {
	runCases(t, []checkCase{
		{"callback", "fn show(f: fn(int) -> string) -> string {\n  return f(1)\n}\nprintln(show({ n: int -> n * 2 }))",
			[]string{"error: argument 1 `f`: expected fn(int) -> string, found fn(int) -> int"}},
		{"held closure call", "let d = { a: int -> a * 2 }\nlet s: string = d(2)\nprintln(s)",
			[]string{"error: let binding `s`: expected string, found int"}},
		{"discarded result", "fn each(f: fn(int) -> nil) {\n  f(1)\n}\neach({ x: int -> x * 2 })", nil},
	})
}

// TestDeclaredTwice: a name declared twice in one parameter list, type
// parameter list, struct or enum is an error at the second, with a note
// at the first; `_` may repeat (docs/check.md).
func TestDeclaredTwice(t *testing.T) {
	cases := []struct{ src, msg string }{
		{"fn f(a, a) { return a }\n", "parameter `a` is declared twice in function `f`"},
		{"let g = { x, x -> x }\n", "parameter `x` is declared twice in a closure"},
		{"struct P { x: int }\nimpl P {\n  fn m(self, y, y) { return y }\n}\n", "parameter `y` is declared twice in method `P.m`"},
		{"fn f<T, T>(x: T) -> T { return x }\n", "type parameter `T` is declared twice in function `f`"},
		{"struct P { x: int, x: int }\n", "field `x` is declared twice in struct `P`"},
		{"enum E { A, A }\n", "variant `A` is declared twice in enum `E`"},
		{"enum E { A(x: int, x: int) }\n", "field `x` is declared twice in variant `E.A`"},
		{"interface I {\n  fn m(self)\n  fn m(self)\n}\n", "method `m` is declared twice in interface `I`"},
		{"struct P { x: int }\nimpl P {\n  fn m(self) { return 1 }\n  fn m(self) { return 2 }\n}\n", "method `m` is declared twice in impl `P`"},
	}
	for _, c := range cases {
		got := checkSrc(t, c.src)
		if len(got) != 1 || got[0].Msg != c.msg || len(got[0].Notes) != 1 || got[0].Notes[0].Msg != "first declared here" {
			t.Errorf("%q: want %q with a note, got %s", c.src, c.msg, format(got))
		}
	}
	if got := checkSrc(t, "let g = { _, _ -> 1 }\nprintln(g(1, 2))\n"); len(got) != 0 {
		t.Errorf("`_` twice: want no diagnostic, got %s", format(got))
	}
}

// A conversion is suggested for a string literal only when the
// conversion would succeed: `to_int("8080")`, never `to_int("big")`.
func TestConversionHelpNumericStrings(t *testing.T) {
	for src, want := range map[string]string{
		"let port: int = \"8080\"\nprintln(port)":   "did you mean `to_int(\"8080\")`?",
		"let r: float = \"0.5\"\nprintln(r)":        "did you mean `to_float(\"0.5\")`?",
		"let port: int = \"eighty\"\nprintln(port)": "",
		"let r: float = \"half\"\nprintln(r)":       "",
		// what to_int and to_float read (docs/spec/newer.md §2.12), no more
		"let n: int = \" 12 \"\nprintln(n)":    "did you mean `to_int(\" 12 \")`?",
		"let n: int = \"1.5\"\nprintln(n)":     "",
		"let n: int = \"NaN\"\nprintln(n)":     "",
		"let n: int = \"1e3\"\nprintln(n)":     "",
		"let r: float = \"inf\"\nprintln(r)":   "did you mean `to_float(\"inf\")`?",
		"let r: float = \"0x1p3\"\nprintln(r)": "",
		"let r: float = \"1_000\"\nprintln(r)": "",
	} {
		d := checkSrc(t, src)
		if len(d) != 1 || d[0].Help != want {
			t.Errorf("%q: diagnostics %s; want one with help %q", src, format(d), want)
		}
	}
}

// A literal union takes only its listed values, so a mismatch against one
// gets no conversion help (docs/spec/newer.md §3.1); a plain string still does.
func TestLiteralUnionNoConversionHelp(t *testing.T) {
	d := checkSrc(t, "fn f(m: \"a\" | \"b\") { println(m) }\nf(\"c\")")
	if len(d) != 1 || d[0].Msg != "argument 1 `m`: expected \"a\" | \"b\", found \"c\"" || d[0].Help != "" {
		t.Fatalf("diagnostics %v (help %q)", d, d[0].Help)
	}
	d = checkSrc(t, "let x: \"on\" | \"off\" = 42\nprintln(x)")
	if len(d) != 1 || d[0].Help != "" {
		t.Fatalf("diagnostics %v: no conversion gives a literal", d)
	}
	d = checkSrc(t, "let x: string = 42\nprintln(x)")
	if len(d) != 1 || d[0].Help != "did you mean `to_string(42)`?" {
		t.Fatalf("diagnostics %v: a plain string keeps its help", d)
	}
}
