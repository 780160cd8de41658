// Package store holds what the event log backends share beyond the
// eventlog contract: argument checks, the clock, header encoding and the
// ordering of claimed leases, so that sqlite, postgres and memory agree on
// every edge of the interface.
package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harnlang/harn/eventlog"
)

// NowMs is the clock every backend stamps records and leases with.
func NowMs() int64 { return time.Now().UnixMilli() }

// CheckTopic refuses an empty or malformed topic name.
func CheckTopic(topic string) error {
	if topic == "" {
		return fmt.Errorf("eventlog: empty topic name")
	}
	return checkText("topic name", topic)
}

// checkText refuses what one backend would store and another refuse:
// text that is not UTF-8 or holds a NUL.
func checkText(what, s string) error {
	if !isText(s) {
		return fmt.Errorf("eventlog: %s %q is not UTF-8 text without NUL", what, s)
	}
	return nil
}

func isText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// CheckCursor refuses a cursor whose topic or consumer is not text.
func CheckCursor(topic, consumer string) error {
	if err := CheckTopic(topic); err != nil {
		return err
	}
	return checkText("consumer", consumer)
}

// ErrorText makes a handler's error message storable everywhere: invalid
// UTF-8 and NULs become U+FFFD. A failure is recorded, never refused.
func ErrorText(msg string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(msg, "\uFFFD"), "\x00", "\uFFFD")
}

// CheckRecord refuses a record whose kind or headers are not text.
func CheckRecord(rec eventlog.Record) error {
	if err := checkText("record kind", rec.Kind); err != nil {
		return err
	}
	for k, v := range rec.Headers {
		if err := checkText("header", k); err != nil {
			return err
		}
		if !isText(v) { // the name is made only for the error: this runs for every record
			return checkText("header "+k, v)
		}
	}
	return nil
}

// CheckRecords refuses records bound for an empty topic or malformed.
func CheckRecords(records []eventlog.TopicRecord) error {
	for _, r := range records {
		if err := CheckTopic(r.Topic); err != nil {
			return err
		}
		if err := CheckRecord(r.Record); err != nil {
			return err
		}
	}
	return nil
}

// CheckDelivery refuses a delivery without an idempotency key, or with
// ids that are not text.
func CheckDelivery(d eventlog.Delivery) error {
	if d.ID == "" {
		return fmt.Errorf("eventlog: delivery without an id")
	}
	if err := checkText("delivery id", d.ID); err != nil {
		return err
	}
	return checkText("binding id", d.BindingID)
}

// CheckFinal refuses a Complete whose final state is not Done or Dead.
func CheckFinal(final eventlog.DeliveryState) error {
	if final != eventlog.Done && final != eventlog.Dead {
		return fmt.Errorf("eventlog: complete with state %q (want %q or %q)", final, eventlog.Done, eventlog.Dead)
	}
	return nil
}

// CheckClaim refuses a claim without an owner or with a non-positive ttl.
func CheckClaim(owner string, ttl time.Duration) error {
	if owner == "" {
		return fmt.Errorf("eventlog: claim without an owner")
	}
	if err := checkText("lease owner", owner); err != nil {
		return err
	}
	if ttl <= 0 {
		return fmt.Errorf("eventlog: claim with lease ttl %v (want > 0)", ttl)
	}
	return nil
}

// CheckAcceptLeased refuses what Accept and Claim would refuse: the
// arguments of Inbox.AcceptLeased.
func CheckAcceptLeased(d eventlog.Delivery, owner string, ttl time.Duration, records []eventlog.TopicRecord) error {
	if err := CheckDelivery(d); err != nil {
		return err
	}
	if err := CheckClaim(owner, ttl); err != nil {
		return err
	}
	return CheckRecords(records)
}

// TTLMs is a lease duration in whole milliseconds, at least 1.
func TTLMs(ttl time.Duration) int64 {
	ms := ttl.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	return ms
}

// Stamp fills OccurredAtMs when the caller left it 0.
func Stamp(rec eventlog.Record, now int64) eventlog.Record {
	if rec.OccurredAtMs == 0 {
		rec.OccurredAtMs = now
	}
	return rec
}

// EncodeHeaders is the stored form of a header map (a JSON object): what
// json.Marshal writes, keys sorted. Headers of plain ASCII, which
// encoding/json writes as they are, are written here without
// reflection (every appended record encodes its headers); the rest go
// through json.Marshal.
func EncodeHeaders(h map[string]string) string {
	if len(h) == 0 {
		return "{}"
	}
	var small [8]string
	keys, size := small[:0], 1
	for k, v := range h {
		if !plainASCII(k) || !plainASCII(v) {
			b, _ := json.Marshal(h) // a map[string]string always marshals
			return string(b)
		}
		keys = append(keys, k)
		size += len(k) + len(v) + 6
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(size)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(k)
		b.WriteString(`":"`)
		b.WriteString(h[k])
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// plainASCII reports whether encoding/json writes s between its quotes
// unchanged: printable ASCII without a quote, a backslash or the HTML
// characters it escapes.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// DecodeHeaders reads EncodeHeaders' form back; an empty object is nil.
func DecodeHeaders(s string) (map[string]string, error) {
	if s == "" || s == "{}" {
		return nil, nil
	}
	if h, ok := plainHeaders(s); ok {
		return h, nil
	}
	var h map[string]string
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		return nil, fmt.Errorf("eventlog: stored headers: %w", err)
	}
	return h, nil
}

// plainHeaders decodes headers whose text needs no unescaping — no
// backslash, control character or invalid UTF-8; EncodeHeaders' compact
// {"k":"v",...} — without reflection: every record read decodes its
// headers, and encoding/json took most of a small record's read. It
// reports false for anything else, which json.Unmarshal then reads.
func plainHeaders(s string) (map[string]string, bool) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' || strings.IndexByte(s, '\\') >= 0 || !utf8.ValidString(s) {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return nil, false
		}
	}
	h := make(map[string]string, strings.Count(s, `":"`))
	rest := s[1 : len(s)-1]
	for {
		k, r, ok := cutQuoted(rest)
		if !ok || len(r) == 0 || r[0] != ':' {
			return nil, false
		}
		v, r, ok := cutQuoted(r[1:])
		if !ok {
			return nil, false
		}
		h[k] = v
		if r == "" {
			return h, true
		}
		if r[0] != ',' {
			return nil, false
		}
		rest = r[1:]
	}
}

// cutQuoted splits a leading JSON string without escapes off s.
func cutQuoted(s string) (str, rest string, ok bool) {
	if len(s) == 0 || s[0] != '"' {
		return "", "", false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", "", false
	}
	return s[1 : 1+end], s[2+end:], true
}

// Payload is the stored form of a payload: JSON null when empty.
func Payload(p json.RawMessage) []byte {
	if len(p) == 0 {
		return []byte("null")
	}
	return p
}

// SortLeases orders claimed leases oldest due first, as Claim promises.
func SortLeases(ls []eventlog.Lease) {
	sort.Slice(ls, func(i, j int) bool {
		a, b := ls[i], ls[j]
		if a.DueAtMs != b.DueAtMs {
			return a.DueAtMs < b.DueAtMs
		}
		if a.CreatedMs != b.CreatedMs {
			return a.CreatedMs < b.CreatedMs
		}
		return a.ID < b.ID
	})
}

// AddStat adds n deliveries in state to st.
func AddStat(st *eventlog.InboxStats, state eventlog.DeliveryState, n int64) {
	switch state {
	case eventlog.Pending:
		st.Pending += n
	case eventlog.Leased:
		st.Leased += n
	case eventlog.Done:
		st.Done += n
	case eventlog.Dead:
		st.Dead += n
	}
}

// RecordCols are the columns ReadRecords scans, in its order.
const RecordCols = `event_id, kind, payload, headers, occurred_at_ms`

// Rows is the part of a result set both SQL drivers (database/sql and
// pgx) offer.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ReadRecords reads every row of a query over RecordCols; backend names
// the driver in errors ("sqlite", "postgres").
func ReadRecords(rows Rows, backend string) ([]eventlog.Record, error) {
	var recs []eventlog.Record
	for rows.Next() {
		var rec eventlog.Record
		var payload []byte
		var headers string
		if err := rows.Scan(&rec.ID, &rec.Kind, &payload, &headers, &rec.OccurredAtMs); err != nil {
			return nil, fmt.Errorf("eventlog: %s: read: %w", backend, err)
		}
		rec.Payload = payload
		var err error
		if rec.Headers, err = DecodeHeaders(headers); err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("eventlog: %s: read: %w", backend, err)
	}
	return recs, nil
}

// DeliveryCols are the columns of a delivery ScanDelivery scans, in its
// order; LeaseCols adds the lease's owner, token and expiry.
const (
	DeliveryCols = `id, binding_id, envelope, state, attempts, due_at_ms, created_ms, last_error`
	LeaseCols    = DeliveryCols + `, lease_owner, lease_token, lease_expires_ms`
)

// Scanner is one row of a result, as both SQL drivers offer it.
type Scanner interface{ Scan(dest ...any) error }

// ScanDelivery reads a row over DeliveryCols, then any extra columns into
// extra.
func ScanDelivery(row Scanner, extra ...any) (eventlog.Delivery, error) {
	var d eventlog.Delivery
	var env []byte
	var state string
	err := row.Scan(append([]any{&d.ID, &d.BindingID, &env, &state, &d.Attempts, &d.DueAtMs, &d.CreatedMs, &d.LastError}, extra...)...)
	d.Envelope, d.State = env, eventlog.DeliveryState(state)
	return d, err
}

// AppendOne is Append done by a backend's AppendAll: the id of the one
// record appended.
func AppendOne(ctx context.Context, appendAll func(context.Context, ...eventlog.TopicRecord) ([]int64, error), topic string, rec eventlog.Record) (int64, error) {
	ids, err := appendAll(ctx, eventlog.TopicRecord{Topic: topic, Record: rec})
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// ReadCounts reads every row of a (key, count) query, such as a GROUP BY
// with count(*), into add; a failed scan is wrapped as what failed with
// backend naming the driver ("eventlog: sqlite: stats: …").
func ReadCounts(rows Rows, backend, what string, add func(key string, n int64)) error {
	for rows.Next() {
		var key string
		var n int64
		if err := rows.Scan(&key, &n); err != nil {
			return fmt.Errorf("eventlog: %s: %s: %w", backend, what, err)
		}
		add(key, n)
	}
	return rows.Err()
}

// MaxGroup bounds the steps one transaction commits together.
const MaxGroup = 128

// NextGroup is what a backend's writer commits next in one transaction
// (group commit): it waits for a step, then takes the steps already
// waiting, up to MaxGroup. ok is false when quit is closed first.
func NextGroup[T any](steps <-chan T, quit <-chan struct{}) (group []T, ok bool) {
	select {
	case s := <-steps:
		group = append(group, s)
	case <-quit:
		return nil, false
	}
	for len(group) < MaxGroup {
		select {
		case s := <-steps:
			group = append(group, s)
		default:
			return group, true
		}
	}
	return group, true
}
