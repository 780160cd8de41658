package orchestrator

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// view folds the dispatch topics of the log into what the tools report:
// per-binding metrics, the attempts of events still in progress, the
// pending DLQ entries, the recorded events and the recent dispatches.
// It reads each topic from where it stopped, so every node and the
// operator CLI compute the same figures from the shared log.
type view struct {
	log     eventlog.Log
	mu      sync.Mutex
	cursors map[string]int64

	metrics map[string]*Metrics
	open    map[string][]AttemptInfo // attempts of events without a final outcome
	retry   map[string]bool          // events waiting for a retry
	dlq     map[string]*DLQEntry     // pending entries
	dlqAll  map[string]bool          // every entry id ever recorded
	events  []recordedEvent          // in log order
	byEvent map[string]int           // event id -> index in events
	recent  []dispatchRecord         // last dispatch records, newest last
	last    map[string]dispatchRecord
	spend   map[string]spend // by binding id
	now     func() time.Time
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
		retry: map[string]bool{}, dlq: map[string]*DLQEntry{}, dlqAll: map[string]bool{}, byEvent: map[string]int{}, last: map[string]dispatchRecord{},
		spend: map[string]spend{}, now: now}
}

func (v *view) m(id string) *Metrics {
	x := v.metrics[id]
	if x == nil {
		x = &Metrics{}
		v.metrics[id] = x
	}
	return x
}

// refresh folds the records appended since the last refresh.
func (v *view) refresh(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, topic := range []string{TopicEvents, TopicAttempts, TopicOutbox, TopicDLQ} {
		for {
			recs, err := v.log.Read(ctx, topic, v.cursors[topic], 1000)
			if err != nil {
				return err
			}
			for _, r := range recs {
				v.fold(topic, r)
				v.cursors[topic] = r.ID
			}
			if len(recs) < 1000 {
				break
			}
		}
	}
	return nil
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
		v.byEvent[id] = len(v.events)
		v.events = append(v.events, recordedEvent{LogID: r.ID, EventID: id, BindingID: p.BindingID, BindingVersion: p.BindingVersion, ReplayOf: p.ReplayOf, Event: p.Event, AtMs: r.OccurredAtMs})
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
	case TopicOutbox:
		var d dispatchRecord
		if json.Unmarshal(r.Payload, &d) != nil {
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
		v.last[d.EventID] = d
		v.recent = append(v.recent, d)
		if len(v.recent) > recentDispatches {
			v.recent = v.recent[len(v.recent)-recentDispatches:]
		}
	case TopicDLQ:
		switch r.Kind {
		case "dlq_entry":
			var e DLQEntry
			if json.Unmarshal(r.Payload, &e) == nil && e.ID != "" {
				v.dlq[e.ID] = &e
				v.dlqAll[e.ID] = true
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

func (v *view) lastDispatch(eventID string) (dispatchRecord, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	d, ok := v.last[eventID]
	return d, ok
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

func (v *view) event(id string) (recordedEvent, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	i, ok := v.byEvent[id]
	if !ok {
		return recordedEvent{}, false
	}
	return v.events[i], true
}

func (v *view) eventList() []recordedEvent {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]recordedEvent(nil), v.events...)
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
