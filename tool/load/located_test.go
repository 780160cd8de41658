package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/tool"
)

// TestLocatedPreparationError: a preparation failure carries where the
// script registered the offending tool, and Located renders it as
// `--> file:line:col` with the source line and a caret
// (docs/tool-run.md, "Registries that cannot become a program";
// docs/spec/cli-projection.md §9).
func TestLocatedPreparationError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "server.harn")
	src := "fn main(harness: Harness) {\n" +
		"  var reg = tool_registry()\n" +
		"  reg = tool_define(reg, \"ok\", \"fine\", {handler: {a -> a}})\n" +
		"  reg = tool_define(reg, \"bad\", \"\", {parameters: {p: \"int\"}, cli: {arguments: {p: {position: 1}}}, handler: {a -> a}})\n" +
		"  harness.tools.mcp_tools(reg)\n" +
		"}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path, Options{Stderr: &strings.Builder{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tool.Prepare(s.Registry)
	se, ok := err.(*tool.SiteError)
	if !ok {
		t.Fatalf("want a *tool.SiteError, got %T %v", err, err)
	}
	if se.Site.File != path || se.Site.Line != 4 || se.Site.Col != 9 {
		t.Fatalf("site = %+v, want %s:4:9", se.Site, path)
	}
	le := Located(s.Session, err, err.Error())
	for _, want := range []string{
		"error: tool \"bad\" CLI positional indexes must be dense from 0; expected 0, found 1\n",
		"  --> " + path + ":4:9\n",
		"4 |   reg = tool_define(reg, \"bad\"",
		"  |         ^\n",
	} {
		if !strings.Contains(le.Render(), want) {
			t.Errorf("rendered report lacks %q:\n%s", want, le.Render())
		}
	}
	if got := Located(nil, err, "m").Render(); got != "error: m\n" {
		t.Errorf("without a session: %q", got)
	}
}
