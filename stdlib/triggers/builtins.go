package triggers

import (
	"sort"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// contexts are the handler contexts of the threads running a handler
// (or its predicate), innermost last: handler_context reads its thread's.
type contexts struct {
	mu sync.Mutex
	m  map[*vm.Thread][]*vm.Dict
}

type contextsKey struct{}

func contextsOf(th *vm.Thread) *contexts {
	return th.VM().Local(contextsKey{}, func() any { return &contexts{m: map[*vm.Thread][]*vm.Dict{}} }).(*contexts)
}

func pushContext(th *vm.Thread, ctx *vm.Dict) (pop func()) {
	c := contextsOf(th)
	c.mu.Lock()
	c.m[th] = append(c.m[th], ctx)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		s := c.m[th]
		if len(s) <= 1 {
			delete(c.m, th)
			return
		}
		c.m[th] = s[:len(s)-1]
	}
}

func contextDepth(th *vm.Thread) int {
	c := contextsOf(th)
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m[th])
}

func currentContext(th *vm.Thread) vm.Value {
	c := contextsOf(th)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.m[th]; len(s) > 0 {
		return vm.Of(s[len(s)-1])
	}
	return vm.Nil
}

func init() {
	lib.Def("trigger_register", "trigger_register(spec: dict)",
		"register an in-script trigger {id, kind: manual|cron|webhook, handler: fn, provider?, match?: {events}, when?: fn, tier?, schedule?, timezone?, retry?: {max, backoff, base, retention_days}}, validated like a harn.toml [[triggers]] table; returns its trigger_list entry (registering an id again makes a new version)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return register(th, "trigger_register", runRegistry(th), a)
		})
	lib.Def("trigger_list", "trigger_list()",
		"the registered triggers, in registration order, as harn.trigger.list entries {trigger_id, kind, provider, when, handler, version, state, metrics}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			r := runRegistry(th)
			return vm.Of(vm.NewList(r.list(r.nowMs(th)))), nil
		})
	lib.Def("trigger_fire", "trigger_fire(id: string, payload?: any)",
		"fire a trigger with harn.trigger.fire's synthetic event (payload dict merged over it) and run its handler now, retrying by its policy; returns the handle {event_id, status, binding_id, binding_version, dlq_entry_id, error, result, attempts}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return fire(th, "trigger_fire", runRegistry(th), a) })
	lib.Def("trigger_replay", "trigger_replay(event_id: string)",
		"dispatch a recorded event again under a new event id linked to it (replay_of_event_id, a replay_chain action-graph edge); returns the handle",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return replay(th, "trigger_replay", runRegistry(th), a)
		})
	lib.Def("trigger_inspect_dlq", "trigger_inspect_dlq()",
		"the dead-lettered deliveries, oldest first: {id, event_id, binding_id, binding_version, provider, kind, state, error, error_class, event, retry_history}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return runRegistry(th).inspectDLQ(), nil })
	lib.Def("trigger_inspect_lifecycle", "trigger_inspect_lifecycle(event_id?: string)",
		"the state transitions of every event (or of one): {event_id, binding_id, binding_version, state, attempt, at, occurred_at_ms, …} with state accepted, dispatching, succeeded, failed, dead_lettered or skipped",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return runRegistry(th).inspectLifecycle("trigger_inspect_lifecycle", a)
		})
	lib.Def("trigger_inspect_action_graph", "trigger_inspect_action_graph()",
		"the action-graph records, oldest first: one action_graph_update per dispatch and a replay_chain per replay, each {id, kind, occurred_at_ms, headers, payload}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return runRegistry(th).inspectGraph(), nil })
	lib.Def("handler_context", "handler_context()",
		"inside a trigger handler or predicate: {event, event_id, binding_id, binding_version, kind, provider, attempt, max_attempts, source, replay_of_event_id, trace_id, tier}; nil elsewhere",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return currentContext(th), nil })
	lib.Def("trigger_test_harness", "trigger_test_harness(options?: dict)",
		"a test harness with its own triggers and a fake clock (default 0, the Unix epoch): {register, list, fire, replay, dlq, lifecycle, action_graph, advance, now_ms}; advance(ms or duration) moves the clock and runs the cron ticks due",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return harness(th, a) })
}

func argString(name string, a vm.Args, i int, what string) (string, error) {
	if !a.Has(i) || a.At(i).Kind() == vm.KNil {
		return "", vm.Runtimef("%s: missing argument %d (%s)", name, i+1, what)
	}
	s, ok := a.At(i).AsString()
	if !ok {
		return "", vm.Runtimef("%s: expected string at argument %d (%s), got %s", name, i+1, what, a.At(i).Type())
	}
	return s.Go(), nil
}

func register(th *vm.Thread, name string, r *registry, a vm.Args) (vm.Value, error) {
	if !a.Has(0) {
		return vm.Value{}, vm.Runtimef("%s: missing argument 1 (the trigger spec dict)", name)
	}
	d, ok := a.Dict(0)
	if !ok {
		return vm.Value{}, vm.Runtimef("%s: expected dict at argument 1, got %s", name, a.At(0).Type())
	}
	b, err := validate(d)
	if err != nil {
		if name != "trigger_register" {
			e := err.(*vm.Error)
			return vm.Value{}, vm.Runtimef("%s%s", name, e.Msg[len("trigger_register"):])
		}
		return vm.Value{}, err
	}
	return vm.Of(r.register(b)), nil
}

func fire(th *vm.Thread, name string, r *registry, a vm.Args) (vm.Value, error) {
	id, err := argString(name, a, 0, "the trigger id")
	if err != nil {
		return vm.Value{}, err
	}
	b := r.binding(id)
	if b == nil {
		return vm.Value{}, vm.Runtimef("%s: unknown trigger binding '%s'", name, id)
	}
	ev := lib.DictOf("provider", vm.Str(b.provider), "kind", vm.Str(b.eventKind()),
		"headers", lib.DictOf("x-harn-binding-id", vm.Str(b.id), "x-harn-synthetic", vm.Str("true")))
	if a.Has(1) {
		switch p := a.At(1); {
		case p.Kind() == vm.KNil:
		default:
			if pd, ok := p.Object().(*vm.Dict); ok {
				ev = ev.Merge(pd)
			} else {
				ev = ev.Set("payload", p)
			}
		}
	}
	return r.dispatch(th, request{b: b, event: ev, source: "manual", caller: name})
}

func replay(th *vm.Thread, name string, r *registry, a vm.Args) (vm.Value, error) {
	id, err := argString(name, a, 0, "the event id")
	if err != nil {
		return vm.Value{}, err
	}
	r.mu.Lock()
	rec := r.events[id]
	var b *binding
	if rec != nil {
		b = r.bindings[rec.bindingID]
	}
	r.mu.Unlock()
	if rec == nil {
		return vm.Value{}, vm.Runtimef("%s: unknown trigger event id '%s'", name, id)
	}
	ev := rec.event.Delete("id").Delete("trace_id").Delete("received_at")
	return r.dispatch(th, request{b: b, event: ev, source: "replay", replayOf: id, caller: name})
}

func (r *registry) inspectDLQ() vm.Value {
	r.mu.Lock()
	defer r.mu.Unlock()
	return vm.Of(lib.DictList(r.dlq))
}

func (r *registry) inspectLifecycle(name string, a vm.Args) (vm.Value, error) {
	filter := ""
	if a.Has(0) && a.At(0).Kind() != vm.KNil {
		s, ok := a.At(0).AsString()
		if !ok {
			return vm.Value{}, vm.Runtimef("%s: expected string at argument 1 (an event id), got %s", name, a.At(0).Type())
		}
		filter = s.Go()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if filter != "" && r.events[filter] == nil {
		return vm.Value{}, vm.Runtimef("%s: unknown trigger event id '%s'", name, filter)
	}
	var out []vm.Value
	for _, t := range r.life {
		if filter != "" {
			if id, _ := t.Get("event_id"); vm.ToDisplay(id) != filter {
				continue
			}
		}
		out = append(out, vm.Of(t))
	}
	return vm.Of(vm.NewList(out)), nil
}

func (r *registry) inspectGraph() vm.Value {
	r.mu.Lock()
	defer r.mu.Unlock()
	return vm.Of(lib.DictList(r.graph))
}

// harness builds a test harness: a fresh registry on a fake clock.
func harness(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const name = "trigger_test_harness"
	r := newRegistry()
	r.clock = &fakeClock{}
	if a.Has(0) && a.At(0).Kind() != vm.KNil {
		opts, ok := a.Dict(0)
		if !ok {
			return vm.Value{}, lib.BadOptions(name, a.At(0))
		}
		if err := lib.CheckOptions(name, opts, []string{"now_ms"}); err != nil {
			return vm.Value{}, err
		}
		var err error
		opts.Range(func(k string, v vm.Value) bool {
			switch k {
			case "now_ms":
				n, ok := v.AsInt()
				if !ok {
					err = vm.Runtimef("%s: option `now_ms` must be an int (milliseconds since the Unix epoch), got %s", name, v.Type())
					return false
				}
				r.clock.ms = int64(n)
			}
			return true
		})
		if err != nil {
			return vm.Value{}, err
		}
	}
	method := func(m, sig, doc string, fn vm.BuiltinFunc) vm.Value {
		return vm.Of(vm.NewBuiltin("harness."+m, sig, doc, fn))
	}
	h := lib.DictOf(
		"register", method("register", "register(spec: dict)", "trigger_register on the harness", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return register(th, "harness.register", r, a)
		}),
		"list", method("list", "list()", "trigger_list of the harness", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return vm.Of(vm.NewList(r.list(r.nowMs(th)))), nil
		}),
		"fire", method("fire", "fire(id: string, payload?: any)", "trigger_fire on the harness", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return fire(th, "harness.fire", r, a)
		}),
		"replay", method("replay", "replay(event_id: string)", "trigger_replay on the harness", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return replay(th, "harness.replay", r, a)
		}),
		"dlq", method("dlq", "dlq()", "trigger_inspect_dlq of the harness", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return r.inspectDLQ(), nil
		}),
		"lifecycle", method("lifecycle", "lifecycle(event_id?: string)", "trigger_inspect_lifecycle of the harness", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return r.inspectLifecycle("harness.lifecycle", a)
		}),
		"action_graph", method("action_graph", "action_graph()", "trigger_inspect_action_graph of the harness", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return r.inspectGraph(), nil
		}),
		"now_ms", method("now_ms", "now_ms()", "the harness clock, in milliseconds since the Unix epoch", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return vm.IntOf(r.clock.now()), nil
		}),
		"advance", method("advance", "advance(by: duration | int)", "move the harness clock forward (an int is milliseconds) and run the cron ticks due on the way; returns their handles", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return r.advance(th, a)
		}),
	)
	return vm.Of(h), nil
}

// advance moves a harness clock and fires each cron binding at each of
// its scheduled instants passed, in time order (registration order for
// one instant), as the orchestrator's scheduler would.
func (r *registry) advance(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const name = "harness.advance"
	if !a.Has(0) || a.At(0).Kind() == vm.KNil {
		return vm.Value{}, vm.Runtimef("%s: missing argument 1 (a duration or milliseconds)", name)
	}
	var ms int64
	if d, ok := a.At(0).AsDuration(); ok {
		ms = int64(d)
	} else if n, ok := a.At(0).AsInt(); ok {
		ms = int64(n)
	} else {
		return vm.Value{}, vm.Runtimef("%s: expected duration or int at argument 1, got %s", name, a.At(0).Type())
	}
	if ms < 0 {
		return vm.Value{}, vm.Runtimef("%s: the clock cannot go back (got %d ms)", name, ms)
	}
	from := r.clock.now()
	to := from + ms
	type tick struct {
		at time.Time
		b  *binding
	}
	var ticks []tick
	r.mu.Lock()
	for _, b := range r.sorted() {
		if b.kind != "cron" || b.cron == nil {
			continue
		}
		for _, t := range nextTicks(b.cron, b.location, time.UnixMilli(from), time.UnixMilli(to)) {
			ticks = append(ticks, tick{t, b})
		}
	}
	r.mu.Unlock()
	sort.SliceStable(ticks, func(i, j int) bool { return ticks[i].at.Before(ticks[j].at) })
	var out []vm.Value
	for _, t := range ticks {
		r.clock.atLeast(t.at.UnixMilli())
		b := t.b
		ev := lib.DictOf("provider", vm.Str(b.provider), "kind", vm.Str(b.eventKind()),
			"headers", lib.DictOf("x-harn-binding-id", vm.Str(b.id)),
			"payload", lib.DictOf("scheduled_at", vm.Str(t.at.In(b.location).Format(time.RFC3339)), "schedule", vm.Str(b.schedule),
				"timezone", vm.Str(b.location.String())))
		h, err := r.dispatch(th, request{b: b, event: ev, source: "cron", caller: name})
		if err != nil {
			return vm.Value{}, err
		}
		out = append(out, h)
	}
	r.clock.atLeast(to)
	return vm.Of(vm.NewList(out)), nil
}
