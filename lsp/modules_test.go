package lsp

import (
	"strings"
	"testing"
)

// TestErrorsInImportedModules: a module with errors makes harn check fail
// on its importer, so the importer shows it at the import, naming the
// first error and its place; the module's own diagnostics are published
// for its (closed) file (docs/lsp.md, What it does).
func TestErrorsInImportedModules(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"badlib.harn": "pub fn bad() { return 1 +* 2 }\n",
		"tylib.harn":  "pub fn bad() -> int {\n  return \"s\"\n}\n",
		"nmlib.harn":  "pub fn bad() {\n  return nosuch(1)\n}\n",
		"via.harn":    "pub import { bad } from \"./nmlib\"\n",
		"f4.harn":     "import { bad } from \"./badlib\"\nprintln(bad())\n",
		"f5.harn":     "import { bad } from \"./tylib\"\nprintln(bad())\n",
		"f6.harn":     "// uses a module that re-exports one with errors\nimport { bad } from \"./via\"\nprintln(bad())\n",
	})
	for _, c := range []struct{ file, module, want string }{
		{"f4.harn", "badlib.harn", `module "./badlib" has errors: badlib.harn:1:26: Import parse error: Expected expression`},
		{"f5.harn", "tylib.harn", `module "./tylib" has errors: tylib.harn:2:10: return value: expected int, found string`},
		{"f6.harn", "nmlib.harn", "module \"./via\" has errors: nmlib.harn:2:10: call target `nosuch` is not defined or imported"},
	} {
		uri := w.open(c.file)
		ds := w.diagnostics(uri)
		if len(ds) != 1 || !strings.HasPrefix(ds[0].Message, c.want) || *ds[0].Severity != 1 {
			t.Errorf("%s: %+v", c.file, ds)
			continue
		}
		line := 0
		if c.file == "f6.harn" {
			line = 1
		}
		if r := ds[0].Range; r.Start.Line != uint32(line) || r.Start.Character != 0 || r.End.Line != uint32(line) || r.End.Character < 20 {
			t.Errorf("%s: range %+v", c.file, r)
		}
		if rel := ds[0].RelatedInformation; len(rel) != 1 || rel[0].Location.URI != w.uri(c.module) {
			t.Errorf("%s: related %+v", c.file, rel)
		}
		if md := w.diagnostics(w.uri(c.module)); len(md) == 0 {
			t.Errorf("%s: nothing published for %s", c.file, c.module)
		}
	}
	// Fixing the module (on disk) and editing the importer clears both.
	w.write("badlib.harn", "pub fn bad() {\n  return 1 * 2\n}\n")
	uri := w.uri("f4.harn")
	w.change(uri, "import { bad } from \"./badlib\"\nprintln(bad() + 1)\n")
	if ds := w.diagnostics(uri); len(ds) != 0 {
		t.Errorf("after the fix: %+v", ds)
	}
	if ds := w.diagnostics(w.uri("badlib.harn")); ds == nil || len(ds) != 0 {
		t.Errorf("module diagnostics after the fix: %+v", ds)
	}
}

// TestDiagnosticsCarryTheirHelp: a diagnostic's help line, which harn
// check prints as `= help: …`, ends the LSP diagnostic's message (the
// deprecation warning's `use … instead`).
func TestDiagnosticsCarryTheirHelp(t *testing.T) {
	w := newWorkspace(t, map[string]string{"main.harn": lines(
		`@deprecated(since: "0.8", use: "g")`,
		"fn old() {",
		"  return 1",
		"}",
		"fn g() {",
		"  return 2",
		"}",
		"println(old(), g())")})
	ds := w.diagnostics(w.open("main.harn"))
	for _, d := range ds {
		if strings.HasPrefix(d.Message, "`old` is deprecated") {
			if d.Message != "`old` is deprecated (since 0.8)\nhelp: use `g` instead" {
				t.Errorf("message %q", d.Message)
			}
			return
		}
	}
	t.Errorf("no deprecation warning: %+v", ds)
}
