package format

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func check(t *testing.T, name, in, want string) {
	t.Helper()
	out, err := Source(name+".harn", []byte(in))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if string(out) != want {
		t.Errorf("%s:\n--- got\n%s--- want\n%s", name, out, want)
	}
	again, err := Source(name+".harn", out)
	if err != nil || string(again) != string(out) {
		t.Errorf("%s: not idempotent (%v):\n%s", name, err, again)
	}
}

func TestLayout(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"spacing", "let   x=1+2*3\nprintln( x )\n", "let x = 1 + 2 * 3\nprintln(x)\n"},
		{"indent", "fn f(a,b){\nif a{\nreturn b}\n}\n", "fn f(a, b) {\n  if a {\n    return b\n  }\n}\n"},
		{"semicolons", "let a = 1; let b = 2;\n", "let a = 1\nlet b = 2\n"},
		{"inline bounds stay inline", "fn f<T:A+B, U>(x: T, y: U) where U:A {\n}\n", "fn f<T: A + B, U>(x: T, y: U) where U: A {}\n"},
		{"blank lines collapse", "let a = 1\n\n\n\nlet b = 2\n", "let a = 1\n\nlet b = 2\n"},
		{"no blank at block edges", "fn f() {\n\n  return 1\n\n}\n", "fn f() {\n  return 1\n}\n"},
		{"blank around declarations", "let a = 1\nfn f() {\n  return a\n}\nfn g() {\n  return 2\n}\n",
			"let a = 1\n\nfn f() {\n  return a\n}\n\nfn g() {\n  return 2\n}\n"},
		{"parens kept where needed", "let x = (a + b) * c\nlet y = a + (b * c)\nlet z = -(2 ** 2)\nlet w = (-2) ** 2\n",
			"let x = (a + b) * c\nlet y = a + b * c\nlet z = -2 ** 2\nlet w = (-2) ** 2\n"},
		{"left associativity", "let x = a - (b - c)\nlet y = (a - b) - c\n", "let x = a - (b - c)\nlet y = a - b - c\n"},
		{"literals as written", "let s = r#\"a\"b\"#\nlet t = \"\"\"\n  x\n  \"\"\"\nlet d = 1500ms\nlet f = 1.50\n",
			"let s = r#\"a\"b\"#\nlet t = \"\"\"\n  x\n  \"\"\"\nlet d = 1500ms\nlet f = 1.50\n"},
		{"dict and struct literals", "let d = { a : 1 , \"b c\": 2, [k]: 3, ...rest }\nlet p = Point{x: 1}\n",
			"let d = {a: 1, \"b c\": 2, [k]: 3, ...rest}\nlet p = Point { x: 1 }\n"},
		{"closures", "let f = {x,y->x+y}\nlet g = fn(a: int) -> int { return a }\nxs.map({ x -> x * 2 })\n",
			"let f = { x, y -> x + y }\nlet g = fn(a: int) -> int { return a }\nxs.map({ x -> x * 2 })\n"},
		{"match", "match x {\n1|2->{ \"small\" }\n_ if x > 9 -> {\nprintln(x)\n}\n}\n",
			"match x {\n  1 | 2 -> { \"small\" }\n  _ if x > 9 -> {\n    println(x)\n  }\n}\n"},
		{"try", "let r = try { f() } catch (e: string) { nil } finally { done() }\n",
			"let r = try { f() } catch (e: string) { nil } finally { done() }\n"},
		{"types", "fn f(a: list<int>, b: {name: string, age?: int}, c: (int | string)?, d: fn(int) -> bool) -> int | nil { return 1 }\n",
			"fn f(\n  a: list<int>,\n  b: {name: string, age?: int},\n  c: (int | string)?,\n  d: fn(int) -> bool,\n) -> int | nil {\n  return 1\n}\n"},
		{"type parens", "type T = (fn(int) -> bool)?\ntype U = (A | B) & C\ntype V = fn(int) -> bool | nil\n",
			"type T = (fn(int) -> bool)?\ntype U = (A | B) & C\ntype V = fn(int) -> bool | nil\n"},
		{"declarations", "pub struct P<T>{x:int\ny?:T}\nenum E{A,B(n:int)}\ntype Id=string\ninterface Show{fn show(self)->string}\n",
			"pub struct P<T> {\n  x: int\n  y?: T\n}\n\nenum E { A, B(n: int) }\n\ntype Id = string\n\ninterface Show {\n  fn show(self) -> string\n}\n"},
		{"associated types", "interface C{type Item=int\nfn get(self)->Self.Item}\nimpl B{type Item=int\nfn get(self)->Item{return 1}}\n",
			"interface C {\n  type Item = int\n  fn get(self) -> Self.Item\n}\n\nimpl B {\n  type Item = int\n\n  fn get(self) -> Item {\n    return 1\n  }\n}\n"},
		{"imports", "import \"std/json\"\nimport {a,b} from \"lib\"\nimport std::text::{trim}\npub import { x } from \"y\"\n",
			"import \"std/json\"\nimport { a, b } from \"lib\"\nimport std::text::{trim}\npub import { x } from \"y\"\n"},
		{"attributes", "@deprecated(since: \"1\", use: \"g\") @test pub fn f() { }\n",
			"@deprecated(since: \"1\", use: \"g\")\n@test\npub fn f() {}\n"},
		{"tool", "tool add(a: int, b: int) -> int {\ndescription \"Add.\"\nreturn a + b\n}\n",
			"tool add(a: int, b: int) -> int {\n  description \"Add.\"\n  return a + b\n}\n"},
		{"var becomes nothing else", "var x = 1\nx += 2\n", "var x = 1\nx += 2\n"},
		{"keyword expressions", "parallel each xs with {max_concurrent: 2} { x -> f(x) }\nselect {\nv from ch { println(v) }\ntimeout 1s { nil }\n}\nretry 3 { g() }\ndeadline 5s { h() }\n",
			"parallel each xs with { max_concurrent: 2 } { x -> f(x) }\nselect {\n  v from ch { println(v) }\n  timeout 1s { nil }\n}\nretry 3 { g() }\ndeadline 5s { h() }\n"},
		{"cost_route options then body", "cost_route { tier: \"a\", n: 1\n  // pick\n  f() }\n",
			"cost_route {\n  tier: \"a\"\n  n: 1\n  // pick\n  f()\n}\n"},
		{"newer syntax", "import * as m from \"lib\"\nfn f(k) {\n  mutex ( k ) { return m.x! }\n}\n",
			"import * as m from \"lib\"\n\nfn f(k) {\n  mutex(k) {\n    return m.x!\n  }\n}\n"},
		{"mutex timeouts keep their form", "mutex(k,timeout:50ms) { f() }\nlet v = mutex(k, { timeout: t }) { 1 }\nmutex(k,  2s) { g() }\n",
			"mutex(k, timeout: 50ms) {\n  f()\n}\nlet v = mutex(k, {timeout: t}) { 1 }\nmutex(k, 2s) {\n  g()\n}\n"},
		{"propagation before postfix", "let a = (x?).y\nlet b = (x?)[0]\nlet c = (x?)?\nlet d = x?.y?[0]\n",
			"let a = (x?).y\nlet b = (x?)[0]\nlet c = (x?)?\nlet d = x?.y?.[0]\n"},
		{"optional subscript in a dict literal", "let d = {a: xs?.[0], b: 1}\n", "let d = {a: xs?.[0], b: 1}\n"},
		{"open records", "fn f(c: {name: string, ...dict<string, int>}, d: {...R, id: int}) {}\n",
			"fn f(c: {name: string, ...dict<string, int>}, d: {id: int, ...R}) {}\n"},
		{"shebang", "#!/usr/bin/env harn\nprintln(1)\n", "#!/usr/bin/env harn\nprintln(1)\n"},
		{"value calls keep the callee's parens", "let a = (f)(1)\nlet b = (p.f)(2)\nlet c = (p?.f)(3)\nlet d = f(1)(2)\nlet e = p.f(4)\n",
			"let a = (f)(1)\nlet b = (p.f)(2)\nlet c = (p?.f)(3)\nlet d = f(1)(2)\nlet e = p.f(4)\n"},
	} {
		check(t, c.name, c.in, c.want)
	}
}

func TestComments(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"line comments", "// head\nlet x = 1 // trailing\n\n// before y\nlet y = 2\n// tail\n",
			"// head\nlet x = 1 // trailing\n\n// before y\nlet y = 2\n// tail\n"},
		{"doc comments", "/// Adds.\n///   Indented.\npub fn add(a, b) { return a + b }\n",
			"/// Adds.\n///   Indented.\npub fn add(a, b) {\n  return a + b\n}\n"},
		{"doc comment stays attached", "let a = 1\n/** Doc. */\nfn f() {}\n", "let a = 1\n\n/** Doc. */\nfn f() {}\n"},
		{"comments in lists", "let xs = [\n  1, // one\n  // two next\n  2,\n  3 // three\n]\n",
			"let xs = [\n  1, // one\n  // two next\n  2,\n  3, // three\n]\n"},
		{"comments in calls", "f(a, /* inline */ b)\ng(\n  a, // first\n  b,\n)\n",
			"f(a, /* inline */ b)\ng(\n  a, // first\n  b,\n)\n"},
		{"comment in empty block", "fn f() {\n  // nothing yet\n}\n", "fn f() {\n  // nothing yet\n}\n"},
		{"comment in expression", "let x = a + // why\n  b\n", "let x = a + // why\n  b\n"},
		{"comment at block end", "if x {\n  f()\n  // done\n}\n", "if x {\n  f()\n  // done\n}\n"},
		{"block comment keeps the expression joined", "let x = 5 /* a\nb */ - 2\n", "let x = 5 /* a\nb */ - 2\n"},
		{"comment in struct", "struct P {\n  x: int // the x\n  // y next\n  y: int\n}\n",
			"struct P {\n  x: int // the x\n  // y next\n  y: int\n}\n"},
	} {
		check(t, c.name, c.in, c.want)
	}
}

func TestLineBreaking(t *testing.T) {
	long := "let result = compute_something(first_argument, second_argument, third_argument, fourth_argument_xyz_and_more_text)\n"
	check(t, "args", long,
		"let result = compute_something(\n  first_argument,\n  second_argument,\n  third_argument,\n  fourth_argument_xyz_and_more_text,\n)\n")
	check(t, "hug", "register([{name: \"alpha\", handler: { x -> x }}, {name: \"beta\", handler: { x -> x * 2 }}, {name: \"c\"}])\n",
		"register([\n  {name: \"alpha\", handler: { x -> x }},\n  {name: \"beta\", handler: { x -> x * 2 }},\n  {name: \"c\"},\n])\n")
	check(t, "binary", "let ok = first_condition_is_true && second_condition_is_true && third_condition_is_also_true_xyz_and_more_text\n",
		"let ok = first_condition_is_true &&\n  second_condition_is_true &&\n  third_condition_is_also_true_xyz_and_more_text\n")
	check(t, "chain", "let r = items.filter({ x -> x.enabled }).map({ x -> x.name }).sort().join(\", \").upper_case_it_now_and_more_text()\n",
		"let r = items\n  .filter({ x -> x.enabled })\n  .map({ x -> x.name })\n  .sort()\n  .join(\", \")\n  .upper_case_it_now_and_more_text()\n")
	check(t, "pipe", "let r = some_long_value_name |> first_transformation |> second_transformation |> third_one_here_xyz_and_more_text\n",
		"let r = some_long_value_name\n  |> first_transformation\n  |> second_transformation\n  |> third_one_here_xyz_and_more_text\n")
	check(t, "expanded dict stays", "let cfg = {\n  a: 1, b: 2}\n", "let cfg = {\n  a: 1,\n  b: 2,\n}\n")
	check(t, "ternary", "let label = some_condition_that_is_long && another_condition ? \"a long string value\" : \"another long string\"\n",
		"let label = (some_condition_that_is_long && another_condition) ? \"a long string value\"\n  : \"another long string\"\n")
	check(t, "clarifying parentheses", "let j = a && b || c\nlet k = a || b ? 1 : 2\n", "let j = (a && b) || c\nlet k = (a || b) ? 1 : 2\n")
	check(t, "short operand stays", "let found = regex_match(\"a very long pattern that will not fit on the line at all, no way\", text_input) != nil\n",
		"let found = regex_match(\n  \"a very long pattern that will not fit on the line at all, no way\",\n  text_input,\n) != nil\n")
}

// TestWidthAfterMultilineText: what follows the last line break of a
// /* */ comment or a string running over lines must fit the width too.
func TestWidthAfterMultilineText(t *testing.T) {
	long := "first_long_argument, second_long_argument, third_long_argument, fourth_long_argument_xyz, fifth"
	check(t, "after comment", "println(/* a\nb */ [x], "+long+")\n",
		"println(\n  /* a\nb */ [x],\n  first_long_argument,\n  second_long_argument,\n  third_long_argument,\n  fourth_long_argument_xyz,\n  fifth,\n)\n")
	check(t, "after string", "println(\"\"\"\n  a\n  \"\"\", "+long+")\n",
		"println(\n  \"\"\"\n  a\n  \"\"\",\n  first_long_argument,\n  second_long_argument,\n  third_long_argument,\n  fourth_long_argument_xyz,\n  fifth,\n)\n")
}

// TestNoHugAfterCommentBeforeParen: a /* */ comment before a call's `(`
// is printed after it, so the arguments do not hug (the next run, with
// the comment inside the parentheses, would not hug them).
func TestNoHugAfterCommentBeforeParen(t *testing.T) {
	check(t, "comment before paren", "register/* c */([{name: \"alpha\", handler: { x -> x }}, {name: \"beta\", handler: { x -> x * 2 }}, {name: \"c\"}])\n",
		"register(\n  /* c */ [\n    {name: \"alpha\", handler: { x -> x }},\n    {name: \"beta\", handler: { x -> x * 2 }},\n    {name: \"c\"},\n  ],\n)\n")
}

func TestUnparsable(t *testing.T) {
	if _, err := Source("bad.harn", []byte("let = 1\n")); err == nil || !strings.Contains(err.Error(), "bad.harn:1:5") {
		t.Fatalf("err = %v", err)
	}
}

// TestUnknownSyntaxIsRefused: a node kind or a set field the printer does
// not know makes it refuse rather than drop code.
func TestUnknownSyntaxIsRefused(t *testing.T) {
	type Future struct{ X int }
	func() {
		defer func() {
			if _, ok := recover().(unsupported); !ok {
				t.Error("an unknown node kind was not refused")
			}
		}()
		checkKnown(&Future{X: 1})
	}()
	delete(knownSet()["BreakStmt"], "At")
	defer func() { knownSet()["BreakStmt"]["At"] = true }()
	_, err := Source("x.harn", []byte("while true {\n  break\n}\n"))
	if _, ok := err.(*UnsupportedError); !ok {
		t.Errorf("an unknown field was not refused: %v", err)
	}
}

// TestStatementStartsWithKeywordForm: a statement that begins with a
// parenthesised `if`, `match`, `try`, … keeps the parentheses; without
// them the parser reads the keyword form as the whole statement.
func TestStatementStartsWithKeywordForm(t *testing.T) {
	for _, src := range []string{
		"(if true { \"yes\" } else { \"no\" }) |> println\n",
		"(try { 1 } catch (e) { 2 }) |> println\n",
		"(retry 2 { 1 }) |> println\n",
		"(deadline 1s { 1 }) |> println\n",
		"(parallel each [1] { x -> x }) |> println\n",
		"(if true { [1] } else { [2] }).push(3)\n",
		"(if true { 1 } else { 2 }) + 1\n",
		"(try { 1 } catch (e) { 2 })?\n",
		"(mutex { 1 }) |> println\n",
		"(mutex { 1 })\n",
		"(match 1 {\n  1 -> { \"a\" }\n  _ -> { \"b\" }\n})\n  |> println\n",
		"fn f() {\n  (if true { 1 } else { 2 }) |> { x -> (if true { x } else { 2 }) |> println }\n}\n",
		"match 1 {\n  _ -> { 1 }\n}\nif true {\n  1\n}\n",
	} {
		check(t, strings.Fields(src)[0], src, src)
	}
}

// TestOwnLineCommentsInLists: docs/fmt.md "Comments": a comment on its
// own line above an item of a bracketed list stays above that item (not
// between a dict key and its value, not after the last parameter), and
// one after the opening bracket stays there.
func TestOwnLineCommentsInLists(t *testing.T) {
	for _, src := range []string{
		"let config = {\n  // the model to use\n  model: \"gpt\",\n  // retries\n  retries: 3,\n}\n",
		"let p = P {\n  // c\n  x: 1,\n}\n",
		"fn configure(\n  // the host\n  host: string,\n  // the port\n  port: int,\n) {\n  return host\n}\n",
		"import {\n  // helpers\n  shout,\n  // more\n  whisper,\n} from \"./m\"\n",
		"let {\n  // first\n  a,\n  // second\n  b,\n} = d\n",
		"f(\n  // the first\n  a,\n  // the second\n  {x: 1},\n)\n",
		"fn f( // about params\n  x, // the x\n) {\n  return x\n}\n",
		"let xs = [ // numbers\n  1,\n  2,\n]\n",
	} {
		check(t, strings.Fields(src)[1], src, src)
	}
}

// TestCommentsAfterAttributes: docs/fmt.md "Comments": a comment between
// an attribute and its declaration stays there (not in the parameter
// list), and so does one that trails the attribute.
func TestCommentsAfterAttributes(t *testing.T) {
	for _, src := range []string{
		"@test\n// plain comment\nfn test_x() {\n  assert(true)\n}\n",
		"@deprecated(\"y\")\n/// Doc after attr.\npub fn b_fn(a) {\n  return a\n}\n",
		"@test // trailing\n@deprecated(\"z\")\n// between\n/** block doc */\nfn c() {}\n",
	} {
		check(t, strings.Fields(src)[0], src, src)
	}
}

// TestMeaningKept: programs whose canonical layout would change their
// meaning keep what they need: the `;` after a statement ending in a
// propagating `?` (on a new line `c ? a : b` would continue it as a
// ternary).
func TestMeaningKept(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"propagate then ternary", "fn f(flag) {\n  let v = Ok(1)?; flag ? a() : b()\n}\n",
			"fn f(flag) {\n  let v = Ok(1)?;\n  flag ? a() : b()\n}\n"},
		// bare, `a<b, c>(…)` is a generic call (docs/spec/language.md §2.7)
		{"comparisons that would read as type arguments", "println([(a < b), c > (d || e)])\nf((a < b), c > (d))\nprintln([(a < b), (c < d)])\n",
			"println([(a < b), c > (d || e)])\nf((a < b), c > d)\nprintln([a < b, c < d])\n"},
	} {
		check(t, c.name, c.in, c.want)
	}
}

// TestTrailingCommentsStayPut: docs/fmt.md "Comments": a comment that
// trailed code on a line still does — after a chain link or pipe stage
// (not past the next `.` or `|>`), after the `}` before `else`, `catch`
// or `finally` (not inside the next block), after an opening brace.
func TestTrailingCommentsStayPut(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"chain", "let r = [1, 2, 3].map({ x -> x * 2 }) // doubled\n  .filter({ x -> x > 2 })\n",
			"let r = [1, 2, 3]\n  .map({ x -> x * 2 }) // doubled\n  .filter({ x -> x > 2 })\n"},
		{"chain with one call", "let q = obj // c\n  .field.m()\n", "let q = obj // c\n  .field.m()\n"},
		{"chain own line", "let r = xs\n  // note\n  .map(f)\n  .filter(g)\n", "let r = xs\n  // note\n  .map(f)\n  .filter(g)\n"},
		{"pipe", "let r = [1, 2, 3] // start\n  |> len // count\n  |> println\n", "let r = [1, 2, 3] // start\n  |> len // count\n  |> println\n"},
		{"pipe head comments first", "let r = foo(1, // c\n  2) |> bar\n", "let r = foo(\n  1, // c\n  2,\n)\n  |> bar\n"},
		{"else", "if true {\n  println(1)\n} // after if\nelse {\n  println(2)\n}\n", "if true {\n  println(1)\n} // after if\nelse {\n  println(2)\n}\n"},
		{"inline comment before else", "if a {\n  1\n} /* c */ else {\n  2\n}\n", "if a {\n  1\n} /* c */ else {\n  2\n}\n"},
		{"catch finally", "try {\n  f()\n} // t\ncatch (e) {\n  g(e)\n}\n// own\nfinally {\n  h()\n}\n",
			"try {\n  f()\n} // t\ncatch (e) {\n  g(e)\n}\n// own\nfinally {\n  h()\n}\n"},
		{"after brace", "fn f() { // after brace\n  return 1\n}\n", "fn f() { // after brace\n  return 1\n}\n"},
		{"after brace, empty", "fn g() { // empty\n}\n", "fn g() { // empty\n}\n"},
		{"closure and match", "let c = { x -> // cl\n  x + 1\n}\nlet m = match c { // m\n  _ -> { 2 }\n}\n",
			"let c = { x -> // cl\n  x + 1\n}\nlet m = match c { // m\n  _ -> { 2 }\n}\n"},
		{"members", "struct S { // s\n  a: int\n}\n", "struct S { // s\n  a: int\n}\n"},
		// docs/fmt.md "Comments": before `with` (after the items of a
		// `parallel`), not inside the braces before the count
		{"before parallel with", "let r = parallel each xs // items\n  with { max_concurrent: 2 } { x -> x }\nlet s = parallel settle xs /* c */ with { max_concurrent: 2 } { x -> x }\n",
			"let r = parallel each xs // items\n  with { max_concurrent: 2 } { x -> x }\nlet s = parallel settle xs /* c */ with { max_concurrent: 2 } { x -> x }\n"},
		// on a line of its own, or after one on the items' line: still
		// before `with`, on its line
		{"own line before parallel with", "let r = parallel each xs\n  // own line\n  with { max_concurrent: 2 } { x -> x }\n",
			"let r = parallel each xs\n  // own line\n  with { max_concurrent: 2 } { x -> x }\n"},
		{"two before parallel with", "let r = parallel each xs // a\n  // b\n  with { max_concurrent: 2 } { x -> x }\n",
			"let r = parallel each xs // a\n  // b\n  with { max_concurrent: 2 } { x -> x }\n"},
		{"own block comment before parallel with", "let r = parallel each xs\n  /* b */ with { max_concurrent: 2 } { x -> x }\n",
			"let r = parallel each xs\n  /* b */ with { max_concurrent: 2 } { x -> x }\n"},
		// a line comment that ends the line before a block's `{` moves
		// after the brace, not to a line of its own (plus a blank line)
		// inside the block
		{"before the brace of a block", "let r = deadline 1s // c\n{\n  1\n}\nfor x in xs // d\n{\n  log(x)\n}\nlet v = parallel each xs // e\n{ x -> x }\n",
			"let r = deadline 1s { // c\n  1\n}\nfor x in xs { // d\n  log(x)\n}\nlet v = parallel each xs { x -> // e\n  x\n}\n"},
		// the `.key` of a chain in an argument is the one right after `e`,
		// not the next `.key` of the file: the comment stays put
		{"chain in an argument", "let f = xs.filter({ e -> !seen.contains(e.key) })\n// later\nlet k = cur.key\n",
			"let f = xs.filter({ e -> !seen.contains(e.key) })\n// later\nlet k = cur.key\n"},
		{"ternary", "let z = cond\n  ? 1 // c1\n  : 2 // c2\n", "let z = cond ? 1 // c1\n  : 2 // c2\n"},
		{"catch variable", "let v = try { 1 } catch (/* c */ e) { e }\n", "let v = try { 1 } catch (/* c */ e) { e }\n"},
		{"before a one-line block", "let m = match x {\n  _ -> /* c */ { \"v\" }\n}\nlet g = { x -> x } |> fn(x: int) -> /* d */ int? { return nil }\n",
			"let m = match x {\n  _ -> /* c */ { \"v\" }\n}\nlet g = { x -> x } |> fn(x: int) -> /* d */ int? { return nil }\n"},
		{"before a block's brace", "if a /* c */ {\n  f()\n}\n\nfn f() /* d */ {\n  return 1\n}\n\nwhile a /* w */ {\n  break\n}\nfor x in xs /* f */ {\n  g(x)\n}\ntry {\n  f()\n} catch (e) /* why */ {\n  g(e)\n}\n",
			"if a /* c */ {\n  f()\n}\n\nfn f() /* d */ {\n  return 1\n}\n\nwhile a /* w */ {\n  break\n}\nfor x in xs /* f */ {\n  g(x)\n}\ntry {\n  f()\n} catch (e) /* why */ {\n  g(e)\n}\n"},
		{"inside catch parentheses", "try {\n  f()\n} catch (e /* why */) {\n  g(e)\n}\ntry {\n  f()\n} catch (e: string /* why */) {\n  g(e)\n}\ntry {\n  f()\n} catch (e // why\n) {\n  g(e)\n}\n",
			"try {\n  f()\n} catch (e /* why */) {\n  g(e)\n}\ntry {\n  f()\n} catch (e: string /* why */) {\n  g(e)\n}\ntry {\n  f()\n} catch (e // why\n) {\n  g(e)\n}\n"},
		{"line comment after catch paren", "fn g() {\n  try {\n    f()\n  } catch ( // why\n    e) {\n    h(e)\n  }\n}\n",
			"fn g() {\n  try {\n    f()\n  } catch ( // why\n    e) {\n    h(e)\n  }\n}\n"},
		{"parenthesised head", "let a = (x.f + 1).f() // c\n  .g()\nlet b = ((n)).key\n",
			"let a = (x.f + 1)\n  .f() // c\n  .g()\nlet b = n.key\n"},
	} {
		check(t, c.name, c.in, c.want)
	}
}

// TestCommentsBesideTheirToken: docs/fmt.md "Comments": a comment stays
// next to the token it was written beside, in the same order, whatever
// the layout: in closure parameters, in a parameter list that breaks,
// beside a key, between `else` and `if`, inside parentheses, in match
// arms, type annotations and import lists.
func TestCommentsBesideTheirToken(t *testing.T) {
	long := "fn configure(first_parameter_name: string, %s, third_parameter: bool) {\n  return 1\n}\n"
	broken := "fn configure(\n  first_parameter_name: string,\n  %s,\n  third_parameter: bool,\n) {\n  return 1\n}\n"
	for _, c := range []struct{ name, in, want string }{
		{"closure param before comma", "let f = { x /* c */, y -> x + y }\n", "let f = { x /* c */, y -> x + y }\n"},
		{"closure param after comma", "let f = { x, /* c */ y -> x + y }\n", "let f = { x, /* c */ y -> x + y }\n"},
		{"closure first param", "let f = { /* c */ x, y -> x + y }\n", "let f = { /* c */ x, y -> x + y }\n"},
		{"closure before arrow", "let f = { x, y /* c */ -> x + y }\n", "let f = { x, y /* c */ -> x + y }\n"},
		{"closure line comment", "let f = { x // c\n  , y -> x + y }\n", "let f = { x, // c\n  y ->\n  x + y\n}\n"},
		{"broken params, after comma", fmt.Sprintf(long, "/* c */ second_parameter_name: int"), fmt.Sprintf(broken, "/* c */ second_parameter_name: int")},
		{"broken params, before comma", fmt.Sprintf(long, "second_parameter_name: int /* c */"), fmt.Sprintf(broken, "second_parameter_name: int /* c */")},
		{"param type", "fn f(a: /* c */ int, b /* d */: int = /* e */ 1) {}\n", "fn f(a: /* c */ int, b /* d */: int = /* e */ 1) {}\n"},
		{"struct literal key", "let p = Point { /* c */ x: 1, y /* d */: 2 }\n", "let p = Point { /* c */ x: 1, y /* d */: 2 }\n"},
		{"dict keys", "let d = { /* a */ a /* b */: 1, \"s\" /* c */: 2, [k] /* d */: 3 }\n", "let d = {/* a */ a /* b */: 1, \"s\" /* c */: 2, [k] /* d */: 3}\n"},
		{"dict key line comment", "let d = {\n  a // c\n  : 1,\n}\n", "let d = {\n  a: // c\n  1,\n}\n"},
		{"else if", "if a {\n  1\n} else /* c */ if b {\n  2\n}\n", "if a {\n  1\n} else /* c */ if b {\n  2\n}\n"},
		{"else if expression", "let x = if a { 1 } else /* c */ if b { 2 } else { 3 }\n", "let x = if a { 1 } else /* c */ if b { 2 } else { 3 }\n"},
		{"after open paren", "f( /* c */a)\nlet x = ( /* d */a + b) * 2\nlet y = (a + b /* e */) * 2\n", "f(/* c */ a)\nlet x = (/* d */ a + b) * 2\nlet y = (a + b /* e */) * 2\n"},
		{"list", "let xs = [ /* c */ 1, 2 /* d */]\n", "let xs = [/* c */ 1, 2 /* d */]\n"},
		{"match arm", "match x {\n  1 /* c */ | 2 /* d */ -> { 2 }\n  _ if /* g */ y -> { 3 }\n}\n", "match x {\n  1 /* c */ | 2 /* d */ -> { 2 }\n  _ if /* g */ y -> { 3 }\n}\n"},
		{"type annotations", "let x: /* c */ list</* d */ int> /* e */ = 1\nlet y: {a /* f */: /* g */ int} = 2\ntype T = /* h */ int /* i */ | string\n",
			"let x: /* c */ list</* d */ int> /* e */ = 1\nlet y: {a /* f */: /* g */ int} = 2\ntype T = /* h */ int /* i */ | string\n"},
		{"return type", "fn f() /* c */ -> /* d */ int {\n  return 1\n}\n", "fn f() /* c */ -> /* d */ int {\n  return 1\n}\n"},
		{"struct field type", "struct P {\n  x: /* c */ int\n}\n", "struct P {\n  x: /* c */ int\n}\n"},
		{"imports", "import { a /* c */, /* d */ b } from \"lib\"\nimport std::text::{/* e */ trim /* f */}\n",
			"import { a /* c */, /* d */ b } from \"lib\"\nimport std::text::{/* e */ trim /* f */}\n"},
		{"destructuring", "let { a /* c */, b } = d\nlet [e, /* f */ g] = h\n", "let {a /* c */, b} = d\nlet [e, /* f */ g] = h\n"},
		{"type parameters", "fn g<T /* c */, /* d */ U>(x: T) {}\n", "fn g<T /* c */, /* d */ U>(x: T) {}\n"},
		{"before a statement", "let f = { x -> /* c */ x + 1 }\nfn g() {\n  /* d */ return 1\n}\n", "let f = { x -> /* c */ x + 1 }\n\nfn g() {\n  /* d */ return 1\n}\n"},
		{"let and for", "let x /* c */ = 1\nfor y /* d */ in xs {\n  f(y)\n}\n", "let x /* c */ = 1\nfor y /* d */ in xs {\n  f(y)\n}\n"},
	} {
		check(t, c.name, c.in, c.want)
	}
}

// TestOneLineBlockComments: a block written on one line stays on one line
// when a /* */ comment sits beside its statement (docs/fmt.md "Comments");
// it breaks only when it does not fit or was written broken.
func TestOneLineBlockComments(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"before the body", "let f = { x -> /* c */ x + 1 }\n", "let f = { x -> /* c */ x + 1 }\n"},
		{"after the body", "let f = { x -> x + 1 /* c */ }\n", "let f = { x -> x + 1 /* c */ }\n"},
		{"inside the body", "let f = { x -> x /* c */ + 1 }\n", "let f = { x -> x /* c */ + 1 }\n"},
		{"everywhere", "let f = { /* a */ x /* b */ -> /* c */ x + 1 /* d */ }\n", "let f = { /* a */ x /* b */ -> /* c */ x + 1 /* d */ }\n"},
		{"before return and let", "let f = { -> /* c */ return 1 }\nlet g = { x -> /* d */ let y = x }\n",
			"let f = { -> /* c */ return 1 }\nlet g = { x -> /* d */ let y = x }\n"},
		{"callback arguments", "let m = xs.map({ x -> /* c */ x * 2 }).filter({ y -> y /* d */ })\n",
			"let m = xs.map({ x -> /* c */ x * 2 }).filter({ y -> y /* d */ })\n"},
		{"if expression blocks", "let i = if a { /* c */ 1 } else { 2 /* d */ }\n", "let i = if a { /* c */ 1 } else { 2 /* d */ }\n"},
		{"too long breaks", "let n = { x -> /* a long comment that goes on and on */ some_function_name(x, another_argument_here, more) }\n",
			"let n = { x ->\n  /* a long comment that goes on and on */ some_function_name(x, another_argument_here, more)\n}\n"},
		{"written broken stays broken", "let o = { x -> /* c */\n  x + 1 }\n", "let o = { x -> /* c */\n  x + 1\n}\n"},
		{"multi-line comment", "let q = { x -> /* c\n  d */ x + 1 }\n", "let q = { x ->\n  /* c\n  d */ x + 1\n}\n"},
	} {
		check(t, c.name, c.in, c.want)
	}
}

// TestCommentsInParentheses: docs/fmt.md "Comments": parentheses the
// layout does not need are dropped, but a comment written inside them
// stays beside its token; one that ends a line or stands on its own line
// keeps the parentheses, broken, with the comment inside.
func TestCommentsInParentheses(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"inline comment, parentheses dropped", "let x = (/* c */ a + b)\nlet y = (a /* d */ + b)\n", "let x = /* c */ a + b\nlet y = a /* d */ + b\n"},
		{"own-line comment", "let w = (\n  // c\n  a + b\n)\n", "let w = (\n  // c\n  a + b\n)\n"},
		{"own-line block comment before code", "let z = (\n  /* c */ a + b\n)\n", "let z = (\n  /* c */ a + b\n)\n"},
		{"return keeps its value", "fn f() {\n  return (\n    // why\n    a + b\n  )\n}\n", "fn f() {\n  return (\n    // why\n    a + b\n  )\n}\n"},
		{"line comment after the paren", "let a = ( // c\n  x + y\n)\n", "let a = ( // c\n  x + y\n)\n"},
		{"own-line comment before the close", "fn f() {\n  let c = (\n    x + y\n    // end\n  )\n  let d = 1\n}\n",
			"fn f() {\n  let c = (\n    x + y\n    // end\n  )\n  let d = 1\n}\n"},
		{"needed parentheses", "let y = 2 * (\n  // c\n  a + b\n)\n", "let y = 2 *\n  (\n    // c\n    a + b\n  )\n"},
		{"postfix after the parentheses", "let g = (\n  // c\n  x\n).len()\nlet h = (\n  // c\n  a + b\n)[0]\n",
			"let g = (\n  // c\n  x\n).len()\nlet h = (\n  // c\n  a + b\n)[0]\n"},
		{"doubled parentheses", "let h = ((\n  // c\n  x + y\n))\n", "let h = (\n  // c\n  x + y\n)\n"},
		{"operator after the parentheses", "let i = (\n  // c\n  x + y\n) * 2\n", "let i = (\n  // c\n  x + y\n) * 2\n"},
	} {
		check(t, c.name, c.in, c.want)
	}
}

// TestCommentsInMutexArgs: the parentheses of `mutex(key, timeout)` print
// as an argument list, so a comment before or inside them keeps its place
// and a second run changes nothing (a line comment before the `(` used to
// come back as `mutex(( // c`).
func TestCommentsInMutexArgs(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"line comment before the paren", "mutex // c\n(\"k\") {\n  f()\n}\n", "mutex( // c\n  \"k\",\n) {\n  f()\n}\n"},
		{"line comment after the paren", "mutex( // c\n\"k\") {\n  f()\n}\n", "mutex( // c\n  \"k\",\n) {\n  f()\n}\n"},
		{"block comment before the paren", "mutex /* c */ (\"k\") {\n  f()\n}\n", "mutex(/* c */ \"k\") {\n  f()\n}\n"},
		{"comment before a named timeout", "let v = mutex(k, // wait\n  timeout: 5s) { 1 }\n", "let v = mutex(\n  k, // wait\n  timeout: 5s,\n) { 1 }\n"},
		{"trailing comma dropped when it fits", "mutex(k, 2s,) {\n  f()\n}\n", "mutex(k, 2s) {\n  f()\n}\n"},
	} {
		check(t, c.name, c.in, c.want)
	}
}

// TestCommentsAroundBareCatchVariable: `catch e {` has no parentheses of
// its own, so the comments after it belong to the catch block and the
// rest of the file (they were gathered up to the next `(` in the file,
// here `f(`, and printed inside `catch (…)`).
func TestCommentsAroundBareCatchVariable(t *testing.T) {
	check(t, "bare catch", "try { g() } catch /* a */ e /* b */ { /* c */\n  f(e) // d\n}\nh(1)\n",
		"try {\n  g()\n} catch (/* a */ e /* b */) { /* c */\n  f(e) // d\n}\nh(1)\n")
}

// TestWidthIsAnOption: the line width is a setting of each run, not of
// the package, so runs at different widths can go on at once.
func TestWidthIsAnOption(t *testing.T) {
	src := []byte("let total = compute(first_argument, second_argument)\n")
	want := map[int]string{
		0:  string(src),
		40: "let total = compute(\n  first_argument,\n  second_argument,\n)\n",
	}
	var wg sync.WaitGroup
	for w, exp := range want {
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := Options{Width: w}.Source("t.harn", src)
				if err != nil || string(got) != exp {
					t.Errorf("width %d: got %q (%v), want %q", w, got, err, exp)
				}
			}()
		}
	}
	wg.Wait()
}

// TestHugWithCommentsInsideLastArgument: comments within the brackets of
// the last argument leave the hug alone (docs/fmt.md, "only that argument
// breaks"); one between the `(` and that argument, or after it, still
// stops it.
func TestHugWithCommentsInsideLastArgument(t *testing.T) {
	check(t, "line comment in list", "register([\n  {\n    name: \"total\", // short name\n    handler: 1,\n  },\n])\n",
		"register([\n  {\n    name: \"total\", // short name\n    handler: 1,\n  },\n])\n")
	check(t, "comment after open", "register(x, [ // all\n  1,\n  2,\n])\n", "register(x, [ // all\n  1,\n  2,\n])\n")
	check(t, "comment in dict", "configure({\n  a: 1, // one\n  b: 2,\n})\n", "configure({\n  a: 1, // one\n  b: 2,\n})\n")
	check(t, "comment in closure", "xs.map({ x ->\n  // double it\n  x * 2\n})\n", "xs.map({ x ->\n  // double it\n  x * 2\n})\n")
	check(t, "comment before last", "register(\n  // the list\n  [1, 2],\n)\n", "register(\n  // the list\n  [1, 2],\n)\n")
	check(t, "comment after last", "register([\n  1,\n  2,\n] /* end */)\n", "register([1, 2] /* end */)\n")
}

// TestTernaryCommentAfterCondition: a comment that ends the condition's
// line stays there and the `?` starts the next line, indented like the
// `:` (docs/fmt.md); printed after the `?`, it left the then-branch at
// the start of a line of its own.
func TestTernaryCommentAfterCondition(t *testing.T) {
	check(t, "line comment", "const label = n > 4 // big?\n  ? \"big\"\n  : \"small\" // fallback\n",
		"const label = n > 4 // big?\n  ? \"big\"\n  : \"small\" // fallback\n")
	check(t, "block comment", "const label = n > 4 /* big? */ ? \"big\" : \"small\"\n",
		"const label = n > 4 /* big? */ ? \"big\" : \"small\"\n")
	check(t, "both", "let v = ok // when ready\n  ? fetch() // now\n  : later()\n",
		"let v = ok // when ready\n  ? fetch() // now\n  : later()\n")
}

// TestCommentAfterAssignment: a comment that ends the line of a binding's
// or assignment's `=` stays there, and the value starts the next line one
// level in (docs/fmt.md); printed by the value, it left the value at the
// start of its line.
func TestCommentAfterAssignment(t *testing.T) {
	check(t, "let", "fn f(x, y) {\n  let z = // computed\n    x + y\n  return z\n}\n",
		"fn f(x, y) {\n  let z = // computed\n    x + y\n  return z\n}\n")
	check(t, "assign", "total += // running\n  step\n", "total += // running\n  step\n")
	check(t, "block comment stays inline", "let a = /* c */ 1\nconst b = 2 /* d */\n", "let a = /* c */ 1\nconst b = 2 /* d */\n")
	check(t, "block comment ends the line", "let a = /* c */\n  1\n", "let a = /* c */\n  1\n")
	check(t, "for in", "for x in // the numbers\n  xs.sorted() {\n  println(x)\n}\n", "for x in // the numbers\n  xs.sorted() {\n  println(x)\n}\n")
	check(t, "closure hugs", "const ys = xs.map({ x -> // double\n  x * 2\n})\n", "const ys = xs.map({ x -> // double\n  x * 2\n})\n")
}
