package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/memory"
)

// The fields of docs/spec/orchestrator.md §2 that no other test sees act
// on dispatch: rate_limit, throttle, debounce, when_budget.timeout,
// concurrency, budget.max_concurrent, allow_cleartext and sources. Each
// test fails when its field is accepted but ignored.

const gatesManifest = `
[package]
name = "gates"

[[triggers]]
id = "limited"
kind = "manual"
handler = "echo"
rate_limit = { max = 1, period = "1h" }

[[triggers]]
id = "throttled"
kind = "manual"
handler = "echo"
throttle = { max = 1, period = "1s" }

[[triggers]]
id = "debounced"
kind = "manual"
handler = "echo"
debounce = { period = "2s" }

[[triggers]]
id = "slow-predicate"
kind = "manual"
handler = "echo"
when = "stuck"
when_budget = { timeout = "50ms" }
retry = { max = 1 }
`

const gatesLib = `
fn echo(event) { return event.payload }
fn stuck(event) {
  sleep(5000)
  return true
}
`

func gateState(o *Orchestrator, id, gate string) gateStats {
	cfg, _ := o.flow.report(o.Binding(id))[gate].(map[string]any)
	s, _ := cfg["state"].(gateStats)
	return s
}

func TestRateLimitSkips(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, gatesManifest, gatesLib, ""))
	if h := fire(t, o, "limited", nil); h.Status != "succeeded" {
		t.Fatalf("first: %s", js(h))
	}
	if h := fire(t, o, "limited", nil); h.Status != "skipped" || !strings.Contains(js(h), "rate limited: more than 1 events in 1h0m0s") {
		t.Fatalf("second inside the period: %s", js(h))
	}
	if s := gateState(o, "limited", "rate_limit"); s.Skipped != 1 {
		t.Fatalf("rate_limit state %+v", s)
	}
}

// A throttled event waits for room instead of being skipped.
func TestThrottleWaits(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, gatesManifest, gatesLib, ""))
	for i := 0; i < 2; i++ {
		if h := fire(t, o, "throttled", nil); h.Status != "succeeded" {
			t.Fatalf("fire %d: %s", i, js(h))
		}
	}
	if s := gateState(o, "throttled", "throttle"); s.Waited == 0 || s.Skipped != 0 {
		t.Fatalf("throttle state %+v", s)
	}
}

// Of two events accepted within the debounce period, the older one is
// skipped and the newer one runs.
func TestDebounceKeepsTheNewest(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, gatesManifest, gatesLib, ""))
	var wg sync.WaitGroup
	hs := make([]Handle, 2)
	for i := range hs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			hs[i] = fire(t, o, "debounced", map[string]any{"n": i})
		}(i)
	}
	wg.Wait()
	statuses := hs[0].Status + " " + hs[1].Status
	if statuses != "skipped succeeded" && statuses != "succeeded skipped" {
		t.Fatalf("handles %s", js(hs))
	}
	if s := gateState(o, "debounced", "debounce"); s.Skipped != 1 {
		t.Fatalf("debounce state %+v", s)
	}
}

// when_budget.timeout stops a predicate that runs too long: the event
// fails as a predicate_panic instead of waiting for it.
func TestWhenBudgetTimeout(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, gatesManifest, gatesLib, ""))
	h := fire(t, o, "slow-predicate", nil)
	if h.Status != "dlq" || h.Error == nil || !strings.Contains(*h.Error, "predicate stuck") {
		t.Fatalf("%s", js(h))
	}
}

// allow_cleartext sends an a2a:// handler's message over http://; without
// it the same target is called over https:// (and a plain HTTP server
// cannot answer).
func TestAllowCleartext(t *testing.T) {
	var got atomic.Value
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg map[string]any
		json.NewDecoder(r.Body).Decode(&msg)
		got.Store(r.URL.Path + " " + fmt.Sprint(msg["method"]))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%q,"result":{"kind":"task","id":"t1"}}`, msg["id"])
	}))
	defer agent.Close()
	target := strings.TrimPrefix(agent.URL, "http://") + "/triage"
	src := "[[triggers]]\nid = \"clear\"\nkind = \"manual\"\nhandler = \"a2a://" + target + "\"\nallow_cleartext = true\n\n" +
		"[[triggers]]\nid = \"tls\"\nkind = \"manual\"\nhandler = \"a2a://" + target + "\"\nretry = { max = 1 }\n"
	o := start(t, memory.New(), writeProject(t, src, gatesLib, ""))
	if h := fire(t, o, "clear", nil); h.Status != "succeeded" || got.Load() != "/triage message/send" {
		t.Fatalf("cleartext: %s, agent saw %v", js(h), got.Load())
	}
	if h := fire(t, o, "tls", nil); h.Status != "dlq" || h.Error == nil || !strings.Contains(*h.Error, "https://"+target) {
		t.Fatalf("without allow_cleartext: %s", js(h))
	}
}

// sources expand into bindings <id>.<source-id> that share the handler
// and the predicate, each with its own match.
func TestSourcesExpand(t *testing.T) {
	src := "[[triggers]]\nid = \"repo\"\nkind = \"manual\"\nhandler = \"echo\"\nwhen = \"wanted\"\n" +
		"sources = [{ id = \"push\", match = { events = [\"push\"] } }, { id = \"pr\", match = { events = [\"pull_request\"] } }]\n"
	lib := gatesLib + "fn wanted(event) { return event.payload.want == true }\n"
	o := start(t, memory.New(), writeProject(t, src, lib, ""))
	if o.Binding("repo") != nil || o.Binding("repo.push") == nil || o.Binding("repo.pr") == nil {
		t.Fatalf("bindings %v", o.Bindings())
	}
	h := fire(t, o, "repo.pr", map[string]any{"payload": map[string]any{"want": true}})
	if h.Status != "succeeded" || js(h.Result) != `{"want":true}` {
		t.Fatalf("repo.pr: %s", js(h))
	}
	ev, _ := o.Event(context.Background(), h.EventID)
	if ev == nil || ev.Event["kind"] != "pull_request" {
		t.Fatalf("event %s", js(ev))
	}
	if h := fire(t, o, "repo.push", map[string]any{"payload": map[string]any{"want": false}}); h.Status != "skipped" {
		t.Fatalf("repo.push with the predicate false: %s", js(h))
	}
}

// concurrency = { max = 1 }, and budget.max_concurrent = 1 alike: a
// second event waits at the gate while the first runs, and runs once it
// is done. The handler holds until the test creates a file, so the
// overlap does not depend on timing.
func TestConcurrencyWaits(t *testing.T) {
	src := "[[triggers]]\nid = \"held\"\nkind = \"manual\"\nhandler = \"hold\"\nconcurrency = { max = 1 }\n\n" +
		"[[triggers]]\nid = \"budgeted\"\nkind = \"manual\"\nhandler = \"hold\"\nbudget = { max_concurrent = 1 }\n"
	lib := "fn hold(event) {\n  while !file_exists(event.payload.release) { sleep(5) }\n  return \"released\"\n}\n"
	o := start(t, memory.New(), writeProject(t, src, lib, ""))
	for _, c := range []struct{ id, gate string }{{"held", "concurrency"}, {"budgeted", "budget.max_concurrent"}} {
		release := filepath.Join(t.TempDir(), "release")
		state := func() gateStats {
			o.flow.mu.Lock()
			defer o.flow.mu.Unlock()
			return *o.flow.stats(o.Binding(c.id), c.gate)
		}
		until := func(what string, ok func(gateStats) bool) {
			t.Helper()
			deadline := time.Now().Add(20 * time.Second)
			for !ok(state()) {
				if time.Now().After(deadline) {
					os.WriteFile(release, nil, 0o644) // let the handlers end
					t.Fatalf("%s: %s: %s state %+v", c.id, what, c.gate, state())
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		var wg sync.WaitGroup
		hs := make([]Handle, 2)
		run := func(i int) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				hs[i] = fire(t, o, c.id, map[string]any{"payload": map[string]any{"release": release}})
			}()
		}
		run(0)
		until("first event running", func(s gateStats) bool { return s.Running == 1 })
		run(1)
		until("second event waiting", func(s gateStats) bool { return s.Waited == 1 })
		if s := state(); s.Running != 1 {
			t.Fatalf("%s: two events inside a gate of one: %+v", c.id, s)
		}
		os.WriteFile(release, nil, 0o644)
		wg.Wait()
		if hs[0].Status != "succeeded" || hs[1].Status != "succeeded" {
			t.Fatalf("%s: handles %s", c.id, js(hs))
		}
	}
}

// The error classes of docs/spec/orchestrator.md §3 step 9 that a
// dead-lettered delivery carries: an A2A agent that answers 401 is
// auth_failed, one that answers 503 is provider_5xx, a handler stopped by
// its trigger's timeout is handler_timeout (a thrown error is
// handler_panic, pinned by TestRetryThenDLQThenRetryDLQ).
func TestErrorClasses(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/denied":
			w.WriteHeader(http.StatusUnauthorized)
		default:
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		}
	}))
	defer agent.Close()
	host := strings.TrimPrefix(agent.URL, "http://")
	src := "[[triggers]]\nid = \"denied\"\nkind = \"manual\"\nhandler = \"a2a://" + host + "/denied\"\nallow_cleartext = true\nretry = { max = 1 }\n\n" +
		"[[triggers]]\nid = \"down\"\nkind = \"manual\"\nhandler = \"a2a://" + host + "/down\"\nallow_cleartext = true\nretry = { max = 1 }\n\n" +
		"[[triggers]]\nid = \"slow\"\nkind = \"manual\"\nhandler = \"stuck\"\ntimeout = \"50ms\"\nretry = { max = 1 }\n"
	o := start(t, memory.New(), writeProject(t, src, gatesLib, ""))
	for id, class := range map[string]string{"denied": "auth_failed", "down": "provider_5xx", "slow": "handler_timeout"} {
		h := fire(t, o, id, nil)
		if h.Status != "dlq" || h.DLQEntryID == nil {
			t.Fatalf("%s: %s", id, js(h))
		}
		e, ok, err := o.DLQEntry(context.Background(), *h.DLQEntryID)
		if err != nil || !ok || e.ErrorClass != class || len(e.RetryHistory) != 1 || e.RetryHistory[0].ErrorClass != class {
			t.Errorf("%s: entry %s, want error_class %s", id, js(e), class)
		}
	}
}

const meteredManifest = `
[[triggers]]
id = "tokens"
kind = "manual"
handler = "echo"
when = "ask"
when_budget = { tokens_max = 100, timeout = "10s" }
retry = { max = 1 }

[[triggers]]
id = "cost"
kind = "manual"
handler = "echo"
when = "ask"
when_budget = { max_cost_usd = 0.05 }
retry = { max = 1 }
`

// ask makes payload.calls LLM calls of payload.tokens tokens each, in a
// spawned task when payload.spawned, catching every error, and passes
// the event; payload.model prices them.
const meteredLib = `
fn echo(event) { return event.payload }

fn one(p) {
  llm_mock({text: "yes", model: p.model ?? "mock", input_tokens: p.tokens / 2, output_tokens: p.tokens / 2})
  return try { llm_call("relevant?").text } catch e { "refused" }
}

fn ask(event) {
  let p = event.payload
  for i in range(p.calls) {
    if p.spawned ?? false {
      await(spawn { one(p) })
    } else {
      one(p)
    }
  }
  return true
}
`

// when_budget.tokens_max and max_cost_usd bound the LLM calls of one
// predicate run (docs/orchestrator.md): a run within them passes, each
// run is counted apart, and a run whose calls go past a limit — on its
// thread or in a task it spawns, caught or not — fails the attempt as a
// timeout overrun does.
func TestWhenBudgetBoundsPredicateLLMCalls(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, meteredManifest, meteredLib, ""))
	if wb := o.Binding("tokens").WhenBudget; wb.TokensMax != 100 || wb.MaxCostUSD != 0 || wb.Timeout != 10*time.Second {
		t.Fatalf("when_budget %+v", wb)
	}
	for i := 0; i < 2; i++ { // 80 tokens a run, 160 in all
		if h := fire(t, o, "tokens", map[string]any{"payload": map[string]any{"calls": 2, "tokens": 40}}); h.Status != "succeeded" {
			t.Fatalf("within the limit, run %d: %s", i, js(h))
		}
	}
	for _, spawned := range []bool{false, true} {
		h := fire(t, o, "tokens", map[string]any{"payload": map[string]any{"calls": 3, "tokens": 40, "spawned": spawned}})
		want := "predicate ask: when_budget.tokens_max: its LLM calls used 120 tokens, past the limit of 100"
		if h.Status != "dlq" || h.Error == nil || *h.Error != want {
			t.Fatalf("spawned %v: %s", spawned, js(h))
		}
	}
	// claude-opus-4-1 lists 15 and 75 USD per million input and output
	// tokens: 1000 of each cost 0.09 USD.
	h := fire(t, o, "cost", map[string]any{"payload": map[string]any{"calls": 1, "tokens": 2000, "model": "claude-opus-4-1"}})
	if want := "predicate ask: when_budget.max_cost_usd: its LLM calls cost 0.09 USD, past the limit of 0.05 USD"; h.Status != "dlq" || h.Error == nil || *h.Error != want {
		t.Fatalf("cost: %s", js(h))
	}
	if h := fire(t, o, "cost", map[string]any{"payload": map[string]any{"calls": 1, "tokens": 200, "model": "claude-opus-4-1"}}); h.Status != "succeeded" {
		t.Fatalf("cost within the limit: %s", js(h))
	}
}
