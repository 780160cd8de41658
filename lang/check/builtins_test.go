package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// testLibrary stands in for the descriptor table's signatures.
type testLibrary map[string]string

func (l testLibrary) BuiltinSig(name string) (string, bool) {
	s, ok := l[name]
	return s, ok
}

func (l testLibrary) MethodSig(recv, name string) (string, bool) {
	s, ok := l[recv+"."+name]
	return s, ok
}

func (l testLibrary) MethodNames(recv string) []string {
	var out []string
	for k := range l {
		if r, name, ok := strings.Cut(k, "."); ok && r == recv {
			out = append(out, name)
		}
	}
	return out
}

var testLib = testLibrary{
	"len":                 "len(v: string | bytes | list | dict | set | range)",
	"round":               "round(n: int | float)",
	"uppercase":           "uppercase(s: string)",
	"split":               "split(s, sep?)",
	"println":             "println(v?)",
	"range":               "range(n) / range(a, b)",
	"format":              "format(template, ...args)",
	"channel":             `channel(name = "default", capacity = 256)`,
	"mcp_log":             "mcp_prompt({name, handler, title?})",
	"odd":                 "odd(a, b) extra", // outside the grammar: never checked
	"list.sort":           "xs.sort()",
	"list.map":            "xs.map(f)",
	"string.upper":        "s.upper()",
	"string.replace":      "s.replace(old, new)",
	"string.split":        "s.split(sep?)",
	"string.char_at":      "s.char_at(i?)",
	"list.sorted":         "xs.sorted()",
	"list.first":          "xs.first(n?)",
	"set.contains":        "s.contains(x)",
	"HarnessClock.now_ms": "harness.clock.now_ms()",
	"HarnessFs.read_text": "fs.read_text(path: string) -> string",
	"HarnessFs.mkdtemp":   "fs.mkdtemp(prefix?: string) -> string",
	"HarnessFs.stat":      "fs.stat(path: string) -> dict / fs.stat(path: string, opts) -> string",
	"uuid":                "uuid() -> string",
	"to_int":              "to_int(v) -> int?",
	"abs":                 "abs(n: int | float) -> int | float | nil",
	"keys":                "keys(d) -> list<string>",
	"json_parse":          "json_parse(text) -> any",
	"dict.get":            "get(key, default?)",
	"dict.keys":           "keys() -> list",
	"harness":             "",
}

func runLibCases(t *testing.T, cases []checkCase) {
	t.Helper()
	u := universe{}
	for n := range testLib {
		if !strings.Contains(n, ".") {
			u[n] = true
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := syntax.Parse("test.harn", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			info := resolve.File(f, resolve.Options{Universe: u})
			got := File(f, info, Options{Library: testLib})
			text := strings.TrimRight(format(got), "\n")
			var lines []string
			if text != "" {
				lines = strings.Split(text, "\n")
			}
			if len(lines) != len(tc.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(lines), len(tc.want), text)
			}
			for i, w := range tc.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("diagnostic %d = %q, want it to contain %q", i, lines[i], w)
				}
			}
		})
	}
}

// checkLibSrc checks src with the test library.
func checkLibSrc(t *testing.T, src string) diag.List {
	t.Helper()
	f, err := syntax.Parse("test.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	u := universe{}
	for n := range testLib {
		if !strings.Contains(n, ".") {
			u[n] = true
		}
	}
	return File(f, resolve.File(f, resolve.Options{Universe: u}), Options{Library: testLib})
}

func TestCallableHiddenByDictMethod(t *testing.T) {
	runLibCases(t, []checkCase{
		{"get", "const g = {get: { -> 4 }}\nprintln(g.get())", []string{"warning: `get` is a dict method: `.get(…)` calls it, not the callable stored under the key `get`"}},
		{"typed alias", "type Getter = {keys: fn() -> list}\nfn f(g: Getter) {\n  return g.keys()\n}\nprintln(f({keys: { -> [] }}))", []string{"warning: `keys` is a dict method: `.keys(…)` calls it, not the callable stored under the key `keys`"}},
		{"other names and values", "const g = {run: { -> 4 }, get: 5}\nprintln(g.run())\nprintln(g.get(\"get\"))\nprintln((g.run)())", nil},
	})
	d := checkLibSrc(t, "const g = {get: { -> 4 }}\nprintln(g.get())")
	if len(d) != 1 || d[0].Help != "call the stored value itself: `(g.get)(…)`" {
		t.Fatalf("diagnostics %v", d)
	}
}

func TestResultMethod(t *testing.T) {
	runLibCases(t, []checkCase{
		{"unwrap", "const r = Result.Ok(1)\nprintln(r.unwrap())", []string{"warning: value of type enum has no method `unwrap`"}},
		{"typed parameter", "fn f(r: Result<int, string>) {\n  return r.map({ x -> x })\n}\nprintln(f(Result.Ok(1)))", []string{"warning: value of type enum has no method `map`"}},
		{"free functions", "const r = Result.Ok(1)\nprintln([r.variant, r.fields])", nil},
	})
	d := checkLibSrc(t, "const r = Result.Ok(1)\nprintln(r.unwrap())")
	if len(d) != 1 || d[0].Help != "call the free function: `unwrap(r)`" {
		t.Fatalf("diagnostics %v", d)
	}
	// unwrap_or's help keeps the default (docs/check.md).
	for src, want := range map[string]string{
		"const r = Result.Err(1)\nprintln(r.unwrap_or(5))":              "call the free function: `unwrap_or(r, 5)`",
		"const r = Result.Err(1)\nconst z = 0\nprintln(r.unwrap_or(z))": "call the free function: `unwrap_or(r, z)`",
		"println(Result.Err(1).unwrap_or([]))":                          "call the free function: `unwrap_or(r, d)`",
	} {
		if d := checkLibSrc(t, src); len(d) != 1 || d[0].Help != want {
			t.Errorf("%q: diagnostics %v, want help %q", src, d, want)
		}
	}
}

func TestBuiltinCalls(t *testing.T) {
	runLibCases(t, []checkCase{
		{"too many", "println(round(2.5, 2))",
			[]string{"warning: Builtin function 'round' expects 1 argument, got 2"}},
		{"too few", "println(split())",
			[]string{"warning: Builtin function 'split' expects 1-2 arguments, got 0"}},
		{"alternative forms", "println(range(1, 2, 3))",
			[]string{"warning: Builtin function 'range' expects 1-2 arguments, got 3"}},
		{"rest", "println(format())",
			[]string{"warning: Builtin function 'format' expects at least 1 argument, got 0"}},
		{"argument kind", "println(len(42))",
			[]string{"warning: argument 1 `v`: expected string | bytes | list | dict | set | range, found int"}},
		{"nil argument", "println(uppercase(nil))",
			[]string{"warning: argument 1 `s`: expected string, found nil"}},
		{"valid calls", `println(round(2.5))
println(len("abc") + len([1]) + len({a: 1}))
println(split("a b"))
println(split("a,b", ","))
println(range(3))
println(range(1, 3))
println(format("{}-{}", 1, 2))
println(channel())
println(channel("c", 2))
println(odd(1, 2, 3, 4))
fn up(s: string?) {
  return uppercase(s)
}
fn size(x) {
  return len(x)
}
println([up("a"), size(1)])`, nil},
		{"a user function shadows the builtin", "fn len(a, b) {\n  return a\n}\nprintln(len(1, 2))", nil},
		{"spread", "let xs = [2.5, 1]\nprintln(round(...xs))", nil},
	})
}

func TestValueMethods(t *testing.T) {
	runLibCases(t, []checkCase{
		{"unknown string method", "let s = \"a\"\nprintln(s.uper())",
			[]string{"error: value of type string has no method `uper`"}},
		{"unknown list method on a parameter", "fn f(xs: list<int>) {\n  return xs.mapp({ x -> x })\n}\nprintln(f([1]))",
			[]string{"error: value of type list has no method `mapp`"}},
		{"unknown method on a tuple, a list at run time", "fn f(row: tuple<string, int>) {\n  return row.mapp({ x -> x })\n}\nprintln(f([\"a\", 1]))",
			[]string{"error: value of type list has no method `mapp`"}},
		{"list method on a tuple", "fn f(row: tuple<string, int>) {\n  return row.map({ x -> x })\n}\nprintln(f([\"a\", 1]))", nil},
		{"bool has no methods", "println(true.upper())",
			[]string{"error: value of type bool has no method `upper`"}},
		{"int and float have no methods", "let n = 5\nprintln(n.abs())\nprintln(2.5.floor())",
			[]string{"error: value of type int has no method `abs`", "error: value of type float has no method `floor`"}},
		// docs/spec/newer.md §2.11: a name no impl of the file's struct
		// declares is the run-time error, reported where the call sees the impl
		{"unknown struct method", "struct P {\n  x: int\n}\nimpl P {\n  fn get(self) {\n    return self.x\n  }\n}\nprintln(P { x: 1 }.gett())",
			[]string{"error: value of type struct has no method `gett`"}},
		// without an impl in the file, another module's impl may answer
		{"struct without impl is left to run time", "struct P {\n  x: int\n}\nprintln(P { x: 1 }.gett())", nil},
		// a call that sees no impl yields nil (docs/spec/language.md §10.3)
		{"struct method where no impl is visible", "struct P {\n  x: int\n}\nfn f(p: P) {\n  return p.gett()\n}\nimpl P {\n  fn get(self) {\n    return self.x\n  }\n}\nprintln(f(P { x: 1 }))", nil},
		{"comparator passed to sort", "let xs = [2, 1]\nprintln(xs.sort({ a, b -> a - b }))",
			[]string{"warning: Builtin function 'list.sort' expects 0 arguments, got 1"}},
		{"method arity", "println(\"ab\".replace(\"a\"))",
			[]string{"warning: Builtin function 'string.replace' expects 2 arguments, got 1"}},
		{"capability method arity", "println(harness.clock.now_ms(5))",
			[]string{"warning: Builtin function 'harness.clock.now_ms' expects 0 arguments, got 1"}},
		{"capability method", "println(harness.clock.now_ms())", nil},
		// a capability method taken as a value is a bound method at run time
		{"capability method as a value", "let read = harness.fs.read_text\nlet s: string = read(\"a\")\nlet now = harness.clock.now_ms\nlet stat = harness.fs.stat\nprintln([s, now(), stat(\"a\")])", nil},
		{"capability method value has the method's type", "let read: fn(string) -> int = harness.fs.read_text\nprintln(read)",
			[]string{"error: let binding `read`: expected fn(string) -> int, found fn(string) -> string"}},
		{"capability property that is no method", "let f = harness.fs.nope\nprintln(f)",
			[]string{"error: cannot access property `nope` on HarnessFs"}},
		{"valid and unchecked receivers", `let s = "a"
let xs = [1]
let d = {f: { -> 1 }}
struct P {
  x: int
}
impl P {
  fn get(self) {
    return self.x
  }
}
fn dyn(v) {
  return v
}
fn opt(v: string?) {
  return v?.upper()
}
println([s.upper(), xs.map({ x -> x }), xs.sort(), d.f(), d.anything(), P { x: 1 }.get(), dyn(s).nope(), dyn(1).abs(), dyn(2.5).floor(), set(1).contains(1), opt(nil)])`, nil},
		{"struct without a visible impl list", "struct P {\n  x: int\n}\nfn f(p: P) {\n  return p.x\n}\nprintln(f(P { x: 1 }))", nil},
	})
}

// TestBuiltinResults: a builtin call has the result type its signature
// states (docs/check.md, Builtin results), as an inferred type: a union
// result needs one member to fit, and nil safety leaves it alone.
func TestBuiltinResults(t *testing.T) {
	runLibCases(t, []checkCase{
		{"stated result", "let n: int = uuid()\nprintln(n)",
			[]string{"error: let binding `n`: expected int, found string"}},
		{"into a return value", "fn f() -> bool {\n  return keys({a: 1})\n}\nprintln(f())",
			[]string{"error: return value: expected bool, found list<string>"}},
		{"nilable result, no member fits", "let s: string = to_int(\"5\")\nprintln(s)",
			[]string{"error: let binding `s`: expected string, found int?"}},
		{"union result, no member fits", "let s: string = abs(-1)\nprintln(s)",
			[]string{"error: let binding `s`: expected string, found int | float | nil"}},
		{"reassigning a binding it initialised", "var u = uuid()\nu = 1\nprintln(u)",
			[]string{"error: assignment to `u`: expected string, found int"}},
		{"valid uses", `let n: int = to_int("5")
let m: int = to_int("6") ?? 0
let a: float = abs(-2.5)
let b = to_int("7") + 1
let k: list<string> = keys({a: 1})
let j: int = json_parse("1")
var u = uuid()
u = u + "!"
println([n, m, a, b, k, j, u])`, nil},
		{"no stated result is any", "let n: int = split(\"a\")\nprintln(n)", nil},
	})
}

func TestParseSig(t *testing.T) {
	for _, tc := range []struct {
		sig      string
		min, max int
		ok       bool
	}{
		{"f()", 0, 0, true},
		{"xs.sort_by(f)", 1, 1, true},
		{"f(a, b?, c = 1)", 1, 3, true},
		{"f(...args)", 0, -1, true},
		{"tuple(a, b, ...)", 2, -1, true},
		{"random_choice(rng?, list)", 1, 2, true},
		{"f(x: fn(int) -> int, y: list<int>)", 2, 2, true},
		{"mcp_elicit({message, requestedSchema, mode?})", 1, 1, true},
		{"range(n) / range(a, b)", 1, 2, true},
		{"f(a) extra", 0, 0, false},
		{"f(a b)", 0, 0, false},
		{"f(x: ???)", 0, 0, false},
		{"f(a) -> string", 1, 1, true},
		{"f(g: fn(int) -> int) -> list<int>", 1, 1, true},
		{"f(a) ->", 0, 0, false},
		{"f(a) -> ???", 0, 0, false},
	} {
		s, ok := parseSig(tc.sig)
		if ok != tc.ok || ok && (s.min != tc.min || s.max != tc.max) {
			t.Errorf("parseSig(%q) = %d..%d %v, want %d..%d %v", tc.sig, s.min, s.max, ok, tc.min, tc.max, tc.ok)
		}
	}
	for sig, want := range map[string]string{
		"f(a)":                              "",
		"f(a) -> string":                    "string",
		"f(g: fn(int) -> int) -> list<int>": "list<int>",
		"f() -> int / f(a) -> int":          "int",
		"f() -> int / f(a) -> string":       "",
		"f() -> int / f(a)":                 "",
	} {
		s, _ := parseSig(sig)
		got := ""
		if s.result != nil {
			got = s.result.String()
		}
		if got != want {
			t.Errorf("parseSig(%q).result = %q, want %q", sig, got, want)
		}
	}
}

// TestSplitTop: signature and type texts split at their top-level
// separator only, an arrow's `>` closing no bracket.
func TestSplitTop(t *testing.T) {
	for _, c := range []struct {
		s    string
		sep  rune
		want []string
	}{
		{"a, b: dict<string, int>, f: fn(int, int) -> int", ',', []string{"a", " b: dict<string, int>", " f: fn(int, int) -> int"}},
		{"int | list<int | string> | nil", '|', []string{"int ", " list<int | string> ", " nil"}},
		{"fn(int) -> int | {a: int | nil}", '|', []string{"fn(int) -> int ", " {a: int | nil}"}},
		{"string", '|', []string{"string"}},
	} {
		if got := SplitTop(c.s, c.sep); !slices.Equal(got, c.want) {
			t.Errorf("SplitTop(%q, %q) = %q, want %q", c.s, c.sep, got, c.want)
		}
	}
}

// TestLengthMethodHelp: asking a string or list for its length by
// another language's method name points at `len(…)` and `count`.
func TestLengthMethodHelp(t *testing.T) {
	for _, src := range []string{"\"abc\".lenght()\n", "[1].len()\n", "[1].size()\n", "\"abc\".length()\n"} {
		got := checkLibSrc(t, src)
		if len(got) != 1 || got[0].Help != lengthHelp {
			t.Errorf("%q: want one error with the length help, got %s", src, format(got))
		}
	}
	if got := checkLibSrc(t, "[1].sortd()\n"); len(got) != 1 || got[0].Help != "did you mean `sort`?" {
		t.Errorf("sortd: want the sort suggestion, got %s", format(got))
	}
}
