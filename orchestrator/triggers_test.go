package orchestrator

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/orchestrator/manifest"
)

const triggerManifest = `
[[triggers]]
id = "every-second"
kind = "cron"
schedule = "* * * * * *"
timezone = "Asia/Tokyo"
handler = "ok"

[[triggers]]
id = "signed"
kind = "webhook"
handler = "ok"
webhook = { secret_env = "HARN_TEST_HOOK_SECRET", replay_window = "1m" }

[[triggers]]
id = "gh"
kind = "webhook"
provider = "github"
handler = "ok"
match = { events = ["push"] }
webhook = { secret_env = "HARN_TEST_HOOK_SECRET" }

[[triggers]]
id = "open"
kind = "webhook"
handler = "ok"
webhook = { path = "/in/open" }
`

// TestCronTwoNodes: two nodes on one log run the same schedule; each
// tick is dispatched once, with the scheduled time in the binding's zone.
func TestCronTwoNodes(t *testing.T) {
	t.Setenv("HARN_TEST_HOOK_SECRET", "s3cret")
	log := memory.New()
	path := writeProject(t, triggerManifest, "fn ok(e) { return e.payload }", "")
	a := start(t, log, path)
	b := start(t, log, path)
	_ = b
	ctx := context.Background()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if n, _ := log.Count(ctx, TopicOutbox); n >= 3 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	a.Close()
	b.Close()
	recs, _ := log.Read(ctx, TopicEvents, 0, 0)
	if len(recs) < 3 {
		t.Fatalf("only %d ticks", len(recs))
	}
	seen := map[string]bool{}
	for _, r := range recs {
		var p struct {
			Event struct {
				TraceID string `json:"trace_id"`
				Payload struct {
					ScheduledAt string `json:"scheduled_at"`
				} `json:"payload"`
			} `json:"event"`
		}
		json.Unmarshal(r.Payload, &p)
		at := p.Event.Payload.ScheduledAt
		if !traceIDRe.MatchString(p.Event.TraceID) || !strings.HasPrefix(p.Event.TraceID, "cron_") {
			t.Fatalf("tick trace_id %q", p.Event.TraceID)
		}
		if !strings.HasSuffix(at, "+09:00") {
			t.Fatalf("scheduled_at %q not in Asia/Tokyo", at)
		}
		if seen[at] {
			t.Fatalf("tick %s dispatched twice", at)
		}
		seen[at] = true
	}
	if !strings.Contains(js(a.connectorList()), "cron") {
		t.Fatal("cron connector not reported")
	}
}

func TestWebhooks(t *testing.T) {
	t.Setenv("HARN_TEST_HOOK_SECRET", "s3cret")
	path := writeProject(t, strings.Replace(triggerManifest, `schedule = "* * * * * *"`, `schedule = "0 0 1 1 *"`, 1), "fn ok(e) { return e.payload }", "")
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	log := memory.New()
	o, err := New(context.Background(), Options{Log: log, Manifest: m, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	gate := "open"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		unsigned := func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
			if r.Header.Get("x-api-key") == gate {
				return true
			}
			w.WriteHeader(401)
			return false
		}
		if !o.ServeWebhook(w, r, unsigned) {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	post := func(p, body string, h map[string]string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", srv.URL+p, strings.NewReader(body))
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	secret := []byte("s3cret")
	now := time.Now().Unix()
	body := `{"n":1}`
	good := map[string]string{"X-Harn-Timestamp": strconv.FormatInt(now, 10), "X-Harn-Signature": Sign(secret, now, []byte(body)), "X-Harn-Delivery-Id": "d1"}
	code, out := post("/hooks/signed", body, good)
	if code != 202 || out["status"] != "accepted" || out["duplicate"] != false {
		t.Fatalf("%d %v", code, out)
	}
	first := out["event_id"]
	code, out = post("/hooks/signed", body, good)
	if code != 202 || out["duplicate"] != true || out["event_id"] != first {
		t.Fatalf("duplicate: %d %v", code, out)
	}
	// The delivery id is not signed: a replay inside the window under
	// another id, or none, is the same delivery (the key is the
	// signature).
	for _, id := range []string{"d2", ""} {
		h := map[string]string{"X-Harn-Timestamp": good["X-Harn-Timestamp"], "X-Harn-Signature": good["X-Harn-Signature"], "X-Harn-Delivery-Id": id}
		code, out = post("/hooks/signed", body, h)
		if code != 202 || out["duplicate"] != true || out["event_id"] != first {
			t.Fatalf("replay under delivery id %q: %d %v", id, code, out)
		}
	}
	// A signature that covers the id makes the id the key: a re-send
	// with a new timestamp is the same delivery, and the signature does
	// not verify under another id.
	signed := func(id string, ts int64) map[string]string {
		return map[string]string{"X-Harn-Timestamp": strconv.FormatInt(ts, 10), "X-Harn-Signature": SignDelivery(secret, id, ts, []byte(body)), "X-Harn-Delivery-Id": id}
	}
	code, out = post("/hooks/signed", body, signed("d3", now))
	if code != 202 || out["duplicate"] != false || out["event_id"] == first {
		t.Fatalf("id-signed delivery: %d %v", code, out)
	}
	second := out["event_id"]
	code, out = post("/hooks/signed", body, signed("d3", now+1))
	if code != 202 || out["duplicate"] != true || out["event_id"] != second {
		t.Fatalf("id-signed re-send: %d %v", code, out)
	}
	swapped := signed("d3", now)
	swapped["X-Harn-Delivery-Id"] = "d4"
	if code, out = post("/hooks/signed", body, swapped); code != 401 || out["error"] != "signature mismatch" {
		t.Fatalf("id-signed delivery under another id: %d %v", code, out)
	}
	stale := now - 120
	cases := []struct {
		name string
		h    map[string]string
		want string
	}{
		{"no signature", map[string]string{"X-Harn-Timestamp": strconv.FormatInt(now, 10)}, "missing signature header X-Harn-Signature"},
		{"no timestamp", map[string]string{"X-Harn-Signature": Sign(secret, now, []byte(body))}, "missing timestamp header X-Harn-Timestamp"},
		{"wrong secret", map[string]string{"X-Harn-Timestamp": strconv.FormatInt(now, 10), "X-Harn-Signature": Sign([]byte("nope"), now, []byte(body))}, "signature mismatch"},
		{"stale", map[string]string{"X-Harn-Timestamp": strconv.FormatInt(stale, 10), "X-Harn-Signature": Sign(secret, stale, []byte(body))}, "timestamp outside the replay window of 1m0s"},
		{"body changed", map[string]string{"X-Harn-Timestamp": strconv.FormatInt(now, 10), "X-Harn-Signature": Sign(secret, now, []byte(`{"n":2}`))}, "signature mismatch"},
	}
	for _, c := range cases {
		code, out := post("/hooks/signed", body, c.h)
		if code != 401 || out["error"] != c.want {
			t.Errorf("%s: %d %v", c.name, code, out)
		}
	}
	// github scheme: HMAC of the body, event kind from X-GitHub-Event.
	ghSig := func(b string) string { return githubSig(secret, b) }
	code, out = post("/hooks/gh", body, map[string]string{"X-Hub-Signature-256": ghSig(body), "X-GitHub-Event": "push", "X-GitHub-Delivery": "g1"})
	if code != 202 || out["status"] != "accepted" {
		t.Fatalf("github: %d %v", code, out)
	}
	ghFirst := out["event_id"]
	// GitHub signs neither the delivery id nor a time: the same body
	// under another id is a replay.
	code, out = post("/hooks/gh", body, map[string]string{"X-Hub-Signature-256": ghSig(body), "X-GitHub-Event": "push", "X-GitHub-Delivery": "g2"})
	if code != 202 || out["duplicate"] != true || out["event_id"] != ghFirst {
		t.Fatalf("github replay under another id: %d %v", code, out)
	}
	code, out = post("/hooks/gh", body, map[string]string{"X-Hub-Signature-256": ghSig(body), "X-GitHub-Event": "issues"})
	if code != 202 || out["status"] != "ignored" {
		t.Fatalf("github issues: %d %v", code, out)
	}
	code, out = post("/hooks/gh", body, map[string]string{"X-Hub-Signature-256": ghSig(body)})
	if code != 400 || out["error"] != "missing event header X-GitHub-Event" {
		t.Fatalf("github without X-GitHub-Event: %d %v", code, out)
	}
	// unsigned bindings defer to the server's authentication.
	if code, _ := post("/in/open", body, nil); code != 401 {
		t.Fatalf("open without key: %d", code)
	}
	if code, out := post("/in/open", "not json", map[string]string{"x-api-key": "open"}); code != 202 || out["status"] != "accepted" {
		t.Fatalf("open: %d %v", code, out)
	}
	if code, _ := post("/hooks/nope", body, nil); code != 404 {
		t.Fatalf("unknown path: %d", code)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/hooks/signed", nil)
	if resp, _ := http.DefaultClient.Do(req); resp.StatusCode != 405 {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	// Four accepted deliveries; the recorded events keep the request
	// headers but never the signature or credentials.
	recs, _ := log.Read(context.Background(), TopicEvents, 0, 0)
	if len(recs) != 4 {
		t.Fatalf("%d events", len(recs))
	}
	all := ""
	for _, r := range recs {
		all += string(r.Payload)
		var p struct {
			Event struct {
				TraceID string `json:"trace_id"`
			} `json:"event"`
		}
		json.Unmarshal(r.Payload, &p)
		if !traceIDRe.MatchString(p.Event.TraceID) || !strings.HasPrefix(p.Event.TraceID, "webhook_") {
			t.Fatalf("delivery trace_id %q", p.Event.TraceID)
		}
	}
	if strings.Contains(all, "sha256=") || strings.Contains(all, `"x-api-key"`) || !strings.Contains(all, `"raw":"not json"`) || !strings.Contains(all, `"delivery_id":"d1"`) {
		t.Fatalf("events %s", all)
	}
}

// traceIDRe is the form of every event's trace id (docs/orchestrator.md).
var traceIDRe = regexp.MustCompile(`^(mcp|cron|webhook)_[0-9a-f]{32}$`)

func githubSig(secret []byte, body string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// TestA2APush: an a2a-push binding receives A2A push notifications on
// the listener (default /a2a/<id>), checking the notification token when
// the manifest names one.
func TestA2APush(t *testing.T) {
	t.Setenv("HARN_TEST_A2A_TOKEN", "tok-123")
	src := `
[[triggers]]
id = "reviews"
kind = "a2a-push"
handler = "ok"
webhook = { secret_env = "HARN_TEST_A2A_TOKEN" }

[[triggers]]
id = "open-push"
kind = "a2a-push"
handler = "ok"
`
	path := writeProject(t, src, "fn ok(e) { return {kind: e.kind, state: e.payload.status.state} }", "")
	log := memory.New()
	o := start(t, log, path)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !o.ServeWebhook(w, r, nil) {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	post := func(p string, h map[string]string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", srv.URL+p, strings.NewReader(`{"id":"task-1","kind":"task","status":{"state":"completed"}}`))
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	if code, out := post("/a2a/reviews", nil); code != 401 || out["error"] != "missing token header X-A2A-Notification-Token" {
		t.Fatalf("no token: %d %v", code, out)
	}
	if code, _ := post("/a2a/reviews", map[string]string{"X-A2A-Notification-Token": "tok-999"}); code != 401 {
		t.Fatalf("wrong token: %d", code)
	}
	code, out := post("/a2a/reviews", map[string]string{"X-A2A-Notification-Token": "tok-123"})
	if code != 202 || out["status"] != "accepted" {
		t.Fatalf("good token: %d %v", code, out)
	}
	if code, _ := post("/a2a/open-push", nil); code != 202 {
		t.Fatalf("no token configured: %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id := out["event_id"].(string)
	h, err := o.wait(ctx, Accepted{Envelope: Envelope{EventID: id, BindingID: "reviews", BindingVersion: 1}, DeliveryID: id}, make(chan Handle))
	if err != nil || h.Status != "succeeded" || js(h.Result) != `{"kind":"a2a.task.received","state":"completed"}` {
		t.Fatalf("dispatch: %s %v", js(h), err)
	}
	o.ServingWebhooks()
	if c := o.connectorList(); js(c) != `["a2a-push"]` {
		t.Fatalf("connectors %v", c)
	}
}

// An operator command's node (harn orchestrator fire|replay|dlq retry)
// works as a worker while it waits, but it runs no cron schedule — the
// servers' schedules tick — and registers no binding lifecycle: it
// reads the versions the servers registered, so an operator's edited
// manifest neither re-versions nor terminates the servers' bindings.
func TestOperatorNodeRunsNoScheduleAndRegistersNothing(t *testing.T) {
	ctx := context.Background()
	log := memory.New()
	path := writeProject(t, "[[triggers]]\nid = \"tick\"\nkind = \"cron\"\nschedule = \"* * * * * *\"\nhandler = \"ok\"\n\n[[triggers]]\nid = \"gone\"\nkind = \"manual\"\nhandler = \"ok\"\n", "fn ok(e) { return e.payload }", "")
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	server, err := New(ctx, Options{Log: log, Manifest: m, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	server.Close()
	before, _ := log.Count(ctx, TopicLifecycle)

	// The operator's manifest changed tick's schedule and dropped gone.
	edited := writeProject(t, "[[triggers]]\nid = \"tick\"\nkind = \"cron\"\nschedule = \"*/2 * * * * *\"\nhandler = \"ok\"\n", "fn ok(e) { return e.payload }", "")
	m2, err := manifest.Load(edited)
	if err != nil {
		t.Fatal(err)
	}
	op, err := New(ctx, Options{Log: log, Manifest: m2, Operator: true, Workers: 1, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	op.Start()
	op.cronMu.Lock()
	scheduled := op.cronStop != nil
	op.cronMu.Unlock()
	if scheduled {
		t.Error("the operator node runs the cron schedules")
	}
	if err := op.Reload(ctx, m2); err != nil {
		t.Fatal(err)
	}
	op.cronMu.Lock()
	scheduled = op.cronStop != nil
	op.cronMu.Unlock()
	if scheduled {
		t.Error("the operator node runs the cron schedules after a reload")
	}
	if v := op.Binding("tick").Version; v != 2 {
		t.Errorf("operator node sees tick at version %d, want 2 (the edited definition)", v)
	}
	h, err := op.Fire(ctx, "tick", map[string]any{}, Caller{})
	if err != nil || h.Status != "succeeded" {
		t.Fatalf("fire on the operator node: %+v, %v", h, err)
	}
	op.Close()
	if after, _ := log.Count(ctx, TopicLifecycle); after != before {
		recs, _ := log.Read(ctx, TopicLifecycle, 0, 0)
		t.Errorf("the operator node wrote %d lifecycle records: %s", after-before, js(recs[before:]))
	}
}

// TestPredicateTruthiness: a `when` predicate's result is judged by Harn
// truthiness, as the in-script triggers judge it: "yes" lets the event
// through; nil, "", 0 and [] skip it, and the reason shows the value.
func TestPredicateTruthiness(t *testing.T) {
	src := "[[triggers]]\nid = \"p\"\nkind = \"manual\"\nhandler = \"ok\"\nwhen = \"pred\"\n"
	lib := "fn ok(e) { return \"ran\" }\nfn pred(e) { return e.payload.v }\n"
	o := start(t, memory.New(), writeProject(t, src, lib, ""))
	for _, c := range []struct {
		v              any
		status, reason string
	}{
		{"yes", "succeeded", ""},
		{true, "succeeded", ""},
		{1, "succeeded", ""},
		{false, "skipped", "predicate pred returned false"},
		{nil, "skipped", "predicate pred returned null"},
		{"", "skipped", `predicate pred returned ""`},
		{0, "skipped", "predicate pred returned 0"},
		{[]any{}, "skipped", "predicate pred returned []"},
	} {
		h := fire(t, o, "p", map[string]any{"payload": map[string]any{"v": c.v}})
		result, _ := h.Result.(map[string]any)
		reason, _ := result["reason"].(string)
		if h.Status != c.status || c.reason != "" && reason != c.reason {
			t.Errorf("%#v: %s %s", c.v, h.Status, js(h.Result))
		}
	}
}

// TestCronTickKeyIgnoresVersion: during a rolling manifest update one
// node runs version 2 of a cron binding while another still runs
// version 1; a tick both accept is dispatched once (docs/orchestrator.md).
func TestCronTickKeyIgnoresVersion(t *testing.T) {
	log := memory.New()
	path := writeProject(t, `
[[triggers]]
id = "nightly"
kind = "cron"
schedule = "0 3 1 1 *"
handler = "ok"
`, "fn ok(e) { return e.payload }", "")
	o := start(t, log, path)
	var v1 *Binding
	for _, b := range o.Bindings() {
		if b.ID == "nightly" {
			v1 = b
		}
	}
	if v1 == nil {
		t.Fatal("no binding nightly")
	}
	v2 := *v1
	v2.Version = v1.Version + 1
	at := time.Date(2027, 1, 1, 3, 0, 0, 0, time.UTC)
	o.tick(v1, at)
	o.tick(&v2, at)
	if n, _ := log.Count(context.Background(), TopicEvents); n != 1 {
		t.Fatalf("one tick accepted %d times across binding versions", n)
	}
}
