package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/mcp/mcptest"
)

// Acceptance 146-160, 164-165, 277-278: tools/list and tools/call.

func findTool(t *testing.T, list map[string]any, name string) map[string]any {
	t.Helper()
	for _, it := range list["tools"].([]any) {
		if m := it.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("tool %s not listed", name)
	return nil
}

func TestWidgetListing(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	s.initialize("2025-06-18")
	w := findTool(t, s.result("tools/list", nil), "lookup_widget")
	if w["title"] != "lookup_widget" || path(w, "annotations", "title") != "lookup_widget" {
		t.Errorf("titles: %s", js(w))
	}
	jsonEq(t, "annotations", w["annotations"], `{"title":"lookup_widget","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":true}`)
	// Released clients require outputSchema.type "object" (docs/mcp.md).
	jsonEq(t, "outputSchema", w["outputSchema"], `{"type":"object","$ref":"#/$defs/Widget","$defs":{"Widget":{"additionalProperties":false,"properties":{"id":{"type":"integer"},"label":{"type":"string"}},"required":["id","label"],"type":"object"}}}`)
	if strings.Contains(js(w), "#/components") {
		t.Errorf("listing references components: %s", js(w))
	}
	// The 2026 profile lists the bundled schema exactly.
	s2 := start(t, testdata("widgets.harn"), Options{})
	w = findTool(t, s2.result("tools/list", with2026(nil, nil)), "lookup_widget")
	jsonEq(t, "outputSchema 2026", w["outputSchema"], `{"$ref":"#/$defs/Widget","$defs":{"Widget":{"additionalProperties":false,"properties":{"id":{"type":"integer"},"label":{"type":"string"}},"required":["id","label"],"type":"object"}}}`)
}

// Boolean schemas reach the wire as objects the SDK clients accept, and
// calls still validate against the booleans (docs/mcp.md); an entry's
// annotations.title is kept (docs/spec/mcp-projection.md §4).
func TestBooleanSchemasAndAnnotationTitle(t *testing.T) {
	p := writeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "anyarg", parameters: {payload: {schema: true, required: true}, never: {schema: false}}, handler: {a -> "ok"}},
    {name: "anything", returns: true, handler: {a -> [1]}},
    {name: "t", title: "Entry Title", annotations: {title: "Annot Title", readOnlyHint: true}, handler: {a -> 1}},
  ]))
}
`)
	s := start(t, p, Options{})
	s.initialize("2025-11-25")
	list := s.result("tools/list", nil)
	jsonEq(t, "inputSchema", findTool(t, list, "anyarg")["inputSchema"], `{"properties":{"never":{"not":{}},"payload":{}},"required":["payload"],"type":"object"}`)
	jsonEq(t, "released outputSchema", findTool(t, list, "anything")["outputSchema"], `{"type":"object","properties":{"result":{}},"required":["result"],"additionalProperties":false}`)
	titled := findTool(t, list, "t")
	if titled["title"] != "Entry Title" {
		t.Errorf("title %v", titled["title"])
	}
	jsonEq(t, "annotations", titled["annotations"], `{"title":"Annot Title","readOnlyHint":true}`)
	if res := s.rpcErr("tools/call", map[string]any{"name": "anyarg", "arguments": map[string]any{"payload": 1, "never": 2}}); res["code"] != float64(-32602) {
		t.Errorf("false property accepted: %s", js(res))
	}
	if res := s.rpcErr("tools/call", map[string]any{"name": "anyarg", "arguments": map[string]any{}}); res["code"] != float64(-32602) {
		t.Errorf("missing payload accepted: %s", js(res))
	}
	res := s.result("tools/call", map[string]any{"name": "anyarg", "arguments": map[string]any{"payload": []any{"x", nil}}})
	if res["isError"] != false {
		t.Errorf("any payload refused: %s", js(res))
	}
	jsonEq(t, "structuredContent", s.result("tools/call", map[string]any{"name": "anything", "arguments": map[string]any{}})["structuredContent"], `{"result":[1]}`)

	s2 := start(t, p, Options{})
	list = s2.result("tools/list", with2026(nil, nil))
	jsonEq(t, "2026 outputSchema", findTool(t, list, "anything")["outputSchema"], `{}`)
}

func TestWidgetCall(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	s.initialize("2025-06-18")
	res := s.result("tools/call", map[string]any{"name": "lookup_widget", "arguments": map[string]any{"widget_id": 42}})
	if res["isError"] != false || len(res["content"].([]any)) != 1 {
		t.Errorf("result %s", js(res))
	}
	jsonEq(t, "structuredContent", res["structuredContent"], `{"id":42,"label":"example"}`)
	if text(res) != "{id: 42, label: example}" {
		t.Errorf("text %q", text(res))
	}
}

func TestComponentBundling(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	list := s.result("tools/list", nil)
	// 148: a component referencing another component and itself.
	jsonEq(t, "node", findTool(t, list, "node")["outputSchema"],
		`{"type":"object","$ref":"#/$defs/Node","$defs":{"Node":{"properties":{"meta":{"$ref":"#/$defs/Meta"},"next":{"$ref":"#/$defs/Node"}},"type":"object"},"Meta":{"properties":{"tag":{"type":"string"}},"type":"object"}}}`)
	// 277: the wrapper rebases references in the released profile ...
	jsonEq(t, "count_ref released", findTool(t, list, "count_ref")["outputSchema"],
		`{"type":"object","properties":{"result":{"$ref":"#/properties/result/$defs/Count","$defs":{"Count":{"type":"integer"}}}},"required":["result"],"additionalProperties":false}`)
	// ... and the 2026 profile lists the canonical schema.
	s2 := start(t, testdata("kitchen.harn"), Options{})
	list = s2.result("tools/list", with2026(nil, nil))
	jsonEq(t, "count_ref 2026", findTool(t, list, "count_ref")["outputSchema"], `{"$ref":"#/$defs/Count","$defs":{"Count":{"type":"integer"}}}`)
}

func TestUnsafeComponentsRefuseToStart(t *testing.T) {
	for _, c := range []struct{ schema, msg string }{
		{`{"$id": "https://x.example/s", type: "integer"}`, "$id changes JSON Schema resource scope"},
		{`{"$anchor": "a", type: "integer"}`, "$anchor changes JSON Schema resource scope"},
		{`{"$dynamicAnchor": "a", type: "integer"}`, "$dynamicAnchor changes JSON Schema resource scope"},
		{`{"$ref": "https://x.example/other.json"}`, "external $ref"},
	} {
		p := writeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "t", description: "T.", returns: `+c.schema+`, handler: {x -> 1}},
  ], {components: {schemas: {C: {type: "string"}}}}))
}
`)
		_, err := LoadScript(p, &mcptest.SyncBuffer{}, "test")
		// An external reference is refused even earlier, by validator
		// compilation; either way the server does not start.
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v", c.schema, err)
		}
	}
	// $dynamicRef: a valid schema, refused too.
	p := writeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "t", description: "T.", returns: {"$dynamicAnchor": "node", "type": "object", properties: {n: {"$dynamicRef": "#node"}}}, handler: {x -> {}}},
  ], {components: {schemas: {C: {type: "string"}}}}))
}
`)
	if _, err := LoadScript(p, &mcptest.SyncBuffer{}, "test"); err == nil || !strings.Contains(err.Error(), "cannot project tool schema through MCP components") {
		t.Errorf("$dynamicRef: %v", err)
	}
}

func TestErrorSchemaMetaAndDescription(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	list := s.result("tools/list", nil)
	lookup := findTool(t, list, "lookup")
	jsonEq(t, "_meta", lookup["_meta"], `{"com.harnlang/toolContract":{"errorSchema":{"properties":{"variant":{"const":"NotFound"}},"required":["variant"],"type":"object"}},"com.example/version":2}`)
	if d := findTool(t, list, "nodesc")["description"]; d != "Exported Harn function 'nodesc'." {
		t.Errorf("description %v", d)
	}
}

func TestAudience(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	for _, it := range s.result("tools/list", nil)["tools"].([]any) {
		if it.(map[string]any)["name"] == "cli_only" {
			t.Error("cli_only is listed")
		}
	}
	jsonEq(t, "call", s.rpcErr("tools/call", map[string]any{"name": "cli_only"}), `{"code":-32602,"message":"Unknown tool: cli_only"}`)
}

func TestInvalidArgumentsNeverReachTheHandler(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	for _, args := range []any{map[string]any{}, map[string]any{"n": -1}, map[string]any{"n": "x"}, []any{1}, "str"} {
		e := s.rpcErr("tools/call", map[string]any{"name": "strict", "arguments": args})
		if e["code"] != float64(-32602) || !strings.Contains(e["message"].(string), "input violates its declared schema") {
			t.Errorf("%v: %s", args, js(e))
		}
	}
	if strings.Contains(s.stderr.String(), "HANDLER RAN") {
		t.Error("a handler ran for invalid arguments")
	}
	s.result("tools/call", map[string]any{"name": "strict", "arguments": map[string]any{"n": 1}})
	if !strings.Contains(s.stderr.String(), "HANDLER RAN 1") {
		t.Errorf("valid call did not run: %q", s.stderr.String())
	}
}

func TestStructuredOutputProfiles(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-11-25")
	// 155: no output schema, no structuredContent.
	res := s.result("tools/call", map[string]any{"name": "nodesc"})
	if _, ok := res["structuredContent"]; ok || text(res) != "plain" {
		t.Errorf("nodesc: %s", js(res))
	}
	// 156: released wrapper.
	jsonEq(t, "count schema", findTool(t, s.result("tools/list", nil), "count")["outputSchema"],
		`{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"],"additionalProperties":false}`)
	jsonEq(t, "count released", s.result("tools/call", map[string]any{"name": "count"}),
		`{"content":[{"type":"text","text":"3"}],"structuredContent":{"result":3},"isError":false}`)
	// 157: the 2026 profile is never wrapped.
	s2 := start(t, testdata("kitchen.harn"), Options{})
	jsonEq(t, "count schema 2026", findTool(t, s2.result("tools/list", with2026(nil, nil)), "count")["outputSchema"], `{"type":"integer"}`)
	jsonEq(t, "count 2026", s2.result("tools/call", with2026(map[string]any{"name": "count"}, nil)),
		`{"content":[{"type":"text","text":"3"}],"structuredContent":3,"isError":false,"resultType":"complete"}`)
}

func TestFailures(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	// 158: declared application error.
	jsonEq(t, "app error", s.result("tools/call", map[string]any{"name": "lookup", "arguments": map[string]any{"id": 9}}),
		`{"content":[{"type":"text","text":"tool \"lookup\" failed: declared application error"}],"isError":true,"_meta":{"com.harnlang/toolContract":{"applicationError":{"tool":"lookup","data":{"variant":"NotFound"}}}}}`)
	// 159: a thrown value of the wrong shape.
	res := s.result("tools/call", map[string]any{"name": "lookup", "arguments": map[string]any{"id": 7}})
	if res["isError"] != true || !strings.Contains(text(res), "violates its declared schema") || res["_meta"] != nil || res["structuredContent"] != nil {
		t.Errorf("wrong shape: %s", js(res))
	}
	if strings.Contains(js(res), "secret") {
		t.Error("thrown value rendered")
	}
}

func TestUndeclaredThrow(t *testing.T) {
	p := writeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "lookup", description: "L.", handler: {x -> throw {token: "secret-value-123"}}},
  ]))
}
`)
	s := start(t, p, Options{})
	s.initialize("2025-06-18")
	res := s.result("tools/call", map[string]any{"name": "lookup"})
	jsonEq(t, "undeclared", res, `{"content":[{"type":"text","text":"tool \"lookup\" failed: tool threw an undeclared value"}],"isError":true}`)
	if strings.Contains(js(res), "secret-value") {
		t.Error("thrown value rendered")
	}
}

func threeTools(t *testing.T) string {
	return writeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "a", description: "A.", handler: {x -> 1}},
    {name: "b", description: "B.", handler: {x -> 2}},
    {name: "c", description: "C.", handler: {x -> 3}},
  ]))
}
`)
}

func TestPagination(t *testing.T) {
	t.Setenv("HARN_MCP_LIST_PAGE_SIZE", "2")
	s := start(t, threeTools(t), Options{})
	s.initialize("2025-06-18")
	first := s.result("tools/list", nil)
	if len(first["tools"].([]any)) != 2 || first["nextCursor"] != "Mg==" {
		t.Errorf("first page %s", js(first))
	}
	second := s.result("tools/list", map[string]any{"cursor": "Mg=="})
	if len(second["tools"].([]any)) != 1 || second["nextCursor"] != nil {
		t.Errorf("second page %s", js(second))
	}
	past := s.result("tools/list", map[string]any{"cursor": "OTk="})
	if len(past["tools"].([]any)) != 0 {
		t.Errorf("past the end %s", js(past))
	}
	for _, cur := range []any{"not-base64", 5, "eA=="} {
		jsonEq(t, "bad cursor", s.rpcErr("tools/list", map[string]any{"cursor": cur}), `{"code":-32602,"message":"invalid tools/list cursor"}`)
	}
	jsonEq(t, "resources cursor", s.rpcErr("resources/list", map[string]any{"cursor": "!"}), `{"code":-32602,"message":"invalid resources/list cursor"}`)
}

func TestContentBlocks(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	jsonEq(t, "blocks", s.result("tools/call", map[string]any{"name": "blocks"})["content"],
		`[{"type":"text","text":"hello"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]`)
}

// A call Drain cuts short is answered with -32603 "server is shutting
// down" and its handler is interrupted, so the server can stop; a call
// queued behind it never runs (docs/mcp.md, Stopping).
func TestDrainInterruptsHandlers(t *testing.T) {
	s := start(t, writeScript(t, `import { tool_registry_from } from "std/tools"
fn forever(args) {
  println("forever started")
  sleep(60000)
}
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "forever", description: "Sleep.", handler: forever},
    {name: "quick", description: "Print.", handler: {x -> println("quick ran")}},
  ]))
}
`), Options{})
	call := func(id int, name string) string {
		return js(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": with2026(map[string]any{"name": name}, nil)})
	}
	s.send(call(1, "forever"))
	waitFor(t, "forever to start", func() bool { return strings.Contains(s.stderr.String(), "forever started") })
	s.send(call(2, "quick")) // queued behind forever
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.srv.Drain(ctx); err == nil {
		t.Fatal("Drain past its bound reported no error")
	}
	for _, id := range []string{"1", "2"} {
		jsonEq(t, "call "+id, s.wait(id)["error"], `{"code":-32603,"message":"server is shutting down"}`)
	}
	s.in.Close()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler cut short was not interrupted")
	}
	if strings.Contains(s.stderr.String(), "quick ran") {
		t.Error("a call cut short while queued ran")
	}
}
