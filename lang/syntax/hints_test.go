package syntax

import (
	"errors"
	"testing"

	"github.com/harnlang/harn/lang/diag"
)

// structHolds is the help's description of a struct body.
const structHolds = "a struct body holds fields written `name: type` (`name?: type` for an optional one)"

func TestParseErrorHints(t *testing.T) {
	for _, tc := range []struct{ src, msg, help string }{
		{"fn f(x) {\n  if x {\n    println(1)\n", "unexpected end of file, expected }", "the `{` opened at 2:8 is never closed"},
		{"println(len([1, 2)\n", "expected ], found )", ""},
		// no keyword that could not stand there: a value keyword, a one-letter
		// word, a clause keyword as a statement's first word
		{"var tries tries = 0\n", "expected =, found `tries`", ""},
		{"fn f() {\n  retry 2 tries {\n  }\n}\n", "expected {, found `tries`", ""},
		{"t let = true\n", "expected top-level item separator (`;` or newline), found let", ""},
		{"let r = parallel 3 { i mutex { i } }\n", "expected statement separator (`;` or newline), found mutex", ""},
		{"f x\n", "expected top-level item separator (`;` or newline), found `x`", ""},
		{"for x inn [1] {\n}\n", "expected in, found `inn`", "`inn` is not a keyword; did you mean `in`?"},
		{"let r = 1 tto 5\n", "expected top-level item separator (`;` or newline), found `tto`", "`tto` is not a keyword; did you mean `to`?"},
		{"let xs = [1, (2\n", "unexpected end of file, expected )", "the `(` opened at 1:14 is never closed"},
		{"fn f(x) {\n  retrun x\n}\n", "expected statement separator (`;` or newline), found `x`", "`retrun` is not a keyword; did you mean `return`?"},
		{"def f(x) {\n  return x\n}\n", "expected top-level item separator (`;` or newline), found `f`", "`def` is not a keyword; did you mean `fn`?"},
		{"if true {\n} esle {\n}\n", "expected top-level item separator (`;` or newline), found `esle`", "`esle` is not a keyword; did you mean `else`?"},
		{"let a = 1 b\n", "expected top-level item separator (`;` or newline), found `b`", ""},
		{"let s = \"a\" \"b\"\n", "expected top-level item separator (`;` or newline), found string \"b\"", ""},
		// docs/spec/language.md: `throws` follows the result type
		{"fn f() throws string -> int {\n  return 1\n}\n", "expected {, found ->", "`throws` follows the result type: `fn f(x: int) -> int throws E { … }`"},
		{"fn f(x: int) throws string -> int {\n  return x\n}\n", "expected {, found ->", "`throws` follows the result type: `fn f(x: int) -> int throws E { … }`"},
		// other languages' operators and words
		{"class A {\n}\n", "expected top-level item separator (`;` or newline), found `A`", "`class` is not a keyword; did you mean `struct`?"},
		{"let ok = a and b\n", "expected top-level item separator (`;` or newline), found `and`", "`and` is not an operator in Harn; did you mean `&&`?"},
		{"let ok = a or b\n", "expected top-level item separator (`;` or newline), found `or`", "`or` is not an operator in Harn; did you mean `||`?"},
		{"let ok = not a\n", "expected top-level item separator (`;` or newline), found `a`", ""},
		{"let ok = a not b\n", "expected top-level item separator (`;` or newline), found `not`", "`not` is an operator only in `not in`; did you mean `!`?"},
		{"let ok = a === b\n", "expected expression, found =", "Harn has no `===`; `==` already compares without conversions"},
		{"let ok = a !== b\n", "expected expression, found =", "Harn has no `!==`; `!=` already compares without conversions"},
		{"let ok = a == = b\n", "expected expression, found =", ""},
		{"x++\n", "expected expression, found +", "Harn has no `++`; write `x += 1`"},
		// docs/spec/language.md §1.8: longest match makes `>=` one token after type arguments
		{"let x: list<int>= [1]\n", "expected >, found >=", "`>=` is one token; put a space between the `>` closing the type arguments and the `=`: `list<int> = …`"},
		{"fn f(d: dict<string, int>={}) {\n}\n", "expected >, found >=", "`>=` is one token; put a space between the `>` closing the type arguments and the `=`: `list<int> = …`"},
		{"x + +\n", "expected expression, found +", ""},
		{"for i in 0..3 {\n}\n", "expected property name, found .", "ranges are written `a to b` (`a to b exclusive` leaves `b` out)"},
		{"let f = x => x\n", "expected top-level item separator (`;` or newline), found =", "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"},
		{"let f = x = > x\n", "expected top-level item separator (`;` or newline), found =", ""},
		{"println(x: 1)\n", "expected ), found :", "Harn has no named arguments; pass the values in order, or one dict (`f({x: 1})`)"},
		{"f(1, name: 2)\n", "expected ), found :", "Harn has no named arguments; pass the values in order, or one dict (`f({x: 1})`)"},
		{"let x = {a: (b: 1)}\n", "expected ), found :", ""},
		{"mutex(timeout: 50ms) {\n}\n", "expected ), found :", "a bare `mutex { … }` takes no timeout; name its lock to give one: `mutex(\"key\", timeout: 50ms) { … }`"},
		{"let ys = [x * 2 for x in xs]\n", "expected ], found for", "Harn has no comprehensions; use `xs.map({ x -> … })` and `.filter(…)`, or a `for` loop"},
		{"let x = 1 for x in y {}\n", "expected top-level item separator (`;` or newline), found for", ""},
		// other languages' forms of arms, bodies, bounds, closures, catches and dict entries
		{"match x {\n  1 => { }\n}\n", "expected ->, found =", "a match arm is written `pattern -> { … }`"},
		{"match x {\n  case 1 -> { }\n}\n", "expected ->, found `1`", "a match arm is written `pattern -> { … }`, with no `case` before it"},
		{"fn f(x) => x * 2\n", "expected {, found =", "a body is a block in braces: `fn f(x) { return x * 2 }`"},
		{"fn f(): int {\n}\n", "expected {, found :", "a result type follows `->`: `fn f() -> int { … }`"},
		{"struct S<T: Show> {\n  x: T\n}\n", "expected >, found :", "bounds go in a `where` clause: `fn f<T>(x: T) where T: Display { … }`"},
		{"let f = |x| x + 1\n", "expected expression, found |", "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"},
		{"try {\n} catch (MyError err) {\n}\n", "expected ), found `err`", "a typed catch names the variable first: `catch (err: MyError)`"},
		// other languages' error handling (docs/spec/language.md §8)
		{"let r = try? f()\n", "expected {, found ?", "Harn has no `try?`: `try { … }` gives a Result (`Result.Ok(v)` or `Result.Err(e)`), and `unwrap_or(try { … }, d)` a default in place of a failure"},
		{"let r = try! f()\n", "expected {, found !", "Harn has no `try!`: drop it, and a failure propagates by itself (`unwrap(r)` takes the value of a Result)"},
		{"let r = try f()\n", "expected {, found `f`", "`try` takes a block: `try { … }` gives a Result, `try { … } catch (e) { … }` handles the failure"},
		{"try {\n} catch (e: E) {\n} catch (e) {\n}\n", "expected top-level item separator (`;` or newline), found catch", "a `try` has one `catch`, which receives every failure: branch on it inside (`match e { … }`), or nest a `try` with a typed `catch (e: Name)` in another"},
		{"fn f() {\n  try { 1 } catch { 2 } catch { 3 }\n}\n", "expected statement separator (`;` or newline), found catch", "a `try` has one `catch`, which receives every failure: branch on it inside (`match e { … }`), or nest a `try` with a typed `catch (e: Name)` in another"},
		{"try {\n} finally {\n} catch (e) {\n}\n", "expected top-level item separator (`;` or newline), found catch", "`catch` comes before `finally`: `try { … } catch (e) { … } finally { … }`"},
		{"if x {\n} catch (e) {\n}\n", "expected top-level item separator (`;` or newline), found catch", ""},
		{"let v = x ?? throw \"missing\"\n", "expected expression, found throw", "`throw` is a statement, not a value: test first, as in `guard x != nil else { throw \"missing\" }`"},
		{"let d = {a = 1}\n", "expected :, found =", "dict entries are written `key: value`"},
		{"let d = {a: 1 = 2}\n", "expected }, found =", ""},
		// a struct pattern, and capitalised words: a type name is no misspelt keyword
		{"match c {\n  Cat { name } -> { }\n}\n", "expected ->, found {", "a pattern cannot destructure a struct; bind the value (`c -> { c.name }`) and read its fields, or add a guard (`c if c.name == \"x\" -> { … }`)"},
		{"fn f() {\n  Cat x\n}\n", "expected statement separator (`;` or newline), found `x`", ""},
		{"fn f(x) {\n  Return x\n}\n", "expected statement separator (`;` or newline), found `x`", "`Return` is not a keyword; did you mean `return`?"},
		{"Function f(x) {\n}\n", "expected top-level item separator (`;` or newline), found `f`", "`Function` is not a keyword; did you mean `fn`?"},
		// a keyword is offered for a slip of the keyboard, not for any word a
		// few letters away: `loop` is not `tool`, `go` not `to`, `int` not `in`
		{"fn f() {\n  retrn 1\n}\n", "expected statement separator (`;` or newline), found `1`", "`retrn` is not a keyword; did you mean `return`?"},
		{"whlie x {\n}\n", "expected top-level item separator (`;` or newline), found `x`", "`whlie` is not a keyword; did you mean `while`?"},
		{"loop {\n}\n", "expected top-level item separator (`;` or newline), found {", "`loop` is not a keyword; did you mean `while true`?"},
		{"go f()\n", "expected top-level item separator (`;` or newline), found `f`", ""},
		{"until x {\n}\n", "expected top-level item separator (`;` or newline), found `x`", ""},
		{"new Foo()\n", "expected top-level item separator (`;` or newline), found `Foo`", ""},
		{"var x int = 1\n", "expected =, found `int`", ""},
		{"export fn f() {\n}\n", "expected top-level item separator (`;` or newline), found fn", "`export` is not a keyword; did you mean `pub`?"},
		{"raise \"x\"\n", "expected top-level item separator (`;` or newline), found string \"x\"", "`raise` is not a keyword; did you mean `throw`?"},
		// closures written without braces
		{"println([1].map(x -> x * 2))\n", "expected ), found ->", "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"},
		{"const f = (x) -> x + 1\n", "expected top-level item separator (`;` or newline), found ->", "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"},
		{"println([3, 1].sort((a, b) -> a - b))\n", "expected ), found ,", "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"},
		{"println([1].map((a, b) => a))\n", "expected ), found ,", "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"},
		{"println([1].map(lambda x: x))\n", "expected ), found :", "closures are written `{ x -> x + 1 }` or `fn(x) { return x + 1 }`"},
		{"println((a, b))\n", "expected ), found ,", ""},
		// a function, or another language's print statement, without parentheses
		{"exit 1\n", "expected top-level item separator (`;` or newline), found `1`", "a call needs parentheses: `exit(…)`"},
		{"print \"hi\"\n", "expected top-level item separator (`;` or newline), found string \"hi\"", "a call needs parentheses: `print(…)`"},
		{"echo x\n", "expected top-level item separator (`;` or newline), found `x`", "a call needs parentheses: `println(…)`"},
		// concurrency forms from other languages
		{"let h = spawn { 1 }\nawait h\n", "expected top-level item separator (`;` or newline), found `h`", "`await` is a function here: `await(task)`"},
		{"let v = await fetch()\n", "expected top-level item separator (`;` or newline), found `fetch`", "`await` is a function here: `await(task)`"},
		{"select { case v from ch { 1 } }\n", "expected from, found `v`", "a `select` case has no `case` keyword: `v from ch { … }`"},
		{"select { v <- ch { 1 } }\n", "expected from, found <", "a `select` case receives with `from`: `v from ch { … }`"},
		{"mutex(\"k\", timout: 5ms) { 1 }\n", "expected ), found :", "the only option of a `mutex` header is `timeout:`: `mutex(\"key\", timeout: 50ms) { … }`"},
		{"mutex(f(1, x: 2)) { 1 }\n", "expected ), found :", "Harn has no named arguments; pass the values in order, or one dict (`f({x: 1})`)"},
		{"let h = spawn fetch()\n", "expected {, found `fetch`", "`spawn` runs a block: `spawn { … }`"},
		{"let r = parallel 3 with max_concurrent: 2 { i -> i }\n", "expected {, found `max_concurrent`", "the options after `with` are a dict in braces: `with { max_concurrent: 4 }`"},
		{"let r = parallel each [1] as stream { x -> x }\n", "expected {, found `as`", "`as stream` follows the body: `parallel each xs { x -> … } as stream`"},
		{"select {\n  v from ch -> { 1 }\n}\n", "expected {, found ->", "a `select` case runs its block directly, without `->`: `v from ch { … }`"},
		{"select {\n  v from ch { 1 }\n  timeout 5ms -> { 2 }\n}\n", "expected {, found ->", "a `select` case runs its block directly, without `->`: `timeout 5s { … }`"},
		{"select {\n  v from ch { 1 }\n  default => { 2 }\n}\n", "expected {, found =", "a `select` case runs its block directly, without `=>`: `default { … }`"},
		{"select { v from ch: { 1 } }\n", "expected {, found :", "a `select` case runs its block directly, without `:`: `v from ch { … }`"},
		{"let s = f\"hi {x}\"\n", "expected top-level item separator (`;` or newline), found string \"hi {x}\"", "Harn has no f-strings: every plain string interpolates `${…}`, as in `\"total: ${n}\"`"},
		{"let s = f \"hi\"\n", "expected top-level item separator (`;` or newline), found string \"hi\"", ""},
		{"for x of xs { 1 }\n", "expected in, found `of`", "a `for` loop takes its items with `in`: `for x in xs { … }`"},
		{"import json\n", "expected import path string, found `json`", "an import names its module as a string: `import \"std/json\"` for a standard module, `import \"./json\"` for a file beside this one"},
		{"import { a } from util\n", "expected import path string, found `util`", "an import names its module as a string: `from \"std/util\"` for a standard module, `from \"./util\"` for a file beside this one"},
		{"select { v from ch { 1 } else { 2 } }\n", "expected variable name, found 'else' (reserved keyword)", "a `select` case that runs when nothing is ready is `default { … }`"},
		{"println(parallel 2 { i, j -> i })\n", "a `parallel` body takes one parameter, the item (`parallel each xs { x -> … }`) or the index (`parallel n { i -> … }`)",
			"keep one parameter; for an item and its index, run `parallel each xs.enumerate() { e -> … }` and read `e.index` and `e.value`"},
		// members that are no fields or variants in struct and enum bodies
		{"struct S { let x = 1 }\n", "expected field name, found =", "`let` has no place in a struct body: " + structHolds + "; methods go in an `impl` block after it"},
		{"struct S {\n  fn f() {}\n}\n", "expected field name, found (", structHolds + "; methods go in an `impl` block after it"},
		{"struct S {\n  @a\n  x: int\n}\n", "expected field name, found @", "attributes stand before a declaration, not before a field; " + structHolds},
		{"struct S { pub y: int }\n", "expected field name, found 'pub' (reserved keyword)", "struct fields take no `pub`: every field is visible wherever the struct is; write `y: …`"},
		{"struct S { x: int = 1 }\n", "expected field name, found =", "struct fields have no default values: " + structHolds + ", and a literal gives every value (`S { name: … }`)"},
		{"enum E { A = 1 }\n", "expected variant name, found =", "enum variants have no values of their own: an enum body holds variants (`Red`, `Circle(r: float)`)"},
		{"struct S { x: {a: int, 1} }\n", "expected field name, found `1`", ""}, // a shape type's field
		{"let x: {a: int, 1} = nil\n", "expected field name, found `1`", ""},
		// a spread in a struct literal: the grammar's error, explained
		{"let q = Point {...p, x: 1}\n", "expected top-level item separator (`;` or newline), found {",
			"a struct literal cannot start with a spread (`Point {...p, x: 1}`); give the merged dict to the constructor instead (`Point({...p, x: 1})`)"},
		{"fn f(p) {\n  return Point {...p}\n}\n", "expected statement separator (`;` or newline), found {",
			"a struct literal cannot start with a spread (`Point {...p, x: 1}`); give the merged dict to the constructor instead (`Point({...p, x: 1})`)"},
		// lines joined by a block comment or a trailing backslash
		{"let x = 1 /* a\nb */ let y = 2\n", "expected top-level item separator (`;` or newline), found let",
			"a block comment spanning lines is no line break; end the statement before it with `;` or start a new line after the `*/`"},
		{"let x = 1 \\\nlet y = 2\n", "expected top-level item separator (`;` or newline), found let",
			"a `\\` at the end of a line joins it to the next, so both statements stand on one line; remove the `\\` or add `;`"},
		{"let x = 1 /* a */ let y = 2\n", "expected top-level item separator (`;` or newline), found let", ""},
		// an assignment as a condition, a C-style for
		{"if x = 1 {\n}\n", "expected {, found =", "`=` assigns; an `if` condition compares with `==`"},
		{"while x = 1 {\n}\n", "expected {, found =", "`=` assigns; a `while` condition compares with `==`"},
		{"for (let i = 0; i < 3; i += 1) {\n}\n", "expected variable name, found 'let' (reserved keyword)",
			"Harn has no C-style `for`; loop with `for i in 0 to n - 1 { … }`, `for i in range(n) { … }` or `while`"},
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

func TestLexerErrorHelp(t *testing.T) {
	for _, tc := range []struct{ src, golden, help string }{
		{"let s = 'a'", "Unexpected character ''' at 1:9", "strings are written in double quotes (`\"text\"`)"},
		{"let s = `a`", "Unexpected character '`' at 1:9", "strings are written in double quotes (`\"text\"`), or as raw strings (`r\"text\"`)"},
		{"let n = 1 # one", "Unexpected character '#' at 1:11", "comments start with `//` (`#` is allowed only in a `#!` line at the very start of the file)"},
		{"let n = 1 \\ 2", "Unexpected character '\\' at 1:11", "a backslash outside a string may only end a line, to continue it on the next"},
		{"let s = $name", "Unexpected character '$' at 1:9", "`${…}` interpolates only inside a string (`\"${name}\"`)"},
		{"let s = \"${f(\\\"x\\\")}\"", "Unexpected character '\\' at 1:14", "a `${…}` hole holds code, where a nested string needs no backslashes: `\"${f(\"x\")}\"`"},
		{"let s = \"${ }\"", "Unexpected character '}' at 1:13", "an interpolation needs an expression between `${` and `}`; for a literal `${` write `\\${`"},
		{"let n = 1 ~ 2", "Unexpected character '~' at 1:11", ""},
	} {
		_, err := Parse("t.harn", []byte(tc.src))
		var de *diag.Error
		if !errors.As(err, &de) {
			t.Fatalf("%q: no error", tc.src)
		}
		if de.GoldenText() != tc.golden || de.Help != tc.help {
			t.Errorf("%q:\n got %q / help %q\nwant %q / help %q", tc.src, de.GoldenText(), de.Help, tc.golden, tc.help)
		}
	}
}

// TestInterpolationHoleEnd: a hole cut short is reported as the end of
// the hole under harn run, and as upstream's end of file in golden form.
func TestInterpolationHoleEnd(t *testing.T) {
	for _, tc := range []struct{ src, golden, msg string }{
		{"let s = \"${1 +}\"", "Unexpected end of file, expected expression", "unexpected end of the `${…}` interpolation, expected expression"},
		{"let s = \"\"\"\n  ${(1 + 2}\n  \"\"\"", "Unexpected end of file, expected )", "unexpected end of the `${…}` interpolation, expected )"},
		{"let s = \"${[1, 2}\"", "Unexpected end of file, expected ]", "unexpected end of the `${…}` interpolation, expected ]"},
		{"let s = \"${1 2}\"", "Expected end of interpolated expression, got int(2) at 1:14", "expected end of interpolated expression, found `2`"},
	} {
		_, err := Parse("t.harn", []byte(tc.src))
		var de *diag.Error
		if !errors.As(err, &de) {
			t.Fatalf("%q: no error", tc.src)
		}
		if de.GoldenText() != tc.golden || de.Msg != tc.msg {
			t.Errorf("%q:\n got %q / %q\nwant %q / %q", tc.src, de.GoldenText(), de.Msg, tc.golden, tc.msg)
		}
	}
}

// TestLineBreakSpelling: harn run calls a line break the end of the
// line; the golden text keeps upstream's `\n`.
func TestLineBreakSpelling(t *testing.T) {
	_, err := Parse("t.harn", []byte("let r = 1 to\n  5"))
	var de *diag.Error
	if !errors.As(err, &de) {
		t.Fatal("no error")
	}
	if de.Msg != "expected expression, found end of line" || de.GoldenText() != "Expected expression, got \\n at 1:13" {
		t.Errorf("got %q / %q", de.Msg, de.GoldenText())
	}
}

func TestNumberSuffixHints(t *testing.T) {
	for _, tc := range []struct{ src, help string }{
		{"let n = 1_000", "numbers have no digit separators; write the digits together (`1000`)"},
		{"let n = 1e3", "numbers have no exponent notation; write the number out, or use `**` (`1.5 * 10 ** 3`)"},
		{"let n = 2.5e10", "numbers have no exponent notation; write the number out, or use `**` (`1.5 * 10 ** 3`)"},
		{"let n = 0x1f", "numbers are written in decimal only (no `0x`, `0o` or `0b` literals)"},
		{"let n = 0b101", "numbers are written in decimal only (no `0x`, `0o` or `0b` literals)"},
		{"let d = 1.5s", "a duration is a whole number of one unit (`1500ms`, not `1.5s`)"},
		{"let d = 5sec", "a duration is a whole number directly followed by `ms`, `s`, `m`, `h`, `d` or `w` (`5s`, `2m`)"},
		{"let d = 2days", "a duration is a whole number directly followed by `ms`, `s`, `m`, `h`, `d` or `w` (`5s`, `2m`)"},
		{"let n = 12abc", ""},
		{"let n = 1.5abc", ""},
		{"let d = 5 s", ""},
		{"let n = 1 e3", ""},
	} {
		_, err := Parse("t.harn", []byte(tc.src))
		var de *diag.Error
		if !errors.As(err, &de) {
			t.Fatalf("%q: no error", tc.src)
		}
		if de.Help != tc.help {
			t.Errorf("%q: help %q, want %q", tc.src, de.Help, tc.help)
		}
	}
}
