package evals

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/concurrency"
	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// Severities are the friction event severities, least severe first.
var Severities = []string{"low", "medium", "high", "critical"}

type logsKey struct{}

// logs are a run's in-run logs (per VM: tasks share them).
type logs struct {
	mu       sync.Mutex
	friction []vm.Value
	counters map[string]int64
	events   []vm.Value // the newest MaxEvents emitted events
	seq      int        // events emitted so far
	subs     []*subscription
}

// MaxEvents is how many emitted events a run keeps (the oldest go first).
const MaxEvents = 10000

func logsOf(th *vm.Thread) *logs {
	return th.VM().Local(logsKey{}, func() any { return &logs{counters: map[string]int64{}} }).(*logs)
}

func now(th *vm.Thread) vm.Value { return vm.Str(htime.VMNow(th).UTC().Format(time.RFC3339Nano)) }

// frictionEvent checks and completes a friction event.
func frictionEvent(th *vm.Thread, name string, d *vm.Dict) (*vm.Dict, error) {
	kind, ok := str(d, "kind")
	if !ok || kind == "" {
		return nil, vm.Runtimef("%s: a friction event needs a non-empty string `kind`", name)
	}
	if v, ok := d.Get("message"); !ok || v.IsNil() {
		d = d.Set("message", vm.Str(""))
	} else if v.Type() != "string" {
		return nil, vm.Runtimef("%s: `message` must be a string, got %s", name, v.Type())
	}
	if v, ok := d.Get("severity"); !ok || v.IsNil() {
		d = d.Set("severity", vm.Str("medium"))
	} else if s, _ := str(d, "severity"); !slices.Contains(Severities, s) {
		return nil, vm.Runtimef("%s: `severity` must be one of low, medium, high, critical, got %s", name, lib.Display(v))
	}
	if v, ok := d.Get("context"); !ok || v.IsNil() {
		d = d.Set("context", vm.Of(vm.NewDict()))
	} else if v.Type() != "dict" {
		return nil, vm.Runtimef("%s: `context` must be a dict, got %s", name, v.Type())
	}
	if v, ok := d.Get("at"); !ok || v.IsNil() {
		d = d.Set("at", now(th))
	}
	return d, nil
}

// eventArgs reads (event: dict) or (kind, message?, fields?).
func eventArgs(th *vm.Thread, name string, a vm.Args) (*vm.Dict, error) {
	if err := need(name, a, 0); err != nil {
		return nil, err
	}
	if d, ok := a.Dict(0); ok {
		return frictionEvent(th, name, d)
	}
	kind, err := stringArg(name, a, 0)
	if err != nil {
		return nil, vm.Runtimef("%s: expected dict or string at argument 1, got %s", name, a.At(0).Type())
	}
	d, err := lib.OptionsArg(name, a, 2)
	if err != nil {
		return nil, err
	}
	d = d.Set("kind", vm.Str(kind))
	if a.Given(1) {
		d = d.Set("message", a.At(1))
	}
	return frictionEvent(th, name, d)
}

func init() {
	lib.Def("friction_event", "friction_event(kind: string | dict, message?: string, fields?: dict) -> dict",
		"a friction event {kind, message, severity (low|medium|high|critical, default medium), context, at}, not recorded",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			d, err := eventArgs(th, "friction_event", a)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(d), nil
		})
	lib.Def("friction_record", "friction_record(kind: string | dict, message?: string, fields?: dict) -> dict",
		"append a friction event (as friction_event makes it) to the run's friction log; returns it",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			d, err := eventArgs(th, "friction_record", a)
			if err != nil {
				return vm.Value{}, err
			}
			l := logsOf(th)
			l.mu.Lock()
			l.friction = append(l.friction, vm.Of(d))
			l.mu.Unlock()
			return vm.Of(d), nil
		})
	lib.Def("friction_events", "friction_events(filters?: dict) -> list<dict>",
		"the run's friction events matching filters {kind, severity}, oldest first",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			f, err := lib.OptionsArg("friction_events", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			l := logsOf(th)
			l.mu.Lock()
			evs := slices.Clone(l.friction)
			l.mu.Unlock()
			var out []vm.Value
			for _, e := range evs {
				ed, _ := e.AsDict()
				keep := true
				for _, k := range []string{"kind", "severity"} {
					if want, ok := f.Get(k); ok && !want.IsNil() && !vm.Equal(want, lib.Get(ed, k)) {
						keep = false
					}
				}
				if keep {
					out = append(out, e)
				}
			}
			return vm.Of(vm.NewList(out)), nil
		})
	lib.Def("friction_clear", "friction_clear() -> int",
		"empty the run's friction log; returns how many events it held",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if a.Len() > 0 {
				return vm.Value{}, vm.Runtimef("friction_clear: takes no arguments, got %d", a.Len())
			}
			l := logsOf(th)
			l.mu.Lock()
			n := len(l.friction)
			l.friction = nil
			l.mu.Unlock()
			return lib.IntOf(n), nil
		})
	lib.Def("friction_eval_fixture", "friction_eval_fixture(events?: list) -> dict",
		"an eval fixture of friction events (default: the run's log): {kind: \"friction_fixture\", events, total, by_kind: {kind: n}, by_severity: {severity: n}}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "friction_eval_fixture"
			var evs []vm.Value
			if a.Given(0) {
				l, err := listArg(name, a, 0)
				if err != nil {
					return vm.Value{}, err
				}
				for i, e := range l.Items() {
					ed, ok := e.AsDict()
					if !ok {
						return vm.Value{}, vm.Runtimef("%s: event %d must be a dict, got %s", name, i, e.Type())
					}
					ed, err := frictionEvent(th, name, ed)
					if err != nil {
						return vm.Value{}, err
					}
					evs = append(evs, vm.Of(ed))
				}
			} else {
				l := logsOf(th)
				l.mu.Lock()
				evs = slices.Clone(l.friction)
				l.mu.Unlock()
			}
			byKind, bySev := vm.NewDict(), vm.NewDict()
			inc := func(d *vm.Dict, k string) *vm.Dict {
				n := int64(0)
				if v, ok := d.Get(k); ok {
					i, _ := v.AsInt()
					n = int64(i)
				}
				return d.Set(k, vm.IntOf(n+1))
			}
			for _, e := range evs {
				ed, _ := e.AsDict()
				k, _ := str(ed, "kind")
				s, _ := str(ed, "severity")
				byKind, bySev = inc(byKind, k), inc(bySev, s)
			}
			return vm.Of(lib.DictOf(
				"kind", vm.Str("friction_fixture"),
				"events", vm.Of(vm.NewList(evs)),
				"total", lib.IntOf(len(evs)),
				"by_kind", vm.Of(byKind),
				"by_severity", vm.Of(bySev),
			)), nil
		})
	lib.Def("metrics_inc", "metrics_inc(name: string, by?: int) -> int",
		"add by (default 1) to the run's counter name (starting at 0); returns the new value",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "metrics_inc"
			n, err := stringArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			by := int64(1)
			if a.Given(1) {
				b, ok := a.Int(1)
				if !ok {
					return vm.Value{}, vm.Runtimef("%s: expected int at argument 2, got %s", name, a.At(1).Type())
				}
				by = b
			}
			l := logsOf(th)
			l.mu.Lock()
			defer l.mu.Unlock()
			v := l.counters[n]
			if (by > 0 && v > 1<<63-1-by) || (by < 0 && v < -1<<63-by) {
				return vm.Value{}, vm.Runtimef("%s: counter `%s` would overflow", name, n)
			}
			l.counters[n] = v + by
			return vm.IntOf(v + by), nil
		})
	lib.Def("event_log_emit", "event_log_emit(topic: string, payload?: any) -> dict", emitDoc,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return emit(th, "event_log_emit", a) })
}

// The run's event log (docs/evals.md, "The event log"): event_log_emit and
// the event_log namespace, {emit, latest, subscribe}
// (docs/spec/builtins.md §5, Connectors/events).

const emitDoc = "append {seq, topic, payload, at} to the run's event log (seq counts from 1) and hand it to the topic's subscribers; returns the event"

// subscription is one event_log.subscribe channel: the events of topic
// ("" for every topic) emitted after it was made.
type subscription struct {
	topic string
	ch    *concurrency.Channel
}

func emit(th *vm.Thread, name string, a vm.Args) (vm.Value, error) {
	t, err := stringArg(name, a, 0)
	if err != nil {
		return vm.Value{}, err
	}
	if t == "" {
		return vm.Value{}, vm.Runtimef("%s: the topic must not be empty", name)
	}
	p := vm.Nil
	if a.Has(1) {
		p = a.At(1)
	}
	l := logsOf(th)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e := vm.Of(lib.DictOf("seq", lib.IntOf(l.seq), "topic", vm.Str(t), "payload", p, "at", now(th)))
	if len(l.events) == MaxEvents {
		l.events = slices.Delete(l.events, 0, MaxEvents/10)
	}
	l.events = append(l.events, e)
	// A subscriber is never waited for: a full channel misses the event,
	// a closed one is dropped.
	l.subs = slices.DeleteFunc(l.subs, func(s *subscription) bool {
		if s.topic != "" && s.topic != t {
			return false
		}
		_, open := s.ch.TrySend(e)
		return !open
	})
	return e, nil
}

// topicArg reads an optional topic: nil or absent is every topic.
func topicArg(name string, a vm.Args, i int) (string, error) {
	if !a.Given(i) || a.At(i).IsNil() {
		return "", nil
	}
	s, ok := a.At(i).AsString()
	if !ok {
		return "", vm.Typef("%s: the topic must be a string or nil, got %s", name, a.At(i).Type())
	}
	if s.Go() == "" {
		return "", vm.Runtimef("%s: the topic must not be empty", name)
	}
	return s.Go(), nil
}

func topicOf(e vm.Value) string {
	d, _ := e.AsDict()
	t, _ := str(d, "topic")
	return t
}

func init() {
	var members []*vm.Builtin
	op := func(name, sig, doc string, fn vm.BuiltinFunc) {
		members = append(members, vm.NewBuiltin("event_log."+name, sig, doc, fn))
	}
	op("emit", "event_log.emit(topic: string, payload?: any) -> dict", emitDoc,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) { return emit(th, "event_log.emit", a) })
	op("latest", "event_log.latest(topic?: string) -> dict?",
		"the newest event of the topic (of any topic when nil or left out), or nil when there is none",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			t, err := topicArg("event_log.latest", a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			l := logsOf(th)
			l.mu.Lock()
			defer l.mu.Unlock()
			for i := len(l.events) - 1; i >= 0; i-- {
				if t == "" || topicOf(l.events[i]) == t {
					return l.events[i], nil
				}
			}
			return vm.Nil, nil
		})
	op("subscribe", "event_log.subscribe(topic?: string, options?: dict)",
		"a channel that receives the topic's events (every topic's when nil) emitted from now on; options: replay (first the newest kept events that fit, default false), capacity (default 256; a full channel misses events)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "event_log.subscribe"
			t, err := topicArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			opts, err := lib.OptionsArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			replay, capacity := false, int64(concurrency.DefaultChannelCapacity)
			if opts != nil {
				if err := lib.CheckOptions(name, opts, []string{"capacity", "replay"}); err != nil {
					return vm.Value{}, err
				}
				var bad error
				opts.Range(func(k string, v vm.Value) bool {
					switch k {
					case "replay":
						b, ok := v.AsBool()
						if !ok {
							bad = vm.Typef("%s: replay must be a bool, got %s", name, v.Type())
						}
						replay = bool(b)
					case "capacity":
						n, ok := v.AsInt()
						if !ok || v.Type() != "int" || n < 1 {
							bad = vm.Typef("%s: capacity must be a positive int, got %s", name, lib.Display(v))
						}
						capacity = int64(n)
					}
					return bad == nil
				})
				if bad != nil {
					return vm.Value{}, bad
				}
			}
			label := t
			if label == "" {
				label = "*"
			}
			ch := concurrency.NewChannel(th.VM(), fmt.Sprintf("event_log:%s", label), int(min(capacity, 1<<20)))
			l := logsOf(th)
			l.mu.Lock()
			defer l.mu.Unlock()
			if replay {
				// The newest kept events of the topic that fit, oldest first.
				var kept []vm.Value
				for _, e := range l.events {
					if t == "" || topicOf(e) == t {
						kept = append(kept, e)
					}
				}
				for _, e := range kept[max(0, len(kept)-int(capacity)):] {
					ch.TrySend(e)
				}
			}
			l.subs = append(l.subs, &subscription{topic: t, ch: ch})
			return vm.Of(ch), nil
		})
	lib.Namespace("event_log", members)
}
