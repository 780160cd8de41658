package mcp

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/mcp/mcptest"
)

// Acceptance 179-182, 248-249: resources, prompts, completion, --watch.

func TestResources(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	jsonEq(t, "list", s.result("resources/list", nil), `{"resources":[{"uri":"test://static-text","name":"static","mimeType":"text/plain"}]}`)
	jsonEq(t, "templates", s.result("resources/templates/list", nil), `{"resourceTemplates":[{"uriTemplate":"test://template/{id}/data","name":"tmpl","mimeType":"application/json"}]}`)
	jsonEq(t, "static", s.result("resources/read", map[string]any{"uri": "test://static-text"}), `{"contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"hello resource"}]}`)
	jsonEq(t, "template", s.result("resources/read", map[string]any{"uri": "test://template/123/data"}), `{"contents":[{"uri":"test://template/123/data","mimeType":"application/json","text":"data for 123"}]}`)
	jsonEq(t, "unknown", s.rpcErr("resources/read", map[string]any{"uri": "test://nope"}), `{"code":-32002,"message":"Resource not found: test://nope"}`)
	jsonEq(t, "subscribe", s.result("resources/subscribe", map[string]any{"uri": "test://static-text"}), `{}`)
	jsonEq(t, "unsubscribe", s.result("resources/unsubscribe", map[string]any{"uri": "test://static-text"}), `{}`)
}

func TestCard(t *testing.T) {
	card := map[string]any{"name": "kitchen-card", "description": "d"}
	s := start(t, testdata("kitchen.harn"), Options{Card: mustParse(js(card))})
	res := s.initialize("2025-06-18")
	jsonEq(t, "serverInfo.card", path(res, "serverInfo", "card"), js(card))
	list := s.result("resources/list", nil)["resources"].([]any)
	if path(list[0], "uri") != "well-known://mcp-card" || path(list[0], "mimeType") != "application/json" {
		t.Errorf("card not first: %s", js(list))
	}
	read := s.result("resources/read", map[string]any{"uri": "well-known://mcp-card"})
	jsonEq(t, "card text", mustParsePlain(path(read["contents"].([]any)[0], "text").(string)), js(card))
}

func TestPrompts(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	jsonEq(t, "list", s.result("prompts/list", nil), `{"prompts":[{"name":"review","description":"Review code","arguments":[{"name":"code","required":true},{"name":"language","required":false}]}]}`)
	jsonEq(t, "get", s.result("prompts/get", map[string]any{"name": "review", "arguments": map[string]any{"code": "x"}}),
		`{"description":"Review code","messages":[{"role":"user","content":{"type":"text","text":"Review this: x"}}]}`)
	jsonEq(t, "unknown", s.rpcErr("prompts/get", map[string]any{"name": "nope"}), `{"code":-32602,"message":"Unknown prompt: nope"}`)
	jsonEq(t, "missing", s.rpcErr("prompts/get", map[string]any{"name": "review"}), `{"code":-32602,"message":"Missing required argument: code"}`)
	// null is missing, as on the orchestrator: the handler is not run
	// with nil.
	jsonEq(t, "null", s.rpcErr("prompts/get", map[string]any{"name": "review", "arguments": map[string]any{"code": nil}}), `{"code":-32602,"message":"Missing required argument: code"}`)
	// MCP prompt arguments are strings: another value is refused before
	// the handler runs, in the orchestrator's words
	// (docs/spec/mcp-projection.md §14, docs/spec/orchestrator.md §7).
	jsonEq(t, "number", s.rpcErr("prompts/get", map[string]any{"name": "review", "arguments": map[string]any{"code": 5}}), `{"code":-32602,"message":"prompt argument code must be a string, got number"}`)
	jsonEq(t, "undeclared boolean", s.rpcErr("prompts/get", map[string]any{"name": "review", "arguments": map[string]any{"code": "x", "extra": true}}), `{"code":-32602,"message":"prompt argument extra must be a string, got boolean"}`)
	jsonEq(t, "not an object", s.rpcErr("prompts/get", map[string]any{"name": "review", "arguments": []any{"x"}}), `{"code":-32602,"message":"prompt arguments must be an object"}`)
	jsonEq(t, "no name", s.rpcErr("prompts/get", map[string]any{}), `{"code":-32602,"message":"Invalid params: prompts/get requires params.name, the prompt name"}`)
	jsonEq(t, "completion without ref.name", s.rpcErr("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt"}, "argument": map[string]any{"name": "code", "value": ""}}),
		`{"code":-32602,"message":"completion ref.name is required for ref/prompt"}`)
}

func TestCompletion(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	jsonEq(t, "complete", s.result("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "review"}, "argument": map[string]any{"name": "language", "value": "ru"}}),
		`{"completion":{"values":["ruby","rust"],"total":2,"hasMore":false}}`)
	for _, c := range []struct {
		params map[string]any
		msg    string
	}{
		{map[string]any{"argument": map[string]any{"name": "x"}}, "completion ref.type is required"},
		{map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "review"}}, "completion argument.name is required"},
		{map[string]any{"ref": map[string]any{"type": "ref/x"}, "argument": map[string]any{"name": "a"}}, "Unsupported completion ref.type: ref/x"},
		{map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "nope"}, "argument": map[string]any{"name": "a"}}, "Unknown prompt: nope"},
		{map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "review"}, "argument": map[string]any{"name": "a"}}, "Unknown prompt argument: a"},
		{map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "x://{y}"}, "argument": map[string]any{"name": "a"}}, "Unknown resource template: x://{y}"},
		{map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "test://template/{id}/data"}, "argument": map[string]any{"name": "a"}}, "Unknown resource template argument: a"},
	} {
		jsonEq(t, c.msg, s.rpcErr("completion/complete", c.params), js(map[string]any{"code": -32602, "message": c.msg}))
	}
}

const watchV1 = `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([{name: "one", description: "One.", handler: {x -> 1}}]))
}
`

const watchV2 = `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "one", description: "One.", handler: {x -> 1}},
    {name: "two", description: "Two.", handler: {x -> 2}},
  ]))
}
`

func startWatched(t *testing.T) (*session, string) {
	return startWatchedAfter(t, nil)
}

// startWatchedAfter loads a script the way `serve mcp --watch` does, with
// the snapshot taken before the build; edit (when set) runs between the
// build and the start of the watcher.
func startWatchedAfter(t *testing.T, edit func(path string)) (*session, string) {
	p := writeScript(t, watchV1)
	stderr := &mcptest.SyncBuffer{}
	since := TakeSnapshot(dirOf(p))
	sf := loadSurface(t, p, stderr)
	if edit != nil {
		edit(p)
	}
	s := startSurface(t, sf, Options{Watch: true, Stderr: stderr}, stderr)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go s.srv.Watch(dirOf(p), since, func() (*Surface, error) { return LoadScript(p, stderr, "test") }, stop)
	return s, p
}

// An edit saved while the script was loading, before the watcher's
// first poll, is still reloaded (issue 17 item 10).
func TestWatchSeesEditDuringLoad(t *testing.T) {
	s, _ := startWatchedAfter(t, func(p string) {
		if err := os.WriteFile(p, []byte(watchV2), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	s.initialize("2025-06-18")
	waitFor(t, "reload", func() bool { return len(s.notifications("notifications/tools/list_changed")) == 1 })
	if got := strings.Join(toolNames(s), ","); got != "one,two" {
		t.Errorf("tools after the early edit: %s", got)
	}
}

func toolNames(s *session) []string {
	var names []string
	for _, it := range s.result("tools/list", nil)["tools"].([]any) {
		names = append(names, it.(map[string]any)["name"].(string))
	}
	return names
}

func TestWatchReload(t *testing.T) {
	s, p := startWatched(t)
	res := s.initialize("2025-06-18")
	for _, k := range []string{"tools", "resources", "prompts"} {
		if path(res, "capabilities", k, "listChanged") != true {
			t.Errorf("%s.listChanged missing: %s", k, js(res))
		}
	}
	time.Sleep(150 * time.Millisecond) // let the watcher take its first look
	if err := os.WriteFile(p, []byte(watchV2), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "list_changed", func() bool { return len(s.notifications("notifications/prompts/list_changed")) == 1 })
	s.mu.Lock()
	var order []string
	for _, n := range s.notes {
		order = append(order, n["method"].(string))
	}
	s.mu.Unlock()
	jsonEq(t, "order", order, `["notifications/tools/list_changed","notifications/resources/list_changed","notifications/prompts/list_changed"]`)
	if got := strings.Join(toolNames(s), ","); got != "one,two" {
		t.Errorf("tools after reload: %s", got)
	}
	if text(s.result("tools/call", map[string]any{"name": "two"})) != "2" {
		t.Error("new tool not callable")
	}
}

func TestWatchKeepsPreviousOnFailure(t *testing.T) {
	s, p := startWatched(t)
	s.initialize("2025-06-18")
	time.Sleep(150 * time.Millisecond)
	if err := os.WriteFile(p, []byte("fn main( {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "reload failure", func() bool {
		return strings.Contains(s.stderr.String(), "[harn] serve mcp: reload failed; keeping previous registry: ")
	})
	// docs/mcp.md: the refusal is located as the first load's error would be
	waitFor(t, "located reload failure", func() bool { return strings.Contains(s.stderr.String(), "fn main( {\n") })
	if got := s.stderr.String(); !strings.Contains(got, ":1:") || !strings.Contains(got, "^") {
		t.Errorf("reload failure not located:\n%s", got)
	}
	if got := strings.Join(toolNames(s), ","); got != "one" {
		t.Errorf("tools after failed reload: %s", got)
	}
	if text(s.result("tools/call", map[string]any{"name": "one"})) != "1" {
		t.Error("old handler not live")
	}
	if n := len(s.notifications("notifications/tools/list_changed")); n != 0 {
		t.Errorf("%d list_changed after a failed reload", n)
	}
}
