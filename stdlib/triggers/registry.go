package triggers

import (
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
	"github.com/robfig/cron/v3"
)

// binding is a registered trigger.
type binding struct {
	id, kind, provider string
	events             []string
	handler, when      vm.Value
	tier               string
	schedule, timezone string
	location           *time.Location
	cron               cron.Schedule
	retry              triggerspec.Retry
	version            int
	state              string
	// order is the registration order (trigger_list, cron ticks).
	order int
	// m is shared by the versions of one id.
	m *metrics
}

// metrics are a binding's counters, as harn.trigger.list reports them.
type metrics struct {
	received, dispatched, failed, dlq, inFlight int64
	lastReceivedMs                              int64 // -1: never
	spends                                      []spend
}

// spend is one final outcome's cost and autonomy, for the day and hour sums.
type spend struct {
	ms         int64
	micros     int64
	autonomous bool
}

func (b *binding) eventKind() string {
	if len(b.events) > 0 {
		return b.events[0]
	}
	return triggerspec.DefaultEventKind(b.kind)
}

// reference names the handler as harn.trigger.list's handler.reference
// does: the function's name, or <fn> for a lambda.
func reference(fn vm.Value) string {
	switch f := fn.Object().(type) {
	case *vm.Closure:
		if n := f.Name(); n != "" && !strings.HasPrefix(n, "<") {
			return n
		}
		return "<fn>"
	case *vm.Builtin:
		return f.Name()
	}
	return vm.ToDisplay(fn)
}

// recorded is an accepted event (what triggers.events keeps).
type recorded struct {
	eventID, bindingID string
	bindingVersion     int
	replayOf           string
	event              *vm.Dict
}

// registry is one set of bindings with their events, dead letters,
// lifecycle and action graph: the run's (per VM), or a test harness's.
type registry struct {
	mu       sync.Mutex
	bindings map[string]*binding
	next     int // registration counter
	events   map[string]*recorded
	dlq      []*vm.Dict
	life     []*vm.Dict
	graph    []*vm.Dict
	// clock is the fake clock of a harness; nil: the VM's (mock_time).
	clock *fakeClock
}

func newRegistry() *registry {
	return &registry{bindings: map[string]*binding{}, events: map[string]*recorded{}}
}

type registryKey struct{}

func runRegistry(th *vm.Thread) *registry {
	return th.VM().Local(registryKey{}, func() any { return newRegistry() }).(*registry)
}

// fakeClock is a harness's clock: it moves only when the harness
// advances it or a retry waits out its backoff.
type fakeClock struct {
	mu sync.Mutex
	ms int64
}

func (c *fakeClock) now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ms
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ms += d.Milliseconds()
}

func (c *fakeClock) atLeast(ms int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ms = max(c.ms, ms)
}

func (r *registry) nowMs(th *vm.Thread) int64 {
	if r.clock != nil {
		return r.clock.now()
	}
	return vmNow(th).UnixMilli()
}

func rfc3339(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }

// register adds b (a new version when its id is registered already).
func (r *registry) register(b *binding) *vm.Dict {
	r.mu.Lock()
	defer r.mu.Unlock()
	b.version, b.order = 1, r.next
	b.m = &metrics{lastReceivedMs: -1}
	if old := r.bindings[b.id]; old != nil {
		b.version, b.order, b.m = old.version+1, old.order, old.m
	}
	r.next++
	r.bindings[b.id] = b
	return r.entry(b, 0)
}

func (r *registry) binding(id string) *binding {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bindings[id]
}

// list is harn.trigger.list's entries, in registration order.
func (r *registry) list(nowMs int64) []vm.Value {
	r.mu.Lock()
	defer r.mu.Unlock()
	bs := r.sorted()
	out := make([]vm.Value, len(bs))
	for i, b := range bs {
		out[i] = vm.Of(r.entry(b, nowMs))
	}
	return out
}

func (r *registry) sorted() []*binding {
	bs := make([]*binding, 0, len(r.bindings))
	for _, b := range r.bindings {
		bs = append(bs, b)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].order < bs[j].order })
	return bs
}

// entry is b as a harn.trigger.list entry (r.mu held).
func (r *registry) entry(b *binding, nowMs int64) *vm.Dict {
	when := vm.Nil
	if b.when.IsValid() {
		when = vm.Str(reference(b.when))
	}
	last := vm.Nil
	if b.m.lastReceivedMs >= 0 {
		last = vm.IntOf(b.m.lastReceivedMs)
	}
	var total, today, hour, auto, autoToday, autoHour int64
	day := time.UnixMilli(nowMs).UTC().Truncate(24 * time.Hour).UnixMilli()
	hr := time.UnixMilli(nowMs).UTC().Truncate(time.Hour).UnixMilli()
	for _, s := range b.m.spends {
		total += s.micros
		if s.autonomous {
			auto++
		}
		if s.ms >= day {
			today += s.micros
			if s.autonomous {
				autoToday++
			}
		}
		if s.ms >= hr {
			hour += s.micros
			if s.autonomous {
				autoHour++
			}
		}
	}
	m := lib.DictOf("received", vm.IntOf(b.m.received), "dispatched", vm.IntOf(b.m.dispatched), "failed", vm.IntOf(b.m.failed),
		"dlq", vm.IntOf(b.m.dlq), "in_flight", vm.IntOf(b.m.inFlight), "last_received_ms", last,
		"cost_total_usd_micros", vm.IntOf(total), "cost_today_usd_micros", vm.IntOf(today), "cost_hour_usd_micros", vm.IntOf(hour),
		"autonomous_decisions_total", vm.IntOf(auto), "autonomous_decisions_today", vm.IntOf(autoToday), "autonomous_decisions_hour", vm.IntOf(autoHour))
	out := lib.DictOf("trigger_id", vm.Str(b.id), "kind", vm.Str(b.kind), "provider", vm.Str(b.provider), "when", when,
		"handler", lib.DictOf("kind", vm.Str("local"), "reference", vm.Str(reference(b.handler))),
		"version", lib.IntOf(b.version), "state", vm.Str(b.state), "metrics", m)
	return out
}

// usageMicros is the cost a handler result reports in `usage.cost_usd`
// (docs/orchestrator.md, "Budgets, autonomy and trust"), in micro-dollars.
func usageMicros(res vm.Value) int64 {
	d, ok := res.Object().(*vm.Dict)
	if !ok {
		return 0
	}
	u, ok := d.Get("usage")
	if !ok {
		return 0
	}
	ud, ok := u.Object().(*vm.Dict)
	if !ok {
		return 0
	}
	c, ok := ud.Get("cost_usd")
	if !ok {
		return 0
	}
	var f float64
	if n, ok := c.AsInt(); ok {
		f = float64(n)
	} else if x, ok := c.AsFloat(); ok {
		f = float64(x)
	}
	if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return int64(math.Round(f * 1e6))
}
