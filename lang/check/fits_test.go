package check

import (
	"strings"
	"testing"
)

// A list literal going where the elements are literal types is checked
// element by element, as scalars and dict literals already were
// (docs/spec/language.md §10.6): its own type widens `"c"` to string.
func TestListLiteralOfLiteralTypes(t *testing.T) {
	lvl := "type Level = \"debug\" | \"info\"\n"
	runCases(t, []checkCase{
		{"string literal union", `let xs: list<"a" | "b"> = ["c"]`,
			[]string{"error: let binding `xs`: expected list<\"a\" | \"b\">, found list<string>"}},
		{"int literal union", `let ys: list<1 | 2> = [3]`,
			[]string{"error: let binding `ys`: expected list<1 | 2>, found list<int>"}},
		{"alias, one element wrong", lvl + `let ls: list<Level> = ["debug", "warn"]`,
			[]string{"error: let binding `ls`: expected list<Level>, found list<string>"}},
		{"argument", lvl + "fn f(xs: list<Level>) { return xs }\nf([\"warn\"])",
			[]string{"error: argument 1 `xs`: expected list<Level>, found list<string>"}},
		{"nested list", lvl + `let n: list<list<Level>> = [["debug"], ["warn"]]`,
			[]string{"error: let binding `n`: expected list<list<Level>>, found list<list<string>>"}},
		{"list of shapes", lvl + `let s: list<{l: Level}> = [{l: "warn"}]`,
			[]string{"error: let binding `s`: expected list<{l: Level}>, found list<{l: string}>"}},
		{"dict of lists", lvl + `let d: dict<string, list<Level>> = {a: ["nope"]}`,
			[]string{"error: let binding `d`: expected dict<string, list<Level>>, found {a: list<string>}"}},
		{"ternary branch", lvl + `let t: list<Level> = true ? ["debug"] : ["bad"]`,
			[]string{"error: let binding `t`: expected list<Level>, found list<string>"}},
		{"return value", lvl + "fn f() -> list<Level> { return [\"x\"] }",
			[]string{"error: return value: expected list<Level>, found list<string>"}},
		{"const of a literal type", lvl + "const W = \"warn\"\nlet c: list<Level> = [W]",
			[]string{"error: let binding `c`: expected list<Level>, found list<string>"}},
		{"a list literal is not a set", lvl + `let u: set<Level> = ["debug"]`,
			[]string{"error: let binding `u`: expected set<Level>, found list<string>"}},
		{"valid elements", lvl + `let a: list<Level> = ["debug", "info"]
let b: list<1 | 2> = [1, 2]
let e: list<Level> = []
let n: list<list<Level>> = [["debug"], []]
let o: list<Level>? = ["info"]
let m: list<Level | int> = ["debug", 3]
let s: list<{l: Level}> = [{l: "debug"}]
let t: list<Level> = true ? ["debug"] : ["info"]
let r: Result<list<Level>, string> = Ok(["info"])
println([a, b, e, n, o, m, s, t, r])`, nil},
		{"a string value may hold a member", lvl + "let s = \"debug\"\nlet a: list<Level> = [s]\nprintln(a)", nil},
		{"spreads are taken by their type", lvl + "let a: list<Level> = [\"debug\"]\nlet b: list<Level> = [...a, \"info\"]\nlet d: dict<string, list<Level>> = {a: [\"debug\"], ...{b: [\"info\"]}}\nprintln([b, d])", nil},
	})
}

// A function value whose signature the program wrote is held to the
// expected fn type with unions in full: parameters contravariant, the
// result covariant (docs/spec/newer.md §1.5).
func TestFnTypeVariance(t *testing.T) {
	runCases(t, []checkCase{
		{"parameter takes less than passed", "fn h(x: int) -> int { return x }\nfn apply(f: fn(int?) -> int) -> int { return f(nil) }\napply(h)",
			[]string{"error: argument 1 `f`: expected fn(int?) -> int, found fn(int) -> int"}},
		{"closure literal", "let g: fn(int | string) -> int = fn(x: int) -> int { return x }",
			[]string{"error: let binding `g`: expected fn(int | string) -> int, found fn(int) -> int"}},
		{"result wider than expected", "let k: fn() -> int = fn() -> int? { return nil }",
			[]string{"error: let binding `k`: expected fn() -> int, found fn() -> int?"}},
		{"annotated binding", "let h: fn(int) -> int = fn(x: int) -> int { return x }\nfn apply(f: fn(int?) -> int) -> int { return f(nil) }\napply(h)",
			[]string{"error: argument 1 `f`: expected fn(int?) -> int, found fn(int) -> int"}},
		{"variance the right way round", `fn h(x: int?) -> int { return x ?? 0 }
fn apply(f: fn(int?) -> int) -> int { return f(nil) }
let g: fn(int) -> int | string = fn(x: int | string) -> int { return 1 }
let k: fn() -> int? = fn() -> int { return 1 }
fn each(f: fn(int) -> nil) { f(1) }
each(fn(x: int) -> int? { return nil })
let stored: fn(int?) -> int = h
fn num(f: fn(int) -> float) -> float { return f(1) }
println([apply(h), apply(stored), g(1), k(), num(fn(x: number) -> int { return 1 })])`, nil},
		{"unannotated and generic callables", `fn apply(f: fn(int?) -> int) -> int { return f(nil) }
let u = fn(x) { return x }
fn id<T>(x: T) -> T { return x }
fn twice(f: fn(int | string) -> int | string) -> int | string { return f(1) }
println([apply(u), twice(id)])`, nil},
	})
}

// A value written to a field of a declared shape must fit the field, in
// the struct form's words (docs/spec/newer.md §3.2).
func TestShapeFieldWrite(t *testing.T) {
	runCases(t, []checkCase{
		{"wrong type", "let p: {x: int} = {x: 1}\np.x = \"s\"",
			[]string{"error: field `x` in shape `{x: int}`: expected int, found string"}},
		{"optional field", "let p: {y?: string} = {}\np.y = 3",
			[]string{"error: field `y` in shape `{y?: string}`: expected string?, found int"}},
		{"literal type", "type Level = \"debug\" | \"info\"\nlet p: {l: Level} = {l: \"info\"}\np.l = \"warn\"",
			[]string{"error: field `l` in shape `{l: Level}`: expected Level, found \"warn\""}},
		{"nested path", "let q: {inner: {n: int}} = {inner: {n: 1}}\nq.inner.n = \"five\"",
			[]string{"error: field `n` in shape `{n: int}`: expected int, found string"}},
		{"fitting writes", `type Level = "debug" | "info"
let p: {x: int, y?: string, l: Level, f: float} = {x: 1, l: "info", f: 1.0}
p.x = 2
p.y = nil
p.y = "s"
p.l = "debug"
p.f = 3
let lv: string = "info"
p.l = lv
let o: {id: string, ...rest} = {id: "a", extra: 1}
o.id = "b"
println([p, o])`, nil},
		{"inferred records are not held to their first fields", "let r = {x: 1}\nr.x = \"s\"\nprintln(r)", nil},
	})
}

// `C<string>` reads the interface's signatures with T as string
// (docs/spec/newer.md §3.9).
func TestGenericInterfaceArguments(t *testing.T) {
	impl := "interface C<T> { fn get(self) -> T }\ninterface Sink<T> { fn put(self, x: T) -> int }\nstruct B { v: int }\nimpl B {\n  fn get(self) -> int { return self.v }\n  fn put(self, x: int) -> int { return x }\n}\n"
	runCases(t, []checkCase{
		{"result", impl + "fn f(c: C<string>) -> string { return c.get() }\nf(B { v: 3 })",
			[]string{"error: argument 1 `c`: expected C<string>, found B (Type 'B' does not satisfy interface 'C': method 'get' returns 'int', expected 'string')"}},
		{"parameter", impl + "fn s(k: Sink<string>) -> int { return k.put(\"a\") }\ns(B { v: 1 })",
			[]string{"error: argument 1 `k`: expected Sink<string>, found B (Type 'B' does not satisfy interface 'Sink': method 'put' parameter 1 has type 'int', expected 'string')"}},
		{"fitting arguments", impl + "struct G<T> { v: T }\nimpl G { fn get(self) -> T { return self.v } }\nfn f(c: C<int>) -> int { return c.get() }\nfn fl(c: C<float>) -> float { return c.get() }\nfn bare(c: C) { return c.get() }\nfn s(k: Sink<int>) -> int { return k.put(1) }\nfn g(c: C<string>) -> string { return c.get() }\nprintln([f(B { v: 1 }), fl(B { v: 2 }), bare(B { v: 3 }), s(B { v: 4 }), g(G { v: \"x\" })])", nil},
	})
}

// `unreachable()` lists the kinds an unknown value may still have: nil
// tests and the arms of `match type_of(v)` rule kinds out, and what a
// function narrows does not leak into the code after it
// (docs/spec/newer.md §3.7).
func TestUnreachableNarrowing(t *testing.T) {
	left := func(kinds string) []string {
		return []string{"warning: `unreachable()` reached but `v: unknown` was not fully narrowed — uncovered concrete type(s): " + kinds}
	}
	runCases(t, []checkCase{
		{"guard nil", "fn a(v: unknown) {\n  guard v != nil else { return }\n  if type_of(v) == \"int\" { return }\n  unreachable()\n}",
			left("float, string, bool, list, dict, closure, bytes")},
		{"if nil return", "fn b(v: unknown) {\n  if v == nil { return }\n  if type_of(v) == \"int\" { return }\n  unreachable()\n}",
			left("float, string, bool, list, dict, closure, bytes")},
		{"match catch-all arm", "fn c(v: unknown) -> string {\n  match type_of(v) {\n    \"int\" -> { return \"i\" }\n    \"string\" -> { return \"s\" }\n    _ -> { unreachable() }\n  }\n}",
			left("float, bool, nil, list, dict, closure, bytes")},
		{"after the match", "fn c(v: unknown) -> string {\n  match type_of(v) {\n    \"int\" | \"float\" -> { return \"n\" }\n    \"string\" -> { return \"s\" }\n    _ -> {}\n  }\n  unreachable()\n}",
			left("bool, nil, list, dict, closure, bytes")},
		{"no leak from an earlier function", "fn a(v: unknown) {\n  if type_of(v) == \"int\" { return }\n}\nfn b(v: unknown) {\n  if type_of(v) == \"string\" { return }\n  unreachable()\n}",
			left("int, float, bool, nil, list, dict, closure, bytes")},
		{"every kind covered", "fn full(v: unknown) -> string {\n  guard v != nil else { return \"nil\" }\n  match type_of(v) {\n    \"int\" -> { return \"i\" }\n    \"float\" -> { return \"f\" }\n    \"string\" -> { return \"s\" }\n    \"bool\" -> { return \"b\" }\n    \"list\" -> { return \"l\" }\n    \"dict\" -> { return \"d\" }\n    \"closure\" -> { return \"c\" }\n    \"bytes\" -> { return \"y\" }\n    _ -> { unreachable() }\n  }\n}", nil},
		{"a guarded arm rules nothing out", "fn g(v: unknown) -> string {\n  match type_of(v) {\n    \"int\" if false -> { return \"i\" }\n    _ -> { unreachable() }\n  }\n}", nil},
		{"a closure's early exit stays in it", "fn f(x: int?) -> int {\n  let g = fn() { if x == nil { return } }\n  g()\n  return x + 1\n}",
			[]string{"error: operator `+` cannot be applied to nilable type `int?`"}},
	})
}

func TestMismatchText(t *testing.T) {
	runCases(t, []checkCase{
		{"open record row variable", "fn f(x: {id: string, ...rest}) { return x }\nf(5)",
			[]string{"error: argument 1 `x`: expected {id: string, ...rest}, found int"}},
		{"declared row parameter", "fn g<R>(x: {id: string, ...R}) -> {id: string, ...R} { return x }\ng(5)",
			[]string{"error: argument 1 `x`: expected {id: string, ...R}, found int"}},
		{"literal field", "type Level = \"debug\" | \"info\"\nlet c: {l: Level} = {l: \"warn\"}",
			[]string{"error: let binding `c`: expected {l: Level}, found {l: \"warn\"} (field 'l' has type \"warn\", expected Level)"}},
	})
	got := checkSrc(t, "let u: unknown = 5\nlet i: int = u\nfn f(r: {data: unknown}) -> string { return r.data }")
	var helps []string
	for _, d := range got {
		helps = append(helps, d.Help)
	}
	want := []string{
		"narrow it first: `type_of(u) == \"int\"`, `schema_is(u, S)` or a match",
		"narrow it first: `type_of(r.data) == \"string\"`, `schema_is(r.data, S)` or a match",
	}
	if strings.Join(helps, "\n") != strings.Join(want, "\n") {
		t.Errorf("helps:\n%s\nwant:\n%s", strings.Join(helps, "\n"), strings.Join(want, "\n"))
	}
}
