package orchestrator

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/orchestrator/manifest"
)

// The manifest fields that shape dispatch beyond the handler: each test
// fails when its field is accepted but ignored.

const fieldsManifest = `
[package]
name = "fields"

[[triggers]]
id = "orders"
kind = "manual"
handler = "echo"
dedupe_key = "payload.order"
filter = "payload.amount > ` + "`10`" + `"
`

const fieldsLib = `
fn echo(event) { return event.payload }
`

func TestDedupeKeyAndFilter(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, fieldsManifest, fieldsLib, ""))
	first := fire(t, o, "orders", map[string]any{"payload": map[string]any{"order": "A-1", "amount": 20}})
	if first.Status != "succeeded" || first.Duplicate {
		t.Fatalf("first: %s", js(first))
	}
	again := fire(t, o, "orders", map[string]any{"payload": map[string]any{"order": "A-1", "amount": 30}})
	if !again.Duplicate || again.EventID != first.EventID || again.Status != "succeeded" {
		t.Fatalf("same dedupe key: %s", js(again))
	}
	small := fire(t, o, "orders", map[string]any{"payload": map[string]any{"order": "A-2", "amount": 5}})
	if small.Status != "skipped" || !strings.Contains(js(small.Result), "did not match") {
		t.Fatalf("filtered: %s", js(small))
	}
	// No dedupe value: every event is its own.
	a := fire(t, o, "orders", map[string]any{"payload": map[string]any{"amount": 11}})
	b := fire(t, o, "orders", map[string]any{"payload": map[string]any{"amount": 11}})
	if a.Duplicate || b.Duplicate || a.EventID == b.EventID {
		t.Fatalf("no key: %s %s", js(a), js(b))
	}
	// A replay runs again even though its event has the same dedupe value.
	r, err := o.Replay(context.Background(), first.EventID, nil, Caller{})
	if err != nil || r.(Handle).Duplicate || r.(Handle).Status != "succeeded" {
		t.Fatalf("replay: %s %v", js(r), err)
	}
	claims, _ := log.Count(context.Background(), TopicInboxClaims)
	if claims != 2 {
		t.Fatalf("claims: %d", claims)
	}
}

const budgetManifest = `
[package]
name = "budget"

[[triggers]]
id = "paid"
kind = "manual"
handler = "spend"
tier = "act_auto"
budget = { hourly_cost_usd = 1.0 }

[[triggers]]
id = "capped"
kind = "manual"
handler = "spend"
autonomy_tier = "act_auto"
budget = { max_autonomous_decisions_per_hour = 1, on_budget_exhausted = "skip" }

[[triggers]]
id = "later"
kind = "manual"
handler = "spend"
budget = { hourly_cost_usd = 0.1, on_budget_exhausted = "retry_later" }

[[triggers]]
id = "plain"
kind = "manual"
handler = "spend"
`

const budgetLib = `
fn spend(event) { return {tier: event.autonomy_tier, usage: {cost_usd: 0.4, tokens: 100}} }
`

// startAt starts a node whose clock stands still at now, so the hour and
// day windows of budgets do not move during the test.
func startAt(t *testing.T, path string, now time.Time) *Orchestrator {
	t.Helper()
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := New(context.Background(), Options{Log: memory.New(), Manifest: m, Stderr: io.Discard, Poll: 10 * time.Millisecond, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	o.Start()
	t.Cleanup(func() { o.Close() })
	return o
}

func TestBudgetsAutonomyAndTrust(t *testing.T) {
	// The clock stands still at the start of the test: retry_later's
	// window reset (the next hour) is then in the future.
	now := time.Now().UTC()
	o := startAt(t, writeProject(t, budgetManifest, budgetLib, ""), now)
	ctx := context.Background()

	for i := 0; i < 3; i++ { // 0.4, 0.8, 1.2 USD: each starts under the 1 USD hourly budget
		if h := fire(t, o, "paid", nil); h.Status != "succeeded" || js(h.Result) != `{"tier":"act_auto","usage":{"cost_usd":0.4,"tokens":100}}` {
			t.Fatalf("paid %d: %s", i, js(h))
		}
	}
	h := fire(t, o, "paid", nil)
	if h.Status != "dlq" || h.Error == nil || !strings.Contains(*h.Error, "budget.hourly_cost_usd (1 USD) is spent for this hour") {
		t.Fatalf("over budget: %s", js(h))
	}
	dlq, _ := o.DLQList(ctx)
	if entries := dlq["entries"].([]DLQEntry); len(entries) != 1 || entries[0].ErrorClass != "budget_exhausted" {
		t.Fatalf("dlq %s", js(dlq))
	}
	m := o.metrics(o.Binding("paid"), nil)
	if m.CostTotalUSDMicros != 1200000 || m.CostHourUSDMicros != 1200000 || m.CostTodayUSDMicros != 1200000 || m.AutonomousDecisionsTotal != 3 || m.AutonomousDecisionsHour != 3 {
		t.Fatalf("metrics %s", js(m))
	}

	if h := fire(t, o, "capped", nil); h.Status != "succeeded" {
		t.Fatalf("capped 1: %s", js(h))
	}
	if h := fire(t, o, "capped", nil); h.Status != "skipped" || !strings.Contains(js(h.Result), "max_autonomous_decisions_per_hour (1) is reached") {
		t.Fatalf("capped 2: %s", js(h))
	}

	fire(t, o, "later", nil)
	if h := fire(t, o, "later", nil); h.Status != "failed" {
		t.Fatalf("later: %s", js(h))
	}
	o.view.refresh(ctx)
	last := o.view.recentDispatches()
	if d := last[len(last)-1]; d.ErrorClass != "budget_exhausted" || d.RetryAtMs != now.Truncate(time.Hour).Add(time.Hour).UnixMilli() {
		t.Fatalf("retry_later: %s", js(d))
	}

	if h := fire(t, o, "plain", nil); h.Status != "succeeded" || js(h.Result) != `{"tier":null,"usage":{"cost_usd":0.4,"tokens":100}}` {
		t.Fatalf("plain: %s", js(h))
	}
	insp, _ := o.Inspect(ctx)
	if b := insp["budget"].(map[string]any); b["used_hour_usd"] != 2.4 || b["hourly_limit_usd"] != 1.1 || b["remaining_hour_usd"] != 0.0 {
		t.Fatalf("inspect budget %s", js(b))
	}

	// One trust record per final outcome of a tiered binding.
	recs, _ := o.Log().Read(ctx, TopicTrust, 0, 0)
	var outcomes []string
	for _, r := range recs {
		var tr TrustRecord
		json.Unmarshal(r.Payload, &tr)
		outcomes = append(outcomes, tr.Agent+":"+tr.Outcome)
	}
	if got := strings.Join(outcomes, " "); got != "paid:success paid:success paid:success paid:denied capped:success capped:denied" {
		t.Fatalf("trust records: %s", got)
	}
}

const batchManifest = `
[package]
name = "batch"

[[triggers]]
id = "bulk"
kind = "manual"
handler = "count"
tier = "act_auto"
batch = { size = 3, timeout = "30s", key = "payload.repo" }

[[triggers]]
id = "trickle"
kind = "manual"
handler = "count"
batch = { size = 10, timeout = "20ms" }
`

const batchLib = `
fn count(events) {
  let repos = []
  for e in events { repos = repos + [e.payload.repo] }
  return {count: len(events), repos: repos, usage: {cost_usd: 0.3}}
}
`

func TestBatch(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, batchManifest, batchLib, ""))
	// Three events of repo "a" make one batch: one handler run.
	var wg sync.WaitGroup
	handles := make([]Handle, 3)
	for i := range handles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			handles[i] = fire(t, o, "bulk", map[string]any{"payload": map[string]any{"repo": "a"}})
		}()
	}
	wg.Wait()
	for _, h := range handles {
		if h.Status != "succeeded" || js(h.Result) != `{"count":3,"repos":["a","a","a"],"usage":{"cost_usd":0.3}}` {
			t.Fatalf("batch member: %s", js(h))
		}
	}
	insp, _ := o.Inspect(context.Background())
	if !strings.Contains(js(insp), `"batch":{"key":"payload.repo","size":3,"state":{"waited":2,"skipped":0,"running":0},"timeout":"30s"}`) {
		t.Fatalf("inspect: %s", js(insp))
	}
	m := o.metrics(o.Binding("bulk"), nil)
	if m.Dispatched != 3 || m.CostTotalUSDMicros != 300000 || m.AutonomousDecisionsTotal != 1 {
		t.Fatalf("one handler run for three events: %s", js(m))
	}
	// A batch that does not fill runs when its timeout passes.
	if h := fire(t, o, "trickle", map[string]any{"payload": map[string]any{"repo": "c"}}); h.Status != "succeeded" || js(h.Result) != `{"count":1,"repos":["c"],"usage":{"cost_usd":0.3}}` {
		t.Fatalf("timeout: %s", js(h))
	}
}

const secretsManifest = `
[package]
name = "secrets"

[[triggers]]
id = "push"
kind = "manual"
handler = "with_token"
secrets = { token = "github/api-token" }

[[triggers]]
id = "plain"
kind = "manual"
handler = "echo"
secrets = { token = "github/api-token" }
`

const secretsLib = `
fn with_token(event, secrets) { return {token_len: len(secrets.token), starts: secrets.token[0:3]} }
fn echo(event) { return event.kind }
`

// Secrets reach a handler's second parameter and nothing else: the
// recorded event and the log never hold them.
func TestSecrets(t *testing.T) {
	t.Setenv("HARN_SECRET_GITHUB_API_TOKEN", "ghp_not_a_real_secret_value")
	log := memory.New()
	o := start(t, log, writeProject(t, secretsManifest, secretsLib, ""))
	if h := fire(t, o, "push", nil); h.Status != "succeeded" || js(h.Result) != `{"starts":"ghp","token_len":27}` {
		t.Fatalf("push: %s", js(h))
	}
	if h := fire(t, o, "plain", nil); h.Status != "succeeded" {
		t.Fatalf("one-parameter handler: %s", js(h))
	}
	ctx := context.Background()
	topics, _ := log.Topics(ctx)
	for _, topic := range topics {
		recs, _ := log.Read(ctx, topic, 0, 0)
		for _, r := range recs {
			if strings.Contains(string(r.Payload), "not_a_real") || strings.Contains(js(r.Headers), "not_a_real") {
				t.Fatalf("%s holds the secret: %s", topic, r.Payload)
			}
		}
	}
}

// A kind this build has no connector for is served, and said so once
// per binding for the life of the node: a reload that keeps the binding
// does not say it again, one that adds another says it for that one.
// An operator command's node does not say it at all.
func TestKindsWithoutConnector(t *testing.T) {
	const issues = "trigger issues (kind poll, provider github): this build runs no poll connector; the trigger fires only through harn.trigger.fire"
	const stream = "trigger feed (kind stream, provider kafka): this build runs no stream connector"
	src := `
[[triggers]]
id = "issues"
kind = "poll"
provider = "github"
handler = "echo"
`
	path := writeProject(t, src, fieldsLib, "")
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	o, err := New(context.Background(), Options{Log: memory.New(), Manifest: m, Stderr: &syncWriter{w: &buf}})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if err := o.Reload(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), issues); n != 1 {
		t.Fatalf("warned %d times about issues, want 1; stderr: %q", n, buf.String())
	}
	if err := os.WriteFile(path, []byte(src+`
[[triggers]]
id = "feed"
kind = "stream"
provider = "kafka"
handler = "echo"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	m2, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Reload(context.Background(), m2); err != nil {
		t.Fatal(err)
	}
	if strings.Count(buf.String(), issues) != 1 || strings.Count(buf.String(), stream) != 1 {
		t.Fatalf("after adding feed, stderr: %q", buf.String())
	}

	var quiet strings.Builder
	q, err := New(context.Background(), Options{Log: memory.New(), Manifest: m, Operator: true, Stderr: &syncWriter{w: &quiet}})
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
	if strings.Contains(quiet.String(), "connector") {
		t.Fatalf("operator node warned: %q", quiet.String())
	}
}

// An urgent event is claimed before a less urgent one accepted well
// before it (here ten minutes, on the node's clock).
func TestPriority(t *testing.T) {
	path := writeProject(t, `
[[triggers]]
id = "urgent"
kind = "manual"
handler = "echo"
priority = "high"

[[triggers]]
id = "lazy"
kind = "manual"
handler = "echo"
priority = "low"
`, fieldsLib, "")
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Now().Add(-time.Hour)
	log := memory.New()
	o, err := New(context.Background(), Options{Log: log, Manifest: m, Stderr: io.Discard, Workers: 1, Poll: 10 * time.Millisecond, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := o.Accept(ctx, o.Binding("lazy"), Envelope{Source: "manual"}, ""); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(10 * time.Minute)
	if _, err := o.Accept(ctx, o.Binding("urgent"), Envelope{Source: "manual"}, ""); err != nil {
		t.Fatal(err)
	}
	o.Start()
	defer o.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if n, _ := log.Count(ctx, TopicAttempts); n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the events did not run")
		}
		time.Sleep(5 * time.Millisecond)
	}
	recs, _ := log.Read(ctx, TopicAttempts, 0, 0)
	if recs[0].Headers["binding_id"] != "urgent" || recs[1].Headers["binding_id"] != "lazy" {
		t.Fatalf("order: %s then %s", recs[0].Headers["binding_id"], recs[1].Headers["binding_id"])
	}
}
