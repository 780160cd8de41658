// Package postgres is the event log backend for several nodes: the tables
// of eventlog/sqlite on a PostgreSQL database named by HARN_EVENT_LOG_URL,
// reached through github.com/jackc/pgx/v5 (pgxpool). Every `harn mcp
// serve` process pointed at the same database shares the topics and splits
// one inbox.
//
// # How processes share the inbox
//
// Claim takes due deliveries with SELECT … FOR UPDATE SKIP LOCKED inside
// one UPDATE, so concurrent claimers skip each other's rows instead of
// waiting or taking the same ones, and a delivery is leased to exactly one
// of them. Each lease carries a fencing token (the delivery's lease count):
// Complete, Retry and Extend match it, so a process that stalled past its
// lease expiry and lost the delivery to another cannot finish it too. When
// a process dies, its leases simply expire and the others claim them.
//
// # Ids and ordering
//
// A topic's next id comes from its topic_heads row, bumped with INSERT … ON
// CONFLICT DO UPDATE … RETURNING in the transaction that inserts the
// record: the row lock serialises appenders to one topic until commit, a
// rolled-back append gives its id back, and ids stay dense from 1. A step
// that appends to several topics bumps their heads in sorted topic order
// (after any delivery row it locks), so two steps never wait on each other
// in a cycle.
//
// # Clocks
//
// Due times and lease expiries are wall-clock milliseconds of the calling
// process, as in the other backends, so nodes sharing a database must
// keep their clocks synchronised (NTP) to well within the lease ttl.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/internal/store"
)

// schemaLock is the advisory lock key that serialises schema creation when
// several processes start at once (CREATE TABLE IF NOT EXISTS is not safe
// against itself).
const schemaLock = 0x6861726e_65766c67 // "harnevlg"

const schema = `
CREATE TABLE IF NOT EXISTS topic_heads (
	topic   TEXT PRIMARY KEY,
	last_id BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
	topic          TEXT NOT NULL,
	event_id       BIGINT NOT NULL,
	kind           TEXT NOT NULL,
	payload        BYTEA NOT NULL,
	headers        TEXT NOT NULL,
	occurred_at_ms BIGINT NOT NULL,
	PRIMARY KEY (topic, event_id)
);
CREATE TABLE IF NOT EXISTS consumers (
	topic         TEXT NOT NULL,
	consumer_id   TEXT NOT NULL,
	cursor        BIGINT NOT NULL,
	updated_at_ms BIGINT NOT NULL,
	PRIMARY KEY (topic, consumer_id)
);
CREATE TABLE IF NOT EXISTS deliveries (
	id               TEXT PRIMARY KEY,
	binding_id       TEXT NOT NULL,
	envelope         BYTEA NOT NULL,
	state            TEXT NOT NULL,
	attempts         INTEGER NOT NULL DEFAULT 0,
	due_at_ms        BIGINT NOT NULL,
	created_ms       BIGINT NOT NULL,
	last_error       TEXT NOT NULL DEFAULT '',
	lease_owner      TEXT NOT NULL DEFAULT '',
	lease_token      BIGINT NOT NULL DEFAULT 0,
	lease_expires_ms BIGINT NOT NULL DEFAULT 0,
	ready_at_ms      BIGINT
);
CREATE INDEX IF NOT EXISTS deliveries_ready ON deliveries (ready_at_ms, created_ms, id) WHERE ready_at_ms IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_state ON deliveries (state);
`

const (
	sqlBumpHead = `INSERT INTO topic_heads (topic, last_id) VALUES ($1, $2)
		ON CONFLICT (topic) DO UPDATE SET last_id = topic_heads.last_id + $2 RETURNING last_id`
	sqlInsertEvent = `INSERT INTO events (topic, event_id, kind, payload, headers, occurred_at_ms)
		VALUES ($1, $2, $3, $4, $5, $6)`
	deliveryCols = `id, binding_id, envelope, state, attempts, due_at_ms, created_ms, last_error`
	leaseCols    = deliveryCols + `, lease_owner, lease_token, lease_expires_ms`
	sqlGet       = `SELECT ` + deliveryCols + ` FROM deliveries WHERE id = $1`
	sqlAccept    = `INSERT INTO deliveries (id, binding_id, envelope, state, due_at_ms, created_ms, ready_at_ms)
		VALUES ($1, $2, $3, 'pending', $4, $5, $4) ON CONFLICT (id) DO NOTHING`
	sqlClaim = `WITH picked AS (
			SELECT id FROM deliveries WHERE ready_at_ms IS NOT NULL AND ready_at_ms <= $3
			ORDER BY ready_at_ms, created_ms, id LIMIT $4 FOR UPDATE SKIP LOCKED)
		UPDATE deliveries d SET state = 'leased', attempts = d.attempts + 1, lease_owner = $1,
			lease_token = d.lease_token + 1, lease_expires_ms = $2, ready_at_ms = $2
		FROM picked WHERE d.id = picked.id
		RETURNING d.id, d.binding_id, d.envelope, d.state, d.attempts, d.due_at_ms, d.created_ms, d.last_error,
			d.lease_owner, d.lease_token, d.lease_expires_ms`
	fence       = ` WHERE id = $1 AND state = 'leased' AND lease_token = $2 AND lease_owner = $3`
	sqlExtend   = `UPDATE deliveries SET lease_expires_ms = $4, ready_at_ms = $4` + fence
	sqlComplete = `UPDATE deliveries SET state = $4, last_error = $5, lease_expires_ms = 0, ready_at_ms = NULL` + fence
	sqlRetry    = `UPDATE deliveries SET state = 'pending', due_at_ms = $4, ready_at_ms = $4, last_error = $5,
		lease_expires_ms = 0` + fence
)

// Log is the PostgreSQL event log. It implements eventlog.Log and
// eventlog.Inbox.
type Log struct {
	pool *pgxpool.Pool
}

var (
	_ eventlog.Log   = (*Log)(nil)
	_ eventlog.Inbox = (*Log)(nil)
)

// Open connects to the database at url (postgres:// or postgresql://; the
// usual libpq parameters, including search_path, are honoured) and creates
// the tables when missing.
func Open(ctx context.Context, url string) (*Log, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("eventlog: postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("eventlog: postgres: %w", err)
	}
	l := &Log{pool: pool}
	if err := l.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, schema)
		return err
	}); err != nil {
		pool.Close()
		return nil, fmt.Errorf("eventlog: postgres: create tables: %w", err)
	}
	return l, nil
}

func (l *Log) Backend() string       { return "postgres" }
func (l *Log) Inbox() eventlog.Inbox { return l }
func (l *Log) Close() error          { l.pool.Close(); return nil }

// write runs fn in one transaction, again when PostgreSQL aborted it for a
// deadlock or a serialisation failure (it changed nothing then).
func (l *Log) write(ctx context.Context, fn func(tx pgx.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := pgx.BeginFunc(ctx, l.pool, fn)
		var pgErr *pgconn.PgError
		if attempt < 5 && errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001") {
			continue
		}
		return err
	}
}

// appendAll appends records in one transaction: heads are bumped once per
// topic, in sorted topic order, then the events inserted.
func appendAll(ctx context.Context, tx pgx.Tx, records []eventlog.TopicRecord, now int64) ([]int64, error) {
	if len(records) == 0 {
		return nil, nil
	}
	count := map[string]int64{}
	var topics []string
	for _, r := range records {
		if count[r.Topic] == 0 {
			topics = append(topics, r.Topic)
		}
		count[r.Topic]++
	}
	sort.Strings(topics)
	next := map[string]int64{}
	for _, topic := range topics {
		var last int64
		if err := tx.QueryRow(ctx, sqlBumpHead, topic, count[topic]).Scan(&last); err != nil {
			return nil, fmt.Errorf("eventlog: postgres: append to %s: %w", topic, err)
		}
		next[topic] = last - count[topic] + 1
	}
	ids := make([]int64, len(records))
	batch := &pgx.Batch{}
	for i, r := range records {
		ids[i] = next[r.Topic]
		next[r.Topic]++
		rec := store.Stamp(r.Record, now)
		batch.Queue(sqlInsertEvent, r.Topic, ids[i], rec.Kind, store.Payload(rec.Payload),
			store.EncodeHeaders(rec.Headers), rec.OccurredAtMs)
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("eventlog: postgres: append: %w", err)
	}
	return ids, nil
}

func (l *Log) Append(ctx context.Context, topic string, rec eventlog.Record) (int64, error) {
	if err := store.CheckTopic(topic); err != nil {
		return 0, err
	}
	var id int64
	err := l.write(ctx, func(tx pgx.Tx) error {
		ids, err := appendAll(ctx, tx, []eventlog.TopicRecord{{Topic: topic, Record: rec}}, store.NowMs())
		if err == nil {
			id = ids[0]
		}
		return err
	})
	return id, err
}

const recordCols = `event_id, kind, payload, headers, occurred_at_ms`

func (l *Log) Read(ctx context.Context, topic string, after int64, limit int) ([]eventlog.Record, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	return l.records(ctx, `SELECT `+recordCols+` FROM events WHERE topic = $1 AND event_id > $2
		ORDER BY event_id LIMIT $3`, topic, after, lim)
}

func (l *Log) Tail(ctx context.Context, topic string, n int) ([]eventlog.Record, error) {
	if n <= 0 {
		return nil, nil
	}
	recs, err := l.records(ctx, `SELECT `+recordCols+` FROM events WHERE topic = $1
		ORDER BY event_id DESC LIMIT $2`, topic, n)
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	return recs, err
}

func (l *Log) records(ctx context.Context, q string, args ...any) ([]eventlog.Record, error) {
	rows, err := l.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("eventlog: postgres: read: %w", err)
	}
	defer rows.Close()
	var recs []eventlog.Record
	for rows.Next() {
		var rec eventlog.Record
		var payload []byte
		var headers string
		if err := rows.Scan(&rec.ID, &rec.Kind, &payload, &headers, &rec.OccurredAtMs); err != nil {
			return nil, fmt.Errorf("eventlog: postgres: read: %w", err)
		}
		rec.Payload = payload
		if rec.Headers, err = store.DecodeHeaders(headers); err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("eventlog: postgres: read: %w", err)
	}
	return recs, nil
}

func (l *Log) Count(ctx context.Context, topic string) (int64, error) {
	// Ids are dense from 1 and records are never removed, so the head is the count.
	var n int64
	err := l.pool.QueryRow(ctx, `SELECT last_id FROM topic_heads WHERE topic = $1`, topic).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("eventlog: postgres: count: %w", err)
	}
	return n, nil
}

func (l *Log) Topics(ctx context.Context) ([]string, error) {
	rows, err := l.pool.Query(ctx, `SELECT topic FROM topic_heads WHERE last_id > 0 ORDER BY topic COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("eventlog: postgres: topics: %w", err)
	}
	topics, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("eventlog: postgres: topics: %w", err)
	}
	return topics, nil
}

func (l *Log) Cursor(ctx context.Context, topic, consumer string) (int64, error) {
	var c int64
	err := l.pool.QueryRow(ctx, `SELECT cursor FROM consumers WHERE topic = $1 AND consumer_id = $2`,
		topic, consumer).Scan(&c)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("eventlog: postgres: cursor: %w", err)
	}
	return c, nil
}

func (l *Log) SetCursor(ctx context.Context, topic, consumer string, cursor int64) error {
	if err := store.CheckTopic(topic); err != nil {
		return err
	}
	_, err := l.pool.Exec(ctx, `INSERT INTO consumers (topic, consumer_id, cursor, updated_at_ms)
		VALUES ($1, $2, $3, $4) ON CONFLICT (topic, consumer_id)
		DO UPDATE SET cursor = excluded.cursor, updated_at_ms = excluded.updated_at_ms`,
		topic, consumer, cursor, store.NowMs())
	if err != nil {
		return fmt.Errorf("eventlog: postgres: set cursor: %w", err)
	}
	return nil
}

// ---- the inbox ----

func scanDelivery(row pgx.Row, extra ...any) (eventlog.Delivery, error) {
	var d eventlog.Delivery
	var env []byte
	var state string
	err := row.Scan(append([]any{&d.ID, &d.BindingID, &env, &state, &d.Attempts, &d.DueAtMs, &d.CreatedMs, &d.LastError}, extra...)...)
	d.Envelope, d.State = env, eventlog.DeliveryState(state)
	return d, err
}

func (l *Log) Accept(ctx context.Context, d eventlog.Delivery, records ...eventlog.TopicRecord) (eventlog.Delivery, bool, error) {
	if err := store.CheckDelivery(d); err != nil {
		return eventlog.Delivery{}, false, err
	}
	if err := store.CheckRecords(records); err != nil {
		return eventlog.Delivery{}, false, err
	}
	now := store.NowMs()
	if d.DueAtMs == 0 {
		d.DueAtMs = now
	}
	d.State, d.Attempts, d.CreatedMs, d.LastError = eventlog.Pending, 0, now, ""
	d.Envelope = store.Payload(d.Envelope)
	var out eventlog.Delivery
	created := false
	err := l.write(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlAccept, d.ID, d.BindingID, []byte(d.Envelope), d.DueAtMs, now)
		if err != nil {
			return fmt.Errorf("eventlog: postgres: accept %s: %w", d.ID, err)
		}
		if tag.RowsAffected() == 0 {
			created = false
			if out, err = scanDelivery(tx.QueryRow(ctx, sqlGet, d.ID)); err != nil {
				return fmt.Errorf("eventlog: postgres: accept %s: %w", d.ID, err)
			}
			return nil
		}
		created, out = true, d
		_, err = appendAll(ctx, tx, records, now)
		return err
	})
	if err != nil {
		return eventlog.Delivery{}, false, err
	}
	return out, created, nil
}

func (l *Log) Claim(ctx context.Context, owner string, n int, ttl time.Duration) ([]eventlog.Lease, error) {
	if err := store.CheckClaim(owner, ttl); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nil
	}
	now := store.NowMs()
	// One statement is its own transaction: the picked rows are locked and
	// leased atomically.
	rows, err := l.pool.Query(ctx, sqlClaim, owner, now+store.TTLMs(ttl), now, n)
	if err != nil {
		return nil, fmt.Errorf("eventlog: postgres: claim: %w", err)
	}
	defer rows.Close()
	var leases []eventlog.Lease
	for rows.Next() {
		var ls eventlog.Lease
		if ls.Delivery, err = scanDelivery(rows, &ls.Owner, &ls.Token, &ls.ExpiresAtMs); err != nil {
			return nil, fmt.Errorf("eventlog: postgres: claim: %w", err)
		}
		leases = append(leases, ls)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("eventlog: postgres: claim: %w", err)
	}
	store.SortLeases(leases)
	return leases, nil
}

// fenced runs a statement that ends in the fence clause and reports
// ErrLeaseLost when it matched no row.
func fenced(ctx context.Context, tx pgx.Tx, q string, ls eventlog.Lease, args ...any) error {
	tag, err := tx.Exec(ctx, q, append([]any{ls.ID, ls.Token, ls.Owner}, args...)...)
	if err != nil {
		return fmt.Errorf("eventlog: postgres: delivery %s: %w", ls.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return eventlog.ErrLeaseLost
	}
	return nil
}

func (l *Log) Extend(ctx context.Context, ls *eventlog.Lease, ttl time.Duration) error {
	if err := store.CheckClaim(ls.Owner, ttl); err != nil {
		return err
	}
	exp := store.NowMs() + store.TTLMs(ttl)
	err := l.write(ctx, func(tx pgx.Tx) error { return fenced(ctx, tx, sqlExtend, *ls, exp) })
	if err == nil {
		ls.ExpiresAtMs = exp
	}
	return err
}

func (l *Log) Complete(ctx context.Context, ls eventlog.Lease, final eventlog.DeliveryState, errMsg string, records ...eventlog.TopicRecord) error {
	if err := store.CheckFinal(final); err != nil {
		return err
	}
	if err := store.CheckRecords(records); err != nil {
		return err
	}
	return l.write(ctx, func(tx pgx.Tx) error {
		if err := fenced(ctx, tx, sqlComplete, ls, string(final), errMsg); err != nil {
			return err
		}
		_, err := appendAll(ctx, tx, records, store.NowMs())
		return err
	})
}

func (l *Log) Retry(ctx context.Context, ls eventlog.Lease, dueAtMs int64, errMsg string, records ...eventlog.TopicRecord) error {
	if err := store.CheckRecords(records); err != nil {
		return err
	}
	now := store.NowMs()
	if dueAtMs == 0 {
		dueAtMs = now
	}
	return l.write(ctx, func(tx pgx.Tx) error {
		if err := fenced(ctx, tx, sqlRetry, ls, dueAtMs, errMsg); err != nil {
			return err
		}
		_, err := appendAll(ctx, tx, records, now)
		return err
	})
}

func (l *Log) Get(ctx context.Context, id string) (eventlog.Delivery, error) {
	d, err := scanDelivery(l.pool.QueryRow(ctx, sqlGet, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return eventlog.Delivery{}, eventlog.ErrNotFound
	}
	if err != nil {
		return eventlog.Delivery{}, fmt.Errorf("eventlog: postgres: get %s: %w", id, err)
	}
	return d, nil
}

func (l *Log) Stats(ctx context.Context) (eventlog.InboxStats, error) {
	var st eventlog.InboxStats
	rows, err := l.pool.Query(ctx, `SELECT state, count(*) FROM deliveries GROUP BY state`)
	if err != nil {
		return st, fmt.Errorf("eventlog: postgres: stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return st, fmt.Errorf("eventlog: postgres: stats: %w", err)
		}
		store.AddStat(&st, eventlog.DeliveryState(state), n)
	}
	return st, rows.Err()
}
