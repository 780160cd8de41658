package format

import (
	"os"
	"testing"

	"github.com/harnlang/harn/lang/syntax"
)

// FuzzFormat parses arbitrary input and, when it parses, formats it: the
// formatter must not panic, its output must parse to the same tree with
// the same comments (Source checks both), and formatting must be
// idempotent. A file the formatter refuses to touch (syntax it does not
// know yet) is not a failure; any other error is.
func FuzzFormat(f *testing.F) {
	for _, seed := range []string{
		"let x = 1 // c\nfn f(a, b = 2, ...c) -> int { return a + b }\n",
		"let d = {a: 1, \"b\": [1, 2, ...xs], [k]: { x -> x }}\nmatch d { {a} -> { 1 } _ -> { 2 } }\n",
		"/// doc\n@attr(1, k: \"v\")\npub fn g<T>(x: T) -> T where T: Show { return x }\n",
		"let x = 5 /* a\nb */ - 2\nlet y = a\n  .b()\n  .c()\n",
		"try { throw \"x\" } catch (e: string) { println(e) } finally { done() }\n",
		"parallel each xs with { max_concurrent: 2 } { x -> x } as stream\nselect { v from ch {} timeout 5s {} }\n",
		"import a::b::{x, y}\nimport { p } from \"q\"\nstruct S { a: int, b?: string }\nenum E { A, B(n: int) }\n",
		"let s = \"${a} and ${b[\"k\"]}\"\nlet r = r#\"raw\"#\nlet t = \"\"\"\n  text\n  \"\"\"\n",
		"interface C {\n  type Item = int // c\n  fn get(self) -> Self.Item\n}\nimpl B {\n  /// d\n  fn get(self) -> Item { return 1 }\n  type Item = int\n}\n",
		"\uFEFFlet x=1 /* a\r\nb */\r\nlet s = \"\"\"\r\n  t\r\n  \"\"\"\r\nprintln(x + /* c */ s)\r\n",
		"import * as ns from \"std/math\"\nlet d = {finally: 1, select: 2}\nprintln(d?.select ?? d.finally)\nlet v = xs?.[0]!\nlet w = f()(1)\n",
		"interface Sink<in T> { fn put(self, x: T) }\ntype Box<out T> = {get: fn() -> T}\nfn touch<R>(x: {id: string, ...R}) -> {id: string, ...R} { return x }\n",
		"mutex(\"k\") {\n  n += 1\n}\nlet v = retry 3 { 1 }\nlet l = [c ? [\"-v\"] : [], \"run\"]\nlet s = \"${x ?? \"a}b\"} ${d[\"k\"]}\"\n",
		"let r = match s {\n  Circle(r) -> { r }\n  1 | 2 -> { 0 }\n  _ -> { -1 }\n}\nlet t = c\n  ? 1s\n  : 2 ** -1\n",
		"let x = (\n  // c\n  a + b\n) * 2\nfn f() {\n  return ( /* c */\n    (x).len()\n    // end\n  )\n}\nlet f = { x -> /* c */ x + 1 /* d */ }\n",
	} {
		f.Add(seed)
	}
	for _, path := range []string{"../../examples/hello.harn", "../../stdlib/std/text.harn"} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := syntax.Parse("fuzz.harn", []byte(src)); err != nil {
			return
		}
		out, err := Source("fuzz.harn", []byte(src))
		if err != nil {
			if _, refused := err.(*UnsupportedError); refused {
				return
			}
			t.Fatalf("%v\n--- input\n%s", err, src)
		}
		again, err := Source("fuzz.harn", out)
		if err != nil {
			t.Fatalf("formatting the output: %v\n--- output\n%s", err, out)
		}
		if string(again) != string(out) {
			t.Fatalf("not idempotent:\n--- first\n%s--- second\n%s", out, again)
		}
	})
}
