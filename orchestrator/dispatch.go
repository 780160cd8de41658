package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/stdlib/llm/llmmeter"
	"github.com/harnlang/harn/tool"
)

// Envelope is what the inbox stores for one delivery: the event and the
// dispatch metadata fixed when it was accepted.
type Envelope struct {
	EventID         string `json:"event_id"`
	BindingID       string `json:"binding_id"`
	BindingVersion  int    `json:"binding_version"`
	TraceID         string `json:"trace_id,omitempty"`
	ReplayOfEventID string `json:"replay_of_event_id,omitempty"`
	DLQRetryOf      string `json:"dlq_retry_of,omitempty"`
	Source          string `json:"source"` // manual, cron, webhook, replay, dlq_retry
	// AsOf is set on a replay as of a past instant (RFC 3339): the
	// delivery runs binding version BindingVersion as it was recorded,
	// not the binding served when it runs.
	AsOf  string         `json:"as_of,omitempty"`
	Event map[string]any `json:"event"`
}

// Handle is the dispatch handle the tools return: the outcome of the
// event's first attempt (later attempts continue in the background).
type Handle struct {
	EventID         string  `json:"event_id"`
	Status          string  `json:"status"` // succeeded, failed, dlq, skipped, waiting, cancelled
	BindingID       string  `json:"binding_id"`
	BindingVersion  int     `json:"binding_version"`
	ReplayOfEventID *string `json:"replay_of_event_id,omitempty"`
	DLQEntryID      *string `json:"dlq_entry_id"`
	Error           *string `json:"error"`
	Result          any     `json:"result"`
	// Duplicate is set when the idempotency key was already accepted and
	// this handle describes the earlier event.
	Duplicate bool `json:"duplicate,omitempty"`
}

// Accepted is what Accept stored.
type Accepted struct {
	Envelope Envelope
	// DeliveryID is the inbox delivery's id: the idempotency key (the
	// event id when there is none).
	DeliveryID string
	// New is false when the idempotency key was known: nothing was
	// stored and Envelope is the earlier event.
	New bool
}

// Accept stores an event for binding b in the inbox. key is the
// idempotency key ("" means the event id); the event map is completed
// with id, provider and kind when it lacks them.
func (o *Orchestrator) Accept(ctx context.Context, b *Binding, env Envelope, key string) (Accepted, error) {
	d, records, env, err := o.prepare(b, env, key)
	if err != nil {
		return Accepted{}, err
	}
	stored, isNew, err := o.log.Inbox().Accept(ctx, d, records...)
	if err != nil {
		return Accepted{}, err
	}
	if !isNew {
		return o.known(stored)
	}
	o.poke()
	return Accepted{Envelope: env, DeliveryID: d.ID, New: true}, nil
}

// known is the Accepted of an idempotency key stored before.
func (o *Orchestrator) known(stored eventlog.Delivery) (Accepted, error) {
	var prev Envelope
	if err := decodeJSON(stored.Envelope, &prev); err != nil {
		return Accepted{}, fmt.Errorf("stored delivery %s: %v", stored.ID, err)
	}
	return Accepted{Envelope: prev, DeliveryID: stored.ID}, nil
}

// prepare completes an event for binding b and builds its delivery and
// the records accepting it appends.
func (o *Orchestrator) prepare(b *Binding, env Envelope, key string) (eventlog.Delivery, []eventlog.TopicRecord, Envelope, error) {
	if env.EventID == "" {
		env.EventID = triggerspec.NewEventID()
	}
	if key == "" {
		key = env.EventID
	}
	env.BindingID, env.BindingVersion = b.ID, b.Version
	if env.Event == nil {
		env.Event = map[string]any{}
	}
	if err := checkNumbers(env.Event); err != nil {
		return eventlog.Delivery{}, nil, env, err
	}
	env.Event["id"] = env.EventID
	if _, ok := env.Event["provider"]; !ok {
		env.Event["provider"] = b.Provider
	}
	if _, ok := env.Event["kind"]; !ok {
		env.Event["kind"] = b.EventKind()
	}
	if env.TraceID != "" {
		env.Event["trace_id"] = env.TraceID
	}
	if _, ok := env.Event["autonomy_tier"]; !ok && b.Tier != "" {
		env.Event["autonomy_tier"] = b.Tier // the handler acts in this mode
	}
	if env.Source != "replay" && env.Source != "dlq_retry" { // a replay runs again by design
		dk, err := dedupeKey(b, env.Event)
		if err != nil {
			return eventlog.Delivery{}, nil, env, err
		}
		if dk != "" {
			key = dk
		}
	}
	now := o.opts.Now()
	if _, ok := env.Event["received_at"]; !ok {
		env.Event["received_at"] = now.UTC().Format(time.RFC3339Nano)
	}
	envJSON, err := json.Marshal(env)
	if err != nil {
		return eventlog.Delivery{}, nil, env, fmt.Errorf("event is not JSON data: %v", err)
	}
	var replayOf any
	if env.ReplayOfEventID != "" {
		replayOf = env.ReplayOfEventID
	}
	recorded, _ := json.Marshal(map[string]any{"binding_id": b.ID, "binding_version": b.Version, "replay_of_event_id": replayOf, "event": env.Event})
	h := o.headers(env)
	ms := now.UnixMilli()
	records := []eventlog.TopicRecord{
		{Topic: TopicInboxEnvelopes, Record: eventlog.Record{Kind: "event_accepted", Payload: envJSON, Headers: h, OccurredAtMs: ms}},
		{Topic: TopicEvents, Record: eventlog.Record{Kind: "trigger_event", Payload: recorded, Headers: h, OccurredAtMs: ms}},
	}
	if key != env.EventID {
		claim, _ := json.Marshal(map[string]any{"key": key, "event_id": env.EventID, "binding_id": b.ID})
		records = append(records, eventlog.TopicRecord{Topic: TopicInboxClaims, Record: eventlog.Record{Kind: "dedupe_claim", Payload: claim, Headers: h, OccurredAtMs: ms}})
	}
	if env.ReplayOfEventID != "" {
		records = append(records, o.replayEdge(env, ms))
	}
	if env.DLQRetryOf != "" {
		tomb, _ := json.Marshal(map[string]any{"entry_id": env.DLQRetryOf, "state": "retried", "retry_event_id": env.EventID, "event_id": env.ReplayOfEventID})
		records = append(records, eventlog.TopicRecord{Topic: TopicDLQ, Record: eventlog.Record{Kind: "dlq_retried", Payload: tomb, Headers: map[string]string{"entry_id": env.DLQRetryOf, "event_id": env.ReplayOfEventID}, OccurredAtMs: ms}})
	}
	d := eventlog.Delivery{ID: key, BindingID: b.ID, Envelope: envJSON, DueAtMs: o.flow.dueAt(b, env.Event, ms)}
	o.flow.noteAccepted(b, env.Event, env.EventID, now)
	return d, records, env, nil
}

func (o *Orchestrator) headers(env Envelope) map[string]string {
	h := map[string]string{"event_id": env.EventID, "binding_id": env.BindingID}
	if env.TraceID != "" {
		h["trace_id"] = env.TraceID
	}
	return h
}

// replayEdge is the replay_chain action-graph record linking a replay
// (or DLQ retry) to the event it re-runs.
func (o *Orchestrator) replayEdge(env Envelope, ms int64) eventlog.TopicRecord {
	payload, _ := json.Marshal(map[string]any{
		"context": map[string]any{"event_id": env.EventID, "replay_of_event_id": env.ReplayOfEventID, "dlq_entry_id": nilIfEmpty(env.DLQRetryOf)},
		"observability": map[string]any{
			"schema_version": 1,
			"action_graph_nodes": []any{
				map[string]any{"id": "event/" + env.ReplayOfEventID, "label": env.ReplayOfEventID, "kind": "trigger_event"},
				map[string]any{"id": "event/" + env.EventID, "label": env.EventID, "kind": "trigger_event"},
			},
			"action_graph_edges": []any{map[string]any{"from": "event/" + env.ReplayOfEventID, "to": "event/" + env.EventID, "kind": "replay_chain"}},
		},
	})
	h := o.headers(env)
	h["replay_of_event_id"] = env.ReplayOfEventID
	return eventlog.TopicRecord{Topic: TopicActionGraph, Record: eventlog.Record{Kind: "replay_chain", Payload: payload, Headers: h, OccurredAtMs: ms}}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// poke wakes the worker loop.
func (o *Orchestrator) poke() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// Dispatch accepts an event and waits for the outcome of its first
// attempt, by this node or another. ctx bounds the wait only: the event
// stays accepted and is dispatched anyway.
func (o *Orchestrator) Dispatch(ctx context.Context, b *Binding, env Envelope, key string) (Handle, error) {
	if env.EventID == "" {
		env.EventID = triggerspec.NewEventID()
	}
	ch := o.await(env.EventID)
	defer o.unawait(env.EventID)
	acc, err := o.acceptToRun(ctx, b, env, key)
	if err != nil {
		return Handle{}, err
	}
	if !acc.New {
		// Another caller accepted the event first (the same idempotency
		// key, as when two dlq.retry calls race): this one waits for the
		// same first attempt, by the log alone.
		h, err := o.waitRecorded(ctx, acc)
		h.Duplicate = true
		return h, err
	}
	return o.wait(ctx, acc, ch)
}

// waitRecorded returns an event's handle once its first attempt is in
// the log.
func (o *Orchestrator) waitRecorded(ctx context.Context, acc Accepted) (Handle, error) {
	if ok, err := o.firstAttemptRecorded(ctx, acc.DeliveryID); ok || err != nil {
		if err != nil {
			return Handle{}, err
		}
		return o.handleFromLog(ctx, acc.Envelope)
	}
	return o.wait(ctx, acc, nil)
}

// firstAttemptRecorded says whether the log holds the outcome of a
// delivery's first attempt.
func (o *Orchestrator) firstAttemptRecorded(ctx context.Context, deliveryID string) (bool, error) {
	d, err := o.log.Inbox().Get(ctx, deliveryID)
	if err != nil {
		return false, err
	}
	return d.State == eventlog.Done || d.State == eventlog.Dead || (d.State == eventlog.Pending && d.Attempts > 0), nil
}

// acceptToRun accepts an event that its caller waits for. When this node
// has a free worker and the event is due now, the delivery is accepted
// already leased to this node (AcceptLeased) and runs at once: one write
// to the log, not an Accept and then a Claim. Otherwise it is accepted
// for the work loop (Accept).
func (o *Orchestrator) acceptToRun(ctx context.Context, b *Binding, env Envelope, key string) (Accepted, error) {
	if !o.started.Load() || o.ctx.Err() != nil || b.Priority != nil {
		return o.Accept(ctx, b, env, key)
	}
	select {
	case o.slots <- struct{}{}:
	default:
		return o.Accept(ctx, b, env, key)
	}
	release := func() { <-o.slots }
	d, records, env, err := o.prepare(b, env, key)
	if err != nil {
		release()
		return Accepted{}, err
	}
	l, isNew, err := o.log.Inbox().AcceptLeased(ctx, d, o.opts.Owner, o.opts.LeaseTTL, records...)
	if err != nil || !isNew {
		release()
		if err != nil {
			return Accepted{}, err
		}
		return o.known(l.Delivery)
	}
	o.runInSlot(l)
	return Accepted{Envelope: env, DeliveryID: d.ID, New: true}, nil
}

// runInSlot runs l on a goroutine of its own, in the slot the caller
// took, and frees the slot when the attempt ends.
func (o *Orchestrator) runInSlot(l eventlog.Lease) {
	o.inFlight.Add(1)
	go func() {
		defer func() { <-o.slots; o.inFlight.Add(-1) }()
		o.run(l)
	}()
}

func (o *Orchestrator) await(eventID string) chan Handle {
	ch := make(chan Handle, 1)
	o.waitMu.Lock()
	o.waiters[eventID] = ch
	o.waitMu.Unlock()
	return ch
}

func (o *Orchestrator) unawait(eventID string) {
	o.waitMu.Lock()
	delete(o.waiters, eventID)
	o.waitMu.Unlock()
}

func (o *Orchestrator) notify(h Handle) {
	o.waitMu.Lock()
	ch := o.waiters[h.EventID]
	o.waitMu.Unlock()
	if ch != nil {
		select {
		case ch <- h:
		default:
		}
	}
}

// wait returns the first attempt's handle: from this node's worker when
// it ran the attempt (on ch; nil: from the log only), else from the log
// once another node recorded it. The log knows the delivery by its
// idempotency key, which is not always the event id.
func (o *Orchestrator) wait(ctx context.Context, acc Accepted, ch chan Handle) (Handle, error) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case h := <-ch:
			return h, nil
		case <-ctx.Done():
			// the event was accepted and runs on: the caller learns which
			env := acc.Envelope
			return Handle{EventID: env.EventID, BindingID: env.BindingID, BindingVersion: env.BindingVersion, Status: "waiting"}, ctx.Err()
		case <-tick.C:
			if ok, _ := o.firstAttemptRecorded(ctx, acc.DeliveryID); ok {
				return o.handleFromLog(ctx, acc.Envelope)
			}
		}
	}
}

// handleFromLog rebuilds an event's handle from its recorded outcome.
func (o *Orchestrator) handleFromLog(ctx context.Context, env Envelope) (Handle, error) {
	h := Handle{EventID: env.EventID, BindingID: env.BindingID, BindingVersion: env.BindingVersion, Status: "waiting"}
	if env.ReplayOfEventID != "" {
		r := env.ReplayOfEventID
		h.ReplayOfEventID = &r
	}
	if err := o.view.refresh(ctx); err != nil {
		return h, err
	}
	d, ok, err := o.view.lastDispatch(ctx, env.EventID)
	if err != nil {
		return h, err
	}
	if ok {
		h.Status, h.Result = d.Status, d.Result
		if d.Error != nil {
			e := *d.Error
			h.Error = &e
		}
		if d.DLQEntryID != "" {
			id := d.DLQEntryID
			h.DLQEntryID = &id
		}
	}
	return h, nil
}

// workLoop claims due deliveries and runs them, at most Workers at once.
func (o *Orchestrator) workLoop() {
	defer o.wg.Done()
	defer func() { // wait for the attempts in flight
		for i := 0; i < cap(o.slots); i++ {
			o.slots <- struct{}{}
		}
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-o.ctx.Done():
			return
		case <-o.wake:
		case <-timer.C:
		}
		for o.ctx.Err() == nil {
			free := cap(o.slots) - len(o.slots)
			if free == 0 {
				select { // until a slot frees
				case o.slots <- struct{}{}:
					<-o.slots
				case <-o.ctx.Done():
					return
				}
				continue
			}
			leases, err := o.log.Inbox().Claim(o.ctx, o.opts.Owner, free, o.opts.LeaseTTL)
			if err != nil {
				if o.ctx.Err() == nil {
					o.failures.failed("claim", err)
				}
				break
			}
			o.failures.ok("claim")
			for _, l := range leases {
				o.slots <- struct{}{}
				o.runInSlot(l)
			}
			if len(leases) < free {
				break
			}
		}
		// While claims fail (the log unreachable), wait longer each time.
		timer.Reset(claimBackoff(o.opts.Poll, o.failures.failingNow("claim")))
	}
}

// attempt is the outcome of running a handler once.
type attempt struct {
	status     string // succeeded, failed, skipped
	result     any
	err        error
	errorClass string
	extra      []eventlog.TopicRecord // e.g. the worker:// job
	durationMs int64
	ran        bool  // the handler ran (an autonomous decision at tier act_auto)
	denied     bool  // a budget stopped it
	hopeless   bool  // straight to the DLQ, whatever the retry policy
	retryAtMs  int64 // pending again at this instant, whatever the retry policy
	batched    bool  // the outcome of a batch this event joined
}

// run executes one leased attempt and records it.
func (o *Orchestrator) run(l eventlog.Lease) {
	// A dispatch in progress finishes even while the node drains; its
	// context ends only when the lease is lost.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var env Envelope
	if err := decodeJSON(l.Envelope, &env); err != nil {
		o.finish(ctx, l, env, nil, attempt{status: "failed", err: fmt.Errorf("corrupt envelope: %v", err), errorClass: "unknown"}, true)
		return
	}
	stopRenew := o.renew(ctx, cancel, &l)
	defer stopRenew()

	b := o.Binding(env.BindingID)
	if env.AsOf != "" {
		var err error
		if b, err = o.bindingVersion(ctx, env.BindingID, env.BindingVersion); err != nil {
			o.finish(ctx, l, env, nil, attempt{status: "failed", err: err, errorClass: "unknown"}, true)
			return
		}
	}
	if b == nil {
		o.finish(ctx, l, env, nil, attempt{status: "failed", err: fmt.Errorf("binding %q is no longer in the manifest", env.BindingID), errorClass: "unknown"}, true)
		return
	}
	counter := o.bindingInFlight(b.ID)
	counter.Add(1)
	defer counter.Add(-1)
	a := o.attemptOnce(ctx, b, env)
	o.finish(ctx, l, env, b, a, false)
}

// renew extends the lease while the attempt runs; losing it cancels the
// attempt's context (another node owns the delivery now).
func (o *Orchestrator) renew(ctx context.Context, lost context.CancelFunc, l *eventlog.Lease) func() {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(o.opts.LeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				lc := *l
				if err := o.log.Inbox().Extend(ctx, &lc, o.opts.LeaseTTL); errors.Is(err, eventlog.ErrLeaseLost) {
					lost()
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

func (o *Orchestrator) attemptOnce(ctx context.Context, b *Binding, env Envelope) attempt {
	start := o.opts.Now()
	p := o.proj.Load()
	if b.Handler.Kind == "local" || b.WhenRef != nil {
		// the dispatch may run Harn code until its handler has run
		// (Runtime, on deadlocks)
		d := p.rt.Begin()
		defer d.End()
		ctx = WithScope(ctx, d)
	}
	if ok, err := passesFilter(b, env.Event); err != nil {
		return attempt{status: "failed", err: err, errorClass: "predicate_panic", durationMs: since(o, start)}
	} else if !ok {
		return attempt{status: "skipped", result: map[string]any{"reason": "filter " + b.Filter + " did not match"}, durationMs: since(o, start)}
	}
	if b.WhenRef != nil {
		v, err := runPredicate(ctx, p, b, env)
		if err != nil {
			return attempt{status: "failed", err: fmt.Errorf("predicate %s: %v", b.When, err), errorClass: "predicate_panic", durationMs: since(o, start)}
		}
		// Harn's truthiness (docs/spec/language.md §6.3), as the in-script
		// triggers judge a `when`
		if !tool.FromJSON(v).Truth() {
			shown, _ := json.Marshal(v)
			return attempt{status: "skipped", result: map[string]any{"reason": "predicate " + b.When + " returned " + string(shown)}, durationMs: since(o, start)}
		}
	}
	if a := o.checkBudget(ctx, b); a != nil {
		a.durationMs = since(o, start)
		return *a
	}
	var input any = env.Event
	if b.Flow.Batch != nil {
		x, lead := o.batches.join(b, env)
		if !lead {
			o.flow.count(b, "batch", func(s *gateStats) { s.Waited++ }) // joined another event's batch
			// the batch's leader runs the handler
			scopeOf(ctx).End()
			a := x.await(ctx)
			a.durationMs = since(o, start)
			return a
		}
		a := o.runGated(ctx, p, b, env, o.batches.collect(ctx, b, env, x), start)
		x.finish(a)
		return a
	}
	return o.runGated(ctx, p, b, env, input, start)
}

// runPredicate runs the binding's `when` predicate within its
// when_budget (docs/orchestrator.md): the timeout, and the tokens and
// list-price cost of the LLM calls the run makes (on its thread and in
// the tasks it spawns). A call that goes past a limit ends the run as
// the timeout does, whatever the predicate catches.
func runPredicate(ctx context.Context, p *project, b *Binding, env Envelope) (any, error) {
	wb := b.WhenBudget
	if wb == nil {
		return p.rt.Call(ctx, *b.WhenRef, env.Event, b.SecretValues)
	}
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if wb.Timeout > 0 {
		var stop context.CancelFunc
		pctx, stop = context.WithTimeout(pctx, wb.Timeout)
		defer stop()
	}
	var meter *llmmeter.Meter
	if wb.TokensMax > 0 || wb.MaxCostUSD > 0 {
		meter = &llmmeter.Meter{MaxTokens: wb.TokensMax, MaxCostUSD: wb.MaxCostUSD, Exceeded: cancel}
	}
	v, err := p.rt.call(pctx, *b.WhenRef, env.Event, b.SecretValues, meter)
	if err != nil && meter != nil && meter.Err() != nil {
		tokens, cost := meter.Usage()
		if wb.TokensMax > 0 && tokens > wb.TokensMax {
			return nil, fmt.Errorf("when_budget.tokens_max: its LLM calls used %d tokens, past the limit of %d", tokens, wb.TokensMax)
		}
		return nil, fmt.Errorf("when_budget.max_cost_usd: its LLM calls cost %s USD, past the limit of %s USD",
			strconv.FormatFloat(cost, 'f', -1, 64), strconv.FormatFloat(wb.MaxCostUSD, 'f', -1, 64))
	}
	return v, err
}

// runGated passes the flow-control gates and runs the handler once with
// input (the event, or a batch's list of events).
func (o *Orchestrator) runGated(ctx context.Context, p *project, b *Binding, env Envelope, input any, start time.Time) attempt {
	release, skip, err := o.flow.acquire(ctx, b, env)
	if err != nil {
		return attempt{status: "failed", err: err, errorClass: "unknown", durationMs: since(o, start)}
	}
	if skip != "" {
		return attempt{status: "skipped", result: map[string]any{"reason": skip}, durationMs: since(o, start)}
	}
	defer release()
	hctx, cancel := ctx, context.CancelFunc(func() {})
	if b.Timeout > 0 {
		hctx, cancel = context.WithTimeout(ctx, b.Timeout)
	}
	defer cancel()
	a := o.invoke(hctx, p, b, env, input)
	a.ran = true
	if a.err != nil && errors.Is(hctx.Err(), context.DeadlineExceeded) {
		a.err, a.errorClass = fmt.Errorf("handler timed out after %s", b.Timeout), "handler_timeout"
	}
	a.durationMs = since(o, start)
	return a
}

func since(o *Orchestrator, t time.Time) int64 { return o.opts.Now().Sub(t).Milliseconds() }

// invoke runs the handler once.
func (o *Orchestrator) invoke(ctx context.Context, p *project, b *Binding, env Envelope, input any) attempt {
	switch b.Handler.Kind {
	case "local":
		res, err := p.rt.Call(ctx, b.Handler, input, b.SecretValues)
		if err != nil {
			return attempt{status: "failed", err: err, errorClass: "handler_panic"}
		}
		return attempt{status: "succeeded", result: res}
	case "worker":
		scopeOf(ctx).End() // no Harn code runs from here
		return o.enqueueWorker(b, env)
	case "a2a":
		scopeOf(ctx).End()
		return o.sendA2A(ctx, b, env)
	}
	return attempt{status: "failed", err: fmt.Errorf("unsupported handler kind %q", b.Handler.Kind), errorClass: "unknown"}
}

// dispatchRecord is a trigger.outbox payload.
type dispatchRecord struct {
	Kind            string  `json:"kind"`
	Status          string  `json:"status"`
	OccurredAtMs    int64   `json:"occurred_at_ms"`
	TriggerID       string  `json:"trigger_id"`
	BindingVersion  int     `json:"binding_version"`
	EventID         string  `json:"event_id"`
	Attempt         int     `json:"attempt"`
	ReplayOfEventID *string `json:"replay_of_event_id"`
	HandlerKind     string  `json:"handler_kind"`
	TargetURI       string  `json:"target_uri"`
	Error           *string `json:"error"`
	ErrorClass      string  `json:"error_class,omitempty"`
	Result          any     `json:"result"`
	RetryAtMs       int64   `json:"retry_at_ms,omitempty"`
	DLQEntryID      string  `json:"dlq_entry_id,omitempty"`
	CostUSDMicros   int64   `json:"cost_usd_micros,omitempty"`
	Tokens          int64   `json:"tokens,omitempty"`
	Tier            string  `json:"tier,omitempty"`
	Autonomous      bool    `json:"autonomous,omitempty"`
}

// DLQEntry is a dead-lettered delivery (trigger.dlq, kind dlq_entry).
type DLQEntry struct {
	ID             string         `json:"id"`
	EventID        string         `json:"event_id"`
	BindingID      string         `json:"binding_id"`
	BindingVersion int            `json:"binding_version"`
	Provider       string         `json:"provider"`
	Kind           string         `json:"kind"`
	State          string         `json:"state"`
	Error          string         `json:"error"`
	ErrorClass     string         `json:"error_class"`
	Event          map[string]any `json:"event"`
	RetryHistory   []AttemptInfo  `json:"retry_history"`
	// DeadAtMs is when the entry was written (its record's
	// occurred_at_ms), for retry.retention_days; not part of the entry's
	// JSON, whose keys docs/spec/orchestrator.md §5.1 fixes.
	DeadAtMs int64 `json:"-"`
}

// AttemptInfo is one attempt of a delivery (trigger.attempts payload).
type AttemptInfo struct {
	Attempt    int     `json:"attempt"`
	At         string  `json:"at"`
	Status     string  `json:"status"`
	Error      *string `json:"error"`
	ErrorClass string  `json:"error_class,omitempty"`
	DurationMs int64   `json:"duration_ms"`
	EventID    string  `json:"event_id,omitempty"`
	BindingID  string  `json:"binding_id,omitempty"`
	Node       string  `json:"node,omitempty"`
}

// finish records the attempt and moves the delivery on: done,
// pending again after the backoff, or dead-lettered. corrupt marks a
// delivery that can never run (straight to the DLQ).
func (o *Orchestrator) finish(ctx context.Context, l eventlog.Lease, env Envelope, b *Binding, a attempt, hopeless bool) {
	now := o.opts.Now()
	ms := now.UnixMilli()
	if env.EventID == "" {
		env.EventID = l.ID
	}
	if env.BindingID == "" {
		env.BindingID = l.BindingID
	}
	h := o.headers(env)
	var errText *string
	if a.err != nil {
		s := a.err.Error()
		errText = &s
	}
	info := AttemptInfo{Attempt: l.Attempts, At: now.UTC().Format(time.RFC3339Nano), Status: a.status, Error: errText, ErrorClass: a.errorClass,
		DurationMs: a.durationMs, EventID: env.EventID, BindingID: env.BindingID, Node: o.opts.Owner}
	attemptJSON, _ := json.Marshal(info)
	records := []eventlog.TopicRecord{{Topic: TopicAttempts, Record: eventlog.Record{Kind: "attempt_" + a.status, Payload: attemptJSON, Headers: h, OccurredAtMs: ms}}}
	records = append(records, a.extra...)

	rec := dispatchRecord{Status: a.status, OccurredAtMs: ms, TriggerID: env.BindingID, BindingVersion: env.BindingVersion, EventID: env.EventID,
		Attempt: l.Attempts, Error: errText, ErrorClass: a.errorClass, Result: a.result}
	if env.ReplayOfEventID != "" {
		r := env.ReplayOfEventID
		rec.ReplayOfEventID = &r
	}
	if b != nil {
		rec.HandlerKind, rec.TargetURI = b.Handler.Kind, b.Handler.String()
	}
	account(b, a, &rec)
	handle := Handle{EventID: env.EventID, Status: a.status, BindingID: env.BindingID, BindingVersion: env.BindingVersion,
		ReplayOfEventID: rec.ReplayOfEventID, Error: errText, Result: a.result}

	outbox := func(kind string) eventlog.TopicRecord {
		rec.Kind = kind
		p, _ := json.Marshal(rec)
		return eventlog.TopicRecord{Topic: TopicOutbox, Record: eventlog.Record{Kind: kind, Payload: p, Headers: h, OccurredAtMs: ms}}
	}
	var err error
	switch {
	case a.status == "succeeded" || a.status == "skipped":
		records = append(records, outbox("dispatch_"+a.status))
		records = append(records, trustRecord(env, b, a, rec, l.Attempts, now)...)
		err = o.log.Inbox().Complete(ctx, l, eventlog.Done, "", records...)
	case a.retryAtMs > 0 && !hopeless:
		rec.RetryAtMs = a.retryAtMs
		records = append(records, outbox("dispatch_failed"))
		err = o.log.Inbox().Retry(ctx, l, rec.RetryAtMs, *errText, records...)
	case !hopeless && !a.hopeless && b != nil && l.Attempts < b.Retry.Max:
		rec.RetryAtMs = now.Add(b.Retry.Delay(l.Attempts)).UnixMilli()
		records = append(records, outbox("dispatch_failed"))
		err = o.log.Inbox().Retry(ctx, l, rec.RetryAtMs, *errText, records...)
	default:
		entry := o.dlqEntry(ctx, env, b, info, a, ms)
		rec.Status, rec.DLQEntryID = "dlq", entry.ID
		handle.Status, handle.DLQEntryID = "dlq", &entry.ID
		entryJSON, _ := json.Marshal(entry)
		dh := o.headers(env)
		dh["entry_id"] = entry.ID
		records = append(records, outbox("dispatch_dlq"),
			eventlog.TopicRecord{Topic: TopicDLQ, Record: eventlog.Record{Kind: "dlq_entry", Payload: entryJSON, Headers: dh, OccurredAtMs: ms}})
		records = append(records, trustRecord(env, b, a, rec, l.Attempts, now)...)
		err = o.log.Inbox().Complete(ctx, l, eventlog.Dead, entry.Error, records...)
	}
	if err != nil {
		// The lease was lost (another node took the delivery over) or the
		// log failed: nothing of this attempt is recorded, and the delivery
		// runs again under its new lease. A lost lease is said each time;
		// the log's failures, which repeat for every attempt while it is
		// down, are summarised.
		line := fmt.Sprintf("attempt %d of %s not recorded: %v", l.Attempts, env.EventID, err)
		if errors.Is(err, eventlog.ErrLeaseLost) {
			fmt.Fprintf(o.opts.Stderr, "[harn] orchestrator: %s\n", line)
		} else {
			o.failures.failedAs(recordingAttempts, err, line)
		}
		return
	}
	o.failures.ok(recordingAttempts)
	o.notify(handle)
}

// recordingAttempts is the activity of failures that recording an
// attempt's outcome is: `recording attempts still failing: …`.
const recordingAttempts = "recording attempts"

// dlqEntry builds the entry of a delivery that is out of attempts; its
// retry history is every recorded attempt of the event plus this one.
func (o *Orchestrator) dlqEntry(ctx context.Context, env Envelope, b *Binding, last AttemptInfo, a attempt, ms int64) DLQEntry {
	_ = o.view.refresh(ctx)
	history := o.view.attemptsOf(env.EventID)
	history = append(history, last)
	e := DLQEntry{ID: triggerspec.NewDLQID(), EventID: env.EventID, BindingID: env.BindingID, BindingVersion: env.BindingVersion, State: "pending",
		ErrorClass: a.errorClass, Event: env.Event, RetryHistory: history, DeadAtMs: ms}
	if e.ErrorClass == "" {
		e.ErrorClass = "unknown"
	}
	if a.err != nil {
		e.Error = a.err.Error()
	}
	if b != nil {
		e.Provider = b.Provider
	}
	if k, ok := env.Event["kind"].(string); ok {
		e.Kind = k
	} else if b != nil {
		e.Kind = b.EventKind()
	}
	if p, ok := env.Event["provider"].(string); ok {
		e.Provider = p
	}
	return e
}

func (o *Orchestrator) bindingInFlight(id string) *atomic.Int64 {
	v, _ := o.perBind.LoadOrStore(id, new(atomic.Int64))
	return v.(*atomic.Int64)
}
