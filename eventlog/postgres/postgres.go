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
// same moment in one transaction of one pipelined round trip (see
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
	sqlGet = `SELECT ` + store.DeliveryCols + ` FROM deliveries WHERE id = $1`
	// Lease and due times are the database server's clock, so nodes
	// with skewed clocks still agree on when a lease expired.
	dbNow = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`
	// The gated statements (see step) return a row, and set their gate
	// (the last parameter), only when they took effect.
	sqlAccept = `WITH t AS (SELECT ` + dbNow + ` AS now),
		ins AS (INSERT INTO deliveries (id, binding_id, envelope, state, due_at_ms, created_ms, ready_at_ms)
			SELECT $1, $2, $3, 'pending', COALESCE(NULLIF($4::bigint, 0), t.now), t.now, COALESCE(NULLIF($4::bigint, 0), t.now)
			FROM t ON CONFLICT (id) DO NOTHING RETURNING due_at_ms, created_ms)
		SELECT due_at_ms, created_ms, set_config($5, 'y', true) FROM ins`
	sqlAcceptLeased = `WITH t AS (SELECT ` + dbNow + ` AS now),
		ins AS (INSERT INTO deliveries (id, binding_id, envelope, state, attempts, due_at_ms, created_ms,
				lease_owner, lease_token, lease_expires_ms, ready_at_ms)
			SELECT $1, $2, $3, 'leased', 1, t.now, t.now, $4, 1, t.now + $5, t.now + $5
			FROM t ON CONFLICT (id) DO NOTHING RETURNING created_ms, lease_expires_ms)
		SELECT created_ms, lease_expires_ms, set_config($6, 'y', true) FROM ins`
	sqlClaim = `WITH t AS (SELECT ` + dbNow + ` AS now),
		picked AS (
			SELECT id FROM deliveries WHERE ready_at_ms IS NOT NULL AND ready_at_ms <= (SELECT now FROM t)
			ORDER BY ready_at_ms, created_ms, id LIMIT $3 FOR UPDATE SKIP LOCKED)
		UPDATE deliveries d SET state = 'leased', attempts = d.attempts + 1, lease_owner = $1,
			lease_token = d.lease_token + 1, lease_expires_ms = t.now + $2, ready_at_ms = t.now + $2
		FROM picked, t WHERE d.id = picked.id
		RETURNING d.id, d.binding_id, d.envelope, d.state, d.attempts, d.due_at_ms, d.created_ms, d.last_error,
			d.lease_owner, d.lease_token, d.lease_expires_ms`
	fenceWhere = ` WHERE id = $1 AND state = 'leased' AND lease_token = $2 AND lease_owner = $3`
	sqlExtend  = `WITH t AS (SELECT ` + dbNow + ` AS now),
		u AS (UPDATE deliveries SET lease_expires_ms = t.now + $4, ready_at_ms = t.now + $4 FROM t` + fenceWhere + `
			RETURNING lease_expires_ms)
		SELECT lease_expires_ms, set_config($5, 'y', true) FROM u`
	sqlComplete = `WITH u AS (UPDATE deliveries SET state = $4, last_error = $5, lease_expires_ms = 0, ready_at_ms = NULL` + fenceWhere + `
			RETURNING 1)
		SELECT set_config($6, 'y', true) FROM u`
	sqlRetry = `WITH t AS (SELECT COALESCE(NULLIF($4::bigint, 0), ` + dbNow + `) AS due),
		u AS (UPDATE deliveries SET state = 'pending', due_at_ms = t.due, ready_at_ms = t.due, last_error = $5,
			lease_expires_ms = 0 FROM t` + fenceWhere + ` RETURNING 1)
		SELECT set_config($6, 'y', true) FROM u`
)

// Log is the PostgreSQL event log. It implements eventlog.Log and
// eventlog.Inbox.
type Log struct {
	pool *pgxpool.Pool

	steps   chan *step    // for writer(); unbuffered, so none is left behind at Close
	quit    chan struct{} // closed by Close
	written chan struct{} // closed when writer() returned
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
		// Writes take one connection at a time (see writer); the others
		// serve the reads of the processes' many callers.
		cfg.MaxConns = defaultMaxConns
	}
	return open(ctx, cfg)
}

func open(ctx context.Context, cfg *pgxpool.Config) (*Log, error) {
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
	l := &Log{pool: pool, steps: make(chan *step), quit: make(chan struct{}), written: make(chan struct{})}
	go l.writer()
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
	<-l.written
	l.pool.Close()
	return nil
}

// A step is one write of the interface (Append, Accept, Claim, Complete,
// …). queue adds its statement, if any, to the group's pipelined batch,
// with a callback that keeps its result. records are appended with the
// step, unless it is gated: then only when its statement took effect
// (the insert of a new delivery, the update a lease's fence let
// through). The group's appends travel in the same batch as its
// statements, before any result is back, so a gated statement tells
// them itself: when it takes effect it sets the transaction-local
// setting named gate (set_config(gate, 'y', true), gone when the
// transaction ends), which the appends test, and the callback sets took.
type step struct {
	ctx     context.Context
	queue   func(b *pgx.Batch, gate string)
	gated   bool
	records []eventlog.TopicRecord
	took    bool    // the gated statement took effect
	ids     []int64 // the records' ids, once committed; nil when none was appended
	err     error
	done    chan struct{}
}

// kept reports whether s's records are appended, once its statement ran.
func (s *step) kept() bool { return s.err == nil && (!s.gated || s.took) }

// gateName is the setting a group's i-th step sets when it took effect.
func gateName(i int) string { return fmt.Sprintf("harn.step%d", i) }

var errClosed = errors.New("eventlog: postgres: log is closed")

// write runs s and returns once the transaction holding it committed, or
// failed: s.err, s.took and s.ids then hold its outcome.
func (l *Log) write(ctx context.Context, s *step) error {
	s.ctx, s.done = ctx, make(chan struct{})
	select {
	case l.steps <- s:
	case <-l.quit:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once taken, the step commits or fails as a whole: waiting for its
	// outcome rather than for ctx keeps "returned without error" equal to
	// "committed".
	<-s.done
	return s.err
}

// writer is the goroutine that writes. Every append must hold its
// topic's head row until commit (that is what keeps ids dense and in
// commit order), so one transaction per step would serialise a topic's
// writers on one WAL flush and several round trips each. Instead a writer
// commits the steps waiting at the same moment in one transaction (group
// commit): BEGIN, their statements, the appends of all their records
// (each topic's head bumped once, in sorted topic order, after every
// delivery row) and COMMIT go to the server in one pipelined batch. The
// lock order is the same in every process, so nodes do not deadlock on
// heads; a group costs one round trip and one WAL flush however many
// steps it holds.
//
// There is one writer: a second group would wait for the first's commit
// at the first head they share (every dispatch appends to the same few
// topics), so more writers only split the waiting steps into smaller
// groups, each paying for a commit of its own. Measured with
// BenchmarkFirePostgres, three writers gave half the dispatches per
// second of one and three times the server CPU time per dispatch.
func (l *Log) writer() {
	defer close(l.written)
	for {
		group, ok := store.NextGroup(l.steps, l.quit)
		if !ok {
			return
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

// commitOnce runs a group in one transaction, in one round trip.
func (l *Log) commitOnce(ctx context.Context, group []*step) error {
	for _, s := range group {
		s.err, s.took, s.ids = nil, false, nil
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
	for i, s := range group {
		if s.err = s.ctx.Err(); s.err == nil && s.queue != nil {
			s.queue(batch, gateName(i))
		}
	}
	assign := queueAppends(batch, group, store.NowMs())
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
		// A statement failed and the transaction with it. Alone, the
		// failure is the step's (the rollback undid it); in a group,
		// whose it is shows when the steps run alone.
		if retryable(err) {
			return err
		}
		if len(group) == 1 {
			group[0].err = fmt.Errorf("eventlog: postgres: %w", err)
			return nil
		}
		return errStepFailed
	}
	return assign()
}

// sqlAppendTopic appends a topic's records of one transaction in one
// statement: it keeps the records whose gate is empty or set (see step),
// bumps the head by their number and inserts them with the ids below the
// new head, in order. It returns no row when it kept none.
const sqlAppendTopic = `WITH r AS (
		SELECT kind, payload, headers, occurred, row_number() OVER (ORDER BY ord) AS n
		FROM unnest($2::text[], $3::bytea[], $4::text[], $5::bigint[], $6::text[])
			WITH ORDINALITY AS u(kind, payload, headers, occurred, gate, ord)
		WHERE CASE WHEN gate = '' THEN true ELSE current_setting(gate, true) = 'y' END),
	c AS (SELECT count(*) AS n FROM r),
	h AS (
		INSERT INTO topic_heads (topic, last_id) SELECT $1, c.n FROM c WHERE c.n > 0
		ON CONFLICT (topic) DO UPDATE SET last_id = topic_heads.last_id + excluded.last_id RETURNING last_id),
	ins AS (
		INSERT INTO events (topic, event_id, kind, payload, headers, occurred_at_ms)
		SELECT $1, h.last_id - c.n + r.n, r.kind, r.payload, r.headers, r.occurred
		FROM h, c, r)
	SELECT h.last_id, c.n FROM h, c`

// queueAppends queues the appends of the records of the group's steps,
// bumping each topic's head once, in sorted topic order. The function it
// returns sets the steps' ids once the batch ran.
func queueAppends(batch *pgx.Batch, group []*step, now int64) (assign func() error) {
	type entry struct {
		s *step
		k int // s.records[k]
	}
	type column struct {
		entries  []entry
		kinds    []string
		payloads [][]byte
		headers  []string
		occurred []int64
		gates    []string
		last, n  int64 // the head after the append, and the records it kept
	}
	cols := map[string]*column{}
	var topics []string
	for i, s := range group {
		if s.err != nil {
			continue
		}
		gate := ""
		if s.gated {
			gate = gateName(i)
		}
		for k, r := range s.records {
			c := cols[r.Topic]
			if c == nil {
				c = &column{}
				cols[r.Topic] = c
				topics = append(topics, r.Topic)
			}
			rec := store.Stamp(r.Record, now)
			c.entries = append(c.entries, entry{s, k})
			c.kinds = append(c.kinds, rec.Kind)
			c.payloads = append(c.payloads, store.Payload(rec.Payload))
			c.headers = append(c.headers, store.EncodeHeaders(rec.Headers))
			c.occurred = append(c.occurred, rec.OccurredAtMs)
			c.gates = append(c.gates, gate)
		}
	}
	sort.Strings(topics)
	for _, topic := range topics {
		c := cols[topic]
		batch.Queue(sqlAppendTopic, topic, c.kinds, c.payloads, c.headers, c.occurred, c.gates).QueryRow(func(row pgx.Row) error {
			err := row.Scan(&c.last, &c.n)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil // none kept
			}
			return err
		})
	}
	return func() error {
		for _, s := range group {
			if s.kept() && len(s.records) > 0 {
				s.ids = make([]int64, len(s.records))
			}
		}
		for _, topic := range topics {
			c := cols[topic]
			var kept []entry
			for _, e := range c.entries {
				if e.s.kept() {
					kept = append(kept, e)
				}
			}
			if int64(len(kept)) != c.n {
				return fmt.Errorf("eventlog: postgres: topic %s: %d records appended, %d expected", topic, c.n, len(kept))
			}
			for j, e := range kept {
				e.s.ids[e.k] = c.last - c.n + 1 + int64(j)
			}
		}
		return nil
	}
}

func (l *Log) Append(ctx context.Context, topic string, rec eventlog.Record) (int64, error) {
	if err := store.CheckRecords([]eventlog.TopicRecord{{Topic: topic, Record: rec}}); err != nil {
		return 0, err
	}
	s := &step{records: []eventlog.TopicRecord{{Topic: topic, Record: rec}}}
	if err := l.write(ctx, s); err != nil {
		return 0, err
	}
	return s.ids[0], nil
}

func (l *Log) AppendAll(ctx context.Context, records ...eventlog.TopicRecord) ([]int64, error) {
	if err := store.CheckRecords(records); err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return []int64{}, nil
	}
	s := &step{records: records}
	if err := l.write(ctx, s); err != nil {
		return nil, err
	}
	return s.ids, nil
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

func (l *Log) Accept(ctx context.Context, d eventlog.Delivery, records ...eventlog.TopicRecord) (eventlog.Delivery, bool, error) {
	if err := store.CheckDelivery(d); err != nil {
		return eventlog.Delivery{}, false, err
	}
	if err := store.CheckRecords(records); err != nil {
		return eventlog.Delivery{}, false, err
	}
	d.State, d.Attempts, d.LastError = eventlog.Pending, 0, ""
	d.Envelope = store.Payload(d.Envelope)
	created, stored, err := l.insertOrGet(ctx, d.ID, gated(sqlAccept, []any{d.ID, d.BindingID, []byte(d.Envelope), d.DueAtMs}, []any{&d.DueAtMs, &d.CreatedMs}, records))
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
	created, stored, err := l.insertOrGet(ctx, d.ID, gated(sqlAcceptLeased, []any{d.ID, d.BindingID, []byte(d.Envelope), owner, store.TTLMs(ttl)}, []any{&d.CreatedMs, &expires}, records))
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
	err := l.write(ctx, &step{
		queue: func(b *pgx.Batch, _ string) {
			leases = nil
			b.Queue(sqlClaim, owner, store.TTLMs(ttl), n).Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var ls eventlog.Lease
					var err error
					if ls.Delivery, err = store.ScanDelivery(rows, &ls.Owner, &ls.Token, &ls.ExpiresAtMs); err != nil {
						return err
					}
					leases = append(leases, ls)
				}
				return rows.Err()
			})
		},
	})
	if err != nil {
		return nil, err
	}
	store.SortLeases(leases)
	return leases, nil
}

// gated is the step of a gated statement (see step): q, with args and
// the gate as its last parameter, returns a row only when it took effect,
// with the values for dest and then the gate's set_config; records are
// appended only then.
func gated(q string, args, dest []any, records []eventlog.TopicRecord) *step {
	s := &step{gated: true, records: records}
	s.queue = func(b *pgx.Batch, gate string) {
		b.Queue(q, append(args[:len(args):len(args)], gate)...).QueryRow(func(row pgx.Row) error {
			err := row.Scan(append(dest[:len(dest):len(dest)], nil)...)
			s.took = err == nil
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			return err
		})
	}
	return s
}

// fenceStep is the gated step of a statement that ends in the fence
// clause (its first parameters are the lease's id, token and owner).
func fenceStep(q string, ls eventlog.Lease, dest []any, records []eventlog.TopicRecord, args ...any) *step {
	return gated(q, append([]any{ls.ID, ls.Token, ls.Owner}, args...), dest, records)
}

// fence runs a fenceStep: it fails with ErrLeaseLost when the statement
// matched no row, and appends records otherwise.
func (l *Log) fence(ctx context.Context, s *step) error {
	if err := l.write(ctx, s); err != nil {
		return err
	}
	if !s.took {
		return eventlog.ErrLeaseLost
	}
	return nil
}

func (l *Log) Extend(ctx context.Context, ls *eventlog.Lease, ttl time.Duration) error {
	if err := store.CheckClaim(ls.Owner, ttl); err != nil {
		return err
	}
	var exp int64
	err := l.fence(ctx, fenceStep(sqlExtend, *ls, []any{&exp}, nil, store.TTLMs(ttl)))
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
	return l.fence(ctx, fenceStep(sqlComplete, ls, nil, records, string(final), errMsg))
}

func (l *Log) Retry(ctx context.Context, ls eventlog.Lease, dueAtMs int64, errMsg string, records ...eventlog.TopicRecord) error {
	errMsg = store.ErrorText(errMsg)
	if err := store.CheckRecords(records); err != nil {
		return err
	}
	return l.fence(ctx, fenceStep(sqlRetry, ls, nil, records, dueAtMs, errMsg))
}

func (l *Log) Get(ctx context.Context, id string) (eventlog.Delivery, error) {
	d, err := store.ScanDelivery(l.pool.QueryRow(ctx, sqlGet, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return eventlog.Delivery{}, eventlog.ErrNotFound
	}
	if err != nil {
		return eventlog.Delivery{}, fmt.Errorf("eventlog: postgres: get %s: %w", id, err)
	}
	return d, nil
}

func (l *Log) LeasedByBinding(ctx context.Context) (map[string]int64, error) {
	rows, err := l.pool.Query(ctx, `SELECT binding_id, count(*) FROM deliveries WHERE state = 'leased' GROUP BY binding_id`)
	if err != nil {
		return nil, fmt.Errorf("eventlog: postgres: leased: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	if err := store.ReadCounts(rows, "postgres", "leased", func(id string, n int64) { out[id] = n }); err != nil {
		return nil, err
	}
	return out, nil
}

func (l *Log) Stats(ctx context.Context) (eventlog.InboxStats, error) {
	var st eventlog.InboxStats
	rows, err := l.pool.Query(ctx, `SELECT state, count(*) FROM deliveries GROUP BY state`)
	if err != nil {
		return st, fmt.Errorf("eventlog: postgres: stats: %w", err)
	}
	defer rows.Close()
	err = store.ReadCounts(rows, "postgres", "stats", func(state string, n int64) { store.AddStat(&st, eventlog.DeliveryState(state), n) })
	return st, err
}

// insertOrGet runs the gated step of an insert that creates the delivery
// id unless it exists (scanning into dest and appending records only
// then); when it existed already it returns the stored one.
func (l *Log) insertOrGet(ctx context.Context, id string, s *step) (created bool, stored eventlog.Delivery, err error) {
	if err := l.write(ctx, s); err != nil {
		return false, eventlog.Delivery{}, err
	}
	if s.took {
		return true, eventlog.Delivery{}, nil
	}
	if stored, err = l.Get(ctx, id); err != nil {
		return false, eventlog.Delivery{}, fmt.Errorf("eventlog: postgres: accept %s: %w", id, err)
	}
	return false, stored, nil
}
