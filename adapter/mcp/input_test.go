package mcp

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/mcp/mcptest"
)

// Acceptance 173-178: elicitation, roots, progress.

var formCaps = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}

func TestElicitationRoundTrip(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	first := s.result("tools/call", with2026(map[string]any{"name": "deploy"}, formCaps))
	if first["resultType"] != "input_required" || first["requestState"] != "{}" {
		t.Fatalf("first %s", js(first))
	}
	jsonEq(t, "input request", path(first, "inputRequests", "harn-input-0"),
		`{"method":"elicitation/create","params":{"message":"Which environment should I deploy to?","mode":"form","requestedSchema":{"properties":{"env":{"enum":["staging","production"],"type":"string"}},"required":["env"],"type":"object"}}}`)
	second := s.result("tools/call", with2026(map[string]any{"name": "deploy", "requestState": first["requestState"],
		"inputResponses": map[string]any{"harn-input-0": map[string]any{"action": "accept", "content": map[string]any{"env": "staging"}}}}, formCaps))
	jsonEq(t, "second", second, `{"content":[{"type":"text","text":"deployed to staging"}],"isError":false,"resultType":"complete"}`)
	declined := s.result("tools/call", with2026(map[string]any{"name": "deploy", "requestState": "{}",
		"inputResponses": map[string]any{"harn-input-0": map[string]any{"action": "decline"}}}, formCaps))
	if text(declined) != "not deployed: decline" {
		t.Errorf("declined %s", js(declined))
	}
}

func TestElicitationSequence(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	r := s.result("tools/call", with2026(map[string]any{"name": "deploy_twice"}, formCaps))
	r = s.result("tools/call", with2026(map[string]any{"name": "deploy_twice", "requestState": r["requestState"],
		"inputResponses": map[string]any{"harn-input-0": map[string]any{"action": "accept", "content": map[string]any{"x": "a"}}}}, formCaps))
	if path(r, "inputRequests", "harn-input-1") == nil || !strings.Contains(r["requestState"].(string), "harn-input-0") {
		t.Fatalf("second round %s", js(r))
	}
	r = s.result("tools/call", with2026(map[string]any{"name": "deploy_twice", "requestState": r["requestState"],
		"inputResponses": map[string]any{"harn-input-1": map[string]any{"action": "accept", "content": map[string]any{"y": "b"}}}}, formCaps))
	if text(r) != "a+b" {
		t.Errorf("final %s", js(r))
	}
}

func TestElicitationInvalidContent(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	r := s.result("tools/call", with2026(map[string]any{"name": "deploy", "requestState": "{}",
		"inputResponses": map[string]any{"harn-input-0": map[string]any{"action": "accept", "content": map[string]any{"env": "moon"}}}}, formCaps))
	if r["isError"] != true || !strings.Contains(text(r), "does not match requestedSchema") {
		t.Errorf("invalid content %s", js(r))
	}
	// The client learns what is wrong, not the server's internal schema
	// id (issue 17 item 11).
	if strings.Contains(text(r), "urn:harn:schema") || !strings.Contains(text(r), "at /env: ") {
		t.Errorf("rejection text %q", text(r))
	}
}

func TestElicitationNeedsCapability(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	r := s.result("tools/call", with2026(map[string]any{"name": "deploy"}, nil))
	if r["isError"] != true || !strings.Contains(text(r), "mcp_elicit: the MCP client did not advertise support for elicitation/create") {
		t.Errorf("no capability %s", js(r))
	}
	// A released client without the capability cannot use it either.
	s2 := start(t, testdata("kitchen.harn"), Options{})
	s2.initialize("2025-06-18")
	r = s2.result("tools/call", map[string]any{"name": "deploy"})
	if !strings.Contains(text(r), "did not advertise support for elicitation/create") {
		t.Errorf("released %s", js(r))
	}
}

func TestRequestStateValidation(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	jsonEq(t, "not string", s.rpcErr("tools/call", with2026(map[string]any{"name": "deploy", "requestState": 5}, formCaps)), `{"code":-32602,"message":"MCP requestState must be a string"}`)
	e := s.rpcErr("tools/call", with2026(map[string]any{"name": "deploy", "requestState": "[1]"}, formCaps))
	if !strings.HasPrefix(e["message"].(string), "invalid MCP requestState: ") {
		t.Errorf("not object %s", js(e))
	}
	jsonEq(t, "responses", s.rpcErr("tools/call", with2026(map[string]any{"name": "deploy", "inputResponses": []any{}}, formCaps)), `{"code":-32602,"message":"MCP inputResponses must be an object"}`)
}

func TestClientRoots(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	caps := map[string]any{"roots": map[string]any{}}
	first := s.result("tools/call", with2026(map[string]any{"name": "roots"}, caps))
	if path(first, "inputRequests", "harn-input-0", "method") != "roots/list" {
		t.Fatalf("first %s", js(first))
	}
	r := s.result("tools/call", with2026(map[string]any{"name": "roots", "requestState": first["requestState"],
		"inputResponses": map[string]any{"harn-input-0": map[string]any{"roots": []any{map[string]any{"uri": "file:///work", "name": "work"}}}}}, caps))
	if text(r) != "[{name: work, uri: file:///work}]" {
		t.Errorf("roots %s", js(r))
	}
}

func TestReleasedElicitationUsesARealRequest(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initializeWith(map[string]any{"elicitation": map[string]any{}})
	done := make(chan map[string]any)
	go func() { done <- s.request("tools/call", map[string]any{"name": "deploy"}) }()
	var req map[string]any
	waitFor(t, "elicitation request", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.reqs) > 0 {
			req = s.reqs[0]
		}
		return req != nil
	})
	if req["method"] != "elicitation/create" || path(req, "params", "message") != "Which environment should I deploy to?" {
		t.Fatalf("request %s", js(req))
	}
	s.send(js(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"env": "production"}}}))
	r := <-done
	if text(r["result"].(map[string]any)) != "deployed to production" {
		t.Errorf("result %s", js(r))
	}
}

func TestProgress(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	r := s.result("tools/call", map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "p1"}})
	if text(r) != "[true, true, false]" {
		t.Errorf("progress results %s", js(r))
	}
	notes := s.notifications("notifications/progress")
	if len(notes) != 2 {
		t.Fatalf("%d progress notifications", len(notes))
	}
	jsonEq(t, "first", notes[0]["params"], `{"progressToken":"p1","progress":1,"total":10,"message":"imported 1"}`)
	jsonEq(t, "second", notes[1]["params"], `{"progressToken":"p1","progress":2,"total":10,"message":"imported 2"}`)
	// Without a token nothing is sent.
	r = s.result("tools/call", map[string]any{"name": "progress"})
	if text(r) != "[false, false, false]" || len(s.notifications("notifications/progress")) != 2 {
		t.Errorf("tokenless %s", js(r))
	}
}

func TestOutsideAHandler(t *testing.T) {
	p := writeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  let sent = harness.tools.mcp_report_progress(1)
  if sent { throw "progress outside a handler" }
  try {
    mcp_elicit({message: "m", requestedSchema: {type: "object"}})
    throw "elicit worked"
  } catch (e) {
    if !contains(to_string(e), "no active MCP request; this builtin is only valid inside a served MCP handler") { throw "wrong error" }
  }
  harness.tools.mcp_tools(tool_registry_from([{name: "a", description: "A.", handler: {x -> 1}}]))
}
`)
	loadSurface(t, p, &mcptest.SyncBuffer{})
}

// mcp_roots is mcp_client_roots under the other name the harness.tools
// table gives it (docs/mcp-client.md): the same roots/list round trip,
// in the 2026-07-28 profile (input_required) and a released one (a
// request to the client), and errors under its own name.
func TestMCPRootsAlias(t *testing.T) {
	p := writeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "roots", description: "Roots.", handler: {x -> harness.tools.mcp_roots()}},
    {name: "free", description: "Roots, free function.", handler: {x -> mcp_roots()}},
  ]))
}
`)
	s := start(t, p, Options{})
	caps := map[string]any{"roots": map[string]any{}}
	answer := map[string]any{"roots": []any{map[string]any{"uri": "file:///work", "name": "work"}}}
	for _, name := range []string{"roots", "free"} {
		first := s.result("tools/call", with2026(map[string]any{"name": name}, caps))
		if path(first, "inputRequests", "harn-input-0", "method") != "roots/list" {
			t.Fatalf("%s: first %s", name, js(first))
		}
		r := s.result("tools/call", with2026(map[string]any{"name": name, "requestState": first["requestState"],
			"inputResponses": map[string]any{"harn-input-0": answer}}, caps))
		if text(r) != "[{name: work, uri: file:///work}]" {
			t.Errorf("%s: roots %s", name, js(r))
		}
	}
	r := s.result("tools/call", with2026(map[string]any{"name": "roots"}, nil))
	if r["isError"] != true || !strings.Contains(text(r), "mcp_roots: the MCP client did not advertise support for roots/list") {
		t.Errorf("no capability %s", js(r))
	}

	s2 := start(t, p, Options{})
	s2.initializeWith(caps)
	done := make(chan map[string]any)
	go func() { done <- s2.request("tools/call", map[string]any{"name": "roots"}) }()
	var req map[string]any
	waitFor(t, "roots request", func() bool {
		s2.mu.Lock()
		defer s2.mu.Unlock()
		if len(s2.reqs) > 0 {
			req = s2.reqs[0]
		}
		return req != nil
	})
	if req["method"] != "roots/list" {
		t.Fatalf("request %s", js(req))
	}
	s2.send(js(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": answer}))
	if got := text((<-done)["result"].(map[string]any)); got != "[{name: work, uri: file:///work}]" {
		t.Errorf("released: %s", got)
	}
}
