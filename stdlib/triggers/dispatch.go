package triggers

import (
	"errors"
	"strings"

	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

var vmNow = htime.VMNow

// request is one event to dispatch.
type request struct {
	b        *binding
	event    *vm.Dict // the event before id, trace_id and received_at
	source   string   // manual, cron, replay
	replayOf string
	caller   string // the builtin (or harness method) that dispatched it
}

// outcome is an attempt's result.
type outcome struct {
	status     string // succeeded, failed, skipped
	result     vm.Value
	err        string
	errorClass string
}

// dispatch accepts the event, runs its attempts on th (retrying by the
// binding's policy; a harness's clock waits out each backoff, the run's
// does not) and returns the dispatch handle. Only a failure that no
// catch may stop (exit, cancellation) leaves it as an error.
func (r *registry) dispatch(th *vm.Thread, q request) (vm.Value, error) {
	b := q.b
	if contextDepth(th) >= maxNesting {
		return vm.Value{}, vm.Runtimef("%s: %s", q.caller, nestingMsg)
	}
	eventID, traceID := triggerspec.NewEventID(), triggerspec.NewTraceID("script")
	ev := q.event.Set("id", vm.Str(eventID))
	if !ev.Has("provider") {
		ev = ev.Set("provider", vm.Str(b.provider))
	}
	if !ev.Has("kind") {
		ev = ev.Set("kind", vm.Str(b.eventKind()))
	}
	ev = ev.Set("trace_id", vm.Str(traceID))
	if !ev.Has("autonomy_tier") && b.tier != "" {
		ev = ev.Set("autonomy_tier", vm.Str(b.tier))
	}
	acceptedMs := r.nowMs(th)
	if !ev.Has("received_at") {
		ev = ev.Set("received_at", vm.Str(rfc3339(acceptedMs)))
	}
	replayOf := vm.Nil
	if q.replayOf != "" {
		replayOf = vm.Str(q.replayOf)
	}

	r.mu.Lock()
	r.events[eventID] = &recorded{eventID: eventID, bindingID: b.id, bindingVersion: b.version, replayOf: q.replayOf, event: ev}
	b.m.received++
	b.m.lastReceivedMs = acceptedMs
	r.transition(acceptedMs, eventID, b, "accepted", 0, "source", vm.Str(q.source), "replay_of_event_id", replayOf)
	if q.replayOf != "" {
		r.replayEdge(acceptedMs, eventID, q.replayOf, b.id, traceID)
	}
	r.mu.Unlock()

	attempts := b.retry.Attempts()
	var history []vm.Value
	var last outcome
	n := 0
	dlqID := vm.Nil
	for n = 1; n <= attempts; n++ {
		ctx := lib.DictOf("event", ev, "event_id", vm.Str(eventID), "binding_id", vm.Str(b.id), "binding_version", lib.IntOf(b.version),
			"kind", getOr(ev, "kind", vm.Nil), "provider", getOr(ev, "provider", vm.Nil), "attempt", lib.IntOf(n), "max_attempts", lib.IntOf(attempts),
			"source", vm.Str(q.source), "replay_of_event_id", replayOf, "trace_id", vm.Str(traceID), "tier", strOrNil(b.tier))
		start := r.nowMs(th)
		var err error
		last, err = r.attempt(th, b, ev, ctx, eventID, n)
		if err != nil {
			// exit, cancellation or the nesting bound: the event stops
			// here, and the failure goes on up.
			var e *vm.Error
			if !errors.As(err, &e) || e.Kind != vm.KindExit {
				r.mu.Lock()
				r.transition(r.nowMs(th), eventID, b, "cancelled", n, "error", vm.Str(err.Error()))
				r.mu.Unlock()
			}
			return vm.Value{}, err
		}
		endMs := r.nowMs(th)
		if last.status == "skipped" {
			r.mu.Lock()
			r.transition(endMs, eventID, b, "skipped", n, "reason", vm.Str(last.err))
			r.mu.Unlock()
			break
		}
		history = append(history, vm.Of(lib.DictOf("attempt", lib.IntOf(n), "at", vm.Str(rfc3339(endMs)), "status", vm.Str(last.status),
			"error", strOrNil(last.err), "error_class", strOrNil(last.errorClass), "duration_ms", vm.IntOf(endMs-start),
			"event_id", vm.Str(eventID), "binding_id", vm.Str(b.id))))
		if last.status == "succeeded" {
			r.mu.Lock()
			b.m.dispatched++
			b.m.spends = append(b.m.spends, spend{ms: endMs, micros: usageMicros(last.result), autonomous: b.tier == "act_auto"})
			r.transition(endMs, eventID, b, "succeeded", n)
			r.mu.Unlock()
			break
		}
		r.mu.Lock()
		b.m.failed++
		if n < attempts {
			delay := b.retry.Delay(n)
			r.transition(endMs, eventID, b, "failed", n, "error", vm.Str(last.err), "error_class", vm.Str(last.errorClass),
				"retry_in_ms", vm.IntOf(delay.Milliseconds()))
			r.mu.Unlock()
			if r.clock != nil {
				r.clock.add(delay)
			}
			continue
		}
		entry := lib.DictOf("id", vm.Str(triggerspec.NewDLQID()), "event_id", vm.Str(eventID), "binding_id", vm.Str(b.id), "binding_version", lib.IntOf(b.version),
			"provider", getOr(ev, "provider", vm.Str(b.provider)), "kind", getOr(ev, "kind", vm.Str(b.eventKind())), "state", vm.Str("pending"),
			"error", vm.Str(last.err), "error_class", vm.Str(last.errorClass), "event", ev, "retry_history", vm.NewList(history))
		dlqID = getOr(entry, "id", vm.Nil)
		r.dlq = append(r.dlq, entry)
		b.m.dlq++
		b.m.spends = append(b.m.spends, spend{ms: endMs, autonomous: b.tier == "act_auto"})
		r.transition(endMs, eventID, b, "dead_lettered", n, "error", vm.Str(last.err), "error_class", vm.Str(last.errorClass), "dlq_entry_id", dlqID)
		r.mu.Unlock()
		last.status = "dlq"
		break
	}
	n = min(n, attempts)

	handle := lib.DictOf("event_id", vm.Str(eventID), "status", vm.Str(last.status), "binding_id", vm.Str(b.id),
		"binding_version", lib.IntOf(b.version), "dlq_entry_id", dlqID, "error", strOrNil(last.err), "result", orNil(last.result),
		"attempts", lib.IntOf(n))
	if q.replayOf != "" {
		handle = handle.Set("replay_of_event_id", replayOf)
	}
	if last.status == "skipped" {
		handle = handle.Set("error", vm.Nil)
	}
	r.mu.Lock()
	r.update(r.nowMs(th), q, b, eventID, traceID, last, n, handle)
	r.mu.Unlock()
	return vm.Of(handle), nil
}

// attempt runs the predicate and the handler once.
func (r *registry) attempt(th *vm.Thread, b *binding, ev, ctx *vm.Dict, eventID string, n int) (outcome, error) {
	pop := pushContext(th, ctx)
	defer pop()
	if b.when.IsValid() {
		ok, err := call(th, b.when, ev)
		if err != nil {
			msg, fatal := failure(err)
			if fatal {
				return outcome{}, err
			}
			return outcome{status: "failed", err: msg, errorClass: "predicate_panic"}, nil
		}
		if good, isResult := vm.IsResult(ok); isResult {
			inner := ok.Object().(*vm.EnumValue).Fields[0]
			if !good {
				return outcome{status: "failed", err: vm.ToDisplay(inner), errorClass: "predicate_panic"}, nil
			}
			ok = inner
		}
		if !ok.Truth() {
			return outcome{status: "skipped", err: "when predicate returned " + vm.ToDisplay(ok)}, nil
		}
	}
	r.mu.Lock()
	b.m.inFlight++
	r.transition(r.nowMs(th), eventID, b, "dispatching", n)
	r.mu.Unlock()
	res, err := call(th, b.handler, ev)
	r.mu.Lock()
	b.m.inFlight--
	r.mu.Unlock()
	if err != nil {
		msg, fatal := failure(err)
		if fatal {
			return outcome{}, err
		}
		return outcome{status: "failed", err: msg, errorClass: "handler_panic"}, nil
	}
	if ok, isResult := vm.IsResult(res); isResult {
		inner := res.Object().(*vm.EnumValue).Fields[0]
		if !ok {
			return outcome{status: "failed", err: vm.ToDisplay(inner), errorClass: "handler_panic"}, nil
		}
		res = inner
	}
	return outcome{status: "succeeded", result: res}, nil
}

// call calls fn with the event (a function declaring no parameter is
// called without it).
func call(th *vm.Thread, fn vm.Value, ev *vm.Dict) (vm.Value, error) {
	if cl, ok := fn.Object().(*vm.Closure); ok && len(cl.Proto.Params) == 0 {
		return th.CallPlain(fn, nil)
	}
	return th.CallPlain(fn, []vm.Value{vm.Of(ev)})
}

// failure is a failed call's message (a thrown value's text, else the
// error as uncaught), and whether it must not be caught (exit,
// cancellation, a host failure).
func failure(err error) (string, bool) {
	var e *vm.Error
	if !errors.As(err, &e) || e.Kind == vm.KindExit || e.Kind == vm.KindCancelled || strings.Contains(e.Msg, nestingMsg) {
		return "", true
	}
	if e.Kind == vm.KindThrown && e.Value.IsValid() {
		return vm.ToDisplay(e.Value), false
	}
	return e.UncaughtText(), false
}

// maxNesting bounds handlers that fire triggers from inside a handler:
// past it trigger_fire fails, and the failure is not retried (each level
// retrying a failure of the level below would multiply the attempts).
const maxNesting = 32

const nestingMsg = "trigger handlers nested too deeply (a handler fires a trigger whose handler fires one, 32 deep)"

// transition appends a lifecycle record (r.mu held).
func (r *registry) transition(ms int64, eventID string, b *binding, state string, attempt int, extra ...any) {
	kv := append([]any{"event_id", vm.Str(eventID), "binding_id", vm.Str(b.id), "binding_version", lib.IntOf(b.version),
		"state", vm.Str(state), "attempt", lib.IntOf(attempt), "at", vm.Str(rfc3339(ms)), "occurred_at_ms", vm.IntOf(ms)}, extra...)
	r.life = append(r.life, lib.DictOf(kv...))
}

// record appends an action-graph record (r.mu held), in the shape of an
// observability.action_graph log record.
func (r *registry) record(ms int64, kind string, headers, payload *vm.Dict) {
	r.graph = append(r.graph, lib.DictOf("id", lib.IntOf(len(r.graph)+1), "kind", vm.Str(kind), "occurred_at_ms", vm.IntOf(ms),
		"headers", headers, "payload", payload))
}

func observability(nodes, edges []vm.Value) *vm.Dict {
	empty := func() vm.Value { return vm.Of(vm.NewList(nil)) }
	return lib.DictOf("schema_version", vm.IntOf(1), "planner_rounds", empty(), "research_fact_count", vm.IntOf(0),
		"action_graph_nodes", vm.NewList(nodes), "action_graph_edges", vm.NewList(edges), "worker_lineage", empty(),
		"verification_outcomes", empty(), "transcript_pointers", empty(), "compaction_events", empty(), "daemon_events", empty())
}

// replayEdge is the replay_chain record linking a replay to the event
// it re-runs (r.mu held).
func (r *registry) replayEdge(ms int64, eventID, replayOf, bindingID, traceID string) {
	nodes := []vm.Value{
		vm.Of(lib.DictOf("id", vm.Str("event/"+replayOf), "label", vm.Str(replayOf), "kind", vm.Str("trigger_event"))),
		vm.Of(lib.DictOf("id", vm.Str("event/"+eventID), "label", vm.Str(eventID), "kind", vm.Str("trigger_event"))),
	}
	edges := []vm.Value{vm.Of(lib.DictOf("from", vm.Str("event/"+replayOf), "to", vm.Str("event/"+eventID), "kind", vm.Str("replay_chain")))}
	headers := lib.DictOf("event_id", vm.Str(eventID), "binding_id", vm.Str(bindingID), "trace_id", vm.Str(traceID), "replay_of_event_id", vm.Str(replayOf))
	payload := lib.DictOf("context", lib.DictOf("event_id", vm.Str(eventID), "replay_of_event_id", vm.Str(replayOf), "dlq_entry_id", vm.Nil),
		"observability", observability(nodes, edges))
	r.record(ms, "replay_chain", headers, payload)
}

// update is the action_graph_update record of one dispatching call (r.mu held).
func (r *registry) update(ms int64, q request, b *binding, eventID, traceID string, o outcome, attempts int, handle *vm.Dict) {
	status, result := "completed", "success"
	switch o.status {
	case "dlq":
		status, result = "failed", "error"
	case "skipped":
		result = "skipped"
	}
	nodes := []vm.Value{
		vm.Of(lib.DictOf("id", vm.Str("event/"+eventID), "label", vm.Str(eventID), "kind", vm.Str("trigger_event"),
			"status", vm.Str(status), "outcome", vm.Str(result), "trace_id", vm.Str(traceID))),
		vm.Of(lib.DictOf("id", vm.Str("handler/"+eventID), "label", vm.Str(reference(b.handler)), "kind", vm.Str("trigger_handler"),
			"status", vm.Str(status), "outcome", vm.Str(result), "attempts", lib.IntOf(attempts), "trace_id", vm.Str(traceID))),
	}
	edges := []vm.Value{vm.Of(lib.DictOf("from", vm.Str("event/"+eventID), "to", vm.Str("handler/"+eventID), "kind", vm.Str("dispatch")))}
	headers := lib.DictOf("event_id", vm.Str(eventID), "binding_id", vm.Str(b.id), "trace_id", vm.Str(traceID), "tool_name", vm.Str(q.caller))
	errV := vm.Nil
	if o.status == "dlq" {
		errV = vm.Str(o.err)
	}
	payload := lib.DictOf("context", lib.DictOf("tool_name", vm.Str(q.caller), "trigger_id", vm.Str(b.id), "event_id", vm.Str(eventID),
		"trace_id", vm.Str(traceID), "source", vm.Str(q.source)),
		"observability", observability(nodes, edges), "result", handle, "error", errV)
	r.record(ms, "action_graph_update", headers, payload)
}

func strOrNil(s string) vm.Value {
	if s == "" {
		return vm.Nil
	}
	return vm.Str(s)
}

func orNil(v vm.Value) vm.Value {
	if !v.IsValid() {
		return vm.Nil
	}
	return v
}

func getOr(d *vm.Dict, k string, def vm.Value) vm.Value {
	if v, ok := d.Get(k); ok {
		return v
	}
	return def
}
