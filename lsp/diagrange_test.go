package lsp

import (
	"strings"
	"testing"
)

// docs/lsp.md (Diagnostics): a diagnostic about a string literal covers
// the literal, in UTF-16 columns (an emoji is two), not only its quote.
func TestDiagnosticCoversStringLiterals(t *testing.T) {
	dir := t.TempDir()
	src := "let s = \"😀😀\"; let n: int = \"x😀\"\nfn f(a: int) -> int { return a }\nprintln(f(\"é ${s}\"), n)\n"
	_, _, diags := openMain(t, dir, src)
	d := js(diags)
	for _, want := range []string{
		`{"end":{"character":34,"line":0},"start":{"character":29,"line":0}}`, // "x😀"
		`{"end":{"character":18,"line":2},"start":{"character":10,"line":2}}`, // "é ${s}"
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diagnostics lack the range %s: %s", want, d)
		}
	}
}
