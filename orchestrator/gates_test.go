package orchestrator

import (
	"strings"
	"sync"
	"testing"

	"github.com/harnlang/harn/eventlog/memory"
)

// The flow-control fields of docs/spec/orchestrator.md §2 that no other
// test sees act on dispatch: rate_limit, throttle, debounce, and
// when_budget.timeout. Each fails when its field is accepted but ignored.

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
