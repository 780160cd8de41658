package mcp

import "testing"

// A `tool` declaration's literal parameter defaults reach tools/list as
// each property's `default`, as an export's do (docs/tools.md, "Tool
// declarations"; docs/spec/mcp-projection.md §4: the input schema is the
// catalog's); a default computed at call time publishes none.
func TestToolDeclarationDefaultsListed(t *testing.T) {
	p := writeScript(t, `tool greet(name: string, times: int = 2, mode: "a" | "b" = "b", at: int = len(name)) -> string {
  description "Greet someone."
  return name
}
fn main(harness: Harness) {
  harness.tools.mcp_tools(greet)
}
`)
	s := start(t, p, Options{})
	s.initialize("2025-11-25")
	jsonEq(t, "inputSchema", findTool(t, s.result("tools/list", nil), "greet")["inputSchema"],
		`{"properties":{"at":{"type":"integer"},"mode":{"default":"b","enum":["a","b"],"type":"string"},"name":{"type":"string"},"times":{"default":2,"type":"integer"}},"required":["name"],"type":"object"}`)
	// a left-out argument is still filled by the body's own default
	if got := text(s.result("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "Ada"}})); got != "Ada" {
		t.Errorf("call: %q", got)
	}
}
