package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/mcp/mcptest"
	"github.com/harnlang/harn/orchestrator"
)

// Items of docs/spec/acceptance.md ("Orchestrator tools", "Resources",
// "Prompts", "Orchestrator (review additions)") that the other tests of
// this package do not pin, each driven through the server's stdio
// handler as a client sees it.

// newClientIn serves the fixture project in dir (see writeFixture),
// with options adjusted by tune.
func newClientIn(t *testing.T, dir string, tune func(*Options)) *client {
	t.Helper()
	stderr := &mcptest.SyncBuffer{}
	log := memory.New()
	opts := Options{ManifestPath: filepath.Join(dir, "harn.toml"), StateDir: dir, Log: log, Version: "9.9.9", Bind: "stdio", Stderr: stderr,
		Node: orchestrator.Options{Poll: 10 * time.Millisecond}}
	if tune != nil {
		tune(&opts)
	}
	srv, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &client{Pipe: mcptest.Start(t, srv.ServeStdio), t: t, stderr: stderr, srv: srv, log: log, root: dir}
}

// meta2026 is the _meta of a 2026-07-28 request, opting into tasks when
// tasks is set.
func meta2026(tasks bool) map[string]any {
	caps := map[string]any{}
	if tasks {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	return map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": map[string]any{"name": "modern", "version": "2"},
		"io.modelcontextprotocol/clientCapabilities": caps}
}

// Items 216 and 287: every tool's annotation preset, and
// execution.taskSupport on exactly fire, replay and dlq.retry.
func TestAcceptanceToolAnnotations(t *testing.T) {
	c := newClient(t)
	c.initialize()
	mutating := []string{"harn.trigger.fire", "harn.trigger.replay", "harn.orchestrator.dlq.retry"}
	tools := get(c.call("tools/list", nil), "result", "tools").([]any)
	if len(tools) != 9 {
		t.Fatalf("%d tools", len(tools))
	}
	for _, x := range tools {
		name := get(x, "name").(string)
		a := get(x, "annotations")
		if slices.Contains(mutating, name) {
			if get(a, "readOnlyHint") != false || get(a, "destructiveHint") != true || get(a, "idempotentHint") != false || get(a, "openWorldHint") != true || js(get(x, "execution")) != `{"taskSupport":"optional"}` {
				t.Errorf("%s: %s", name, js(x))
			}
		} else if get(a, "readOnlyHint") != true || get(a, "destructiveHint") != false || get(a, "idempotentHint") != true || get(a, "openWorldHint") != false || get(x, "execution") != nil {
			t.Errorf("%s: %s", name, js(x))
		}
		if get(x, "title") != get(a, "title") || get(x, "title") == nil {
			t.Errorf("%s: title %v, annotations.title %v", name, get(x, "title"), get(a, "title"))
		}
	}
}

// Items 219, 220, 224, 226, 227 and 288.
func TestAcceptanceToolResults(t *testing.T) {
	dir := writeFixture(t)
	// Item 220 names retry = { max = 1 }: one attempt in all.
	src := strings.Replace(fixtureManifest, "retry = { max = 0 }", "retry = { max = 1 }", 1)
	if err := os.WriteFile(filepath.Join(dir, "harn.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClientIn(t, dir, nil)
	c.initialize()
	fired := c.ok("harn.trigger.fire", map[string]any{"trigger_id": "cron-ok", "payload": map[string]any{}})
	eventID, _ := get(fired, "event_id").(string)
	if !strings.HasPrefix(eventID, "trigger_evt_") || get(fired, "status") != "succeeded" {
		t.Fatalf("fire %s", js(fired))
	}
	// docs/spec/orchestrator.md §5.1: the handle's keys, and the list's.
	if got := sortedKeys(fired.(map[string]any)); got != "binding_id binding_version dlq_entry_id error event_id result status" {
		t.Errorf("fire handle keys %s", got)
	}
	listed := get(c.ok("harn.trigger.list", map[string]any{}), "triggers", 0).(map[string]any)
	if got := sortedKeys(listed); got != "handler kind metrics provider state trigger_id version when" {
		t.Errorf("trigger.list keys %s", got)
	}
	if got := sortedKeys(listed["metrics"].(map[string]any)); got != "autonomous_decisions_hour autonomous_decisions_today autonomous_decisions_total cost_hour_usd_micros cost_today_usd_micros cost_total_usd_micros dispatched dlq failed in_flight last_received_ms received" {
		t.Errorf("trigger.list metrics keys %s", got)
	}
	dead := c.ok("harn.trigger.fire", map[string]any{"trigger_id": "cron-fail", "payload": map[string]any{}})
	entryID, _ := get(dead, "dlq_entry_id").(string)
	if get(dead, "status") != "dlq" || !strings.HasPrefix(entryID, "dlq_") {
		t.Fatalf("retry = { max = 1 }: %s", js(dead))
	}
	entries := get(c.ok("harn.orchestrator.dlq.list", map[string]any{}), "entries").([]any)
	if len(entries) != 1 || get(entries, 0, "id") != entryID || get(entries, 0, "error") != "boom" || len(get(entries, 0, "retry_history").([]any)) != 1 {
		t.Fatalf("dlq.list %s", js(entries))
	}
	// docs/spec/orchestrator.md §5.1: the entry has exactly these keys.
	if got := sortedKeys(get(entries, 0).(map[string]any)); got != "binding_id binding_version error error_class event event_id id kind provider retry_history state" {
		t.Errorf("DLQ entry keys %s", got)
	}
	for i := 0; i < 6; i++ { // more than five records on each topic
		c.ok("harn.trigger.fire", map[string]any{"trigger_id": "cron-ok", "payload": map[string]any{}})
	}
	queue := c.ok("harn.orchestrator.queue", map[string]any{}).(map[string]any)
	if got := sortedKeys(queue); got != "attempts dispatcher dlq inbox outbox" {
		t.Errorf("queue keys %s", got)
	}
	if got := sortedKeys(get(queue, "inbox", "head", 0).(map[string]any)); got != "event_id headers kind occurred_at_ms payload" {
		t.Errorf("queue head keys %s", got)
	}
	if !sameJSON(get(queue, "dispatcher"), `{"in_flight":0,"retry_queue_depth":0,"dlq_depth":1}`) {
		t.Errorf("queue dispatcher %s", js(get(queue, "dispatcher")))
	}
	for _, topic := range []string{"inbox", "outbox", "attempts", "dlq"} {
		n, _ := get(queue, topic, "count").(float64)
		head, ok := get(queue, topic, "head").([]any)
		if !ok || n < 1 || len(head) > 5 || (n > 5 && len(head) != 5) {
			t.Errorf("queue %s: count %v, head of %d", topic, get(queue, topic, "count"), len(head))
		}
	}
	insp := c.ok("harn.orchestrator.inspect", map[string]any{}).(map[string]any)
	// docs/spec/orchestrator.md §5.1: exactly these keys.
	if got := sortedKeys(insp); got != "activations budget connectors dispatcher recent_dispatches snapshot triggers" {
		t.Errorf("inspect keys %s: %s", got, js(insp))
	}
	retried := c.ok("harn.orchestrator.dlq.retry", map[string]any{"entry_id": entryID}).(map[string]any)
	if got := sortedKeys(retried); got != "entry_id handle" || retried["entry_id"] != entryID || get(retried, "handle", "replay_of_event_id") != get(dead, "event_id") {
		t.Errorf("dlq.retry %s", js(retried))
	}
	trust := c.tool("harn.trust.query", map[string]any{})
	if js(trust["structuredContent"]) != `{"results":[]}` {
		t.Errorf("trust.query %s", js(trust))
	}
	// Without the tasks opt-in a 2026-07-28 replay answers inline (on
	// a connection with no released session).
	c = newClientIn(t, dir, nil)
	fire := c.call("tools/call", map[string]any{"name": "harn.trigger.fire", "arguments": map[string]any{"trigger_id": "cron-ok", "payload": map[string]any{}}, "_meta": meta2026(false)})
	eventID, _ = get(fire, "result", "structuredContent", "event_id").(string)
	replay := c.call("tools/call", map[string]any{"name": "harn.trigger.replay", "arguments": map[string]any{"event_id": eventID}, "_meta": meta2026(false)})
	if get(replay, "result", "resultType") != "complete" || get(replay, "result", "structuredContent", "replay_of_event_id") != eventID {
		t.Errorf("replay without tasks %s", js(replay))
	}
	if got := sortedKeys(get(replay, "result", "structuredContent").(map[string]any)); got != "binding_id binding_version dlq_entry_id error event_id replay_of_event_id result status" {
		t.Errorf("replay handle keys %s", got)
	}

}

// Items 240 and 245: the event resource's shape, and completion of
// recorded event ids.
func TestAcceptanceEventResource(t *testing.T) {
	c := newClient(t)
	c.initialize()
	eventID := get(c.ok("harn.trigger.fire", map[string]any{"trigger_id": "cron-ok", "payload": map[string]any{}}), "event_id").(string)
	var found bool
	for _, r := range get(c.call("resources/list", nil), "result", "resources").([]any) {
		found = found || get(r, "uri") == "harn://event/"+eventID
	}
	if !found {
		t.Fatalf("harn://event/%s not listed", eventID)
	}
	text := get(c.call("resources/read", map[string]any{"uri": "harn://event/" + eventID}), "result", "contents", 0, "text").(string)
	var ev map[string]any
	json.Unmarshal([]byte(text), &ev)
	if get(ev, "binding_id") != "cron-ok" || get(ev, "event", "id") != eventID {
		t.Errorf("event %s", text)
	}
	for _, k := range []string{"outbox", "attempts", "dlq", "action_graph"} {
		if _, ok := get(ev, "trace", k).([]any); !ok {
			t.Errorf("trace.%s missing: %s", k, text)
		}
	}
	// docs/spec/orchestrator.md §6: the document's keys, the trace's, and
	// each related record's.
	if got := sortedKeys(ev); got != "binding_id binding_version event log_event_id replay_of_event_id trace" {
		t.Errorf("event keys %s", got)
	}
	if got := sortedKeys(get(ev, "trace").(map[string]any)); got != "action_graph attempts dlq outbox trace_id" {
		t.Errorf("trace keys %s", got)
	}
	if rec, ok := get(ev, "trace", "attempts", 0).(map[string]any); !ok || sortedKeys(rec) != "headers id kind occurred_at_ms payload" {
		t.Errorf("trace record %s", js(get(ev, "trace", "attempts")))
	}
	if get(ev, "trace", "trace_id") != get(ev, "event", "trace_id") || get(ev, "trace", "trace_id") == nil {
		t.Errorf("trace id %v, event's %v", get(ev, "trace", "trace_id"), get(ev, "event", "trace_id"))
	}
	vals := get(c.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "harn://event/{event_id}"}, "argument": map[string]any{"name": "event_id", "value": ""}}), "result", "completion", "values")
	if js(vals) != `["`+eventID+`"]` {
		t.Errorf("event id completion %s", js(vals))
	}
}

// Items 255, 256 and 258: prompt completion by prefix, the directories
// discovery skips, and pagination of the catalog lists.
func TestAcceptancePromptsAndPaging(t *testing.T) {
	dir := writeFixture(t)
	for _, skipped := range []string{".git", "node_modules", "target", ".cache", "dist", ".harn"} {
		p := filepath.Join(dir, skipped, "hidden.harn.prompt")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("Hidden {{ x }}"), 0o644)
	}
	c := newClientIn(t, dir, func(o *Options) { o.PageSize = 1 })
	c.initialize()
	var names []string
	cursor := ""
	for pages := 0; ; pages++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res := c.call("prompts/list", params)
		for _, p := range get(res, "result", "prompts").([]any) {
			names = append(names, get(p, "name").(string))
		}
		next, _ := get(res, "result", "nextCursor").(string)
		if next == "" {
			break
		}
		if pages > 10 {
			t.Fatal("prompts/list does not end")
		}
		cursor = next
	}
	if strings.Join(names, " ") != "prompts/inferred review" {
		t.Errorf("prompts %v (hidden directories must be skipped)", names)
	}
	for _, m := range []string{"resources/list", "resources/templates/list"} {
		res := c.call(m, nil)
		if next, _ := get(res, "result", "nextCursor").(string); next == "" {
			t.Errorf("%s with page size 1: no nextCursor: %s", m, js(res))
		}
	}
	vals := get(c.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "review"}, "argument": map[string]any{"name": "language", "value": "ty"}}), "result", "completion", "values")
	if js(vals) != `["typescript"]` {
		t.Errorf("language completion %s", js(vals))
	}
}

// Item 257: a prompt file added while the server runs is listed next
// time and announced with notifications/prompts/list_changed.
func TestAcceptancePromptAddedWhileRunning(t *testing.T) {
	c := newClient(t)
	c.initialize()
	// A round trip: the server has seen notifications/initialized, so
	// the connection is ready for notifications.
	if names := js(get(c.call("prompts/list", nil), "result", "prompts")); strings.Contains(names, `"added"`) {
		t.Fatalf("prompts %s", names)
	}
	// The watcher's callback, with the snapshots it would take.
	before := c.srv.snapshot()
	os.WriteFile(filepath.Join(c.root, "added.harn.prompt"), []byte("Added {{ topic }}"), 0o644)
	c.srv.changed(before, c.srv.snapshot())
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := 0
		for _, x := range c.Notifications() {
			if x["method"] == "notifications/prompts/list_changed" {
				n++
			}
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no prompts/list_changed: %v", c.Notifications())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var names []string
	for _, p := range get(c.call("prompts/list", nil), "result", "prompts").([]any) {
		names = append(names, get(p, "name").(string))
	}
	if !slices.Contains(names, "added") {
		t.Fatalf("prompts %v", names)
	}
}

// Items 228, 238 and 244: the scan under its listed name, the manifest
// resource's media type in the list, and exactly the three templates.
func TestAcceptanceScanManifestTemplates(t *testing.T) {
	c := newClient(t)
	c.initialize()
	findings := c.ok("harn.secret_scan", map[string]any{"content": `token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"`})
	if !sameJSON(findings, `[{"detector":"github-token","source":"gitleaks","title":"GitHub token","line":1,"column_start":10,"column_end":52,"start_offset":9,"end_offset":51,"redacted":"ghp_…yzAB","fingerprint":"c2f9a2618fbd63dd"}]`) {
		t.Errorf("scan %s", js(findings))
	}
	first := get(c.call("resources/list", nil), "result", "resources", 0)
	if !sameJSON(first, `{"uri":"harn://manifest","name":"Manifest","description":"The running orchestrator manifest","mimeType":"application/toml"}`) {
		t.Errorf("resources/list[0] %s", js(first))
	}
	var uris []string
	for _, x := range get(c.call("resources/templates/list", nil), "result", "resourceTemplates").([]any) {
		uris = append(uris, get(x, "uriTemplate").(string))
	}
	if strings.Join(uris, " ") != "harn://topic/{name} harn://event/{event_id} harn://dlq/{entry_id}" {
		t.Errorf("templates %v", uris)
	}
}

// A prompt file added after New but before Watch runs (as harn mcp
// serve starts its watcher on a goroutine) is still a change: the
// watcher starts from the project New loaded, not from its own first
// look.
func TestWatchSeesAnEditBeforeItStarts(t *testing.T) {
	c := newClient(t)
	c.initialize()
	c.call("prompts/list", nil) // the connection is ready for notifications
	os.WriteFile(filepath.Join(c.root, "early.harn.prompt"), []byte("Early {{ x }}"), 0o644)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { c.srv.Watch(stop); close(done) }()
	defer func() { close(stop); <-done }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, x := range c.Notifications() {
			if x["method"] == "notifications/prompts/list_changed" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no prompts/list_changed for a prompt added before Watch: %v", c.Notifications())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sortedKeys is an object's keys, sorted and space-separated.
func sortedKeys(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, " ")
}
