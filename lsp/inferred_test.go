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
	path := filepath.Join(dir, "main.harn")
	os.WriteFile(path, []byte(inferredSrc), 0o644)
	uri := "file://" + path
	c := startServer(t, dir)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "harn", "version": 1, "text": inferredSrc}})
	c.diagnostics(uri)
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
