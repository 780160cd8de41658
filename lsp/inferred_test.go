package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/lsp.md (Hover): a name without an annotation shows the type the
// checker gives it, and a closure's `{` or `fn` shows the closure's type.
const inferredSrc = `let x = 3
let s = "héllo"
let d = {a: 1, b: "x"}
let xs: list<int> = [1, 2, 3]
let doubled = xs.map({ v -> v * 2 })
let f = { a -> a * 2 }
let g = fn(n) { n + 1 }
let [p, q] = [1, 2]
var later = nil
later = 5
for item in ["a", "b"] {
  println(item)
}
let total = x + 1
println(x, s, d, doubled, f(1), g(1), p, q, later, total)
`

func TestHoverShowsInferredTypes(t *testing.T) {
	dir := t.TempDir()
	c, uri, _ := openMain(t, dir, inferredSrc)
	for _, tc := range []struct{ needle, want string }{
		{"let x| =", "let x: int"},
		{"println(x|,", "let x: int"},
		{"println(x, s|,", "let s: string"},
		{"let d| =", "let d: {a: int, b: string}"},
		{"{ v| ->", "(parameter) v: int"},
		{"map(|{", "(closure) fn(int) -> int"},
		{"let f| =", "let f: fn(any) -> any"},
		{"let g| =", "let g: fn(any) -> any"},
		{"g = |fn(n)", "(closure) fn(any) -> any"},
		{"{ |a ->", "(parameter) a"}, // the checker knows nothing of it
		{"println(ite|m)", "(loop variable) item: string"},
		{"var lat|er", "var later: int?"},
		{"let tot|al", "let total: int"},
	} {
		l, ch := cursor(t, inferredSrc, tc.needle)
		got := js(c.request("textDocument/hover", docPos(uri, l, ch)))
		if want := js(code(tc.want)); !strings.Contains(got, want) {
			t.Errorf("hover %q: %s, want %s", tc.needle, got, want)
		}
	}
}

// docs/lsp.md (Completion): after `.` a variable whose type only the
// checker knows (`let p = make(…)`, a function's struct result) offers the
// struct's fields and impl methods; a variable of a builtin kind offers
// only that kind's methods.
func TestMemberCompletionOfInferredTypes(t *testing.T) {
	dir := t.TempDir()
	lib := "pub struct Point {\n  x: int\n  y: int\n}\nimpl Point {\n  pub fn norm(self) -> int {\n    return self.x + self.y\n  }\n}\npub fn make(x: int, y: int) -> Point {\n  return Point { x: x, y: y }\n}\n"
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte(lib), 0o644)
	src := "import { make, Point } from \"./lib\"\nlet p = make(1, 2)\nlet word = \"héllo\".upper()\nlet cfg = {retries: 3}\nprintln(p, word, cfg)\n"
	c, uri, _ := openMain(t, dir, src)
	labels := func(recv string, version int) []string {
		t.Helper()
		text := src + recv + "."
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{map[string]any{"text": text}}})
		c.diagnostics(uri)
		res := c.request("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri},
			"position": pos(5, len(recv)+1), "context": map[string]any{"triggerKind": 2, "triggerCharacter": "."}})
		var out []string
		items, _ := res.([]any)
		if m, ok := res.(map[string]any); ok {
			items, _ = m["items"].([]any)
		}
		for _, it := range items {
			out = append(out, it.(map[string]any)["label"].(string))
		}
		return out
	}
	got := labels("p", 2)
	for _, want := range []string{"x", "y", "norm"} {
		if !contains(got, want) {
			t.Errorf("p. lacks %s: %.200v", want, got)
		}
	}
	got = labels("word", 3)
	if !contains(got, "trim") || contains(got, "map") || contains(got, "keys") {
		t.Errorf("word. (a string) offers %.300v", got)
	}
	got = labels("cfg", 4)
	if !contains(got, "retries") || !contains(got, "keys") || contains(got, "trim") {
		t.Errorf("cfg. (a dict) offers %.300v", got)
	}
}

// docs/lsp.md (Completion): the receiver is the binding of its name
// declared nearest above the cursor (two functions may each have an `s`),
// an inferred struct offers its fields and impl methods only, and a
// method's detail leaves out `self`.
func TestMemberCompletionPicksBindingAboveCursor(t *testing.T) {
	dir := t.TempDir()
	src := "struct Q {\n  a: int\n  b: int\n}\nimpl Q {\n  fn m(self, k: int) -> int {\n    return self.a + k\n  }\n}\nfn mk() -> Q {\n  return Q { a: 1, b: 2 }\n}\nfn one() {\n  let s = [1, 2]\n  println(s)\n}\nfn two() {\n  let s = \"x\"\n  println(s)\n}\nlet q = mk()\nprintln(q)\n"
	c, uri, _ := openMain(t, dir, src)
	version := 1
	complete := func(text string, line, col int) map[string]string {
		t.Helper()
		version++
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{map[string]any{"text": text}}})
		c.diagnostics(uri)
		res := c.request("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri},
			"position": pos(line, col), "context": map[string]any{"triggerKind": 2, "triggerCharacter": "."}})
		items, _ := res.([]any)
		if m, ok := res.(map[string]any); ok {
			items, _ = m["items"].([]any)
		}
		out := map[string]string{}
		for _, it := range items {
			m := it.(map[string]any)
			detail, _ := m["detail"].(string)
			out[m["label"].(string)] = detail
		}
		return out
	}
	// `s.` inside one(), whose s is a list, above two()'s string s
	lines := strings.Split(src, "\n")
	lines[14] = "  s."
	got := complete(strings.Join(lines, "\n"), 14, 4)
	if _, ok := got["map"]; !ok {
		t.Errorf("s. in one() (a list) lacks map: %v", got)
	}
	if _, ok := got["trim"]; ok {
		t.Errorf("s. in one() (a list) offers the string method trim")
	}
	got = complete(src+"q.", 22, 2)
	for _, want := range []string{"a", "b", "m"} {
		if _, ok := got[want]; !ok {
			t.Errorf("q. lacks %s: %v", want, got)
		}
	}
	for _, builtin := range []string{"trim", "keys", "map"} {
		if _, ok := got[builtin]; ok {
			t.Errorf("q. (a struct) offers the builtin method %s", builtin)
		}
	}
	if d := got["m"]; d != "(Q method) fn(int) -> int" {
		t.Errorf("detail of m = %q, want it without self", d)
	}
}
