package lsp

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestVSCodeExtension checks the files of editors/vscode: valid JSON, the
// language contributed with its grammar and configuration, every reserved
// word highlighted, the extension starting `harn lsp`.
func TestVSCodeExtension(t *testing.T) {
	read := func(path string) map[string]any {
		t.Helper()
		b, err := os.ReadFile("../editors/vscode/" + path)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return v
	}
	pkg := read("package.json")
	contributes := js(pkg["contributes"])
	for _, want := range []string{`"id":"harn"`, `".harn"`, `"scopeName":"source.harn"`, `"path":"./syntaxes/harn.tmLanguage.json"`,
		`"configuration":"./language-configuration.json"`} {
		if !strings.Contains(contributes, want) {
			t.Errorf("package.json contributes lack %s", want)
		}
	}
	read("language-configuration.json")
	grammar := js(read("syntaxes/harn.tmLanguage.json"))
	for _, k := range keywordList {
		if k == "true" || k == "false" || k == "nil" {
			continue
		}
		if !strings.Contains(grammar, "|"+k+"|") && !strings.Contains(grammar, "("+k+"|") && !strings.Contains(grammar, "|"+k+")") {
			t.Errorf("the grammar does not highlight the keyword %s", k)
		}
	}
	ext, err := os.ReadFile("../editors/vscode/extension.js")
	if err != nil || !strings.Contains(string(ext), `args: ["lsp"]`) {
		t.Errorf("extension.js does not start harn lsp: %v", err)
	}
}
