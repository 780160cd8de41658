package lsp

import (
	"testing"
)

// docs/lsp.md (Signature help): builtins and builtin methods, with the
// active parameter counted at the call's own level: commas in strings,
// nested calls and list arguments (`join(["x", |"y"])`) are not its.
func TestSignatureHelpOfBuiltins(t *testing.T) {
	dir := t.TempDir()
	src := "let a = split(\"a(,b\", \",\")\nlet b = split(join([\"x\", \"y\"], \",\"), \"x\")\nlet c = \"k,v\".split(\",\")\nlet d = replace(\n  \"ü😀\",\n  \"b\",\n  \"c\"\n)\nprintln(a, b, c, d)\n"
	c, uri, _ := openMain(t, dir, src)
	for _, tc := range []struct {
		needle, label string
		active        float64
	}{
		{"\"a(,b\", |\",\"", "split(s, sep?) -> list<string>", 1},
		{"split(|\"a(", "split(s, sep?) -> list<string>", 0},
		{"join([\"x\", |\"y\"]", "join(list, sep?) -> string", 0},
		{"join([\"x\", \"y\"], |\",\")", "join(list, sep?) -> string", 1},
		{"\",\"), |\"x\")", "split(s, sep?) -> list<string>", 1},
		{"\"k,v\".split(|", "s.split(sep?)", 0},
		{"  \"b\",\n  |\"c\"", "replace(s, old, new) -> string", 2},
	} {
		l, ch := cursor(t, src, tc.needle)
		res, _ := c.request("textDocument/signatureHelp", docPos(uri, l, ch)).(map[string]any)
		if res == nil {
			t.Errorf("%q: no signature help", tc.needle)
			continue
		}
		sig := res["signatures"].([]any)[0].(map[string]any)
		if sig["label"] != tc.label || res["activeParameter"] != tc.active {
			t.Errorf("%q: %v parameter %v, want %s parameter %v", tc.needle, sig["label"], res["activeParameter"], tc.label, tc.active)
		}
	}
}
