package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/harnlang/harn/eventlog"
)

// TriggerInfo is one entry of harn.trigger.list.
type TriggerInfo struct {
	TriggerID string         `json:"trigger_id"`
	Kind      string         `json:"kind"`
	Provider  string         `json:"provider"`
	When      *string        `json:"when"`
	Handler   map[string]any `json:"handler"`
	Version   int            `json:"version"`
	State     string         `json:"state"`
	Metrics   Metrics        `json:"metrics"`
}

func handlerJSON(b *Binding) map[string]any {
	h := b.Handler
	switch h.Kind {
	case "a2a":
		return map[string]any{"kind": "a2a", "target": h.Target}
	case "worker":
		return map[string]any{"kind": "worker", "queue": h.Queue}
	}
	return map[string]any{"kind": "local", "reference": h.Reference}
}

// metrics are b's counters, read from the log. InFlight is leased[b.ID],
// the deliveries of b leased anywhere in the cluster (as
// Dispatcher.InFlight counts them all) — or, with leased nil (the node's
// snapshot), the attempts of b running on this node.
func (o *Orchestrator) metrics(b *Binding, leased map[string]int64) Metrics {
	m := o.view.metricsOf(b.ID)
	switch {
	case leased != nil:
		m.InFlight = leased[b.ID]
	default:
		if v, ok := o.perBind.Load(b.ID); ok {
			m.InFlight = v.(*atomic.Int64).Load()
		}
	}
	return m
}

// List is harn.trigger.list: the bindings in manifest order.
func (o *Orchestrator) List(ctx context.Context) (map[string]any, error) {
	if err := o.view.refresh(ctx); err != nil {
		return nil, err
	}
	leased, err := o.log.Inbox().LeasedByBinding(ctx)
	if err != nil {
		return nil, err
	}
	out := []TriggerInfo{}
	for _, b := range o.Bindings() {
		ti := TriggerInfo{TriggerID: b.ID, Kind: b.Kind, Provider: b.Provider, Handler: handlerJSON(b), Version: b.Version, State: o.state(b), Metrics: o.metrics(b, leased)}
		if b.When != "" {
			w := b.When
			ti.When = &w
		}
		out = append(out, ti)
	}
	return map[string]any{"triggers": out}, nil
}

func (o *Orchestrator) state(b *Binding) string {
	switch o.status.Load() {
	case "draining":
		return "draining"
	case "stopped":
		return "terminated"
	}
	return b.State
}

// Preview is a topic record as queue previews and topic resources show it.
type Preview struct {
	EventID      int64             `json:"event_id"`
	Kind         string            `json:"kind"`
	OccurredAtMs int64             `json:"occurred_at_ms"`
	Headers      map[string]string `json:"headers"`
	Payload      json.RawMessage   `json:"payload"`
}

func previews(recs []eventlog.Record) []Preview {
	out := make([]Preview, 0, len(recs))
	for _, r := range recs {
		h := r.Headers
		if h == nil {
			h = map[string]string{}
		}
		p := r.Payload
		if len(p) == 0 {
			p = json.RawMessage("null")
		}
		out = append(out, Preview{EventID: r.ID, Kind: r.Kind, OccurredAtMs: r.OccurredAtMs, Headers: h, Payload: p})
	}
	return out
}

// TopicPreview is the count and the last five records of a topic.
type TopicPreview struct {
	Count int64     `json:"count"`
	Head  []Preview `json:"head"`
}

func (o *Orchestrator) topicPreview(ctx context.Context, topics ...string) (TopicPreview, error) {
	var tp TopicPreview
	var recs []eventlog.Record
	for _, t := range topics {
		n, err := o.log.Count(ctx, t)
		if err != nil {
			return tp, err
		}
		tp.Count += n
		if len(recs) == 0 {
			if recs, err = o.log.Tail(ctx, t, 5); err != nil {
				return tp, err
			}
		}
	}
	tp.Head = previews(recs)
	return tp, nil
}

// Dispatcher is the dispatcher summary of queue and inspect.
type Dispatcher struct {
	InFlight        int64 `json:"in_flight"`
	RetryQueueDepth int64 `json:"retry_queue_depth"`
	DLQDepth        int64 `json:"dlq_depth"`
}

func (o *Orchestrator) dispatcher(ctx context.Context) (Dispatcher, error) {
	st, err := o.log.Inbox().Stats(ctx)
	if err != nil {
		return Dispatcher{}, err
	}
	return Dispatcher{InFlight: st.Leased, RetryQueueDepth: o.view.retryDepth(), DLQDepth: int64(len(o.view.pendingDLQ()))}, nil
}

// Queue is harn.orchestrator.queue.
func (o *Orchestrator) Queue(ctx context.Context) (map[string]any, error) {
	if err := o.view.refresh(ctx); err != nil {
		return nil, err
	}
	d, err := o.dispatcher(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"dispatcher": d}
	for name, topics := range map[string][]string{
		"inbox":    {TopicInboxEnvelopes, TopicInboxClaims, TopicInboxLegacy},
		"outbox":   {TopicOutbox},
		"attempts": {TopicAttempts},
		"dlq":      {TopicDLQ},
	} {
		tp, err := o.topicPreview(ctx, topics...)
		if err != nil {
			return nil, err
		}
		out[name] = tp
	}
	return out, nil
}

// DLQList is harn.orchestrator.dlq.list: the pending entries.
func (o *Orchestrator) DLQList(ctx context.Context) (map[string]any, error) {
	if err := o.view.refresh(ctx); err != nil {
		return nil, err
	}
	return map[string]any{"entries": o.view.pendingDLQ()}, nil
}

// DLQEntry returns one pending entry.
func (o *Orchestrator) DLQEntry(ctx context.Context, id string) (DLQEntry, bool, error) {
	if err := o.view.refresh(ctx); err != nil {
		return DLQEntry{}, false, err
	}
	e, ok := o.view.dlqEntry(id)
	return e, ok, nil
}

// Inspect is harn.orchestrator.inspect.
func (o *Orchestrator) Inspect(ctx context.Context) (map[string]any, error) {
	if err := o.view.refresh(ctx); err != nil {
		return nil, err
	}
	d, err := o.dispatcher(ctx)
	if err != nil {
		return nil, err
	}
	leased, err := o.log.Inbox().LeasedByBinding(ctx)
	if err != nil {
		return nil, err
	}
	type trig struct {
		ID          string         `json:"id"`
		Provider    string         `json:"provider"`
		Kind        string         `json:"kind"`
		Handler     string         `json:"handler"`
		Version     int            `json:"version"`
		State       string         `json:"state"`
		Metrics     map[string]any `json:"metrics"`
		FlowControl map[string]any `json:"flow_control"`
	}
	triggers := []trig{}
	daily, hourly := 0.0, 0.0
	var usedToday, usedHour int64
	for _, b := range o.Bindings() {
		m := o.metrics(b, leased)
		triggers = append(triggers, trig{ID: b.ID, Provider: b.Provider, Kind: b.Kind, Handler: b.Handler.String(), Version: b.Version, State: o.state(b),
			Metrics: map[string]any{"received": m.Received, "dispatched": m.Dispatched, "failed": m.Failed, "in_flight": m.InFlight,
				"autonomous_decisions_total": m.AutonomousDecisionsTotal, "autonomous_decisions_hour": m.AutonomousDecisionsHour,
				"autonomous_decisions_today": m.AutonomousDecisionsToday},
			FlowControl: o.flow.report(b)})
		usedToday += m.CostTodayUSDMicros
		usedHour += m.CostHourUSDMicros
		if b.Budget != nil {
			daily += b.Budget.DailyCostUSD
			hourly += b.Budget.HourlyCostUSD
		}
	}
	budget := map[string]any{"used_today_usd": float64(usedToday) / 1e6, "used_hour_usd": float64(usedHour) / 1e6}
	if daily > 0 {
		budget["daily_limit_usd"], budget["remaining_today_usd"] = daily, max(0, daily-float64(usedToday)/1e6)
	}
	if hourly > 0 {
		budget["hourly_limit_usd"], budget["remaining_hour_usd"] = hourly, max(0, hourly-float64(usedHour)/1e6)
	}
	var snapshot any
	if o.opts.StateDir != "" {
		if b, err := os.ReadFile(filepath.Join(o.opts.StateDir, SnapshotFile)); err == nil {
			var s any
			if json.Unmarshal(b, &s) == nil {
				snapshot = s
			}
		}
	}
	recent := o.view.recentDispatches()
	if recent == nil {
		recent = []dispatchRecord{}
	}
	var connectors []string
	if o.opts.Operator {
		connectors = snapshotConnectors(snapshot)
	} else {
		connectors = o.connectorList()
	}
	return map[string]any{
		"dispatcher":        d,
		"triggers":          triggers,
		"budget":            budget,
		"connectors":        connectors,
		"activations":       o.activations(),
		"snapshot":          snapshot,
		"recent_dispatches": recent,
	}, nil
}

// Activation counts a provider's bindings.
type Activation struct {
	Provider     string `json:"provider"`
	BindingCount int    `json:"binding_count"`
}

func (o *Orchestrator) activations() []Activation {
	counts := map[string]int{}
	for _, b := range o.Bindings() {
		counts[b.Provider]++
	}
	out := []Activation{}
	for p, n := range counts {
		out = append(out, Activation{p, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}

// connectorList names the providers whose events this node receives:
// cron when the scheduler runs, webhook providers when deliveries are
// served.
func (o *Orchestrator) connectorList() []string {
	o.connMu.Lock()
	defer o.connMu.Unlock()
	out := []string{}
	for p := range o.connectors {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// snapshotConnectors are the connectors a state snapshot records: what
// an operator command's node, which runs none itself, reports for the
// server node that owns the state directory, so that
// `harn orchestrator inspect` and that server's harn.orchestrator.inspect
// print one object.
func snapshotConnectors(snapshot any) []string {
	out := []string{}
	m, _ := snapshot.(map[string]any)
	list, _ := m["connectors"].([]any)
	for _, c := range list {
		if s, ok := c.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (o *Orchestrator) addConnectors(providers ...string) {
	o.connMu.Lock()
	defer o.connMu.Unlock()
	if o.connectors == nil {
		o.connectors = map[string]bool{}
	}
	for _, p := range providers {
		o.connectors[p] = true
	}
	o.writeSnapshotLocked()
}

// EventTrace is harn://event/<id>: the recorded event and the records
// related to it.
type EventTrace struct {
	LogEventID      int64          `json:"log_event_id"`
	BindingID       string         `json:"binding_id"`
	BindingVersion  int            `json:"binding_version"`
	ReplayOfEventID *string        `json:"replay_of_event_id"`
	Event           map[string]any `json:"event"`
	Trace           struct {
		TraceID     *string          `json:"trace_id"`
		Outbox      []map[string]any `json:"outbox"`
		Attempts    []map[string]any `json:"attempts"`
		DLQ         []map[string]any `json:"dlq"`
		ActionGraph []map[string]any `json:"action_graph"`
	} `json:"trace"`
}

// Event returns a recorded event with its outbox, attempt, DLQ and
// action-graph records: those whose headers event_id or trace_id, or
// payload context.event_id, match.
func (o *Orchestrator) Event(ctx context.Context, id string) (*EventTrace, error) {
	if err := o.view.refresh(ctx); err != nil {
		return nil, err
	}
	rec, ok, err := o.view.event(ctx, id)
	if err != nil || !ok {
		return nil, err
	}
	et := &EventTrace{LogEventID: rec.LogID, BindingID: rec.BindingID, BindingVersion: rec.BindingVersion, ReplayOfEventID: rec.ReplayOf, Event: rec.Event}
	trace, _ := rec.Event["trace_id"].(string)
	if trace != "" {
		et.Trace.TraceID = &trace
	}
	related := func(topic string) ([]map[string]any, error) {
		out := []map[string]any{}
		for _, rid := range o.view.relatedTo(id, topic) {
			r, err := readOne(ctx, o.log, topic, rid)
			if err != nil {
				return nil, err
			}
			out = append(out, map[string]any{"id": r.ID, "kind": r.Kind, "occurred_at_ms": r.OccurredAtMs, "headers": r.Headers, "payload": json.RawMessage(r.Payload)})
		}
		return out, nil
	}
	if et.Trace.Outbox, err = related(TopicOutbox); err != nil {
		return nil, err
	}
	if et.Trace.Attempts, err = related(TopicAttempts); err != nil {
		return nil, err
	}
	if et.Trace.DLQ, err = related(TopicDLQ); err != nil {
		return nil, err
	}
	if et.Trace.ActionGraph, err = related(TopicActionGraph); err != nil {
		return nil, err
	}
	return et, nil
}

// EventRef is a recorded event as resources/list shows it.
type EventRef struct {
	EventID string
	LogID   int64
}

// Events lists the recorded events in log order.
func (o *Orchestrator) Events(ctx context.Context) ([]EventRef, error) {
	if err := o.view.refresh(ctx); err != nil {
		return nil, err
	}
	return o.view.eventList(), nil
}

// PendingDLQ lists the pending DLQ entries.
func (o *Orchestrator) PendingDLQ(ctx context.Context) ([]DLQEntry, error) {
	if err := o.view.refresh(ctx); err != nil {
		return nil, err
	}
	return o.view.pendingDLQ(), nil
}

// TranscriptTopics lists the agent.transcript.* topics that exist.
func (o *Orchestrator) TranscriptTopics(ctx context.Context) ([]string, error) {
	topics, err := o.log.Topics(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range topics {
		if strings.HasPrefix(t, TranscriptPrefix) {
			out = append(out, t)
		}
	}
	return out, nil
}

// TopicTail is harn://topic/<name>: the last five records.
func (o *Orchestrator) TopicTail(ctx context.Context, topic string) ([]Preview, error) {
	if topic == TopicInboxLegacy {
		topic = TopicInboxEnvelopes
	}
	recs, err := o.log.Tail(ctx, topic, 5)
	if err != nil {
		return nil, err
	}
	return previews(recs), nil
}

// SnapshotFile is the node's state snapshot in the state directory.
const SnapshotFile = "orchestrator-state.json"

func (o *Orchestrator) writeSnapshot(ctx context.Context) {
	_ = o.view.refresh(ctx)
	o.connMu.Lock()
	defer o.connMu.Unlock()
	o.writeSnapshotLocked()
}

// writeSnapshotLocked writes orchestrator-state.json atomically
// (temporary file and rename); o.connMu is held.
func (o *Orchestrator) writeSnapshotLocked() {
	p := o.proj.Load()
	if o.opts.StateDir == "" || o.opts.Operator || p == nil {
		return
	}
	type trig struct {
		ID         string `json:"id"`
		Provider   string `json:"provider"`
		Kind       string `json:"kind"`
		Handler    string `json:"handler"`
		Version    int    `json:"version"`
		State      string `json:"state"`
		Received   int64  `json:"received"`
		Dispatched int64  `json:"dispatched"`
		Failed     int64  `json:"failed"`
		InFlight   int64  `json:"in_flight"`
	}
	triggers := []trig{}
	for _, b := range p.order {
		m := o.metrics(b, nil)
		triggers = append(triggers, trig{b.ID, b.Provider, b.Kind, b.Handler.String(), b.Version, o.state(b), m.Received, m.Dispatched, m.Failed, m.InFlight})
	}
	conns := []string{}
	for c := range o.connectors {
		conns = append(conns, c)
	}
	sort.Strings(conns)
	snap := map[string]any{"status": o.status.Load(), "bind": o.opts.Bind, "triggers": triggers, "connectors": conns, "activations": o.activations()}
	b, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return
	}
	path := filepath.Join(o.opts.StateDir, SnapshotFile)
	tmp := path + ".tmp"
	if os.WriteFile(tmp, append(b, '\n'), 0o644) == nil {
		os.Rename(tmp, path)
	}
}
