// Package memory is the in-process event log backend
// (HARN_EVENT_LOG_BACKEND=memory): the same contract as the durable
// backends, held in maps under one mutex, lost when the process exits.
// Tests and throwaway runs use it; it keeps every guarantee of eventlog
// except surviving a crash.
//
// OpenDir adds that guarantee: the file backend (file.go) is this log
// with every change written to JSON-lines files before it returns.
package memory

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/internal/store"
)

// Log is the in-memory event log.
type Log struct {
	mu         sync.Mutex
	topics     map[string][]eventlog.Record
	cursors    map[[2]string]int64
	deliveries map[string]*delivery
	open       map[string]*delivery // the pending and leased ones: what Claim scans

	disk *disk       // nil: memory only
	tx   journalLine // what the operation in progress changed, for disk
}

type delivery struct {
	eventlog.Delivery
	owner   string
	token   int64
	expires int64
}

var (
	_ eventlog.Log   = (*Log)(nil)
	_ eventlog.Inbox = (*Log)(nil)
)

// New returns an empty log.
func New() *Log {
	return &Log{
		topics:     map[string][]eventlog.Record{},
		cursors:    map[[2]string]int64{},
		deliveries: map[string]*delivery{},
		open:       map[string]*delivery{},
	}
}

func (l *Log) Backend() string {
	if l.disk != nil {
		return "file"
	}
	return "memory"
}

func (l *Log) Inbox() eventlog.Inbox { return l }

func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.disk != nil {
		l.disk.close()
	}
	return nil
}

// own returns rec with a payload and headers of its own, which the
// caller cannot alter any more. It needs no lock: Append and AppendAll
// copy before they take l.mu, so the lock is held only to number and
// store.
func own(rec eventlog.Record) eventlog.Record {
	rec.Payload = append([]byte(nil), store.Payload(rec.Payload)...)
	if len(rec.Headers) == 0 {
		rec.Headers = nil
	} else {
		h := make(map[string]string, len(rec.Headers))
		for k, v := range rec.Headers {
			h[k] = v
		}
		rec.Headers = h
	}
	return rec
}

// insert adds rec, owned, to topic; l.mu is held.
func (l *Log) insert(topic string, rec eventlog.Record, now int64) int64 {
	rec = store.Stamp(rec, now)
	rec.ID = int64(len(l.topics[topic])) + 1
	l.topics[topic] = append(l.topics[topic], rec)
	if l.disk != nil {
		l.tx.Records = append(l.tx.Records, savedRecord{topic, rec})
	}
	return rec.ID
}

func (l *Log) appendAll(records []eventlog.TopicRecord, now int64) {
	for _, r := range records {
		l.insert(r.Topic, own(r.Record), now)
	}
}

func (l *Log) Append(ctx context.Context, topic string, rec eventlog.Record) (int64, error) {
	return store.AppendOne(ctx, l.AppendAll, topic, rec)
}

func (l *Log) AppendAll(ctx context.Context, records ...eventlog.TopicRecord) ([]int64, error) {
	if err := store.CheckRecords(records); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	owned := make([]eventlog.Record, len(records))
	for i, r := range records {
		owned[i] = own(r.Record)
	}
	ids := make([]int64, len(records))
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writable(); err != nil {
		return nil, err
	}
	now := store.NowMs()
	for i, r := range records {
		ids[i] = l.insert(r.Topic, owned[i], now)
	}
	if err := l.flush(); err != nil {
		return nil, err
	}
	return ids, nil
}

// copyRecords returns copies, so callers cannot alter the stored records.
// It runs without l.mu: a stored record is never changed and a topic only
// grows past the records a reader took, so a long read (a page of a
// thousand) does not hold up every other call on the log while it
// copies.
func copyRecords(recs []eventlog.Record) []eventlog.Record {
	if len(recs) == 0 {
		return nil
	}
	out := make([]eventlog.Record, len(recs))
	for i, r := range recs {
		r.Payload = append([]byte(nil), r.Payload...)
		if r.Headers != nil {
			h := make(map[string]string, len(r.Headers))
			for k, v := range r.Headers {
				h[k] = v
			}
			r.Headers = h
		}
		out[i] = r
	}
	return out
}

func (l *Log) Read(ctx context.Context, topic string, after int64, limit int) ([]eventlog.Record, error) {
	l.mu.Lock()
	recs := l.topics[topic]
	l.mu.Unlock()
	if after < 0 {
		after = 0
	}
	if after >= int64(len(recs)) {
		return nil, nil
	}
	recs = recs[after:]
	if limit > 0 && limit < len(recs) {
		recs = recs[:limit]
	}
	return copyRecords(recs), nil
}

func (l *Log) Tail(ctx context.Context, topic string, n int) ([]eventlog.Record, error) {
	if n <= 0 {
		return nil, nil
	}
	l.mu.Lock()
	recs := l.topics[topic]
	l.mu.Unlock()
	if n < len(recs) {
		recs = recs[len(recs)-n:]
	}
	return copyRecords(recs), nil
}

func (l *Log) Count(ctx context.Context, topic string) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(len(l.topics[topic])), nil
}

func (l *Log) Topics(ctx context.Context) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ts []string
	for t, recs := range l.topics {
		if len(recs) > 0 {
			ts = append(ts, t)
		}
	}
	sort.Strings(ts)
	return ts, nil
}

func (l *Log) Cursor(ctx context.Context, topic, consumer string) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cursors[[2]string{topic, consumer}], nil
}

func (l *Log) SetCursor(ctx context.Context, topic, consumer string, cursor int64) error {
	if err := store.CheckCursor(topic, consumer); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writable(); err != nil {
		return err
	}
	l.cursors[[2]string{topic, consumer}] = cursor
	if l.disk != nil {
		l.tx.Cursors = append(l.tx.Cursors, savedCursor{topic, consumer, cursor})
	}
	return l.flush()
}

// ---- the inbox ----

func (d *delivery) snapshot() eventlog.Delivery {
	out := d.Delivery
	out.Envelope = append([]byte(nil), d.Envelope...)
	return out
}

// readyAt is when d can be claimed, and false once it has ended.
func (d *delivery) readyAt() (int64, bool) {
	switch d.State {
	case eventlog.Pending:
		return d.DueAtMs, true
	case eventlog.Leased:
		return d.expires, true
	}
	return 0, false
}

func (l *Log) Accept(ctx context.Context, d eventlog.Delivery, records ...eventlog.TopicRecord) (eventlog.Delivery, bool, error) {
	if err := store.CheckDelivery(d); err != nil {
		return eventlog.Delivery{}, false, err
	}
	if err := store.CheckRecords(records); err != nil {
		return eventlog.Delivery{}, false, err
	}
	if err := ctx.Err(); err != nil {
		return eventlog.Delivery{}, false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if old, ok := l.deliveries[d.ID]; ok {
		return old.snapshot(), false, nil
	}
	if err := l.writable(); err != nil {
		return eventlog.Delivery{}, false, err
	}
	now := store.NowMs()
	if d.DueAtMs == 0 {
		d.DueAtMs = now
	}
	d.State, d.Attempts, d.CreatedMs, d.LastError = eventlog.Pending, 0, now, ""
	nd := &delivery{Delivery: d}
	if err := l.accept(nd, records, now); err != nil {
		return eventlog.Delivery{}, false, err
	}
	return nd.Delivery, true, nil
}

// accept stores nd, a new delivery, and appends the records accepting
// it; l.mu is held.
func (l *Log) accept(nd *delivery, records []eventlog.TopicRecord, now int64) error {
	nd.Envelope = append([]byte(nil), store.Payload(nd.Envelope)...)
	l.deliveries[nd.ID] = nd
	l.open[nd.ID] = nd
	l.changed(nd)
	l.appendAll(records, now)
	return l.flush()
}

func (l *Log) AcceptLeased(ctx context.Context, d eventlog.Delivery, owner string, ttl time.Duration, records ...eventlog.TopicRecord) (eventlog.Lease, bool, error) {
	if err := store.CheckAcceptLeased(d, owner, ttl, records); err != nil {
		return eventlog.Lease{}, false, err
	}
	if err := ctx.Err(); err != nil {
		return eventlog.Lease{}, false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if old, ok := l.deliveries[d.ID]; ok {
		return eventlog.Lease{Delivery: old.snapshot()}, false, nil
	}
	if err := l.writable(); err != nil {
		return eventlog.Lease{}, false, err
	}
	now := store.NowMs()
	d.State, d.Attempts, d.DueAtMs, d.CreatedMs, d.LastError = eventlog.Leased, 1, now, now, ""
	nd := &delivery{Delivery: d, owner: owner, token: 1, expires: now + store.TTLMs(ttl)}
	if err := l.accept(nd, records, now); err != nil {
		return eventlog.Lease{}, false, err
	}
	return eventlog.Lease{Delivery: nd.snapshot(), Owner: owner, Token: 1, ExpiresAtMs: nd.expires}, true, nil
}

func (l *Log) Claim(ctx context.Context, owner string, n int, ttl time.Duration) ([]eventlog.Lease, error) {
	if err := store.CheckClaim(owner, ttl); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writable(); err != nil {
		return nil, err
	}
	now := store.NowMs()
	type ready struct {
		at int64
		d  *delivery
	}
	var rs []ready
	for _, d := range l.open {
		if at, ok := d.readyAt(); ok && at <= now {
			rs = append(rs, ready{at, d})
		}
	}
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.at != b.at {
			return a.at < b.at
		}
		if a.d.CreatedMs != b.d.CreatedMs {
			return a.d.CreatedMs < b.d.CreatedMs
		}
		return a.d.ID < b.d.ID
	})
	if len(rs) > n {
		rs = rs[:n]
	}
	leases := make([]eventlog.Lease, 0, len(rs))
	for _, r := range rs {
		d := r.d
		d.State = eventlog.Leased
		d.Attempts++
		d.owner, d.token, d.expires = owner, d.token+1, now+store.TTLMs(ttl)
		leases = append(leases, eventlog.Lease{Delivery: d.snapshot(), Owner: d.owner, Token: d.token, ExpiresAtMs: d.expires})
		l.changed(d)
	}
	if len(leases) > 0 {
		if err := l.flush(); err != nil {
			return nil, err
		}
	}
	store.SortLeases(leases)
	return leases, nil
}

// held returns the delivery ls still holds, to change it: the lease
// must still be ls's and the log writable. l.mu is held.
func (l *Log) held(ls eventlog.Lease) (*delivery, error) {
	d, ok := l.deliveries[ls.ID]
	if !ok || d.State != eventlog.Leased || d.token != ls.Token || d.owner != ls.Owner {
		return nil, eventlog.ErrLeaseLost
	}
	if err := l.writable(); err != nil {
		return nil, err
	}
	return d, nil
}

func (l *Log) Extend(ctx context.Context, ls *eventlog.Lease, ttl time.Duration) error {
	if err := store.CheckClaim(ls.Owner, ttl); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	d, err := l.held(*ls)
	if err != nil {
		return err
	}
	d.expires = store.NowMs() + store.TTLMs(ttl)
	ls.ExpiresAtMs = d.expires
	l.changed(d)
	return l.flush()
}

func (l *Log) Complete(ctx context.Context, ls eventlog.Lease, final eventlog.DeliveryState, errMsg string, records ...eventlog.TopicRecord) error {
	errMsg = store.ErrorText(errMsg)
	if err := store.CheckFinal(final); err != nil {
		return err
	}
	if err := store.CheckRecords(records); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	d, err := l.held(ls)
	if err != nil {
		return err
	}
	d.State, d.LastError, d.expires = final, errMsg, 0
	delete(l.open, d.ID)
	l.changed(d)
	l.appendAll(records, store.NowMs())
	return l.flush()
}

func (l *Log) Retry(ctx context.Context, ls eventlog.Lease, dueAtMs int64, errMsg string, records ...eventlog.TopicRecord) error {
	errMsg = store.ErrorText(errMsg)
	if err := store.CheckRecords(records); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	d, err := l.held(ls)
	if err != nil {
		return err
	}
	now := store.NowMs()
	if dueAtMs == 0 {
		dueAtMs = now
	}
	d.State, d.DueAtMs, d.LastError, d.expires = eventlog.Pending, dueAtMs, errMsg, 0
	l.changed(d)
	l.appendAll(records, now)
	return l.flush()
}

func (l *Log) Get(ctx context.Context, id string) (eventlog.Delivery, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.deliveries[id]
	if !ok {
		return eventlog.Delivery{}, eventlog.ErrNotFound
	}
	return d.snapshot(), nil
}

func (l *Log) LeasedByBinding(ctx context.Context) (map[string]int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int64{}
	for _, d := range l.deliveries {
		if d.State == eventlog.Leased {
			out[d.BindingID]++
		}
	}
	return out, nil
}

func (l *Log) Stats(ctx context.Context) (eventlog.InboxStats, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var st eventlog.InboxStats
	for _, d := range l.deliveries {
		store.AddStat(&st, d.State, 1)
	}
	return st, nil
}
