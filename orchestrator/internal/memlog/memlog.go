// Package memlog is an in-memory eventlog.Log for the orchestrator's
// unit tests: the contract of package eventlog (atomic appends with
// Complete and Retry, idempotent Accept, fenced leases) without
// durability.
package memlog

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// Log is the in-memory log.
type Log struct {
	mu      sync.Mutex
	topics  map[string][]eventlog.Record
	cursors map[string]int64
	inbox   map[string]*entry
	order   []string
	tokens  int64
	// Now is the clock (default time.Now).
	Now func() time.Time
}

type entry struct {
	d       eventlog.Delivery
	owner   string
	token   int64
	expires int64
}

// New returns an empty log.
func New() *Log {
	return &Log{topics: map[string][]eventlog.Record{}, cursors: map[string]int64{}, inbox: map[string]*entry{}, Now: time.Now}
}

func (l *Log) nowMs() int64 { return l.Now().UnixMilli() }

func (l *Log) append(topic string, rec eventlog.Record) int64 {
	rec.ID = int64(len(l.topics[topic]) + 1)
	if rec.OccurredAtMs == 0 {
		rec.OccurredAtMs = l.nowMs()
	}
	if rec.Headers == nil {
		rec.Headers = map[string]string{}
	}
	l.topics[topic] = append(l.topics[topic], rec)
	return rec.ID
}

func (l *Log) Append(_ context.Context, topic string, rec eventlog.Record) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.append(topic, rec), nil
}

func (l *Log) Read(_ context.Context, topic string, after int64, limit int) ([]eventlog.Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []eventlog.Record
	for _, r := range l.topics[topic] {
		if r.ID > after {
			out = append(out, r)
			if limit > 0 && len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

func (l *Log) Tail(_ context.Context, topic string, n int) ([]eventlog.Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	recs := l.topics[topic]
	if len(recs) > n {
		recs = recs[len(recs)-n:]
	}
	return append([]eventlog.Record(nil), recs...), nil
}

func (l *Log) Count(_ context.Context, topic string) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(len(l.topics[topic])), nil
}

func (l *Log) Topics(context.Context) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for t, recs := range l.topics {
		if len(recs) > 0 {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (l *Log) Cursor(_ context.Context, topic, consumer string) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cursors[topic+"\x00"+consumer], nil
}

func (l *Log) SetCursor(_ context.Context, topic, consumer string, cursor int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cursors[topic+"\x00"+consumer] = cursor
	return nil
}

func (l *Log) Inbox() eventlog.Inbox { return inbox{l} }
func (l *Log) Backend() string       { return "memory" }
func (l *Log) Close() error          { return nil }

type inbox struct{ l *Log }

func (in inbox) Accept(_ context.Context, d eventlog.Delivery, records ...eventlog.TopicRecord) (eventlog.Delivery, bool, error) {
	l := in.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.inbox[d.ID]; ok {
		return e.d, false, nil
	}
	now := l.nowMs()
	d.State, d.Attempts, d.CreatedMs = eventlog.Pending, 0, now
	if d.DueAtMs == 0 {
		d.DueAtMs = now
	}
	l.inbox[d.ID] = &entry{d: d}
	l.order = append(l.order, d.ID)
	for _, r := range records {
		l.append(r.Topic, r.Record)
	}
	return d, true, nil
}

func (in inbox) Claim(_ context.Context, owner string, n int, ttl time.Duration) ([]eventlog.Lease, error) {
	l := in.l
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.nowMs()
	var due []*entry
	for _, id := range l.order {
		e := l.inbox[id]
		if (e.d.State == eventlog.Pending && e.d.DueAtMs <= now) || (e.d.State == eventlog.Leased && e.expires <= now) {
			due = append(due, e)
		}
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].d.DueAtMs < due[j].d.DueAtMs })
	if len(due) > n {
		due = due[:n]
	}
	out := make([]eventlog.Lease, 0, len(due))
	for _, e := range due {
		l.tokens++
		e.d.State, e.owner, e.token, e.expires = eventlog.Leased, owner, l.tokens, now+ttl.Milliseconds()
		e.d.Attempts++
		out = append(out, eventlog.Lease{Delivery: e.d, Owner: owner, Token: e.token, ExpiresAtMs: e.expires})
	}
	return out, nil
}

func (in inbox) current(le eventlog.Lease) (*entry, error) {
	e := in.l.inbox[le.ID]
	if e == nil || e.d.State != eventlog.Leased || e.token != le.Token || e.owner != le.Owner {
		return nil, eventlog.ErrLeaseLost
	}
	return e, nil
}

func (in inbox) Extend(_ context.Context, le *eventlog.Lease, ttl time.Duration) error {
	in.l.mu.Lock()
	defer in.l.mu.Unlock()
	e, err := in.current(*le)
	if err != nil {
		return err
	}
	e.expires = in.l.nowMs() + ttl.Milliseconds()
	le.ExpiresAtMs = e.expires
	return nil
}

func (in inbox) Complete(_ context.Context, le eventlog.Lease, final eventlog.DeliveryState, errMsg string, records ...eventlog.TopicRecord) error {
	in.l.mu.Lock()
	defer in.l.mu.Unlock()
	e, err := in.current(le)
	if err != nil {
		return err
	}
	e.d.State, e.d.LastError = final, errMsg
	for _, r := range records {
		in.l.append(r.Topic, r.Record)
	}
	return nil
}

func (in inbox) Retry(_ context.Context, le eventlog.Lease, dueAtMs int64, errMsg string, records ...eventlog.TopicRecord) error {
	in.l.mu.Lock()
	defer in.l.mu.Unlock()
	e, err := in.current(le)
	if err != nil {
		return err
	}
	e.d.State, e.d.DueAtMs, e.d.LastError = eventlog.Pending, dueAtMs, errMsg
	for _, r := range records {
		in.l.append(r.Topic, r.Record)
	}
	return nil
}

func (in inbox) Get(_ context.Context, id string) (eventlog.Delivery, error) {
	in.l.mu.Lock()
	defer in.l.mu.Unlock()
	e := in.l.inbox[id]
	if e == nil {
		return eventlog.Delivery{}, eventlog.ErrNotFound
	}
	return e.d, nil
}

func (in inbox) Stats(context.Context) (eventlog.InboxStats, error) {
	in.l.mu.Lock()
	defer in.l.mu.Unlock()
	var s eventlog.InboxStats
	for _, e := range in.l.inbox {
		switch e.d.State {
		case eventlog.Pending:
			s.Pending++
		case eventlog.Leased:
			s.Leased++
		case eventlog.Done:
			s.Done++
		case eventlog.Dead:
			s.Dead++
		}
	}
	return s, nil
}
