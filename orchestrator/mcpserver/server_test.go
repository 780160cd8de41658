package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/mcp/mcptest"
	"github.com/harnlang/harn/orchestrator"
)

const fixtureManifest = `
[package]
name = "fixture"

[exports]
handlers = "handlers.harn"

[[triggers]]
id = "cron-ok"
kind = "cron"
provider = "cron"
schedule = "0 0 1 1 *"
match = { events = ["cron.tick"] }
handler = "handlers::on_ok"

[[triggers]]
id = "cron-fail"
kind = "cron"
schedule = "0 0 1 1 *"
handler = "fail"
retry = { max = 0 }

[[triggers]]
id = "hook"
kind = "webhook"
handler = "echo"
when = "handlers::wanted"
concurrency = { max = 2 }
`

const fixtureLib = `
fn fail(event) { throw "boom" }
fn echo(event) { return event.payload }
`

const fixtureHandlers = `
pub fn on_ok(event) { return {ok: true} }
pub fn wanted(event) { return true }
`

const fixturePrompt = `---
id = "review"
title = "Code review"
description = "Review code"
[[arguments]]
name = "code"
description = "Code to review"
required = true
[[arguments]]
name = "language"
required = false
suggestions = ["rust", "typescript", "python"]
---
Review this {{ language }} code:
{{ code }}
`

type client struct {
	*mcptest.Pipe
	t      *testing.T
	next   int
	stderr *mcptest.SyncBuffer
	srv    *Server
	log    eventlog.Log
	root   string
}

func writeFixture(t testing.TB) string {
	dir := t.TempDir()
	for name, src := range map[string]string{"harn.toml": fixtureManifest, "lib.harn": fixtureLib, "handlers.harn": fixtureHandlers, "prompts/review.harn.prompt": fixturePrompt,
		"prompts/inferred.harn.prompt": "Hello {{ name }}!"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newClient(t *testing.T) *client {
	t.Helper()
	return newClientOn(t, memory.New())
}

// newClientOn is newClient serving the orchestrator on log.
func newClientOn(t *testing.T, log eventlog.Log) *client {
	t.Helper()
	dir := writeFixture(t)
	stderr := &mcptest.SyncBuffer{}
	srv, err := New(context.Background(), Options{ManifestPath: filepath.Join(dir, "harn.toml"), StateDir: dir, Log: log, Version: "9.9.9", Bind: "stdio", Stderr: stderr,
		Node: orchestrator.Options{Poll: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() }) // after the connection ends
	return &client{Pipe: mcptest.Start(t, srv.ServeStdio), t: t, stderr: stderr, srv: srv, log: log, root: dir}
}

// call sends a request and returns its response.
func (c *client) call(method string, params any) map[string]any {
	c.t.Helper()
	c.next++
	return c.Call(c.next, method, params)
}

func (c *client) notify(method string) {
	c.Send(map[string]any{"jsonrpc": "2.0", "method": method})
}

func (c *client) initialize() {
	c.t.Helper()
	res := c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "tester", "version": "1.0"}})
	if res["result"] == nil {
		c.t.Fatalf("initialize: %v", res)
	}
	c.notify("notifications/initialized")
}

func (c *client) tool(name string, args any) map[string]any {
	c.t.Helper()
	res := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	r, ok := res["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s: %v", name, res)
	}
	return r
}

// ok returns a successful call's structuredContent.
func (c *client) ok(name string, args any) any {
	c.t.Helper()
	r := c.tool(name, args)
	if r["isError"] != false {
		c.t.Fatalf("%s failed: %v", name, r)
	}
	return r["structuredContent"]
}

func (c *client) fails(name string, args any, want string) {
	c.t.Helper()
	r := c.tool(name, args)
	text := r["content"].([]any)[0].(map[string]any)["text"]
	if r["isError"] != true || text != want {
		c.t.Errorf("%s %v: got %v, want error %q", name, args, r, want)
	}
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// sameJSON compares a decoded value with JSON text, ignoring key order.
func sameJSON(v any, want string) bool {
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		panic(err)
	}
	return js(v) == js(w)
}

func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func TestIdentityAndToolList(t *testing.T) {
	c := newClient(t)
	res := c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "tester", "version": "1.0"}})
	r := res["result"]
	if js(get(r, "serverInfo")) != `{"name":"harn-orchestrator","title":"Harn Orchestrator MCP","version":"9.9.9"}` ||
		get(r, "instructions") != Instructions ||
		js(get(r, "capabilities")) != `{"completions":{},"extensions":{"io.modelcontextprotocol/tasks":{}},"prompts":{"listChanged":true},"resources":{"listChanged":true},"tools":{"listChanged":true}}` {
		t.Fatalf("initialize %s", js(r))
	}
	c.notify("notifications/initialized")
	list := get(c.call("tools/list", nil), "result", "tools").([]any)
	var names []string
	for _, x := range list {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	want := "harn.secret_scan harn.trigger.fire harn.trigger.list harn.trigger.replay harn.orchestrator.queue harn.orchestrator.dlq.list harn.orchestrator.dlq.retry harn.orchestrator.inspect harn.trust.query"
	if strings.Join(names, " ") != want {
		t.Fatalf("tools %v", names)
	}
	fire := list[1].(map[string]any)
	if js(fire["annotations"]) != `{"destructiveHint":true,"idempotentHint":false,"openWorldHint":true,"readOnlyHint":false,"title":"Fire Trigger"}` || fire["title"] != "Fire Trigger" ||
		js(fire["execution"]) != `{"taskSupport":"optional"}` || js(get(fire, "inputSchema", "required")) != `["trigger_id","payload"]` || get(fire, "inputSchema", "additionalProperties") != false {
		t.Fatalf("fire %s", js(fire))
	}
	listTool := list[2].(map[string]any)
	if js(listTool["annotations"]) != `{"destructiveHint":false,"idempotentHint":true,"openWorldHint":false,"readOnlyHint":true,"title":"List Triggers"}` || listTool["execution"] != nil {
		t.Fatalf("list %s", js(listTool))
	}
}

func TestToolCalls(t *testing.T) {
	c := newClient(t)
	c.initialize()
	triggers := c.ok("harn.trigger.list", map[string]any{})
	first := get(triggers, "triggers", 0)
	if !sameJSON(first, `{"trigger_id":"cron-ok","kind":"cron","provider":"cron","when":null,"handler":{"kind":"local","reference":"handlers::on_ok"},"version":1,"state":"active","metrics":{"received":0,"dispatched":0,"failed":0,"dlq":0,"in_flight":0,"last_received_ms":null,"cost_total_usd_micros":0,"cost_today_usd_micros":0,"cost_hour_usd_micros":0,"autonomous_decisions_total":0,"autonomous_decisions_today":0,"autonomous_decisions_hour":0}}`) {
		t.Fatalf("list %s", js(first))
	}
	if get(triggers, "triggers", 2, "when") != "handlers::wanted" {
		t.Fatal("when")
	}

	// fire with progress
	res := c.call("tools/call", map[string]any{"name": "harn.trigger.fire", "arguments": map[string]any{"trigger_id": "cron-ok", "payload": map[string]any{}}, "_meta": map[string]any{"progressToken": "p1"}})
	h := get(res, "result", "structuredContent")
	if get(h, "status") != "succeeded" || js(get(h, "result")) != `{"ok":true}` || get(h, "binding_id") != "cron-ok" || get(h, "dlq_entry_id") != nil {
		t.Fatalf("fire %s", js(res))
	}
	var milestones []string
	for _, n := range c.Notifications() {
		if n["method"] == "notifications/progress" {
			milestones = append(milestones, fmt.Sprintf("%v %v", get(n, "params", "progress"), get(n, "params", "message")))
		}
	}
	if strings.Join(milestones, ",") != "0.1 loading runtime,0.3 preparing event,0.5 firing trigger,0.95 trigger complete" {
		t.Fatalf("progress %v", milestones)
	}
	eventID := get(h, "event_id").(string)
	text := get(res, "result", "content", 0, "text").(string)
	if !strings.Contains(text, "\n  \"event_id\"") {
		t.Fatalf("text not pretty JSON: %q", text)
	}

	// argument and lookup errors
	c.fails("harn.trigger.fire", map[string]any{"payload": map[string]any{}}, "missing field `trigger_id`")
	c.fails("harn.trigger.fire", map[string]any{"trigger_id": "cron-ok"}, "missing field `payload`")
	c.fails("harn.trigger.fire", map[string]any{"trigger_id": "x", "payload": nil, "extra": 1}, "unknown field `extra`, expected `trigger_id` or `payload`")
	c.fails("harn.trigger.fire", map[string]any{"trigger_id": 3, "payload": map[string]any{}}, "invalid type for field `trigger_id`: expected a string, got number")
	c.fails("harn.trigger.fire", map[string]any{"trigger_id": "nope", "payload": map[string]any{}}, "unknown manifest binding 'nope'")
	// The payload is merged over the event: it must be an object.
	for p, typ := range map[any]string{"x": "string", nil: "null", 7: "number", true: "boolean"} {
		c.fails("harn.trigger.fire", map[string]any{"trigger_id": "cron-ok", "payload": p}, "invalid type for field `payload`: expected an object, got "+typ)
	}
	c.fails("harn.trigger.fire", map[string]any{"trigger_id": "cron-ok", "payload": []any{1}}, "invalid type for field `payload`: expected an object, got array")
	c.fails("harn.nope", map[string]any{}, "unknown tool 'harn.nope'")
	c.fails("harn.trigger.list", map[string]any{"x": 1}, "unknown field `x`, there are no fields")
	c.fails("harn.orchestrator.dlq.retry", map[string]any{"entry_id": "dlq_x"}, "unknown pending DLQ entry 'dlq_x'")
	c.fails("harn.trigger.replay", map[string]any{"event_id": "trigger_evt_x"}, "unknown trigger event id 'trigger_evt_x'")
	c.fails("harn.trust.query", map[string]any{"since": "yesterday"}, "invalid timestamp 'yesterday': expected RFC3339 or unix seconds/milliseconds")
	c.fails("harn.trust.query", map[string]any{"tier": "god"}, "unknown variant `god` for field `tier`, expected one of `shadow`, `suggest`, `act_with_approval`, `act_auto`")
	if js(c.ok("harn.trust.query", map[string]any{"since": 1754000000, "limit": 5})) != `{"results":[]}` {
		t.Fatal("trust")
	}

	// DLQ, retry, replay, queue, inspect
	dead := c.ok("harn.trigger.fire", map[string]any{"trigger_id": "cron-fail", "payload": map[string]any{}})
	if get(dead, "status") != "dlq" || get(dead, "error") != "boom" {
		t.Fatalf("dead %s", js(dead))
	}
	entries := get(c.ok("harn.orchestrator.dlq.list", map[string]any{}), "entries").([]any)
	if len(entries) != 1 || get(entries, 0, "error_class") != "handler_panic" || get(entries, 0, "kind") != "cron.tick" {
		t.Fatalf("dlq %s", js(entries))
	}
	entryID := get(entries, 0, "id").(string)
	retry := c.ok("harn.orchestrator.dlq.retry", map[string]any{"entry_id": entryID})
	if get(retry, "entry_id") != entryID || get(retry, "handle", "replay_of_event_id") != get(dead, "event_id") {
		t.Fatalf("retry %s", js(retry))
	}
	replay := c.ok("harn.trigger.replay", map[string]any{"event_id": eventID})
	if get(replay, "replay_of_event_id") != eventID || get(replay, "status") != "succeeded" {
		t.Fatalf("replay %s", js(replay))
	}
	report := c.ok("harn.trigger.replay", map[string]any{"event_id": eventID, "as_of": time.Now().Add(time.Second).UTC().Format(time.RFC3339)})
	if get(report, "binding_version_as_of") != 1.0 || get(report, "handle", "status") != "succeeded" {
		t.Fatalf("as_of %s", js(report))
	}
	queue := c.ok("harn.orchestrator.queue", map[string]any{})
	if get(queue, "outbox", "count").(float64) < 4 || len(get(queue, "outbox", "head").([]any)) > 5 || get(queue, "dispatcher", "dlq_depth") != 1.0 {
		t.Fatalf("queue %s", js(queue))
	}
	insp := c.ok("harn.orchestrator.inspect", map[string]any{})
	if get(insp, "triggers", 2, "flow_control", "concurrency", "max") != 2.0 || get(insp, "snapshot", "status") != "running" || len(get(insp, "recent_dispatches").([]any)) < 4 {
		t.Fatalf("inspect %s", js(insp))
	}

	// secret scan and its alias; the audit holds only redacted text
	secret := "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"
	findings := c.ok("harn::secret_scan", map[string]any{"content": `token = "` + secret + `"`})
	if !sameJSON(findings, `[{"detector":"github-token","source":"gitleaks","title":"GitHub token","line":1,"column_start":10,"column_end":52,"start_offset":9,"end_offset":51,"redacted":"ghp_…yzAB","fingerprint":"c2f9a2618fbd63dd"}]`) {
		t.Fatalf("scan %s", js(findings))
	}
	c.srv.Flush() // the audit is written behind the answer
	audits, _ := c.log.Read(context.Background(), "audit.secret_scan", 0, 0)
	if len(audits) != 1 || audits[0].Kind != "scan_detected" || strings.Contains(string(audits[0].Payload), secret) {
		t.Fatalf("audit %v", audits)
	}

	// observability: a stderr line and an action-graph record per call;
	// fire carries the client identity and trace id into the event.
	c.srv.Flush()
	lines := strings.Count(c.stderr.String(), "[harn] mcp: client=tester/1.0 tool=")
	graph, _ := c.log.Read(context.Background(), orchestrator.TopicActionGraph, 0, 0)
	calls := 0
	for _, g := range graph {
		if g.Kind == "action_graph_update" {
			calls++
		}
	}
	if lines != calls || calls != 27 {
		t.Fatalf("%d stderr lines, %d action graph records\n%s", lines, calls, c.stderr.String())
	}
	if !strings.Contains(c.stderr.String(), "tool=harn.nope status=failed trace_id=mcp_") {
		t.Fatalf("stderr %s", c.stderr.String())
	}
	ev := c.call("resources/read", map[string]any{"uri": "harn://event/" + eventID})
	body := get(ev, "result", "contents", 0, "text").(string)
	var et map[string]any
	json.Unmarshal([]byte(body), &et)
	trace := get(et, "trace", "trace_id").(string)
	if get(et, "event", "headers", "x-harn-mcp-client") != "tester/1.0" || get(et, "event", "headers", "x-harn-mcp-trace-id") != trace || !strings.HasPrefix(trace, "mcp_") || len(trace) != 36 {
		t.Fatalf("event %s", body)
	}
	if len(get(et, "trace", "action_graph").([]any)) == 0 || len(get(et, "trace", "outbox").([]any)) != 1 {
		t.Fatalf("trace %s", body)
	}
	// list-changed after a successful fire
	changed := 0
	for _, n := range c.Notifications() {
		if n["method"] == "notifications/resources/list_changed" {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no resources/list_changed")
	}
}

func TestResourcesPromptsCompletion(t *testing.T) {
	c := newClient(t)
	c.initialize()
	h := c.ok("harn.trigger.fire", map[string]any{"trigger_id": "cron-fail", "payload": map[string]any{}})
	eventID, entryID := get(h, "event_id").(string), get(h, "dlq_entry_id").(string)
	c.srv.orch.Log().Append(context.Background(), "agent.transcript.a1", eventlog.Record{Kind: "message", Payload: json.RawMessage(`{}`)})

	res := get(c.call("resources/list", nil), "result", "resources").([]any)
	var uris []string
	for _, r := range res {
		uris = append(uris, get(r, "uri").(string))
	}
	want := "harn://manifest harn://topic/trigger.inbox harn://topic/trigger.outbox harn://topic/agent.transcript.a1 harn://event/" + eventID + " harn://dlq/" + entryID
	if strings.Join(uris, " ") != want {
		t.Fatalf("resources %v", uris)
	}
	if get(res, 4, "description") != "Trigger event log record #1" || get(res, 5, "description") != "Pending DLQ entry for event "+eventID {
		t.Fatalf("resources %s", js(res))
	}
	// docs/spec/orchestrator.md §6: every entry's name, description and type.
	for i, want := range []string{
		`{"uri":"harn://manifest","name":"Manifest","description":"The running orchestrator manifest","mimeType":"application/toml"}`,
		`{"uri":"harn://topic/trigger.inbox","name":"trigger.inbox","description":"EventLog topic trigger.inbox","mimeType":"application/json"}`,
		`{"uri":"harn://topic/trigger.outbox","name":"trigger.outbox","description":"EventLog topic trigger.outbox","mimeType":"application/json"}`,
		`{"uri":"harn://topic/agent.transcript.a1","name":"agent.transcript.a1","description":"Agent transcript event stream","mimeType":"application/json"}`,
		`{"uri":"harn://event/` + eventID + `","name":"Event ` + eventID + `","description":"Trigger event log record #1","mimeType":"application/json"}`,
		`{"uri":"harn://dlq/` + entryID + `","name":"DLQ ` + entryID + `","description":"Pending DLQ entry for event ` + eventID + `","mimeType":"application/json"}`,
	} {
		if !sameJSON(res[i], want) {
			t.Errorf("resource %d: %s, want %s", i, js(res[i]), want)
		}
	}
	man := c.call("resources/read", map[string]any{"uri": "harn://manifest"})
	if get(man, "result", "contents", 0, "text") != fixtureManifest || get(man, "result", "contents", 0, "mimeType") != "application/toml" {
		t.Fatalf("manifest %s", js(man))
	}
	topic := get(c.call("resources/read", map[string]any{"uri": "harn://topic/trigger.outbox"}), "result", "contents", 0, "text").(string)
	if !strings.Contains(topic, `"topic": "trigger.outbox"`) || !strings.Contains(topic, `"dispatch_dlq"`) {
		t.Fatalf("topic %s", topic)
	}
	dlq := get(c.call("resources/read", map[string]any{"uri": "harn://dlq/" + entryID}), "result", "contents", 0, "text").(string)
	if !strings.Contains(dlq, `"error_class": "handler_panic"`) {
		t.Fatalf("dlq %s", dlq)
	}
	for uri, msg := range map[string]string{
		"harn://nope":              "resource not found: harn://nope",
		"harn://topic/secret":      "resource not found: harn://topic/secret",
		"harn://event/trigger_evt": "unknown trigger event id 'trigger_evt'",
		"harn://dlq/dlq_x":         "unknown DLQ entry 'dlq_x'",
	} {
		e := c.call("resources/read", map[string]any{"uri": uri})
		if get(e, "error", "code") != -32002.0 || get(e, "error", "message") != msg {
			t.Errorf("%s: %s", uri, js(e))
		}
	}
	tpl := get(c.call("resources/templates/list", nil), "result", "resourceTemplates").([]any)
	if len(tpl) != 3 || get(tpl, 1, "uriTemplate") != "harn://event/{event_id}" || get(tpl, 2, "name") != "dead-letter-entry" {
		t.Fatalf("templates %s", js(tpl))
	}
	complete := func(ref map[string]any, arg, value string) map[string]any {
		return c.call("completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}})
	}
	vals := get(complete(map[string]any{"type": "ref/resource", "uri": "harn://topic/{name}"}, "name", ""), "result", "completion", "values")
	if js(vals) != `["agent.transcript.a1","trigger.inbox","trigger.outbox"]` {
		t.Fatalf("topics %s", js(vals))
	}
	if v := get(complete(map[string]any{"type": "ref/resource", "uri": "harn://dlq/{entry_id}"}, "entry_id", "dlq"), "result", "completion", "values"); js(v) != `["`+entryID+`"]` {
		t.Fatalf("dlq ids %s", js(v))
	}
	if e := complete(map[string]any{"type": "ref/resource", "uri": "harn://event/{event_id}"}, "id", ""); get(e, "error", "message") != "Unknown resource template argument: id" {
		t.Fatalf("%s", js(e))
	}
	if e := complete(map[string]any{"type": "ref/resource", "uri": "harn://x/{y}"}, "y", ""); get(e, "error", "message") != "Unknown resource template: harn://x/{y}" {
		t.Fatalf("%s", js(e))
	}
	if v := get(complete(map[string]any{"type": "ref/prompt", "name": "review"}, "language", "py"), "result", "completion", "values"); js(v) != `["python"]` {
		t.Fatalf("prompt completion %s", js(v))
	}

	prompts := get(c.call("prompts/list", nil), "result", "prompts")
	if !sameJSON(prompts, `[{"name":"prompts/inferred","arguments":[{"name":"name","required":true}]},{"name":"review","title":"Code review","description":"Review code","arguments":[{"name":"code","required":true,"description":"Code to review"},{"name":"language","required":false}]}]`) {
		t.Fatalf("prompts %s", js(prompts))
	}
	got := c.call("prompts/get", map[string]any{"name": "review", "arguments": map[string]any{"code": "fn x() {}", "language": "harn"}})
	if js(get(got, "result", "messages")) != `[{"content":{"text":"Review this harn code:\nfn x() {}\n","type":"text"},"role":"user"}]` || get(got, "result", "description") != "Review code" {
		t.Fatalf("prompt %s", js(got))
	}
	for _, tc := range []struct {
		params map[string]any
		msg    string
	}{
		{map[string]any{"name": "nope"}, "Unknown prompt: nope"},
		{map[string]any{"name": "review", "arguments": map[string]any{}}, "Missing required argument: code"},
		{map[string]any{"name": "review", "arguments": map[string]any{"code": nil}}, "Missing required argument: code"},
		{map[string]any{"name": "review", "arguments": []any{}}, "prompt arguments must be an object"},
		{map[string]any{"name": "review", "arguments": "code=x"}, "prompt arguments must be an object"},
	} {
		e := c.call("prompts/get", tc.params)
		if get(e, "error", "code") != -32602.0 || get(e, "error", "message") != tc.msg {
			t.Errorf("%v: %s", tc.params, js(e))
		}
	}
	sub := c.call("subscriptions/listen", map[string]any{})
	if get(sub, "error", "code") != -32601.0 {
		t.Fatalf("subscriptions/listen %s", js(sub))
	}
	// The capabilities do not offer resources.subscribe
	// (docs/spec/orchestrator.md §6).
	for _, m := range []string{"resources/subscribe", "resources/unsubscribe"} {
		e := c.call(m, map[string]any{"uri": "harn://manifest"})
		if get(e, "error", "code") != -32601.0 || get(e, "error", "message") != "Method not found: "+m {
			t.Errorf("%s: %s", m, js(e))
		}
	}
}

// TestWatchReloads: a changed manifest is reloaded (new binding
// version) and announced; a broken one keeps the previous project.
func TestWatchReloads(t *testing.T) {
	c := newClient(t)
	c.initialize()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { c.srv.Watch(stop); close(done) }()
	defer func() { close(stop); <-done }()
	path := filepath.Join(c.root, "harn.toml")
	time.Sleep(300 * time.Millisecond)
	os.WriteFile(path, []byte(strings.Replace(fixtureManifest, "retry = { max = 0 }", "retry = { max = 1 }", 1)), 0o644)
	deadline := time.Now().Add(10 * time.Second)
	for c.srv.orch.Binding("cron-fail").Version != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("not reloaded; stderr:\n%s", c.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for {
		kinds := map[string]bool{}
		for _, n := range c.Notifications() {
			kinds[n["method"].(string)] = true
		}
		if kinds["notifications/tools/list_changed"] && kinds["notifications/prompts/list_changed"] && kinds["notifications/resources/list_changed"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("notes %v", c.Notifications())
		}
		time.Sleep(20 * time.Millisecond)
	}
	os.WriteFile(path, []byte(fixtureManifest+"\n[[triggers]]\nid = \"bad\"\n"), 0o644)
	for !strings.Contains(c.stderr.String(), "reload failed") {
		if time.Now().After(deadline.Add(5 * time.Second)) {
			t.Fatalf("no reload failure; stderr:\n%s", c.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if c.srv.orch.Binding("cron-fail").Version != 2 || c.srv.orch.Binding("bad") != nil {
		t.Fatal("bad manifest was swapped in")
	}
}

// TestWatchSeesAManifestNotNamedHarnToml: --config may name any file;
// its changes reload the project like harn.toml's.
func TestWatchSeesAManifestNotNamedHarnToml(t *testing.T) {
	dir := writeFixture(t)
	path := filepath.Join(dir, "orchestrator.toml")
	if err := os.Rename(filepath.Join(dir, "harn.toml"), path); err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), Options{ManifestPath: path, StateDir: dir, Log: memory.New(), Version: "9.9.9", Bind: "stdio", Stderr: &mcptest.SyncBuffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	before := srv.snapshot()
	os.WriteFile(path, []byte(strings.Replace(fixtureManifest, "retry = { max = 0 }", "retry = { max = 1 }", 1)+"\n"), 0o644)
	after := srv.snapshot()
	if maps.Equal(before, after) {
		t.Fatalf("the manifest is not watched: %v", after)
	}
	srv.changed(before, after)
	if v := srv.orch.Binding("cron-fail").Version; v != 2 {
		t.Fatalf("not reloaded: cron-fail version %d", v)
	}
}

// A reload that would put a webhook on the HTTP MCP endpoint's path,
// where it never receives a delivery, is refused like a bad manifest.
func TestReloadRefusesAWebhookOnTheEndpoint(t *testing.T) {
	dir := writeFixture(t)
	path := filepath.Join(dir, "harn.toml")
	srv, err := New(context.Background(), Options{ManifestPath: path, StateDir: dir, Log: memory.New(), Version: "9.9.9", Bind: "127.0.0.1:0", Stderr: &mcptest.SyncBuffer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.HTTPHandler("/in", nil)
	os.WriteFile(path, []byte(fixtureManifest+"\n[[triggers]]\nid = \"at-endpoint\"\nkind = \"webhook\"\nhandler = \"echo\"\nwebhook = { path = \"/in\" }\n"), 0o644)
	if err := srv.reload(); err == nil || !strings.HasSuffix(err.Error(), `harn.toml:30: [[triggers]][3] (id "at-endpoint"): webhook.path: /in is the MCP endpoint (--path); give one of them another path`) {
		t.Fatalf("reload: %v", err)
	}
	if srv.orch.Binding("at-endpoint") != nil {
		t.Fatal("the manifest was swapped in")
	}
}

// TestFireAsTask: a 2026-07-28 client that opts into the tasks extension
// gets a task for harn.trigger.fire and polls it to the dispatch handle.
func TestFireAsTask(t *testing.T) {
	c := newClient(t)
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": map[string]any{"name": "modern", "version": "2"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
	created := c.call("tools/call", map[string]any{"name": "harn.trigger.fire", "arguments": map[string]any{"trigger_id": "cron-ok", "payload": map[string]any{}}, "_meta": meta})
	id, _ := get(created, "result", "taskId").(string)
	if get(created, "result", "resultType") != "task" || id == "" {
		t.Fatalf("created %s", js(created))
	}
	// A read-only tool stays inline for the same client.
	if r := c.call("tools/call", map[string]any{"name": "harn.trigger.list", "arguments": map[string]any{}, "_meta": meta}); get(r, "result", "resultType") != "complete" {
		t.Fatalf("list %s", js(r))
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := c.call("tasks/get", map[string]any{"taskId": id, "_meta": meta})
		if st := get(got, "result", "status"); st != "working" {
			if st != "completed" || get(got, "result", "result", "structuredContent", "status") != "succeeded" {
				t.Fatalf("task %s", js(got))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("task never finished")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.srv.Flush() // the call's stderr line is written off the call path
	if !strings.Contains(c.stderr.String(), "client=modern/2 tool=harn.trigger.fire status=completed") {
		t.Fatalf("stderr %s", c.stderr.String())
	}
}

// harn.trust.query filters the trust records the dispatcher writes;
// limit keeps the newest.
// An unknown argument is named with the tool's fields as serde lists
// them (docs/spec/orchestrator.md §5: "missing field `trigger_id`" is
// serde's wording): one field, two, more.
func TestUnknownArgumentNamesFieldsAsSerde(t *testing.T) {
	c := newClient(t)
	c.initialize()
	c.fails("harn.secret_scan", map[string]any{"content": "x", "text": "y"}, "unknown field `text`, expected `content`")
	c.fails("harn.orchestrator.dlq.retry", map[string]any{"id": "dlq_x"}, "unknown field `id`, expected `entry_id`")
	c.fails("harn.trigger.fire", map[string]any{"trigger_id": "x", "payload": map[string]any{}, "extra": 1}, "unknown field `extra`, expected `trigger_id` or `payload`")
	c.fails("harn.trigger.replay", map[string]any{"event_id": "e", "asof": "x"}, "unknown field `asof`, expected one of `event_id`, `as_of`, `steer_from`, `to_decision`, `reason`, `applied_by`, `scope`")
	c.fails("harn.trigger.list", map[string]any{"x": 1}, "unknown field `x`, there are no fields")
}

func TestTrustQuery(t *testing.T) {
	c := newClient(t)
	c.initialize()
	ctx := context.Background()
	for i, o := range []string{"success", "failure", "success", "denied"} {
		p, _ := json.Marshal(orchestrator.TrustRecord{Agent: "triage", Action: "handlers::triage", Tier: "act_auto", Outcome: o, EventID: fmt.Sprintf("trigger_evt_%d", i)})
		c.log.Append(ctx, orchestrator.TopicTrust, eventlog.Record{Kind: "trust_" + o, Payload: p, OccurredAtMs: 1754000000000 + int64(i)*1000})
	}
	got := c.ok("harn.trust.query", map[string]any{"outcome": "success"})
	if n := len(get(got, "results").([]any)); n != 2 {
		t.Fatalf("outcome filter: %s", js(got))
	}
	got = c.ok("harn.trust.query", map[string]any{"limit": 1, "tier": "act_auto"})
	if r := get(got, "results").([]any); len(r) != 1 || get(r[0], "event_id") != "trigger_evt_3" {
		t.Fatalf("limit: %s", js(got))
	}
	got = c.ok("harn.trust.query", map[string]any{"since": 1754000002, "grouped_by_trace": true})
	if r := get(got, "results").([]any); len(r) != 1 || len(get(r[0], "records").([]any)) != 2 {
		t.Fatalf("since + grouped: %s", js(got))
	}
}

// harn.trust.query sees the trust records another writer appends to the
// same SQLite file between two queries (its decoded records are kept
// between calls).
func TestTrustQuerySeesAnotherWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.db")
	log, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	other, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	c := newClientOn(t, log)
	c.initialize()
	ids := func(args map[string]any) string {
		var out []string
		for _, r := range get(c.ok("harn.trust.query", args), "results").([]any) {
			out = append(out, get(r, "event_id").(string))
		}
		return strings.Join(out, " ")
	}
	appendTrust := func(l eventlog.Log, id string) {
		p, _ := json.Marshal(orchestrator.TrustRecord{Agent: "triage", Tier: "act_auto", Outcome: "success", EventID: id})
		if _, err := l.Append(ctx, orchestrator.TopicTrust, eventlog.Record{Kind: "trust_success", Payload: p}); err != nil {
			t.Fatal(err)
		}
	}
	appendTrust(log, "e1")
	if got := ids(map[string]any{}); got != "e1" {
		t.Fatalf("first query: %q", got)
	}
	appendTrust(other, "e2")
	if got := ids(map[string]any{}); got != "e1 e2" {
		t.Fatalf("after another writer's append: %q", got)
	}
	appendTrust(other, "e3")
	if got := ids(map[string]any{"limit": 1}); got != "e3" {
		t.Fatalf("limit after another append: %q", got)
	}
	if got := ids(map[string]any{"limit": 5}); got != "e1 e2 e3" {
		t.Fatalf("unchanged log: %q", got)
	}
}

// With limit, harn.trust.query returns the newest matching records,
// oldest first, however far back in the topic they are.
func TestTrustQueryLimitKeepsNewest(t *testing.T) {
	c := newClient(t)
	c.initialize()
	ctx := context.Background()
	// Records 0..4 are act_auto, the 200 after them shadow.
	for i := range 205 {
		tier := "shadow"
		if i < 5 {
			tier = "act_auto"
		}
		p, _ := json.Marshal(orchestrator.TrustRecord{Agent: "triage", Tier: tier, Outcome: "success", EventID: fmt.Sprintf("e%d", i)})
		c.log.Append(ctx, orchestrator.TopicTrust, eventlog.Record{Kind: "trust_success", Payload: p, OccurredAtMs: 1754000000000 + int64(i)*1000})
	}
	ids := func(args map[string]any) string {
		var out []string
		for _, r := range get(c.ok("harn.trust.query", args), "results").([]any) {
			out = append(out, get(r, "event_id").(string))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"limit": 3}, "e202 e203 e204"},
		{map[string]any{"limit": 2, "tier": "act_auto"}, "e3 e4"},
		{map[string]any{"limit": 9, "tier": "act_auto"}, "e0 e1 e2 e3 e4"},
		{map[string]any{"limit": 2, "tier": "act_auto", "until": 1754000002}, "e1 e2"},
		{map[string]any{"limit": 0}, ""},
		{map[string]any{"tier": "act_auto"}, "e0 e1 e2 e3 e4"},
		// an integer written 3.0 or 2e0 is that integer (the schema's
		// "integer", docs/spec/orchestrator.md §5: limit int ≥ 0), and one
		// past int64 keeps every match
		{map[string]any{"limit": json.Number("3.0")}, "e202 e203 e204"},
		{map[string]any{"limit": json.Number("2e0"), "tier": "act_auto"}, "e3 e4"},
		{map[string]any{"limit": json.Number("99999999999999999999"), "tier": "act_auto"}, "e0 e1 e2 e3 e4"},
	} {
		if got := ids(tc.args); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
	}
	c.fails("harn.trust.query", map[string]any{"limit": json.Number("-1.0")}, "invalid value for field `limit`: must be at least 0")
	c.fails("harn.trust.query", map[string]any{"limit": json.Number("-99999999999999999999")}, "invalid value for field `limit`: must be at least 0")
	c.fails("harn.trust.query", map[string]any{"limit": json.Number("1.5")}, "invalid type for field `limit`: expected an integer, got number")
}

// A call's stderr line is exactly docs/spec/orchestrator.md §12's form:
// these four fields in this order, nothing after the trace id. A client
// or tool that is not one word is quoted, so it cannot break the line.
func TestCallLine(t *testing.T) {
	for _, tc := range []struct{ client, tool, want string }{
		{"curl/1", "harn.trust.query", "client=curl/1 tool=harn.trust.query"},
		{"Claude Desktop/1.2", "harn.trigger.list", `client="Claude Desktop/1.2" tool=harn.trigger.list`},
		{"x/1\n[harn] mcp: client=forged", "t", `client="x/1\n[harn] mcp: client=forged" tool=t`},
		{"x/1\n", "a\tb", `client="x/1\n" tool="a\tb"`},
		{"x/1", "", `client=x/1 tool=""`},
		{`"q"/1`, "é", `client="\"q\"/1" tool=é`},
		{"bad\xff/1", "t", `client="bad\xff/1" tool=t`},
	} {
		got := string(callLine(tc.client, tc.tool, "completed", "mcp_0123"))
		want := "[harn] mcp: " + tc.want + " status=completed trace_id=mcp_0123\n"
		if got != want {
			t.Errorf("line %q, want %q", got, want)
		}
	}
}

// A tools/call without a string name is answered with -32602 naming
// params.name; it and a call before initialize are recorded like every
// call (docs/spec/orchestrator.md §12): a failed stderr line and an
// action_graph_update carrying the error. A call with no tool name is
// tool `unknown`; a request refused for its metadata still names the
// client by its well-formed clientInfo.
func TestRefusedCallIsRecorded(t *testing.T) {
	c := newClient(t)
	if e := get(c.call("tools/call", map[string]any{"name": "harn.trigger.list"}), "error"); !sameJSON(e, `{"code":-32002,"message":"server not initialized"}`) {
		t.Fatalf("before initialize %s", js(e))
	}
	info := map[string]any{"name": "curl", "version": "1"}
	if e := get(c.call("tools/call", map[string]any{"name": "harn.trigger.list", "_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2099", "io.modelcontextprotocol/clientInfo": info}}), "error", "code"); e != float64(-32022) {
		t.Fatalf("unsupported version %v", e)
	}
	c.initialize()
	if e := get(c.call("tools/call", map[string]any{"arguments": map[string]any{}}), "error"); !sameJSON(e, `{"code":-32602,"message":"Invalid params: tools/call requires params.name, the tool name"}`) {
		t.Fatalf("missing name %s", js(e))
	}
	if e := get(c.call("tools/call", map[string]any{"name": 7}), "error"); !sameJSON(e, `{"code":-32602,"message":"Invalid params: tools/call params.name must be a string, not 7"}`) {
		t.Fatalf("number name %s", js(e))
	}
	if e := get(c.call("tools/call", []any{1, 2}), "error"); !sameJSON(e, `{"code":-32602,"message":"Invalid params: params must be an object"}`) {
		t.Fatalf("params not an object %s", js(e))
	}
	c.srv.Flush()
	for _, line := range []string{"client=unknown tool=harn.trigger.list", "client=curl/1 tool=harn.trigger.list", "client=tester/1.0 tool=unknown"} {
		if !strings.Contains(c.stderr.String(), "[harn] mcp: "+line+" status=failed trace_id=mcp_") {
			t.Fatalf("no stderr line %q:\n%s", line, c.stderr.String())
		}
	}
	if n := strings.Count(c.stderr.String(), "[harn] mcp: client=tester/1.0 tool=unknown status=failed"); n != 3 {
		t.Errorf("%d stderr lines for the calls without a tool name, want 3:\n%s", n, c.stderr.String())
	}
	want := []string{
		"unknown harn.trigger.list: server not initialized",
		"curl/1 harn.trigger.list: Unsupported protocol version",
		"tester/1.0 unknown: Invalid params: tools/call requires params.name, the tool name",
		"tester/1.0 unknown: Invalid params: tools/call params.name must be a string, not 7",
		"tester/1.0 unknown: Invalid params: params must be an object",
	}
	if got := failedCalls(t, c.log); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("action graph errors %q, want %q", got, want)
	}
}

// A tools/call the client cancels before it starts is recorded too
// (docs/spec/orchestrator.md §12, docs/orchestrator.md "Failure
// semantics"): a failed stderr line and a failed action_graph_update,
// though the call is never answered.
func TestCallCancelledBeforeStartIsRecorded(t *testing.T) {
	c := newClient(t)
	c.initialize()
	// No job starts while Quiesce runs: the call waits, and the ping's
	// answer says the reader has taken the cancellation.
	c.srv.proto.Quiesce(func() {
		c.Send(map[string]any{"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": map[string]any{"name": "harn.trigger.fire", "arguments": map[string]any{"trigger_id": "cron-ok", "payload": map[string]any{}}}})
		c.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": "slow"}})
		c.call("ping", nil)
	})
	deadline := time.Now().Add(20 * time.Second)
	want := []string{"tester/1.0 harn.trigger.fire: cancelled by the client before it started"}
	for {
		c.srv.Flush()
		if got := failedCalls(t, c.log); strings.Join(got, "\n") == strings.Join(want, "\n") {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("action graph errors %q, want %q", got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(c.stderr.String(), "[harn] mcp: client=tester/1.0 tool=harn.trigger.fire status=failed trace_id=mcp_") {
		t.Errorf("no stderr line:\n%s", c.stderr.String())
	}
	c.call("ping", nil)
	for _, m := range c.Messages() {
		if m["id"] == "slow" {
			t.Errorf("cancelled call answered: %s", js(m))
		}
	}
	if evs, _ := c.srv.orch.Events(context.Background()); len(evs) != 0 {
		t.Errorf("a call cancelled before it started fired the trigger: %s", js(evs))
	}
}

// failedCalls are the failed calls on observability.action_graph:
// "<mcp_client> <tool_name>: <error>".
func failedCalls(t *testing.T, log eventlog.Log) []string {
	t.Helper()
	graph, err := log.Read(context.Background(), orchestrator.TopicActionGraph, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, g := range graph {
		var p map[string]any
		json.Unmarshal(g.Payload, &p)
		if g.Kind == "action_graph_update" && get(p, "observability", "action_graph_nodes", 0, "status") == "failed" {
			if get(p, "context", "client_identity") != g.Headers["mcp_client"] || get(p, "context", "tool_name") != g.Headers["tool_name"] {
				t.Errorf("context %v disagrees with headers %v", p["context"], g.Headers)
			}
			errs = append(errs, g.Headers["mcp_client"]+" "+g.Headers["tool_name"]+": "+fmt.Sprint(p["error"]))
		}
	}
	return errs
}

// Over HTTP, a request refused by its routing headers or its metadata
// is recorded under the client its well-formed clientInfo names
// (docs/spec/orchestrator.md §12), and a request without _meta is
// refused as bad metadata, not as "server not initialized" (§8 step 5).
func TestHTTPRefusedCallIsRecorded(t *testing.T) {
	c := newClient(t)
	h := c.srv.HTTPHandler("/mcp", nil)
	post := func(headers map[string]string, body string) (int, map[string]any) {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var m map[string]any
		json.Unmarshal(rec.Body.Bytes(), &m)
		return rec.Code, m
	}
	meta := func(version string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"harn.trigger.list","arguments":{},` + meta("2026-07-28") + `}}`
	routing := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
	with := func(k, v string) map[string]string {
		h := maps.Clone(routing)
		h[k] = v
		return h
	}
	const malformed = "request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientInfo, io.modelcontextprotocol/clientCapabilities"
	for _, tc := range []struct {
		headers map[string]string
		body    string
		code    float64
		message string
	}{
		{routing, call, -32020, "Mcp-Name header is required for this request"},
		{with("Mcp-Name", "other"), call, -32020, "Mcp-Name header does not match request body"},
		{with("MCP-Protocol-Version", "2099"), call, -32022, "Unsupported protocol version"},
		{with("Mcp-Name", "harn.trigger.list"), strings.Replace(call, meta("2026-07-28"), meta("2099"), 1), -32020, "MCP-Protocol-Version header does not match request body"},
		{with("Mcp-Name", "harn.trigger.list"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"harn.trigger.list"}}`, -32602, malformed},
		{with("Mcp-Name", "harn.trigger.list"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"harn.trigger.list","_meta":{}}}`, -32602, malformed},
	} {
		status, m := post(tc.headers, tc.body)
		if status != 400 || get(m, "error", "code") != tc.code || get(m, "error", "message") != tc.message {
			t.Errorf("%v %s: %d %v", tc.headers, tc.body, status, m)
		}
	}
	if status, m := post(map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != 400 || get(m, "error", "message") != malformed {
		t.Errorf("tools/list without _meta: %d %v", status, m)
	}
	if status, m := post(with("Mcp-Name", "harn.trigger.list"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1,2]}`); status != 400 || get(m, "error", "message") != "Invalid params: params must be an object" {
		t.Errorf("params not an object: %d %v", status, m)
	}
	if status, m := post(with("Mcp-Name", "harn.trigger.list"), call); status != 200 || get(m, "result", "isError") != false {
		t.Errorf("good call: %d %v", status, m)
	}
	c.srv.Flush()
	var want []string
	for _, e := range []string{"Mcp-Name header is required for this request", "Mcp-Name header does not match request body", "Unsupported protocol version", "MCP-Protocol-Version header does not match request body"} {
		want = append(want, "curl/1 harn.trigger.list: "+e)
	}
	want = append(want, "unknown harn.trigger.list: "+malformed, "unknown harn.trigger.list: "+malformed, "unknown unknown: Invalid params: params must be an object")
	if got := failedCalls(t, c.log); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("action graph errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := strings.Count(c.stderr.String(), "[harn] mcp: client=curl/1 tool=harn.trigger.list status=failed"); n != 4 {
		t.Errorf("%d failed curl/1 lines:\n%s", n, c.stderr.String())
	}
}

// TestWatchNotifiesByFileKind: which list-changed notifications each
// kind of change sends (docs/spec/orchestrator.md §11): a prompt file →
// prompts; harn.lock or a file under .harn/packages → tools, resources
// and prompts; a Harn source → a reload and none. Each change is
// delivered to changed directly (no polling); a ping after it marks
// the end of what it sent.
func TestWatchNotifiesByFileKind(t *testing.T) {
	c := newClient(t)
	c.initialize()
	c.call("ping", nil) // notifications/initialized is handled: the client is ready
	seen := len(c.Messages())
	for _, tc := range []struct {
		file, want string
	}{
		{"prompts/review.harn.prompt", "prompts"},
		{"harn.lock", "tools resources prompts"},
		{".harn/packages/kit/lib.harn", "tools resources prompts"},
		{"lib.harn", ""},
	} {
		before := c.srv.snapshot()
		p := filepath.Join(c.root, tc.file)
		os.MkdirAll(filepath.Dir(p), 0o755)
		old, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(old, "\n// changed\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		after := c.srv.snapshot()
		c.srv.changed(before, after)
		c.call("ping", nil)
		msgs := c.Messages()
		var got []string
		for _, m := range msgs[seen : len(msgs)-1] {
			method, _ := m["method"].(string)
			got = append(got, strings.TrimSuffix(strings.TrimPrefix(method, "notifications/"), "/list_changed"))
		}
		seen = len(msgs)
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s changed: notifications %q, want %q", tc.file, got, tc.want)
		}
	}
	if !strings.Contains(c.stderr.String(), "[harn] mcp: reloaded ") {
		t.Errorf("a changed Harn source was not reloaded; stderr:\n%s", c.stderr.String())
	}
}

// Cancelling a fire task (tasks/cancel) ends the caller's wait, not the
// event: it was accepted durably before the task answered, so it still
// runs and its outcome is recorded; the call is logged as failed
// (docs/orchestrator.md, "Failure semantics").
func TestCancelledFireTaskStillDispatches(t *testing.T) {
	dir := writeFixture(t)
	release := filepath.Join(dir, "release")
	os.WriteFile(filepath.Join(dir, "harn.toml"), []byte(fixtureManifest+"\n[[triggers]]\nid = \"held\"\nkind = \"manual\"\nhandler = \"hold\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte(fixtureLib+"fn hold(event) {\n  while !file_exists(\""+release+"\") { sleep(5) }\n  return \"released\"\n}\n"), 0o644)
	c := newClientIn(t, dir, nil)
	meta := meta2026(true)
	created := c.call("tools/call", map[string]any{"name": "harn.trigger.fire", "arguments": map[string]any{"trigger_id": "held", "payload": map[string]any{}}, "_meta": meta})
	id, _ := get(created, "result", "taskId").(string)
	if id == "" {
		t.Fatalf("created %s", js(created))
	}
	// The event is accepted (a recorded event) before the task is cancelled.
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs, _ := c.srv.orch.Events(context.Background())
		if len(evs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the event was never accepted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.call("tasks/cancel", map[string]any{"taskId": id, "_meta": meta})
	if got := c.call("tasks/get", map[string]any{"taskId": id, "_meta": meta}); get(got, "result", "status") != "cancelled" {
		t.Fatalf("task %s", js(got))
	}
	os.WriteFile(release, nil, 0o644)
	for {
		list, _ := c.srv.orch.List(context.Background())
		triggers := list["triggers"].([]orchestrator.TriggerInfo)
		if held := triggers[len(triggers)-1]; held.TriggerID != "held" || held.Metrics.Dispatched == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled fire's event never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	list, _ := c.srv.orch.List(context.Background())
	triggers := list["triggers"].([]orchestrator.TriggerInfo)
	if held := triggers[len(triggers)-1]; held.TriggerID != "held" || held.Metrics.Dispatched != 1 {
		t.Fatalf("held %s", js(held))
	}
	c.srv.Flush()
	if !strings.Contains(c.stderr.String(), "tool=harn.trigger.fire status=failed") {
		t.Errorf("stderr %s", c.stderr.String())
	}
}

// The seed's protocol table: subscriptions/listen, and roots/list,
// sampling/createMessage and elicitation/create sent as top-level
// requests, are refused with -32601 and data.type mcp.unsupportedFeature.
func TestUnsupportedFeatures(t *testing.T) {
	c := newClient(t)
	c.initialize()
	for method, feature := range map[string]string{
		"subscriptions/listen": "subscriptions", "roots/list": "roots",
		"sampling/createMessage": "sampling", "elicitation/create": "elicitation",
	} {
		e := get(c.call(method, map[string]any{}), "error")
		if get(e, "code") != -32601.0 || get(e, "data", "type") != "mcp.unsupportedFeature" || get(e, "data", "feature") != feature || get(e, "data", "method") != method {
			t.Errorf("%s: %s", method, js(e))
		}
	}
}

// harn.trigger.replay with steering fields (docs/spec/orchestrator.md §5:
// steer_from, to_decision, reason, applied_by, scope) returns a report
// instead of the bare handle: the request echoed, steering_applied false
// (this orchestrator keeps no run records to steer), and the replay's
// handle; with as_of too, the as-of report is included.
func TestReplaySteeringReport(t *testing.T) {
	c := newClient(t)
	c.initialize()
	eventID := get(c.ok("harn.trigger.fire", map[string]any{"trigger_id": "cron-ok", "payload": map[string]any{}}), "event_id").(string)
	rep := c.ok("harn.trigger.replay", map[string]any{"event_id": eventID, "reason": "flaky upstream", "scope": "this_run"}).(map[string]any)
	if sortedKeys(rep) != "handle replay_of_event_id steering steering_applied" || get(rep, "replay_of_event_id") != eventID ||
		!sameJSON(get(rep, "steering"), `{"reason":"flaky upstream","scope":"this_run"}`) || get(rep, "steering_applied") != false ||
		get(rep, "handle", "replay_of_event_id") != eventID || get(rep, "handle", "status") != "succeeded" {
		t.Fatalf("report %s", js(rep))
	}
	rep = c.ok("harn.trigger.replay", map[string]any{"event_id": eventID, "as_of": time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "applied_by": "ops"}).(map[string]any)
	if get(rep, "as_of_report", "binding_version_as_of") != 1.0 || get(rep, "handle", "replay_of_event_id") != eventID {
		t.Fatalf("report with as_of %s", js(rep))
	}
	c.fails("harn.trigger.replay", map[string]any{"event_id": eventID, "scope": "everyone"}, "unknown variant `everyone` for field `scope`, expected one of `this_run`, `this_persona`, `all`")
}

// stdio accepts the 2026-07-28 server/discover as well as initialize
// (docs/spec/orchestrator.md §1): the same identity, capabilities and
// instructions.
func TestServerDiscoverOnStdio(t *testing.T) {
	c := newClient(t)
	res := get(c.call("server/discover", map[string]any{"_meta": meta2026(false)}), "result")
	if !sameJSON(get(res, "_meta", "io.modelcontextprotocol/serverInfo"), `{"name":"harn-orchestrator","title":"Harn Orchestrator MCP","version":"9.9.9"}`) ||
		!sameJSON(get(res, "capabilities"), `{"tools":{"listChanged":true},"resources":{"listChanged":true},"prompts":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}},"completions":{}}`) ||
		get(res, "instructions") != "Expose Harn trigger and orchestrator controls over MCP." || js(get(res, "supportedVersions")) != `["2026-07-28"]` {
		t.Fatalf("server/discover %s", js(res))
	}
}
