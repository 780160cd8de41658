package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/orchestrator/manifest"
)

// Caller identifies who asked for an operation: an MCP tool call (the
// client identity "name/version" or "unknown", and the call's mcp_
// trace id) or an operator command (CLICaller).
type Caller struct {
	Client  string
	TraceID string
	// Via is how the caller came: "mcp" (also when empty) or "cli". It
	// names the event headers that carry Client and TraceID,
	// x-harn-<via>-client and x-harn-<via>-trace-id.
	Via string
}

// CLICaller is the caller of a harn orchestrator command: client (e.g.
// harn-cli/1.4.0) and a fresh trace id cli_<32 hex>. No MCP call is
// made, so its events carry x-harn-cli-* headers, not x-harn-mcp-*, and
// no observability.action_graph record is written for it.
func CLICaller(client string) Caller {
	return Caller{Client: client, TraceID: triggerspec.NewTraceID("cli"), Via: "cli"}
}

// callerVias are the ways an operation is asked for by hand, each with
// its event headers.
var callerVias = []string{"mcp", "cli"}

// stampCaller sets the caller headers of an event's headers to c's and
// drops those of any other way in, so the headers and the event's
// trace_id name one caller.
func stampCaller(headers map[string]any, c Caller) {
	for _, via := range callerVias {
		delete(headers, "x-harn-"+via+"-client")
		delete(headers, "x-harn-"+via+"-trace-id")
	}
	via := c.Via
	if via == "" {
		via = "mcp"
	}
	client := c.Client
	if client == "" {
		client = "unknown"
	}
	headers["x-harn-"+via+"-client"] = client
	headers["x-harn-"+via+"-trace-id"] = c.TraceID
}

// firedByHand says whether recorded event headers name the caller that
// fired the event (an MCP tool call or an operator command).
func firedByHand(headers map[string]any) bool {
	for _, via := range callerVias {
		if _, ok := headers["x-harn-"+via+"-trace-id"]; ok {
			return true
		}
	}
	return false
}

// Fire dispatches a synthetic event for a binding (harn.trigger.fire,
// docs/spec/orchestrator.md §3): the binding's provider and event kind and the
// synthetic headers, with the caller's payload object shallow-merged
// over it, then the caller's identity and trace id.
func (o *Orchestrator) Fire(ctx context.Context, triggerID string, payload any, c Caller) (Handle, error) {
	b := o.Binding(triggerID)
	if b == nil {
		return Handle{}, fmt.Errorf("unknown manifest binding '%s'", triggerID)
	}
	event := map[string]any{
		"provider": b.Provider,
		"kind":     b.EventKind(),
		"headers":  map[string]any{"x-harn-binding-id": b.ID, "x-harn-synthetic": "true"},
	}
	switch p := payload.(type) {
	case map[string]any:
		maps.Copy(event, p)
	case nil:
	default:
		return Handle{}, fmt.Errorf("payload must be an object (the event fields merged over the synthetic event), got %s", jsonv.TypeName(p))
	}
	if c.TraceID == "" {
		c.TraceID = NewTraceID()
	}
	headers, ok := event["headers"].(map[string]any)
	if !ok {
		headers = map[string]any{}
	} else {
		headers = maps.Clone(headers)
	}
	stampCaller(headers, c)
	event["headers"] = headers
	return o.Dispatch(ctx, b, Envelope{Source: "manual", TraceID: c.TraceID, Event: event}, "")
}

// redispatchedEvent is the event a replay or DLQ retry dispatches again:
// the recorded one without its trace id and receipt time, and, when it
// was fired by hand (through MCP or the CLI), with the caller headers
// naming the caller that asked for this dispatch, so headers and
// trace_id agree (docs/orchestrator.md).
func redispatchedEvent(recorded map[string]any, c Caller) map[string]any {
	event := maps.Clone(recorded)
	delete(event, "trace_id")
	delete(event, "received_at")
	headers, ok := event["headers"].(map[string]any)
	if !ok || c.TraceID == "" || !firedByHand(headers) {
		return event
	}
	headers = maps.Clone(headers)
	stampCaller(headers, c)
	event["headers"] = headers
	return event
}

// ReplayReport is the result of a replay resolved as of a past instant.
type ReplayReport struct {
	ReplayOfEventID       string `json:"replay_of_event_id"`
	AsOf                  string `json:"as_of"`
	BindingID             string `json:"binding_id"`
	BindingVersionAsOf    *int   `json:"binding_version_as_of"`
	BindingVersionCurrent int    `json:"binding_version_current"`
	HandlerAsOf           any    `json:"handler_as_of"`
	HandlerCurrent        string `json:"handler_current"`
	DefinitionChanged     bool   `json:"definition_changed"`
	Note                  string `json:"note"`
	Handle                Handle `json:"handle"`
}

// Replay re-dispatches a recorded event under a new event id that
// carries replay_of_event_id; the link is a replay_chain action-graph
// record. With asOf, the event runs through the binding as it was
// registered at that instant — its recorded definition (handler,
// predicate, filter, retry, flow control, budget) with its function
// names resolved in the code loaded now, since code is not versioned —
// and a ReplayReport compares that version with today's. A binding not
// registered at asOf, or whose handler or predicate the code loaded now
// lacks, is an error: running today's binding instead would answer a
// different question than the one asked.
func (o *Orchestrator) Replay(ctx context.Context, eventID string, asOf *time.Time, c Caller) (any, error) {
	if err := o.view.refresh(ctx); err != nil {
		return nil, err
	}
	rec, ok, err := o.view.event(ctx, eventID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("unknown trigger event id '%s'", eventID)
	}
	b := o.Binding(rec.BindingID)
	if b == nil {
		return nil, fmt.Errorf("binding '%s' of event '%s' is no longer in the manifest", rec.BindingID, eventID)
	}
	env := Envelope{Source: "replay", ReplayOfEventID: eventID, TraceID: c.TraceID, Event: redispatchedEvent(rec.Event, c)}
	if asOf == nil {
		return o.Dispatch(ctx, b, env, "")
	}
	life, err := readLifecycle(ctx, o.log)
	if err != nil {
		return nil, err
	}
	ms := asOf.UnixMilli()
	at := formatInstant(ms)
	then := life.asOf(b.ID, ms)
	if then == nil || then.State == "terminated" {
		return nil, fmt.Errorf("binding '%s' was not registered at %s: there is no binding as of then to replay the event through", b.ID, at)
	}
	past, err := o.bindingVersion(ctx, b.ID, then.Version)
	if err != nil {
		return nil, fmt.Errorf("cannot replay '%s' as of %s: %v", eventID, at, err)
	}
	v := then.Version
	rep := ReplayReport{ReplayOfEventID: eventID, AsOf: at, BindingID: b.ID,
		BindingVersionAsOf: &v, HandlerAsOf: then.Handler, BindingVersionCurrent: b.Version, HandlerCurrent: b.Handler.String(),
		DefinitionChanged: then.Fingerprint != b.Fingerprint}
	if rep.DefinitionChanged {
		rep.Note = fmt.Sprintf("the binding changed since as_of; the event was replayed through version %d as it was then, run with the code loaded now (handler code is not versioned)", v)
	} else {
		rep.Note = "the binding is unchanged since as_of"
	}
	env.AsOf = at
	h, err := o.Dispatch(ctx, past, env, "")
	if err != nil {
		if h.EventID != "" { // accepted, the wait cancelled
			return h, err
		}
		return nil, err
	}
	rep.Handle = h
	return rep, nil
}

// formatInstant is the instant a replay as of a past time resolves its
// binding at (the log's records are stamped in milliseconds), as RFC 3339
// in UTC with milliseconds unless they are zero: what the report and
// its errors echo is the instant actually used.
func formatInstant(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	if ms%1000 == 0 {
		return t.Format(time.RFC3339)
	}
	return t.Format("2006-01-02T15:04:05.000Z07:00")
}

// bindingVersion is version version of binding id: the binding served
// when that is its version, else the definition its triggers.lifecycle
// registration recorded, validated again and with its local handler and
// predicate resolved in the code loaded now (cached per project).
func (o *Orchestrator) bindingVersion(ctx context.Context, id string, version int) (*Binding, error) {
	p := o.proj.Load()
	if b := p.bindings[id]; b != nil && b.Version == version {
		return b, nil
	}
	key := id + "\x00" + strconv.Itoa(version)
	if b, ok := p.past.Load(key); ok {
		return b.(*Binding), nil
	}
	life, err := readLifecycle(ctx, o.log)
	if err != nil {
		return nil, err
	}
	var reg *lifecycleRecord
	for _, r := range life[id] {
		if r.Version == version && r.State != "terminated" {
			reg = r
			break
		}
	}
	if reg == nil {
		return nil, fmt.Errorf("binding '%s' has no recorded version %d", id, version)
	}
	name := fmt.Sprintf("binding '%s' version %d", id, version)
	if reg.Definition == nil {
		return nil, fmt.Errorf("%s: its registration recorded no definition", name)
	}
	t, err := p.m.Recorded(reg.Definition)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	for _, ref := range []struct {
		field string
		h     *manifest.Handler
	}{{"handler", &t.Handler}, {"when", t.WhenRef}} {
		if ref.h == nil || ref.h.Kind != "local" {
			continue
		}
		if err := p.rt.Resolve(*ref.h); err != nil {
			return nil, fmt.Errorf("%s: %s %s is not in the code loaded now: %v", name, ref.field, ref.h.Reference, err)
		}
	}
	b := &Binding{Trigger: t, Version: version, State: "active"}
	actual, _ := p.past.LoadOrStore(key, b)
	return actual.(*Binding), nil
}

// DLQRetry is the result of harn.orchestrator.dlq.retry.
type DLQRetry struct {
	EntryID string `json:"entry_id"`
	Handle  Handle `json:"handle"`
}

// RetryDLQ re-dispatches a pending DLQ entry's event as a replay; the
// entry is marked retried (a trigger.dlq tombstone linking the new event)
// in the same transaction that accepts it, so concurrent retries of one
// entry run it once.
func (o *Orchestrator) RetryDLQ(ctx context.Context, entryID string, c Caller) (DLQRetry, error) {
	if err := o.view.refresh(ctx); err != nil {
		return DLQRetry{}, err
	}
	e, ok := o.view.dlqEntry(entryID)
	if !ok {
		return DLQRetry{}, fmt.Errorf("unknown pending DLQ entry '%s'", entryID)
	}
	b := o.Binding(e.BindingID)
	if b == nil {
		return DLQRetry{}, fmt.Errorf("binding '%s' of DLQ entry '%s' is no longer in the manifest", e.BindingID, entryID)
	}
	env := Envelope{Source: "dlq_retry", ReplayOfEventID: e.EventID, DLQRetryOf: entryID, TraceID: c.TraceID, Event: redispatchedEvent(e.Event, c)}
	h, err := o.Dispatch(ctx, b, env, "dlq-retry/"+entryID)
	if err != nil {
		return DLQRetry{EntryID: entryID, Handle: h}, err
	}
	return DLQRetry{EntryID: entryID, Handle: h}, nil
}

// purgeExpiredDLQ ends the pending DLQ entries older than their
// binding's retry.retention_days: each gets a dlq_purged tombstone on
// trigger.dlq (the entry itself stays in the log for audit). Entries of
// bindings no longer in the manifest keep the default retention.
func (o *Orchestrator) purgeExpiredDLQ(ctx context.Context, now time.Time) {
	entries, err := o.PendingDLQ(ctx)
	if err != nil {
		return
	}
	for _, e := range entries {
		days := manifest.DefaultRetry.RetentionDays
		if b := o.Binding(e.BindingID); b != nil {
			days = b.Retry.RetentionDays
		}
		if now.Sub(time.UnixMilli(e.DeadAtMs)) < time.Duration(days)*24*time.Hour {
			continue
		}
		tomb, _ := json.Marshal(map[string]any{"entry_id": e.ID, "state": "purged", "event_id": e.EventID, "retention_days": days})
		o.log.Append(ctx, TopicDLQ, eventlog.Record{Kind: "dlq_purged", Payload: tomb, Headers: map[string]string{"entry_id": e.ID, "event_id": e.EventID}})
	}
}
