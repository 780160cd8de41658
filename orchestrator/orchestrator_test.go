package orchestrator

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator/manifest"
)

const testManifest = `
[package]
name = "fixture"

[exports]
handlers = "handlers.harn"

[[triggers]]
id = "cron-ok"
kind = "cron"
schedule = "0 0 1 1 *"
handler = "handlers::on_ok"

[[triggers]]
id = "always-fails"
kind = "manual"
handler = "boom"
retry = { max = 3, backoff = "linear", base = "1ms" }

[[triggers]]
id = "no-retry"
kind = "manual"
handler = "boom"
retry = { max = 0 }

[[triggers]]
id = "flaky"
kind = "manual"
handler = "flaky"
retry = { max = 3, backoff = "exponential", base = "1ms" }

[[triggers]]
id = "picky"
kind = "manual"
handler = "echo"
when = "handlers::wanted"

[[triggers]]
id = "queued"
kind = "manual"
handler = "worker://triage"

[[triggers]]
id = "solo"
kind = "manual"
handler = "slow"
singleton = true
`

const testLib = `
let calls = 0

fn boom(event) {
  throw "boom: " + event.kind
}

fn flaky(event) {
  calls = calls + 1
  if calls < 3 { throw "not yet" }
  return {ok: true, calls: calls}
}

fn echo(event) { return event.payload }

fn slow(event) {
  sleep(3000)
  return "done"
}

fn helper() { return 1 }
`

const testHandlers = `
pub fn on_ok(event) { return {ok: true, kind: event.kind} }
pub fn wanted(event) { return event.payload.want == true }
`

// project writes a fixture project and returns its manifest path.
func writeProject(t *testing.T, manifestSrc, lib, handlers string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("harn.toml", manifestSrc)
	write("lib.harn", lib)
	write("handlers.harn", handlers)
	return filepath.Join(dir, "harn.toml")
}

func start(t *testing.T, log eventlog.Log, path string) *Orchestrator {
	t.Helper()
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := New(context.Background(), Options{Log: log, Manifest: m, StateDir: filepath.Dir(path), Stderr: io.Discard, Poll: 10 * time.Millisecond, Bind: "test"})
	if err != nil {
		t.Fatal(err)
	}
	o.Start()
	t.Cleanup(func() { o.Close() })
	return o
}

func fire(t *testing.T, o *Orchestrator, id string, payload any) Handle {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := o.Fire(ctx, id, payload, Caller{Client: "test/1", TraceID: "mcp_trace"})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestFireSucceeds(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, testManifest, testLib, testHandlers))
	h := fire(t, o, "cron-ok", map[string]any{"note": "hi"})
	if h.Status != "succeeded" || js(h.Result) != `{"kind":"cron.tick","ok":true}` || h.BindingVersion != 1 || !strings.HasPrefix(h.EventID, "trigger_evt_") {
		t.Fatalf("%+v", h)
	}
	ev, err := o.Event(context.Background(), h.EventID)
	if err != nil || ev == nil {
		t.Fatal(ev, err)
	}
	hdr := ev.Event["headers"].(map[string]any)
	if ev.Event["note"] != "hi" || hdr["x-harn-mcp-client"] != "test/1" || hdr["x-harn-mcp-trace-id"] != "mcp_trace" || hdr["x-harn-synthetic"] != "true" || ev.Event["trace_id"] != "mcp_trace" {
		t.Fatalf("event %s", js(ev.Event))
	}
	if len(ev.Trace.Outbox) != 1 || len(ev.Trace.Attempts) != 1 {
		t.Fatalf("trace %s", js(ev.Trace))
	}
	list, _ := o.List(context.Background())
	first := list["triggers"].([]TriggerInfo)[0]
	if first.Metrics.Received != 1 || first.Metrics.Dispatched != 1 || js(first.Handler) != `{"kind":"local","reference":"handlers::on_ok"}` || first.State != "active" {
		t.Fatalf("list %s", js(first))
	}
	if _, err := o.Fire(context.Background(), "nope", nil, Caller{}); err == nil || err.Error() != "unknown manifest binding 'nope'" {
		t.Fatalf("unknown: %v", err)
	}
}

func TestRetryThenDLQThenRetryDLQ(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, testManifest, testLib, testHandlers))
	h := fire(t, o, "no-retry", nil)
	if h.Status != "dlq" || h.DLQEntryID == nil || *h.Error != "boom: manual" {
		t.Fatalf("%s", js(h))
	}
	h = fire(t, o, "always-fails", nil)
	if h.Status != "failed" {
		t.Fatalf("first attempt: %s", js(h))
	}
	// Two retries follow in the background, then the DLQ.
	deadline := time.Now().Add(10 * time.Second)
	var entries []DLQEntry
	for time.Now().Before(deadline) {
		entries, _ = o.PendingDLQ(context.Background())
		if len(entries) == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(entries) != 2 {
		t.Fatalf("dlq %s", js(entries))
	}
	var e DLQEntry
	for _, x := range entries {
		if x.EventID == h.EventID {
			e = x
		}
	}
	if e.ErrorClass != "handler_panic" || e.State != "pending" || len(e.RetryHistory) != 3 || e.RetryHistory[2].Attempt != 3 || e.Kind != "manual" || e.Provider != "manual" {
		t.Fatalf("entry %s", js(e))
	}
	attempts, _ := log.Count(context.Background(), TopicAttempts)
	if attempts != 4 {
		t.Fatalf("attempts %d", attempts)
	}
	r, err := o.RetryDLQ(context.Background(), e.ID, Caller{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Handle.ReplayOfEventID == nil || *r.Handle.ReplayOfEventID != h.EventID || r.Handle.Status != "failed" {
		t.Fatalf("retry %s", js(r))
	}
	if _, err := o.RetryDLQ(context.Background(), e.ID, Caller{}); err == nil || !strings.Contains(err.Error(), "unknown pending DLQ entry") {
		t.Fatalf("second retry: %v", err)
	}
	ev, _ := o.Event(context.Background(), r.Handle.EventID)
	if len(ev.Trace.ActionGraph) != 1 || ev.Trace.ActionGraph[0]["kind"] != "replay_chain" {
		t.Fatalf("link %s", js(ev.Trace))
	}
}

func TestFlakyRecovers(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, testManifest, testLib, testHandlers))
	h := fire(t, o, "flaky", nil)
	if h.Status != "failed" {
		t.Fatalf("%s", js(h))
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		list, _ := o.List(context.Background())
		for _, ti := range list["triggers"].([]TriggerInfo) {
			if ti.TriggerID == "flaky" && ti.Metrics.Dispatched == 1 {
				if ti.Metrics.Failed != 2 {
					t.Fatalf("%s", js(ti))
				}
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("flaky never succeeded")
}

func TestPredicateWorkerAndReplay(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, testManifest, testLib, testHandlers))
	if h := fire(t, o, "picky", map[string]any{"payload": map[string]any{"want": false}}); h.Status != "skipped" {
		t.Fatalf("%s", js(h))
	}
	h := fire(t, o, "picky", map[string]any{"payload": map[string]any{"want": true}})
	if h.Status != "succeeded" || js(h.Result) != `{"want":true}` {
		t.Fatalf("%s", js(h))
	}
	w := fire(t, o, "queued", nil)
	if w.Status != "succeeded" || w.Result.(map[string]any)["queue"] != "triage" {
		t.Fatalf("%s", js(w))
	}
	if n, _ := log.Count(context.Background(), "worker.triage"); n != 1 {
		t.Fatalf("worker jobs %d", n)
	}
	r, err := o.Replay(context.Background(), h.EventID, nil, Caller{})
	if err != nil {
		t.Fatal(err)
	}
	rh := r.(Handle)
	if rh.Status != "succeeded" || *rh.ReplayOfEventID != h.EventID || rh.EventID == h.EventID {
		t.Fatalf("%s", js(rh))
	}
	past := time.Now().Add(-time.Hour)
	if _, err := o.Replay(context.Background(), h.EventID, &past, Caller{}); err == nil || !strings.Contains(err.Error(), "was not registered at") {
		t.Fatalf("as of before the binding existed: %v", err)
	}
	now := time.Now()
	rep, _ := o.Replay(context.Background(), h.EventID, &now, Caller{})
	if rr := rep.(ReplayReport); rr.BindingVersionAsOf == nil || *rr.BindingVersionAsOf != 1 || rr.DefinitionChanged {
		t.Fatalf("%s", js(rr))
	}
	if _, err := o.Replay(context.Background(), "trigger_evt_x", nil, Caller{}); err == nil || err.Error() != "unknown trigger event id 'trigger_evt_x'" {
		t.Fatal(err)
	}
}

func TestSingletonSkipsOverlap(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, testManifest, testLib, testHandlers))
	first := make(chan Handle, 1)
	go func() { first <- fire(t, o, "solo", nil) }()
	// Once the first event runs (its handler sleeps 3 s), a second one of
	// the same singleton partition is skipped.
	deadline := time.Now().Add(20 * time.Second)
	for o.bindingInFlight("solo").Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("first event never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if h := fire(t, o, "solo", nil); h.Status != "skipped" {
		t.Fatalf("second: %s", js(h))
	}
	if h := <-first; h.Status != "succeeded" {
		t.Fatalf("first: %s", js(h))
	}
	insp, _ := o.Inspect(context.Background())
	if !strings.Contains(js(insp), `"singleton":{"state":{"waited":0,"skipped":1,"running":0}}`) {
		t.Fatalf("inspect %s", js(insp))
	}
}

// TestVersionsAndLifecycle: a changed definition is a new version; a
// removed binding is terminated; an unchanged one keeps its version.
func TestVersionsAndLifecycle(t *testing.T) {
	log := memory.New()
	path := writeProject(t, testManifest, testLib, testHandlers)
	o := start(t, log, path)
	if o.Binding("cron-ok").Version != 1 {
		t.Fatal("v1")
	}
	changed := strings.Replace(testManifest, `schedule = "0 0 1 1 *"`, `schedule = "0 0 2 1 *"`, 1)
	changed = strings.Replace(changed, "[[triggers]]\nid = \"queued\"", "[[triggers]]\nid = \"queued-renamed\"", 1)
	m, err := manifest.Parse(path, []byte(changed))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Reload(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if o.Binding("cron-ok").Version != 2 || o.Binding("flaky").Version != 1 {
		t.Fatalf("versions %d %d", o.Binding("cron-ok").Version, o.Binding("flaky").Version)
	}
	recs, _ := log.Read(context.Background(), TopicLifecycle, 0, 0)
	var kinds []string
	for _, r := range recs[7:] {
		kinds = append(kinds, r.Kind+":"+r.Headers["binding_id"])
	}
	if strings.Join(kinds, " ") != "binding_registered:cron-ok binding_registered:queued-renamed binding_terminated:queued" {
		t.Fatalf("lifecycle %v", kinds)
	}
	snap, err := os.ReadFile(filepath.Join(filepath.Dir(path), SnapshotFile))
	if err != nil || !strings.Contains(string(snap), `"queued-renamed"`) || !strings.Contains(string(snap), `"status": "running"`) {
		t.Fatalf("snapshot %s %v", snap, err)
	}
}

func TestUnresolvableHandlers(t *testing.T) {
	src := "[[triggers]]\nid = \"a\"\nkind = \"manual\"\nhandler = \"missing\"\n\n[[triggers]]\nid = \"b\"\nkind = \"manual\"\nhandler = \"helper_value\"\n" +
		"\n[[triggers]]\nid = \"c\"\nkind = \"manual\"\nhandler = \"three\"\n\n[[triggers]]\nid = \"d\"\nkind = \"manual\"\nhandler = \"two_and_default\"\n"
	path := writeProject(t, src, "let helper_value = 3\nfn three(a, b, c) { return 1 }\nfn two_and_default(e, s, extra = 1) { return 2 }\n", "")
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(context.Background(), Options{Log: memory.New(), Manifest: m, Stderr: io.Discard})
	if err == nil {
		t.Fatal("accepted")
	}
	want := []string{`[[triggers]][0] (id "a"): handler: function missing is not defined in lib.harn`, `[[triggers]][1] (id "b"): handler: helper_value in lib.harn is not a function`,
		`[[triggers]][2] (id "c"): handler: three in lib.harn takes 3 parameters; it is called with (event) or (event, secrets)`}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in %v", w, err)
		}
	}
	if strings.Contains(err.Error(), `(id "d")`) {
		t.Errorf("a third parameter with a default was refused: %v", err)
	}
	path = writeProject(t, src, "fn broken( {", "")
	m, _ = manifest.Load(path)
	_, err = New(context.Background(), Options{Log: memory.New(), Manifest: m, Stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "handler: cannot load") {
		t.Fatalf("syntax error: %v", err)
	}
}

// TestSQLiteRestart: on the SQLite log, the DLQ, recorded events and
// binding versions survive a restart of the node, and replay and DLQ
// retry work on the events of the earlier process.
func TestSQLiteRestart(t *testing.T) {
	path := writeProject(t, testManifest, testLib, testHandlers)
	db := filepath.Join(t.TempDir(), "events.sqlite")
	open := func() eventlog.Log {
		l, err := sqlite.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	log1 := open()
	o1 := start(t, log1, path)
	ok := fire(t, o1, "cron-ok", nil)
	dead := fire(t, o1, "no-retry", nil)
	o1.Close()
	log1.Close()

	log2 := open()
	defer log2.Close()
	o2 := start(t, log2, path)
	if o2.Binding("cron-ok").Version != 1 {
		t.Fatal("version changed across restart")
	}
	entries, _ := o2.PendingDLQ(context.Background())
	if len(entries) != 1 || entries[0].ID != *dead.DLQEntryID {
		t.Fatalf("dlq %s", js(entries))
	}
	r, err := o2.Replay(context.Background(), ok.EventID, nil, Caller{})
	if err != nil || r.(Handle).Status != "succeeded" {
		t.Fatalf("%v %v", r, err)
	}
	if _, err := o2.RetryDLQ(context.Background(), entries[0].ID, Caller{}); err != nil {
		t.Fatal(err)
	}
	list, _ := o2.List(context.Background())
	if m := list["triggers"].([]TriggerInfo)[0].Metrics; m.Received != 2 || m.Dispatched != 2 {
		t.Fatalf("metrics %s", js(m))
	}
}

// TestDLQRetention: a pending entry older than retry.retention_days is
// purged (a tombstone), younger ones stay.
func TestDLQRetention(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, testManifest, testLib, testHandlers))
	h := fire(t, o, "no-retry", nil)
	o.purgeExpiredDLQ(context.Background(), time.Now())
	if entries, _ := o.PendingDLQ(context.Background()); len(entries) != 1 {
		t.Fatalf("purged too early: %s", js(entries))
	}
	o.purgeExpiredDLQ(context.Background(), time.Now().Add(8*24*time.Hour))
	if entries, _ := o.PendingDLQ(context.Background()); len(entries) != 0 {
		t.Fatalf("not purged: %s", js(entries))
	}
	recs, _ := log.Read(context.Background(), TopicDLQ, 0, 0)
	if last := recs[len(recs)-1]; last.Kind != "dlq_purged" || last.Headers["entry_id"] != *h.DLQEntryID {
		t.Fatalf("tombstone %+v", last)
	}
}

// TestCloseDrainTimeout: Close does not wait past DrainTimeout for a
// handler that does not end.
func TestCloseDrainTimeout(t *testing.T) {
	path := writeProject(t, "[[triggers]]\nid = \"stuck\"\nkind = \"manual\"\nhandler = \"stuck\"\n", "fn stuck(event) { sleep(60000) }\n", "")
	m, _ := manifest.Load(path)
	var stderr strings.Builder
	o, err := New(context.Background(), Options{Log: memory.New(), Manifest: m, Stderr: &syncWriter{w: &stderr}, Poll: 10 * time.Millisecond, DrainTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	o.Start()
	ctx, cancel := context.WithCancel(context.Background())
	go o.Fire(ctx, "stuck", nil, Caller{})
	deadline := time.Now().Add(20 * time.Second)
	for o.inFlight.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	o.Close()
	cancel()
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Close took %s", d)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// claimCounter is a memory log whose inbox counts the deliveries Claim
// hands out.
type claimCounter struct {
	*memory.Log
	mu      sync.Mutex
	claimed []string
}

func (c *claimCounter) Inbox() eventlog.Inbox { return c }

func (c *claimCounter) Claim(ctx context.Context, owner string, n int, ttl time.Duration) ([]eventlog.Lease, error) {
	ls, err := c.Log.Claim(ctx, owner, n, ttl)
	c.mu.Lock()
	for _, l := range ls {
		c.claimed = append(c.claimed, l.ID)
	}
	c.mu.Unlock()
	return ls, err
}

// A fired event that a free worker of the node can run is accepted
// already leased to the node and runs without a Claim; a failed attempt
// goes back to the inbox and its retries are claimed as usual.
func TestFireRunsWithoutClaim(t *testing.T) {
	log := &claimCounter{Log: memory.New()}
	o := start(t, log, writeProject(t, testManifest, testLib, testHandlers))
	h := fire(t, o, "cron-ok", nil)
	if h.Status != "succeeded" {
		t.Fatalf("%+v", h)
	}
	d, err := log.Get(context.Background(), h.EventID)
	if err != nil || d.State != eventlog.Done || d.Attempts != 1 {
		t.Fatalf("delivery %+v, %v", d, err)
	}
	h = fire(t, o, "flaky", nil)
	if h.Status != "failed" {
		t.Fatalf("first attempt of flaky: %+v", h)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, _ := log.Get(context.Background(), h.EventID)
		if d.State == eventlog.Done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("flaky never succeeded: %+v", d)
		}
		time.Sleep(5 * time.Millisecond)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if want := []string{h.EventID, h.EventID}; !slices.Equal(log.claimed, want) {
		t.Errorf("claimed %v, want only flaky's two retries %v", log.claimed, want)
	}
}

// A trace id is mcp_ and a uuidv7 as 32 lowercase hex digits, and each
// is new.
func TestNewTraceID(t *testing.T) {
	a, b := NewTraceID(), NewTraceID()
	for _, id := range []string{a, b} {
		hex, ok := strings.CutPrefix(id, "mcp_")
		if !ok || len(hex) != 32 || strings.Trim(hex, "0123456789abcdef") != "" || hex[12] != '7' {
			t.Errorf("trace id %q is not mcp_ and a uuidv7 in 32 hex digits", id)
		}
	}
	if a == b {
		t.Errorf("two trace ids are both %q", a)
	}
}

// inboxGetSignal is a log whose Inbox().Get signals on got.
type inboxGetSignal struct {
	eventlog.Log
	got chan struct{}
}

func (l inboxGetSignal) Inbox() eventlog.Inbox { return inboxGetSignalled{l.Log.Inbox(), l.got} }

type inboxGetSignalled struct {
	eventlog.Inbox
	got chan struct{}
}

func (i inboxGetSignalled) Get(ctx context.Context, id string) (eventlog.Delivery, error) {
	select {
	case i.got <- struct{}{}:
	default:
	}
	return i.Inbox.Get(ctx, id)
}

// A caller whose idempotency key another caller accepted first (two
// racing dlq.retry calls of one entry) waits for the same first attempt
// in the log; it used to return at once with status "waiting".
func TestDuplicateDispatchWaitsForTheFirstAttempt(t *testing.T) {
	ctx := context.Background()
	log := inboxGetSignal{Log: memory.New(), got: make(chan struct{}, 1)}
	m, err := manifest.Load(writeProject(t, testManifest, testLib, testHandlers))
	if err != nil {
		t.Fatal(err)
	}
	o, err := New(ctx, Options{Log: log, Manifest: m, Stderr: io.Discard, Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	b := o.Binding("cron-ok")
	env := Envelope{Source: "manual", Event: map[string]any{"provider": "cron", "kind": "cron.tick"}}
	first, err := o.Accept(ctx, b, env, "same-key") // not run yet: the node has not started
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Handle, 1)
	go func() {
		h, err := o.Dispatch(ctx, b, env, "same-key")
		if err != nil {
			t.Error(err)
		}
		done <- h
	}()
	select {
	case <-log.got: // the duplicate looks for the first attempt in the log
	case h := <-done:
		t.Fatalf("the duplicate returned before the first attempt: %+v", h)
	}
	o.Start()
	h := <-done
	if !h.Duplicate || h.EventID != first.Envelope.EventID || h.Status != "succeeded" {
		t.Fatalf("duplicate handle %+v, want the first event's (%s) succeeded attempt", h, first.Envelope.EventID)
	}
}

// A node that cannot run an event it accepted (here: not started) waits
// for the node that does; the log knows a keyed delivery (dlq-retry/…,
// cron/…) by its key, not by the event id, and the waiting node looked
// it up by the event id: it never saw the outcome.
func TestDispatchWaitsForAnotherNodeByKey(t *testing.T) {
	log := memory.New()
	path := writeProject(t, testManifest, testLib, testHandlers)
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := New(context.Background(), Options{Log: log, Manifest: m, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idle.Close() })
	start(t, log, path) // the node that runs it
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := idle.Dispatch(ctx, idle.Binding("cron-ok"), Envelope{Source: "manual"}, "keyed/1")
	if err != nil || h.Status != "succeeded" || h.Duplicate {
		t.Fatalf("handle %+v, %v", h, err)
	}
}

// harn.trigger.list reports each handler form as docs/spec/orchestrator.md
// §2's table shows it, `when` as the raw predicate reference or null,
// and a manual-only trigger as kind and provider "manual".
func TestListHandlerForms(t *testing.T) {
	src := testManifest + `
[[triggers]]
id = "agent"
kind = "manual"
handler = "a2a://reviewer.prod/triage"
`
	o := start(t, memory.New(), writeProject(t, src, testLib, testHandlers))
	list, err := o.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TriggerInfo{}
	for _, ti := range list["triggers"].([]TriggerInfo) {
		got[ti.TriggerID] = ti
	}
	for id, want := range map[string]string{
		"cron-ok":  `{"kind":"local","reference":"handlers::on_ok"}`,
		"no-retry": `{"kind":"local","reference":"boom"}`,
		"queued":   `{"kind":"worker","queue":"triage"}`,
		"agent":    `{"kind":"a2a","target":"reviewer.prod/triage"}`,
	} {
		if js(got[id].Handler) != want {
			t.Errorf("%s: handler %s, want %s", id, js(got[id].Handler), want)
		}
	}
	if w := got["picky"].When; w == nil || *w != "handlers::wanted" || got["cron-ok"].When != nil {
		t.Errorf("when: picky %v, cron-ok %v", got["picky"].When, got["cron-ok"].When)
	}
	if m := got["no-retry"]; m.Kind != "manual" || m.Provider != "manual" {
		t.Errorf("manual trigger: kind %q provider %q", m.Kind, m.Provider)
	}
}

// orchestrator-state.json has the shape of docs/spec/orchestrator.md §4:
// {status, bind, triggers, connectors, activations}, each trigger
// {id, provider, kind, handler, version, state, received, dispatched,
// failed, in_flight}; a closed node's status is "stopped".
func TestSnapshotShape(t *testing.T) {
	path := writeProject(t, testManifest, testLib, testHandlers)
	o := start(t, memory.New(), path)
	fire(t, o, "cron-ok", nil)
	o.Close()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(path), SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Status      string           `json:"status"`
		Bind        string           `json:"bind"`
		Triggers    []map[string]any `json:"triggers"`
		Connectors  []string         `json:"connectors"`
		Activations []map[string]any `json:"activations"`
	}
	var top map[string]any
	if json.Unmarshal(b, &snap) != nil || json.Unmarshal(b, &top) != nil {
		t.Fatalf("snapshot %s", b)
	}
	keys := func(m map[string]any) string {
		var k []string
		for x := range m {
			k = append(k, x)
		}
		slices.Sort(k)
		return strings.Join(k, " ")
	}
	if got := keys(top); got != "activations bind connectors status triggers" {
		t.Errorf("snapshot keys %s", got)
	}
	if snap.Status != "stopped" || snap.Bind != "test" || len(snap.Triggers) != 7 {
		t.Errorf("snapshot %s", b)
	}
	first := snap.Triggers[0]
	if got := keys(first); got != "dispatched failed handler id in_flight kind provider received state version" {
		t.Errorf("trigger keys %s", got)
	}
	if first["id"] != "cron-ok" || first["handler"] != "handlers::on_ok" || first["received"] != 1.0 || first["dispatched"] != 1.0 || first["state"] != "terminated" {
		t.Errorf("trigger %v", first)
	}
	if len(snap.Activations) == 0 || keys(snap.Activations[0]) != "binding_count provider" {
		t.Errorf("activations %v", snap.Activations)
	}
}

// dlq.list lists pending entries oldest first (entry ids are UUIDv7, in
// the order the deliveries died), so "the newest entry" of the seed's
// example prompt is the last one; a retried entry leaves the list.
func TestDLQListOldestFirst(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, testManifest, testLib, testHandlers))
	var events []string
	for range 5 {
		events = append(events, fire(t, o, "no-retry", nil).EventID)
	}
	list, err := o.DLQList(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	entries := list["entries"].([]DLQEntry)
	for _, e := range entries {
		got = append(got, e.EventID)
	}
	if !slices.Equal(got, events) {
		t.Fatalf("entries by event %v, fired %v", got, events)
	}
	if _, err := o.RetryDLQ(context.Background(), entries[4].ID, Caller{}); err != nil {
		t.Fatal(err)
	}
	list, _ = o.DLQList(context.Background())
	if n := len(list["entries"].([]DLQEntry)); n != 5 { // the retry dead-lettered again: a new entry
		t.Fatalf("%d entries after retrying the newest", n)
	}
	if last := list["entries"].([]DLQEntry)[4]; last.ID == entries[4].ID || last.Event["id"] == events[4] {
		t.Fatalf("the retried entry is still listed, or the newest is not the retry's: %s", js(last))
	}
}

// fire's payload is shallow-merged over the synthetic event
// (docs/spec/orchestrator.md §3): a top-level key replaces the event's
// whole value (headers included), then the event id, trace id and the
// caller's x-harn-mcp-* headers are put in over what the caller sent.
func TestFireMergeIsShallow(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, testManifest, testLib, testHandlers))
	h := fire(t, o, "cron-ok", map[string]any{"kind": "custom", "headers": map[string]any{"a": "b", "x-harn-mcp-client": "spoofed"}, "trace_id": "mine", "id": "mine", "payload": map[string]any{"n": 1}})
	ev, err := o.Event(context.Background(), h.EventID)
	if err != nil || ev == nil {
		t.Fatal(ev, err)
	}
	want := `{"a":"b","x-harn-mcp-client":"test/1","x-harn-mcp-trace-id":"mcp_trace"}`
	if js(ev.Event["headers"]) != want || ev.Event["kind"] != "custom" || ev.Event["provider"] != "cron" ||
		ev.Event["trace_id"] != "mcp_trace" || ev.Event["id"] != h.EventID || js(ev.Event["payload"]) != `{"n":1}` {
		t.Fatalf("event %s", js(ev.Event))
	}
}

// fire's payload is merged over the event, so it must be an object
// (or absent): a string, list or number is refused, naming the field,
// and nothing is accepted.
func TestFireRefusesANonObjectPayload(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, testManifest, testLib, testHandlers))
	for _, p := range []any{"x", []any{json.Number("1"), json.Number("2")}, json.Number("7"), true} {
		h, err := o.Fire(context.Background(), "cron-ok", p, Caller{Client: "test/1"})
		if err == nil || !strings.HasPrefix(err.Error(), "payload must be an object") || h.EventID != "" {
			t.Errorf("payload %s: %s, %v", js(p), js(h), err)
		}
	}
	if recs, err := log.Read(context.Background(), TopicEvents, 0, 0); err != nil || len(recs) != 0 {
		t.Fatalf("recorded %d events (%v)", len(recs), err)
	}
}

// While a closing node waits for its attempts in flight, its bindings
// are "draining" (docs/spec/orchestrator.md §3) and so is the snapshot's
// status; the attempt finishes and is recorded, then the node is
// "stopped".
func TestCloseDrains(t *testing.T) {
	release := filepath.Join(t.TempDir(), "release")
	src := "[[triggers]]\nid = \"held\"\nkind = \"manual\"\nhandler = \"hold\"\n"
	lib := "fn hold(event) {\n  while !file_exists(\"" + release + "\") { sleep(5) }\n  return \"released\"\n}\n"
	path := writeProject(t, src, lib, "")
	o := start(t, memory.New(), path)
	fired := make(chan Handle, 1)
	go func() {
		h, _ := o.Fire(context.Background(), "held", nil, Caller{})
		fired <- h
	}()
	deadline := time.Now().Add(20 * time.Second)
	until := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			if time.Now().After(deadline) {
				os.WriteFile(release, nil, 0o644)
				t.Fatalf("never %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	until("in flight", func() bool { return o.metrics(o.Binding("held"), nil).InFlight == 1 })
	closed := make(chan struct{})
	go func() { o.Close(); close(closed) }()
	snapshot := func() string {
		b, _ := os.ReadFile(filepath.Join(filepath.Dir(path), SnapshotFile))
		var s struct{ Status string }
		json.Unmarshal(b, &s)
		return s.Status
	}
	until("draining", func() bool { return snapshot() == "draining" })
	if list, _ := o.List(context.Background()); list["triggers"].([]TriggerInfo)[0].State != "draining" {
		t.Errorf("state while draining %s", js(list))
	}
	os.WriteFile(release, nil, 0o644)
	<-closed
	if h := <-fired; h.Status != "succeeded" {
		t.Errorf("the drained attempt: %s", js(h))
	}
	if s := snapshot(); s != "stopped" {
		t.Errorf("snapshot status after Close %q", s)
	}
}

// The per-trigger in_flight of trigger.list and inspect counts the
// cluster's leased deliveries, as dispatcher.in_flight does: a node
// reports the attempt another node runs (docs/orchestrator.md, Tools).
func TestInFlightIsClusterWide(t *testing.T) {
	release := filepath.Join(t.TempDir(), "release")
	defer os.WriteFile(release, nil, 0o644)
	src := "[[triggers]]\nid = \"held\"\nkind = \"manual\"\nhandler = \"hold\"\n\n[[triggers]]\nid = \"idle\"\nkind = \"manual\"\nhandler = \"hold\"\n"
	lib := "fn hold(event) {\n  while !file_exists(\"" + release + "\") { sleep(5) }\n  return \"released\"\n}\n"
	path := writeProject(t, src, lib, "")
	log := memory.New()
	runner, other := start(t, log, path), start(t, log, path)
	fired := make(chan Handle, 1)
	go func() {
		h, _ := runner.Fire(context.Background(), "held", nil, Caller{})
		fired <- h
	}()
	deadline := time.Now().Add(20 * time.Second)
	for runner.metrics(runner.Binding("held"), nil).InFlight != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the attempt never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctx := context.Background()
	list, err := other.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range list["triggers"].([]TriggerInfo) {
		if want := map[string]int64{"held": 1, "idle": 0}[ti.TriggerID]; ti.Metrics.InFlight != want {
			t.Errorf("trigger.list on the other node: %s in_flight %d, want %d", ti.TriggerID, ti.Metrics.InFlight, want)
		}
	}
	ins, err := other.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := js(ins["dispatcher"]); !strings.Contains(got, `"in_flight":1`) {
		t.Errorf("dispatcher %s", got)
	}
	if got := js(ins["triggers"]); !strings.Contains(got, `"id":"held"`) || !strings.Contains(got, `"failed":0,"in_flight":1`) {
		t.Errorf("inspect triggers on the other node %s", got)
	}
	if n := other.metrics(other.Binding("held"), nil).InFlight; n != 0 {
		t.Errorf("the other node's own attempts: %d", n)
	}
	os.WriteFile(release, nil, 0o644)
	if h := <-fired; h.Status != "succeeded" {
		t.Errorf("fire %s", js(h))
	}
}

// A replay or DLQ retry of an event fired through MCP names the caller
// that asked for it in the MCP headers, matching the new trace_id
// (docs/orchestrator.md).
func TestRedispatchRefreshesMCPHeaders(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, testManifest, testLib, testHandlers))
	h := fire(t, o, "no-retry", nil)
	if h.Status != "dlq" || h.DLQEntryID == nil {
		t.Fatalf("%s", js(h))
	}
	ctx := context.Background()
	check := func(eventID, traceID, client string) {
		t.Helper()
		ev, err := o.Event(ctx, eventID)
		if err != nil {
			t.Fatal(err)
		}
		hd, _ := ev.Event["headers"].(map[string]any)
		if hd["x-harn-mcp-trace-id"] != traceID || hd["x-harn-mcp-client"] != client || ev.Trace.TraceID == nil || *ev.Trace.TraceID != traceID {
			t.Fatalf("event %s: headers %v trace %v, want %s / %s", eventID, hd, ev.Trace.TraceID, traceID, client)
		}
	}
	check(h.EventID, "mcp_trace", "test/1")
	r, err := o.RetryDLQ(ctx, *h.DLQEntryID, Caller{Client: "retrier/2", TraceID: "mcp_retry"})
	if err != nil {
		t.Fatal(err)
	}
	check(r.Handle.EventID, "mcp_retry", "retrier/2")
	rep, err := o.Replay(ctx, h.EventID, nil, Caller{Client: "replayer/3", TraceID: "mcp_replay"})
	if err != nil {
		t.Fatal(err)
	}
	check(rep.(Handle).EventID, "mcp_replay", "replayer/3")
	check(h.EventID, "mcp_trace", "test/1")
}

// An operator command's caller (CLICaller) is no MCP call: its events
// carry a cli_ trace id and x-harn-cli-* headers, never x-harn-mcp-*
// ones (even spoofed in the payload); a replay through MCP of an event
// the CLI fired names the MCP caller instead, and the other way round.
func TestCLICallerIsNotAnMCPCall(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, testManifest, testLib, testHandlers))
	ctx := context.Background()
	cli := CLICaller("harn-cli/9")
	if hex, ok := strings.CutPrefix(cli.TraceID, "cli_"); !ok || len(hex) != 32 {
		t.Fatalf("CLI trace id %q", cli.TraceID)
	}
	headersOf := func(eventID string) (map[string]any, string) {
		t.Helper()
		ev, err := o.Event(ctx, eventID)
		if err != nil || ev == nil {
			t.Fatal(ev, err)
		}
		hd, _ := ev.Event["headers"].(map[string]any)
		return hd, ev.Event["trace_id"].(string)
	}
	h, err := o.Fire(ctx, "cron-ok", map[string]any{"headers": map[string]any{"x-harn-mcp-client": "spoofed"}}, cli)
	if err != nil || h.Status != "succeeded" {
		t.Fatal(js(h), err)
	}
	hd, trace := headersOf(h.EventID)
	if trace != cli.TraceID || hd["x-harn-cli-client"] != "harn-cli/9" || hd["x-harn-cli-trace-id"] != cli.TraceID || hd["x-harn-mcp-client"] != nil || hd["x-harn-mcp-trace-id"] != nil {
		t.Fatalf("CLI fire: trace %s headers %v", trace, hd)
	}
	rep, err := o.Replay(ctx, h.EventID, nil, Caller{Client: "cursor/1", TraceID: "mcp_replay"})
	if err != nil {
		t.Fatal(err)
	}
	hd, trace = headersOf(rep.(Handle).EventID)
	if trace != "mcp_replay" || hd["x-harn-mcp-client"] != "cursor/1" || hd["x-harn-mcp-trace-id"] != "mcp_replay" || hd["x-harn-cli-client"] != nil || hd["x-harn-cli-trace-id"] != nil {
		t.Fatalf("MCP replay of a CLI fire: trace %s headers %v", trace, hd)
	}
	again := CLICaller("harn-cli/9")
	rep, err = o.Replay(ctx, rep.(Handle).EventID, nil, again)
	if err != nil {
		t.Fatal(err)
	}
	hd, trace = headersOf(rep.(Handle).EventID)
	if trace != again.TraceID || hd["x-harn-cli-trace-id"] != again.TraceID || hd["x-harn-mcp-trace-id"] != nil {
		t.Fatalf("CLI replay of an MCP replay: trace %s headers %v", trace, hd)
	}
}
