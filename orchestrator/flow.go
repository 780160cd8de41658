package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/orchestrator/manifest"
)

// flow applies a binding's flow-control gates on this node
// (docs/spec/orchestrator.md §3 step 4). Each gate is partitioned by its key (an
// event field, dotted paths allowed):
//
//   - concurrency {max}: at most max attempts of a partition run at once;
//     the others wait.
//   - singleton: an event arriving while one of its partition runs is
//     skipped.
//   - throttle {max, period}: at most max attempts start per period; the
//     others wait for room.
//   - rate_limit {max, period}: events beyond max per period are skipped.
//   - debounce {period}: an event runs only if no newer event of its
//     partition was accepted (on this node) within period; older ones are
//     skipped.
//   - priority: an urgent event is due earlier, by priorityStep per
//     level, so workers claim it before less urgent events accepted up to
//     that long before it (claims go oldest due first). Older ones still
//     go first: nothing waits forever.
//   - budget.max_concurrent gates like concurrency.
//
// A batch (batch.go) passes the gates once, as its leader's event.
type flow struct {
	mu       sync.Mutex
	running  map[string]int // concurrency / singleton / max_concurrent partitions
	waiters  map[string][]chan struct{}
	starts   map[string][]time.Time // throttle / rate_limit windows
	latest   map[string]string      // debounce: newest event per partition
	accepted map[string]time.Time   // debounce: when it was accepted
	counts   map[string]*gateStats  // binding id + gate -> counters
}

type gateStats struct {
	Waited  int64 `json:"waited"`
	Skipped int64 `json:"skipped"`
	Running int64 `json:"running"`
}

func newFlow() *flow {
	return &flow{running: map[string]int{}, waiters: map[string][]chan struct{}{}, starts: map[string][]time.Time{},
		latest: map[string]string{}, accepted: map[string]time.Time{}, counts: map[string]*gateStats{}}
}

// keyOf is a gate's partition of an event.
func keyOf(b *Binding, gate string, g *manifest.Gate, event map[string]any) string {
	k := b.ID + "/" + gate
	if g.Key == "" {
		return k
	}
	var cur any = event
	for _, part := range strings.Split(g.Key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			cur = nil
			break
		}
		cur = m[part]
	}
	return k + "/" + fmt.Sprint(cur)
}

func (f *flow) stats(b *Binding, gate string) *gateStats {
	k := b.ID + "/" + gate
	s := f.counts[k]
	if s == nil {
		s = &gateStats{}
		f.counts[k] = s
	}
	return s
}

// priorityStep is the head start of one priority level.
const priorityStep = time.Hour

// dueAt is when a new event becomes claimable: priority shifts it.
func (f *flow) dueAt(b *Binding, event map[string]any, nowMs int64) int64 {
	if b.Priority == nil {
		return nowMs
	}
	step := priorityStep.Milliseconds()
	if b.Priority.Key != "" {
		v := fmt.Sprint(event[b.Priority.Key])
		for i, o := range b.Priority.Order {
			if o == v {
				// earlier in the order = more urgent
				return nowMs - int64(len(b.Priority.Order)-i)*step
			}
		}
		return nowMs
	}
	switch b.Priority.Level {
	case "high":
		return nowMs - 2*step
	case "normal":
		return nowMs - step
	}
	return nowMs
}

// noteAccepted remembers the newest event of each debounce partition.
func (f *flow) noteAccepted(b *Binding, event map[string]any, eventID string, now time.Time) {
	if b.Flow.Debounce == nil {
		return
	}
	k := keyOf(b, "debounce", b.Flow.Debounce, event)
	f.mu.Lock()
	f.latest[k], f.accepted[k] = eventID, now
	f.mu.Unlock()
}

// acquire passes the gates: it returns a release function, or a reason
// to skip the event.
func (f *flow) acquire(ctx context.Context, b *Binding, env Envelope) (release func(), skip string, err error) {
	ev := env.Event
	var releases []func()
	release = func() {
		for i := len(releases) - 1; i >= 0; i-- {
			releases[i]()
		}
	}
	fail := func(reason string) (func(), string, error) { release(); return func() {}, reason, nil }

	if g := b.Flow.Debounce; g != nil {
		k := keyOf(b, "debounce", g, ev)
		f.mu.Lock()
		at, newest := f.accepted[k], f.latest[k]
		f.mu.Unlock()
		if newest != "" && newest == env.EventID {
			if wait := time.Until(at.Add(g.Period)); wait > 0 {
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return fail("cancelled")
				}
			}
		}
		f.mu.Lock()
		newest = f.latest[k]
		f.mu.Unlock()
		if newest != "" && newest != env.EventID {
			f.count(b, "debounce", func(s *gateStats) { s.Skipped++ })
			return fail("debounced: a newer event " + newest + " superseded it")
		}
	}
	if g := b.Flow.RateLimit; g != nil {
		if !f.window(keyOf(b, "rate_limit", g, ev), g, false) {
			f.count(b, "rate_limit", func(s *gateStats) { s.Skipped++ })
			return fail(fmt.Sprintf("rate limited: more than %d events in %s", g.Max, g.Period))
		}
	}
	if g := b.Flow.Singleton; g != nil {
		k := keyOf(b, "singleton", g, ev)
		f.mu.Lock()
		busy := f.running[k] > 0
		if !busy {
			f.running[k]++
			f.stats(b, "singleton").Running++
		}
		f.mu.Unlock()
		if busy {
			f.count(b, "singleton", func(s *gateStats) { s.Skipped++ })
			return fail("singleton: another event of the same partition is running")
		}
		releases = append(releases, func() { f.leave(k, b, "singleton") })
	}
	for _, gate := range []struct {
		name string
		g    *manifest.Gate
	}{{"concurrency", b.Flow.Concurrency}, {"budget.max_concurrent", budgetGate(b)}} {
		if gate.g == nil {
			continue
		}
		k := keyOf(b, gate.name, gate.g, ev)
		// waiting for other dispatches to end, this one cannot act
		// (Runtime, on deadlocks)
		scopeOf(ctx).Aside()
		err := f.enter(ctx, k, gate.g.Max, b, gate.name)
		scopeOf(ctx).Resume()
		if err != nil {
			return fail("cancelled")
		}
		name := gate.name
		releases = append(releases, func() { f.leave(k, b, name) })
	}
	if g := b.Flow.Throttle; g != nil {
		k := keyOf(b, "throttle", g, ev)
		for !f.window(k, g, true) {
			f.count(b, "throttle", func(s *gateStats) { s.Waited++ })
			select {
			case <-time.After(g.Period / time.Duration(g.Max+1)):
			case <-ctx.Done():
				return fail("cancelled")
			}
		}
	}
	return release, "", nil
}

func budgetGate(b *Binding) *manifest.Gate {
	if b.Budget == nil || b.Budget.MaxConcurrent == 0 {
		return nil
	}
	return &manifest.Gate{Max: int(b.Budget.MaxConcurrent)}
}

func (f *flow) count(b *Binding, gate string, fn func(*gateStats)) {
	f.mu.Lock()
	fn(f.stats(b, gate))
	f.mu.Unlock()
}

// window admits a start if fewer than g.Max started within g.Period.
func (f *flow) window(k string, g *manifest.Gate, _ bool) bool {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	starts := f.starts[k]
	i := 0
	for i < len(starts) && now.Sub(starts[i]) >= g.Period {
		i++
	}
	starts = starts[i:]
	if len(starts) >= g.Max {
		f.starts[k] = starts
		return false
	}
	f.starts[k] = append(starts, now)
	return true
}

// enter waits for room in a counting gate.
func (f *flow) enter(ctx context.Context, k string, max int, b *Binding, gate string) error {
	for {
		f.mu.Lock()
		if f.running[k] < max {
			f.running[k]++
			f.stats(b, gate).Running++
			f.mu.Unlock()
			return nil
		}
		ch := make(chan struct{})
		f.waiters[k] = append(f.waiters[k], ch)
		f.stats(b, gate).Waited++
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (f *flow) leave(k string, b *Binding, gate string) {
	f.mu.Lock()
	f.running[k]--
	f.stats(b, gate).Running--
	if ws := f.waiters[k]; len(ws) > 0 {
		close(ws[0])
		f.waiters[k] = ws[1:]
	}
	f.mu.Unlock()
}

// report is the flow_control object of inspect: only the configured
// gates, each with its configuration and this node's counters.
func (f *flow) report(b *Binding) map[string]any {
	out := map[string]any{}
	f.mu.Lock()
	defer f.mu.Unlock()
	gate := func(name string, g *manifest.Gate, cfg map[string]any) {
		if g == nil {
			return
		}
		if g.Key != "" {
			cfg["key"] = g.Key
		}
		s := f.counts[b.ID+"/"+name]
		if s == nil {
			s = &gateStats{}
		}
		cfg["state"] = *s
		out[name] = cfg
	}
	fl := b.Flow
	if g := fl.Concurrency; g != nil {
		gate("concurrency", g, map[string]any{"max": g.Max})
	}
	if g := fl.Throttle; g != nil {
		gate("throttle", g, map[string]any{"max": g.Max, "period": g.Period.String()})
	}
	if g := fl.RateLimit; g != nil {
		gate("rate_limit", g, map[string]any{"max": g.Max, "period": g.Period.String()})
	}
	if g := fl.Debounce; g != nil {
		gate("debounce", g, map[string]any{"period": g.Period.String()})
	}
	if g := fl.Singleton; g != nil {
		gate("singleton", g, map[string]any{})
	}
	if g := fl.Batch; g != nil {
		timeout := g.Timeout
		if timeout <= 0 {
			timeout = DefaultBatchTimeout
		}
		cfg := map[string]any{"size": g.Size, "timeout": timeout.String()}
		gate("batch", g, cfg)
	}
	if p := b.Priority; p != nil {
		out["priority"] = p
	}
	if bu := b.Budget; bu != nil {
		out["cost_budget"] = bu
	}
	return out
}
