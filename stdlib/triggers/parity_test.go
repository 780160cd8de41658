package triggers_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/orchestrator"
	"github.com/harnlang/harn/orchestrator/manifest"
)

// keysOf is the sorted keys of a JSON object, recursively for the
// listed nested objects ("headers" → "headers.x-harn-binding-id").
func keysOf(t *testing.T, raw []byte, nested ...string) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var out []string
	for k, v := range m {
		out = append(out, k)
		if sub, ok := v.(map[string]any); ok && slices.Contains(nested, k) {
			for sk := range sub {
				out = append(out, k+"."+sk)
			}
		}
	}
	slices.Sort(out)
	return out
}

func without(keys []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return slices.Contains(drop, k) })
}

// The event a handler receives, the handle, the DLQ entry and the list
// entry have the orchestrator's keys: the orchestrator and the
// in-script triggers fire the same trigger and the key sets are
// compared (the orchestrator's MCP caller headers and the handle's
// `attempts` are the documented differences).
func TestShapesMatchTheOrchestrator(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"harn.toml": `
[[triggers]]
id = "echo"
kind = "webhook"
tier = "suggest"
handler = "echo"

[[triggers]]
id = "fails"
kind = "manual"
handler = "fails"
retry = { max = 2, backoff = "linear", base = "1ms" }
`,
		"lib.harn": `
fn echo(event) { return event }
fn fails(event) { throw "boom" }
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(dir, "harn.toml"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := orchestrator.New(context.Background(), orchestrator.Options{Log: memory.New(), Manifest: m, StateDir: dir, Stderr: io.Discard, Poll: 10 * time.Millisecond, Bind: "test"})
	if err != nil {
		t.Fatal(err)
	}
	o.Start()
	defer o.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	caller := orchestrator.Caller{Client: "test/1", TraceID: "mcp_trace"}
	h, err := o.Fire(ctx, "echo", map[string]any{"payload": map[string]any{"n": 1}}, caller)
	if err != nil {
		t.Fatal(err)
	}
	orchHandle, _ := json.Marshal(h)
	orchEvent, _ := json.Marshal(h.Result)
	var dead orchestrator.Handle
	for dead.Status != "dlq" {
		if dead, err = o.Fire(ctx, "fails", nil, caller); err != nil {
			t.Fatal(err)
		}
		if dead.Status == "failed" { // the first attempt's handle; wait for the retry
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				if entries, _ := o.PendingDLQ(ctx); len(entries) > 0 {
					dead.Status = "dlq"
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	entries, err := o.PendingDLQ(ctx)
	if err != nil || len(entries) == 0 {
		t.Fatal(entries, err)
	}
	orchEntry, _ := json.Marshal(entries[0])
	orchAttempt, _ := json.Marshal(entries[0].RetryHistory[0])
	list, err := o.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	orchList, _ := json.Marshal(list["triggers"].([]orchestrator.TriggerInfo)[0])

	out := run(t, `
fn echo(event) { return event }
trigger_register({id: "echo", kind: "webhook", tier: "suggest", handler: echo})
trigger_register({id: "fails", kind: "manual", handler: fn(e) { throw "boom" }, retry: {max: 2, backoff: "linear", base: "1ms"}})
let h = trigger_fire("echo", {payload: {n: 1}})
println(json_stringify(h))
println(json_stringify(h.result))
trigger_fire("fails")
let d = trigger_inspect_dlq()[0]
println(json_stringify(d))
println(json_stringify(d.retry_history[0]))
println(json_stringify(trigger_list()[0]))
`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("%q", out)
	}
	for _, c := range []struct {
		what       string
		orch, mine []byte
		nested     []string
		orchOnly   []string
		mineOnly   []string
	}{
		{"handle", orchHandle, []byte(lines[0]), nil, []string{"replay_of_event_id"}, []string{"attempts"}},
		{"event", orchEvent, []byte(lines[1]), []string{"headers"}, []string{"headers.x-harn-mcp-client", "headers.x-harn-mcp-trace-id"}, nil},
		{"dlq entry", orchEntry, []byte(lines[2]), nil, nil, nil},
		{"attempt", orchAttempt, []byte(lines[3]), nil, []string{"node"}, nil},
		{"list entry", orchList, []byte(lines[4]), []string{"metrics", "handler"}, nil, nil},
	} {
		want := without(keysOf(t, c.orch, c.nested...), c.orchOnly...)
		got := without(keysOf(t, c.mine, c.nested...), c.mineOnly...)
		if !slices.Equal(got, want) {
			t.Errorf("%s keys:\n script:       %v\n orchestrator: %v", c.what, got, want)
		}
	}
}
