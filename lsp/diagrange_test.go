package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/lsp.md (Diagnostics): a diagnostic about a string literal covers
// the literal, in UTF-16 columns (an emoji is two), not only its quote.
func TestDiagnosticCoversStringLiterals(t *testing.T) {
	dir := t.TempDir()
	src := "let s = \"😀😀\"; let n: int = \"x😀\"\nfn f(a: int) -> int { return a }\nprintln(f(\"é ${s}\"), n)\n"
	path := filepath.Join(dir, "main.harn")
	os.WriteFile(path, []byte(src), 0o644)
	uri := "file://" + path
	c := startServer(t, dir)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "harn", "version": 1, "text": src}})
	d := js(c.diagnostics(uri))
	for _, want := range []string{
		`{"end":{"character":34,"line":0},"start":{"character":29,"line":0}}`, // "x😀"
		`{"end":{"character":18,"line":2},"start":{"character":10,"line":2}}`, // "é ${s}"
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diagnostics lack the range %s: %s", want, d)
		}
	}
}
