package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// view folds the dispatch topics of the log into what the tools report:
// per-binding metrics, the attempts of events still in progress, the
// pending DLQ entries and the recent dispatches, plus an index that says
// where each event's records are. It reads each topic from where it
// stopped, so every node and the operator CLI compute the same figures
// from the shared log, and it keeps no record it can read again: events,
// outcomes and related records are kept as log ids and read back when
// asked for, so its memory grows by a few ids per event, not with the
// payloads.
type view struct {
	log     eventlog.Log
	mu      sync.Mutex
	cursors map[string]int64

	metrics map[string]*Metrics
	open    map[string][]AttemptInfo // attempts of events without a final outcome
	retry   map[string]bool          // events waiting for a retry
	dlq     map[string]*DLQEntry     // pending entries
	events  []EventRef               // in log order
	byEvent map[string]*eventIndex
	byTrace map[string][]string // trace id -> the events it started
	recent  []dispatchRecord    // last dispatch records, newest last
	spend   map[string]spend    // by binding id
	now     func() time.Time

	// Records this process appended, by topic and id, handed over so a
	// refresh folds them without reading them back (see appended).
	handMu sync.Mutex
	handed map[string]map[int64]eventlog.Record
}

// eventIndex locates an event's records: its triggers.events record, its
// latest outcome on trigger.outbox, and the records related to it
// (harn://event/<id>) by topic.
type eventIndex struct {
	logID   int64
	last    int64 // trigger.outbox id of the latest outcome, 0 before one
	related map[string][]int64
}

// Metrics are a binding's counters (harn.trigger.list).
type Metrics struct {
	Received                 int64  `json:"received"`
	Dispatched               int64  `json:"dispatched"`
	Failed                   int64  `json:"failed"`
	DLQ                      int64  `json:"dlq"`
	InFlight                 int64  `json:"in_flight"`
	LastReceivedMs           *int64 `json:"last_received_ms"`
	CostTotalUSDMicros       int64  `json:"cost_total_usd_micros"`
	CostTodayUSDMicros       int64  `json:"cost_today_usd_micros"`
	CostHourUSDMicros        int64  `json:"cost_hour_usd_micros"`
	AutonomousDecisionsTotal int64  `json:"autonomous_decisions_total"`
	AutonomousDecisionsToday int64  `json:"autonomous_decisions_today"`
	AutonomousDecisionsHour  int64  `json:"autonomous_decisions_hour"`
	Skipped                  int64  `json:"-"`
	TokensTotal              int64  `json:"-"`
}

// spend is a binding's cost and autonomous decisions per clock hour
// (unix ms of the hour's start), for the last day or so.
type spend map[int64]*hourSpend

type hourSpend struct{ costMicros, decisions int64 }

// add counts a dispatch record and forgets the hours more than a day
// older than it.
func (s spend) add(atMs, costMicros int64, decision bool) {
	h := atMs - atMs%hourMs
	x := s[h]
	if x == nil {
		x = &hourSpend{}
		s[h] = x
		for k := range s {
			if k < h-25*hourMs {
				delete(s, k)
			}
		}
	}
	x.costMicros += costMicros
	if decision {
		x.decisions++
	}
}

const hourMs = int64(time.Hour / time.Millisecond)

// fill sets the today (UTC day) and this-hour figures of m as of now.
func (s spend) fill(m *Metrics, now time.Time) {
	ms := now.UnixMilli()
	hour := ms - ms%hourMs
	day := ms - ms%(24*hourMs)
	for h, x := range s {
		if h >= day && h <= ms {
			m.CostTodayUSDMicros += x.costMicros
			m.AutonomousDecisionsToday += x.decisions
		}
		if h == hour {
			m.CostHourUSDMicros += x.costMicros
			m.AutonomousDecisionsHour += x.decisions
		}
	}
}

// recordedEvent is a triggers.events record.
type recordedEvent struct {
	LogID          int64
	EventID        string
	BindingID      string
	BindingVersion int
	ReplayOf       *string
	Event          map[string]any
	AtMs           int64
}

const recentDispatches = 20

func newView(log eventlog.Log, now func() time.Time) *view {
	return &view{log: log, cursors: map[string]int64{}, metrics: map[string]*Metrics{}, open: map[string][]AttemptInfo{},
		retry: map[string]bool{}, dlq: map[string]*DLQEntry{}, byEvent: map[string]*eventIndex{}, byTrace: map[string][]string{},
		spend: map[string]spend{}, now: now, handed: map[string]map[int64]eventlog.Record{}}
}

// maxHanded bounds the records handed over and not yet folded, per
// topic; past it, hand-overs are dropped and read from the log instead.
// It holds what 64 busy MCP clients (over 10,000 tool calls a second)
// hand over in a refresh interval with room to spare: reading the
// excess back was the view's largest cost under that load.
const maxHanded = 16 * refreshPage

// appended hands over records this process appended to topic, their
// ids set. Every MCP tool call appends an action-graph record, and
// reading each back from the log to relate it was a sizeable share of a
// busy server's work. A refresh takes the handed records that follow
// its cursor without a gap and reads the log only for the rest (other
// processes' records, records nobody handed over), so what it folds is
// the same either way.
func (v *view) appended(topic string, recs []eventlog.Record) {
	if !folded(topic) {
		return // nothing would take them: held, they would only pile up
	}
	v.handMu.Lock()
	defer v.handMu.Unlock()
	m := v.handed[topic]
	if m == nil {
		m = map[int64]eventlog.Record{}
		v.handed[topic] = m
	}
	for _, r := range recs {
		if len(m) >= maxHanded {
			return
		}
		m[r.ID] = r
	}
}

// read returns up to limit records of topic after id after: the handed
// ones that follow it without a gap, or else a page from the log; more
// says whether there may be more. Handed records up to what it returns
// are forgotten.
func (v *view) read(ctx context.Context, topic string, after int64, limit int) (recs []eventlog.Record, more bool, err error) {
	v.forget(topic, after)
	v.handMu.Lock()
	if m := v.handed[topic]; len(m) > 0 {
		for id := after + 1; len(recs) < limit; id++ {
			r, ok := m[id]
			if !ok {
				break
			}
			recs = append(recs, r)
			delete(m, id)
		}
	}
	v.handMu.Unlock()
	if len(recs) > 0 {
		return recs, true, nil
	}
	recs, err = v.log.Read(ctx, topic, after, limit)
	if n := len(recs); n > 0 {
		v.forget(topic, recs[n-1].ID)
	}
	return recs, len(recs) == limit, err
}

// forget drops the handed records of topic up to id.
func (v *view) forget(topic string, id int64) {
	v.handMu.Lock()
	defer v.handMu.Unlock()
	for k := range v.handed[topic] {
		if k <= id {
			delete(v.handed[topic], k)
		}
	}
}

// index is the entry of an event id, made on first mention: a record may
// name an event this view has not folded yet.
func (v *view) index(eventID string) *eventIndex {
	x := v.byEvent[eventID]
	if x == nil {
		x = &eventIndex{}
		v.byEvent[eventID] = x
	}
	return x
}

// relate notes that record id of topic belongs to the events its headers
// (event_id, trace_id) or its payload's context.event_id name.
func (v *view) relate(topic string, r eventlog.Record) {
	// Most records name one event or none: the set of those already
	// noted is made at the second.
	first, seen := "", map[string]bool(nil)
	add := func(ev string) {
		if ev != "" && ev != first && !seen[ev] {
			if first == "" {
				first = ev
			} else {
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[ev] = true
			}
			x := v.index(ev)
			if x.related == nil {
				x.related = map[string][]int64{}
			}
			x.related[topic] = append(x.related[topic], r.ID)
		}
	}
	add(r.Headers["event_id"])
	if t := r.Headers["trace_id"]; t != "" {
		for _, ev := range v.byTrace[t] {
			add(ev)
		}
	}
	// `vent_id"` comes in every payload that names an event_id, and is
	// found several times faster than `"event_id"`: its first byte is
	// rare in JSON, where a quote starts every other token.
	if topic == TopicActionGraph && bytes.Contains(r.Payload, []byte(`vent_id"`)) {
		var p struct {
			Context struct {
				EventID string `json:"event_id"`
			} `json:"context"`
		}
		if json.Unmarshal(r.Payload, &p) == nil {
			add(p.Context.EventID)
		}
	}
}

func (v *view) m(id string) *Metrics {
	x := v.metrics[id]
	if x == nil {
		x = &Metrics{}
		v.metrics[id] = x
	}
	return x
}

const refreshPage = 1000

// dispatchTopics are the topics a refresh folds besides
// observability.action_graph.
var dispatchTopics = []string{TopicEvents, TopicAttempts, TopicOutbox, TopicDLQ}

// folded reports whether a refresh folds topic's records.
func folded(topic string) bool {
	return topic == TopicActionGraph || slices.Contains(dispatchTopics, topic)
}

// refresh folds the records appended since the last refresh. A page of
// observability.action_graph is read before the dispatch topics and
// folded after them: an action-graph record relates to an event by its
// trace id, and the event, appended earlier, is then already indexed.
func (v *view) refresh(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	for {
		graph, more, err := v.read(ctx, TopicActionGraph, v.cursors[TopicActionGraph], refreshPage)
		if err != nil {
			return err
		}
		for _, topic := range dispatchTopics {
			if err := v.drain(ctx, topic); err != nil {
				return err
			}
		}
		for _, r := range graph {
			v.relate(TopicActionGraph, r)
			v.cursors[TopicActionGraph] = r.ID
		}
		if !more {
			return nil
		}
	}
}

func (v *view) drain(ctx context.Context, topic string) error {
	for {
		recs, more, err := v.read(ctx, topic, v.cursors[topic], refreshPage)
		if err != nil {
			return err
		}
		for _, r := range recs {
			v.fold(topic, r)
			v.cursors[topic] = r.ID
		}
		if !more {
			return nil
		}
	}
}

func (v *view) fold(topic string, r eventlog.Record) {
	switch topic {
	case TopicEvents:
		var p struct {
			BindingID      string         `json:"binding_id"`
			BindingVersion int            `json:"binding_version"`
			ReplayOf       *string        `json:"replay_of_event_id"`
			Event          map[string]any `json:"event"`
		}
		if json.Unmarshal(r.Payload, &p) != nil {
			return
		}
		id, _ := p.Event["id"].(string)
		if id == "" {
			id = r.Headers["event_id"]
		}
		v.index(id).logID = r.ID
		v.events = append(v.events, EventRef{EventID: id, LogID: r.ID})
		if t, _ := p.Event["trace_id"].(string); t != "" {
			v.byTrace[t] = append(v.byTrace[t], id)
		}
		m := v.m(p.BindingID)
		m.Received++
		at := r.OccurredAtMs
		m.LastReceivedMs = &at
	case TopicAttempts:
		var a AttemptInfo
		if json.Unmarshal(r.Payload, &a) != nil {
			return
		}
		if a.Status == "failed" {
			v.m(a.BindingID).Failed++
		}
		v.open[a.EventID] = append(v.open[a.EventID], a)
		v.relate(topic, r)
	case TopicOutbox:
		var d dispatchRecord
		if decodeJSON(r.Payload, &d) != nil {
			return
		}
		d.Kind, d.OccurredAtMs = r.Kind, r.OccurredAtMs
		m := v.m(d.TriggerID)
		switch d.Status {
		case "succeeded":
			m.Dispatched++
		case "skipped":
			m.Skipped++
		case "dlq":
			m.DLQ++
		}
		if d.CostUSDMicros != 0 || d.Tokens != 0 || d.Autonomous {
			m.CostTotalUSDMicros += d.CostUSDMicros
			m.TokensTotal += d.Tokens
			if d.Autonomous {
				m.AutonomousDecisionsTotal++
			}
			sp := v.spend[d.TriggerID]
			if sp == nil {
				sp = spend{}
				v.spend[d.TriggerID] = sp
			}
			sp.add(r.OccurredAtMs, d.CostUSDMicros, d.Autonomous)
		}
		if d.Status == "failed" {
			v.retry[d.EventID] = true
		} else {
			delete(v.retry, d.EventID)
			delete(v.open, d.EventID)
		}
		v.index(d.EventID).last = r.ID
		v.relate(topic, r)
		v.recent = append(v.recent, d)
		if len(v.recent) > recentDispatches {
			v.recent = v.recent[len(v.recent)-recentDispatches:]
		}
	case TopicDLQ:
		v.relate(topic, r)
		switch r.Kind {
		case "dlq_entry":
			var e DLQEntry
			if decodeJSON(r.Payload, &e) == nil && e.ID != "" {
				e.DeadAtMs = r.OccurredAtMs
				v.dlq[e.ID] = &e
			}
		default: // dlq_retried, dlq_purged: tombstones
			delete(v.dlq, r.Headers["entry_id"])
		}
	}
}

func (v *view) attemptsOf(eventID string) []AttemptInfo {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]AttemptInfo(nil), v.open[eventID]...)
}

// lastDispatch reads an event's latest outcome from the outbox.
func (v *view) lastDispatch(ctx context.Context, eventID string) (dispatchRecord, bool, error) {
	v.mu.Lock()
	x := v.byEvent[eventID]
	var id int64
	if x != nil {
		id = x.last
	}
	v.mu.Unlock()
	if id == 0 {
		return dispatchRecord{}, false, nil
	}
	r, err := readOne(ctx, v.log, TopicOutbox, id)
	if err != nil {
		return dispatchRecord{}, false, err
	}
	var d dispatchRecord
	if err := decodeJSON(r.Payload, &d); err != nil {
		return dispatchRecord{}, false, fmt.Errorf("outbox record %d: %v", id, err)
	}
	d.Kind, d.OccurredAtMs = r.Kind, r.OccurredAtMs
	return d, true, nil
}

// readOne reads the record id of topic.
func readOne(ctx context.Context, log eventlog.Log, topic string, id int64) (eventlog.Record, error) {
	recs, err := log.Read(ctx, topic, id-1, 1)
	if err != nil {
		return eventlog.Record{}, err
	}
	if len(recs) != 1 || recs[0].ID != id {
		return eventlog.Record{}, fmt.Errorf("record %d of %s is missing", id, topic)
	}
	return recs[0], nil
}

func (v *view) metricsOf(id string) Metrics {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out Metrics
	if m := v.metrics[id]; m != nil {
		out = *m
	}
	v.spend[id].fill(&out, v.now())
	return out
}

// pendingDLQ lists the pending entries, oldest first.
func (v *view) pendingDLQ() []DLQEntry {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]DLQEntry, 0, len(v.dlq))
	for _, e := range v.dlq {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (v *view) dlqEntry(id string) (DLQEntry, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.dlq[id]
	if !ok {
		return DLQEntry{}, false
	}
	return *e, true
}

// event reads a recorded event from triggers.events.
func (v *view) event(ctx context.Context, id string) (recordedEvent, bool, error) {
	v.mu.Lock()
	x := v.byEvent[id]
	var logID int64
	if x != nil {
		logID = x.logID
	}
	v.mu.Unlock()
	if logID == 0 {
		return recordedEvent{}, false, nil
	}
	r, err := readOne(ctx, v.log, TopicEvents, logID)
	if err != nil {
		return recordedEvent{}, false, err
	}
	var p struct {
		BindingID      string         `json:"binding_id"`
		BindingVersion int            `json:"binding_version"`
		ReplayOf       *string        `json:"replay_of_event_id"`
		Event          map[string]any `json:"event"`
	}
	if err := decodeJSON(r.Payload, &p); err != nil {
		return recordedEvent{}, false, fmt.Errorf("event record %d: %v", logID, err)
	}
	return recordedEvent{LogID: r.ID, EventID: id, BindingID: p.BindingID, BindingVersion: p.BindingVersion, ReplayOf: p.ReplayOf, Event: p.Event, AtMs: r.OccurredAtMs}, true, nil
}

// relatedTo lists the ids of an event's related records in topic.
func (v *view) relatedTo(eventID, topic string) []int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if x := v.byEvent[eventID]; x != nil {
		return append([]int64(nil), x.related[topic]...)
	}
	return nil
}

func (v *view) eventList() []EventRef {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]EventRef(nil), v.events...)
}

func (v *view) recentDispatches() []dispatchRecord {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]dispatchRecord(nil), v.recent...)
}

func (v *view) retryDepth() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return int64(len(v.retry))
}
