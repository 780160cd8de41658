// Package postgres is the event log backend for several nodes: the tables
// of eventlog/sqlite on a PostgreSQL database named by HARN_EVENT_LOG_URL,
// reached through github.com/jackc/pgx/v5 (pgxpool). Every `harn mcp
// serve` process pointed at the same database shares the topics and splits
// one inbox.
//
// # How processes share the inbox
//
// Claim takes due deliveries with SELECT … FOR UPDATE SKIP LOCKED inside
// one UPDATE, so concurrent claimers, in this process or another, skip
// each other's rows instead of waiting or taking the same ones, and a
// delivery is leased to exactly one of them. Each lease carries a fencing token (the delivery's lease count):
// Complete, Retry and Extend match it, so a process that stalled past its
// lease expiry and lost the delivery to another cannot finish it too. When
// a process dies, its leases simply expire and the others claim them.
//
// # Ids and ordering
//
// A topic's next id comes from its topic_heads row, bumped with INSERT … ON
// CONFLICT DO UPDATE … RETURNING in the transaction that inserts the
// record: the row lock serialises appenders to one topic until commit, a
// rolled-back append gives its id back, ids stay dense from 1, and a
// reader never sees id n+1 before id n. Heads are bumped in sorted topic
// order after any delivery row a transaction locks, so two transactions
// never wait on each other in a cycle over heads.
//
// # Group commit
//
// Holding a head until commit would serialise a topic's writers on one
// WAL flush each; instead a process commits the steps submitted at the
// same moment in one transaction of two pipelined round trips (see
// writer), so concurrent dispatches share flushes.
//
// # Clocks
//
// Lease expiries, claim decisions and the default due time are the
// database server's clock, so nodes whose clocks drift apart still agree
// on when a lease expired. Due times a caller passes (Accept's DueAtMs,
// Retry's dueAtMs) are the caller's, so a node's clock skew shifts its
// retry backoffs by that much, no more.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/internal/store"
)

// defaultMaxConns is the pool size when the URL sets no pool_max_conns.
const defaultMaxConns = 16

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
	deliveryCols = `id, binding_id, envelope, state, attempts, due_at_ms, created_ms, last_error`
	leaseCols    = deliveryCols + `, lease_owner, lease_token, lease_expires_ms`
	sqlGet       = `SELECT ` + deliveryCols + ` FROM deliveries WHERE id = $1`
	// Lease and due times are the database server's clock, so nodes
	// with skewed clocks still agree on when a lease expired.
	dbNow     = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`
	sqlAccept = `WITH t AS (SELECT ` + dbNow + ` AS now)
		INSERT INTO deliveries (id, binding_id, envelope, state, due_at_ms, created_ms, ready_at_ms)
		SELECT $1, $2, $3, 'pending', COALESCE(NULLIF($4::bigint, 0), t.now), t.now, COALESCE(NULLIF($4::bigint, 0), t.now)
		FROM t ON CONFLICT (id) DO NOTHING RETURNING due_at_ms, created_ms`
	sqlAcceptLeased = `WITH t AS (SELECT ` + dbNow + ` AS now)
		INSERT INTO deliveries (id, binding_id, envelope, state, attempts, due_at_ms, created_ms,
			lease_owner, lease_token, lease_expires_ms, ready_at_ms)
		SELECT $1, $2, $3, 'leased', 1, t.now, t.now, $4, 1, t.now + $5, t.now + $5
		FROM t ON CONFLICT (id) DO NOTHING RETURNING created_ms, lease_expires_ms`
	sqlClaim = `WITH t AS (SELECT ` + dbNow + ` AS now),
		picked AS (
			SELECT id FROM deliveries WHERE ready_at_ms IS NOT NULL AND ready_at_ms <= (SELECT now FROM t)
			ORDER BY ready_at_ms, created_ms, id LIMIT $3 FOR UPDATE SKIP LOCKED)
		UPDATE deliveries d SET state = 'leased', attempts = d.attempts + 1, lease_owner = $1,
			lease_token = d.lease_token + 1, lease_expires_ms = t.now + $2, ready_at_ms = t.now + $2
		FROM picked, t WHERE d.id = picked.id
		RETURNING d.id, d.binding_id, d.envelope, d.state, d.attempts, d.due_at_ms, d.created_ms, d.last_error,
			d.lease_owner, d.lease_token, d.lease_expires_ms`
	fence     = ` WHERE id = $1 AND state = 'leased' AND lease_token = $2 AND lease_owner = $3`
	sqlExtend = `WITH t AS (SELECT ` + dbNow + ` AS now)
		UPDATE deliveries SET lease_expires_ms = t.now + $4, ready_at_ms = t.now + $4 FROM t` + fence +
		` RETURNING lease_expires_ms`
	sqlComplete = `UPDATE deliveries SET state = $4, last_error = $5, lease_expires_ms = 0, ready_at_ms = NULL` + fence
	sqlRetry    = `WITH t AS (SELECT COALESCE(NULLIF($4::bigint, 0), ` + dbNow + `) AS due)
		UPDATE deliveries SET state = 'pending', due_at_ms = t.due, ready_at_ms = t.due, last_error = $5,
		lease_expires_ms = 0 FROM t` + fence
)

// Log is the PostgreSQL event log. It implements eventlog.Log and
// eventlog.Inbox.
type Log struct {
	pool *pgxpool.Pool

	steps   chan *step     // for writer(); unbuffered, so none is left behind at Close
	quit    chan struct{}  // closed by Close
	writers sync.WaitGroup // the writer goroutines
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
	if !strings.Contains(url, "pool_max_conns") {
		// Commits wait for the WAL flush; enough connections let
		// concurrent steps share one flush (PostgreSQL's group commit).
		cfg.MaxConns = defaultMaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("eventlog: postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("eventlog: postgres: %w", err)
	}
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, schema)
		return err
	}); err != nil {
		pool.Close()
		return nil, fmt.Errorf("eventlog: postgres: create tables: %w", err)
	}
	l := &Log{pool: pool, steps: make(chan *step), quit: make(chan struct{})}
	for i := 0; i < writers; i++ {
		l.writers.Add(1)
		go l.writer()
	}
	return l, nil
}

func (l *Log) Backend() string       { return "postgres" }
func (l *Log) Inbox() eventlog.Inbox { return l }
func (l *Log) Close() error {
	select {
	case <-l.quit:
		return nil
	default:
	}
	close(l.quit)
	l.writers.Wait()
	l.pool.Close()
	return nil
}

// A step is one write of the interface (Append, Accept, Claim, Complete,
// …). queue adds its statements to the group's pipelined batch, with
// callbacks that keep their results; finish, after the batch ran, turns
// them into the step's outcome and the records it appends (it may query
// again, e.g. for the stored copy of a duplicate Accept).
type step struct {
	ctx     context.Context
	queue   func(b *pgx.Batch)
	finish  func(ctx context.Context, q querier) ([]eventlog.TopicRecord, error)
	records []eventlog.TopicRecord
	ids     []int64 // the records' ids, once committed
	err     error
	done    chan struct{}
}

var errClosed = errors.New("eventlog: postgres: log is closed")

// write runs s and returns the ids of the records it appended, once the
// transaction holding it committed.
func (l *Log) write(ctx context.Context, s *step) ([]int64, error) {
	s.ctx, s.done = ctx, make(chan struct{})
	select {
	case l.steps <- s:
	case <-l.quit:
		return nil, errClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// Once taken, the step commits or fails as a whole: waiting for its
	// outcome rather than for ctx keeps "returned without error" equal to
	// "committed".
	<-s.done
	return s.ids, s.err
}

// maxGroup bounds the steps one transaction commits together.
const maxGroup = 128

// writers is the number of groups a process keeps in flight: while one
// waits for its WAL flush, the next runs its statements.
const writers = 3

// writer is one of the goroutines that write. Every append must hold its
// topic's head row until commit (that is what keeps ids dense and in
// commit order), so one transaction per step would serialise a topic's
// writers on one WAL flush and several round trips each. Instead a writer
// commits the steps waiting at the same moment in one transaction (group
// commit): BEGIN and their statements go to the server in one pipelined
// batch, then the heads of all their records are bumped once each, in
// sorted topic order and after every delivery row, with the COMMIT in a
// second batch. The lock order is the same in every process, so nodes do
// not deadlock on heads; a group costs two round trips and one WAL flush
// however many steps it holds.
func (l *Log) writer() {
	defer l.writers.Done()
	for {
		var group []*step
		select {
		case s := <-l.steps:
			group = append(group, s)
		case <-l.quit:
			return
		}
	more:
		for len(group) < maxGroup {
			select {
			case s := <-l.steps:
				group = append(group, s)
			default:
				break more
			}
		}
		l.commit(group)
		for _, s := range group {
			close(s.done)
		}
	}
}

// commit runs a group in one transaction, again when PostgreSQL aborted it
// for a deadlock or a serialisation failure (it changed nothing then).
// When a step fails for another reason, the group is rolled back and its
// steps run again one transaction each, so the failure stays the step's.
func (l *Log) commit(group []*step) {
	// Statements run under the writer's context, not the callers': a
	// cancelled statement would abort the whole shared transaction.
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		err := l.commitOnce(ctx, group)
		if attempt < 5 && retryable(err) {
			continue
		}
		if errors.Is(err, errStepFailed) {
			for _, s := range group {
				l.commit([]*step{s})
			}
			return
		}
		if err != nil {
			for _, s := range group {
				if s.err == nil {
					s.err, s.ids = err, nil
				}
			}
		}
		return
	}
}

func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// errStepFailed: a step of a group failed; the group is retried step by step.
var errStepFailed = errors.New("a step failed")

// querier is what a step's finish may query through: the group's
// connection, inside its transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// commitOnce runs a group in one transaction, in two round trips: BEGIN
// and the steps' statements, then the appends and COMMIT.
func (l *Log) commitOnce(ctx context.Context, group []*step) error {
	solo := len(group) == 1
	// stepErr ends the group for a step's own failure: alone, it is the
	// step's outcome (the rollback undoes it); in a group, the steps are
	// retried alone.
	stepErr := func(s *step, err error) error {
		if retryable(err) {
			return err
		}
		if solo {
			s.err = err
			return nil
		}
		return errStepFailed
	}
	for _, s := range group {
		s.err, s.records, s.ids = nil, nil, nil
	}
	conn, err := l.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("eventlog: postgres: %w", err)
	}
	defer conn.Release()
	committed := false
	defer func() {
		if !committed {
			// Ends the transaction a failed batch left open; outside one it
			// is a no-op with a warning.
			conn.Exec(ctx, `ROLLBACK`)
		}
	}()

	batch := &pgx.Batch{}
	batch.Queue(`BEGIN`)
	for _, s := range group {
		if s.err = s.ctx.Err(); s.err == nil && s.queue != nil {
			s.queue(batch)
		}
	}
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		return stepErr(group[0], fmt.Errorf("eventlog: postgres: %w", err))
	}
	var records []eventlog.TopicRecord
	for _, s := range group {
		if s.err != nil {
			continue
		}
		s.records, s.err = s.finish(ctx, conn)
		switch {
		case s.err == nil:
			records = append(records, s.records...)
		case errors.Is(s.err, eventlog.ErrLeaseLost):
			s.records = nil // a fenced statement that matched nothing changed nothing
		default:
			return stepErr(s, s.err)
		}
	}
	batch = &pgx.Batch{}
	ids := queueAppends(batch, records, store.NowMs())
	batch.Queue(`COMMIT`).Exec(func(tag pgconn.CommandTag) error {
		if tag.String() != "COMMIT" {
			return fmt.Errorf("transaction ended with %s", tag)
		}
		committed = true
		return nil
	})
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		if committed {
			return fmt.Errorf("eventlog: postgres: after commit: %w", err)
		}
		// The records of the whole group went together: alone, the
		// failure is the step's; in a group, find out whose it is.
		return stepErr(group[0], fmt.Errorf("eventlog: postgres: %w", err))
	}
	for _, s := range group {
		if s.err == nil {
			s.ids, ids = ids[:len(s.records)], ids[len(s.records):]
		}
	}
	return nil
}

// sqlAppendTopic appends a topic's records of one transaction in one
// statement: it bumps the head by their number and inserts them with the
// ids below the new head, in order.
const sqlAppendTopic = `WITH h AS (
		INSERT INTO topic_heads (topic, last_id) VALUES ($1, $2)
		ON CONFLICT (topic) DO UPDATE SET last_id = topic_heads.last_id + $2 RETURNING last_id),
	ins AS (
		INSERT INTO events (topic, event_id, kind, payload, headers, occurred_at_ms)
		SELECT $1, h.last_id - $2 + r.ord, r.kind, r.payload, r.headers, r.occurred
		FROM h, unnest($3::text[], $4::bytea[], $5::text[], $6::bigint[])
			WITH ORDINALITY AS r(kind, payload, headers, occurred, ord))
	SELECT last_id FROM h`

// queueAppends queues the appends of records, bumping each topic's head
// once, in sorted topic order. The returned slice holds their ids once the
// batch ran.
func queueAppends(batch *pgx.Batch, records []eventlog.TopicRecord, now int64) []int64 {
	type column struct {
		idx      []int // positions in records
		kinds    []string
		payloads [][]byte
		headers  []string
		occurred []int64
	}
	cols := map[string]*column{}
	var topics []string
	for i, r := range records {
		c := cols[r.Topic]
		if c == nil {
			c = &column{}
			cols[r.Topic] = c
			topics = append(topics, r.Topic)
		}
		rec := store.Stamp(r.Record, now)
		c.idx = append(c.idx, i)
		c.kinds = append(c.kinds, rec.Kind)
		c.payloads = append(c.payloads, store.Payload(rec.Payload))
		c.headers = append(c.headers, store.EncodeHeaders(rec.Headers))
		c.occurred = append(c.occurred, rec.OccurredAtMs)
	}
	sort.Strings(topics)
	ids := make([]int64, len(records))
	for _, topic := range topics {
		c := cols[topic]
		n := int64(len(c.idx))
		batch.Queue(sqlAppendTopic, topic, n, c.kinds, c.payloads, c.headers, c.occurred).QueryRow(func(row pgx.Row) error {
			var last int64
			if err := row.Scan(&last); err != nil {
				return err
			}
			for k, i := range c.idx {
				ids[i] = last - n + 1 + int64(k)
			}
			return nil
		})
	}
	return ids
}

func (l *Log) Append(ctx context.Context, topic string, rec eventlog.Record) (int64, error) {
	if err := store.CheckRecords([]eventlog.TopicRecord{{Topic: topic, Record: rec}}); err != nil {
		return 0, err
	}
	ids, err := l.write(ctx, &step{finish: func(context.Context, querier) ([]eventlog.TopicRecord, error) {
		return []eventlog.TopicRecord{{Topic: topic, Record: rec}}, nil
	}})
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

func (l *Log) AppendAll(ctx context.Context, records ...eventlog.TopicRecord) ([]int64, error) {
	if err := store.CheckRecords(records); err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return []int64{}, nil
	}
	return l.write(ctx, &step{finish: func(context.Context, querier) ([]eventlog.TopicRecord, error) {
		return records, nil
	}})
}

func (l *Log) Read(ctx context.Context, topic string, after int64, limit int) ([]eventlog.Record, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	return l.records(ctx, `SELECT `+store.RecordCols+` FROM events WHERE topic = $1 AND event_id > $2
		ORDER BY event_id LIMIT $3`, topic, after, lim)
}

func (l *Log) Tail(ctx context.Context, topic string, n int) ([]eventlog.Record, error) {
	if n <= 0 {
		return nil, nil
	}
	recs, err := l.records(ctx, `SELECT `+store.RecordCols+` FROM events WHERE topic = $1
		ORDER BY event_id DESC LIMIT $2`, topic, n)
	slices.Reverse(recs) // newest first from the query; callers get ascending ids
	return recs, err
}

func (l *Log) records(ctx context.Context, q string, args ...any) ([]eventlog.Record, error) {
	rows, err := l.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("eventlog: postgres: read: %w", err)
	}
	defer rows.Close()
	return store.ReadRecords(rows, "postgres")
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
	if err := store.CheckCursor(topic, consumer); err != nil {
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
	d.State, d.Attempts, d.LastError = eventlog.Pending, 0, ""
	d.Envelope = store.Payload(d.Envelope)
	created, stored, err := l.insertOrGet(ctx, d.ID, records, sqlAccept, []any{d.ID, d.BindingID, []byte(d.Envelope), d.DueAtMs}, &d.DueAtMs, &d.CreatedMs)
	switch {
	case err != nil:
		return eventlog.Delivery{}, false, err
	case !created:
		return stored, false, nil
	}
	return d, true, nil
}

func (l *Log) AcceptLeased(ctx context.Context, d eventlog.Delivery, owner string, ttl time.Duration, records ...eventlog.TopicRecord) (eventlog.Lease, bool, error) {
	if err := store.CheckAcceptLeased(d, owner, ttl, records); err != nil {
		return eventlog.Lease{}, false, err
	}
	d.State, d.Attempts, d.LastError = eventlog.Leased, 1, ""
	d.Envelope = store.Payload(d.Envelope)
	var expires int64
	created, stored, err := l.insertOrGet(ctx, d.ID, records, sqlAcceptLeased, []any{d.ID, d.BindingID, []byte(d.Envelope), owner, store.TTLMs(ttl)}, &d.CreatedMs, &expires)
	switch {
	case err != nil:
		return eventlog.Lease{}, false, err
	case !created:
		return eventlog.Lease{Delivery: stored}, false, nil
	}
	d.DueAtMs = d.CreatedMs
	return eventlog.Lease{Delivery: d, Owner: owner, Token: 1, ExpiresAtMs: expires}, true, nil
}

func (l *Log) Claim(ctx context.Context, owner string, n int, ttl time.Duration) ([]eventlog.Lease, error) {
	if err := store.CheckClaim(owner, ttl); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nil
	}
	var leases []eventlog.Lease
	_, err := l.write(ctx, &step{
		queue: func(b *pgx.Batch) {
			leases = nil
			b.Queue(sqlClaim, owner, store.TTLMs(ttl), n).Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var ls eventlog.Lease
					var err error
					if ls.Delivery, err = scanDelivery(rows, &ls.Owner, &ls.Token, &ls.ExpiresAtMs); err != nil {
						return err
					}
					leases = append(leases, ls)
				}
				return rows.Err()
			})
		},
		finish: func(context.Context, querier) ([]eventlog.TopicRecord, error) { return nil, nil },
	})
	if err != nil {
		return nil, err
	}
	store.SortLeases(leases)
	return leases, nil
}

// fenced is the step of a statement that ends in the fence clause: it
// fails with ErrLeaseLost when the statement matched no row, and appends
// records otherwise. With ret, the statement returns one value into it.
func fenced(q string, ls eventlog.Lease, ret *int64, records []eventlog.TopicRecord, args ...any) *step {
	var matched bool
	return &step{
		queue: func(b *pgx.Batch) {
			qq := b.Queue(q, append([]any{ls.ID, ls.Token, ls.Owner}, args...)...)
			if ret == nil {
				qq.Exec(func(tag pgconn.CommandTag) error {
					matched = tag.RowsAffected() > 0
					return nil
				})
				return
			}
			qq.QueryRow(func(row pgx.Row) error {
				err := row.Scan(ret)
				matched = err == nil
				if errors.Is(err, pgx.ErrNoRows) {
					return nil
				}
				return err
			})
		},
		finish: func(context.Context, querier) ([]eventlog.TopicRecord, error) {
			if !matched {
				return nil, eventlog.ErrLeaseLost
			}
			return records, nil
		},
	}
}

func (l *Log) Extend(ctx context.Context, ls *eventlog.Lease, ttl time.Duration) error {
	if err := store.CheckClaim(ls.Owner, ttl); err != nil {
		return err
	}
	var exp int64
	_, err := l.write(ctx, fenced(sqlExtend, *ls, &exp, nil, store.TTLMs(ttl)))
	if err == nil {
		ls.ExpiresAtMs = exp
	}
	return err
}

func (l *Log) Complete(ctx context.Context, ls eventlog.Lease, final eventlog.DeliveryState, errMsg string, records ...eventlog.TopicRecord) error {
	errMsg = store.ErrorText(errMsg)
	if err := store.CheckFinal(final); err != nil {
		return err
	}
	if err := store.CheckRecords(records); err != nil {
		return err
	}
	_, err := l.write(ctx, fenced(sqlComplete, ls, nil, records, string(final), errMsg))
	return err
}

func (l *Log) Retry(ctx context.Context, ls eventlog.Lease, dueAtMs int64, errMsg string, records ...eventlog.TopicRecord) error {
	errMsg = store.ErrorText(errMsg)
	if err := store.CheckRecords(records); err != nil {
		return err
	}
	_, err := l.write(ctx, fenced(sqlRetry, ls, nil, records, dueAtMs, errMsg))
	return err
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

// insertOrGet runs an insert that returns a row only when it created the
// delivery (scanned into dest), with records appended in the same
// transaction; when the delivery existed already it returns the stored one
// and appends nothing.
func (l *Log) insertOrGet(ctx context.Context, id string, records []eventlog.TopicRecord, sql string, args []any, dest ...any) (created bool, stored eventlog.Delivery, err error) {
	_, err = l.write(ctx, &step{
		queue: func(b *pgx.Batch) {
			b.Queue(sql, args...).QueryRow(func(row pgx.Row) error {
				err := row.Scan(dest...)
				created = err == nil
				if errors.Is(err, pgx.ErrNoRows) {
					return nil // a duplicate
				}
				return err
			})
		},
		finish: func(ctx context.Context, q querier) ([]eventlog.TopicRecord, error) {
			if created {
				return records, nil
			}
			var err error
			if stored, err = scanDelivery(q.QueryRow(ctx, sqlGet, id)); err != nil {
				return nil, fmt.Errorf("eventlog: postgres: accept %s: %w", id, err)
			}
			return nil, nil
		},
	})
	return created, stored, err
}
