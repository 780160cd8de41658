// Package sqlite is the embedded event log backend: one SQLite file in the
// state directory (docs/spec/orchestrator.md §4), opened through modernc.org/sqlite,
// so the harn binary needs no cgo.
//
// # Storage
//
// The tables are those of docs/spec/orchestrator.md §4 — topic_heads (the last id of
// each topic), events (one row per record, keyed by topic and id) and
// consumers (cursors) — plus deliveries, the dispatch inbox: one row per
// accepted delivery with its state, attempts, due time, and the current
// lease (owner, fencing token, expiry). A delivery is claimable while
// ready_at_ms is set and not in the future: ready_at_ms is the due time of
// a pending delivery and the lease expiry of a leased one, and is cleared
// when the delivery ends, so one partial index serves every claim.
//
// # Durability
//
// The journal is WAL and synchronous is FULL by default: every commit is
// fsynced to the WAL before Append, Accept, Complete or Retry returns.
// WAL with synchronous=NORMAL (upstream's setting, available through
// OpenSync and HARN_EVENT_LOG_SQLITE_SYNC=normal) already keeps the
// contract's guarantee against a kill -9 of the process, because a
// committed transaction is in the WAL file (the kernel's page cache)
// before the commit returns; but it can lose the last commits when the
// machine loses power or the kernel crashes, and an accepted event has
// usually been acknowledged to its sender (a webhook got its 200), which
// will not send it again. FULL closes that window at the price of an fsync
// per commit, which group commit (below) shares between concurrent steps.
//
// # Concurrency
//
// All writes of one process go through one goroutine and one connection.
// The steps that callers submit at the same moment are committed in one
// BEGIN IMMEDIATE transaction (group commit), each under its own
// savepoint, so a failing step is rolled back alone, and a step returns
// only once its transaction committed. Writers never deadlock on lock
// upgrades, a claim's select-and-lease is atomic, and concurrent callers
// share one fsync. Other processes on the same file (an operator's
// `harn orchestrator` command next to the server) wait up to the busy
// timeout for the write lock. Reads use a pool of read-only connections
// and see the last committed state. The WAL is copied into the database
// file beside the writes, by a checkpointer with a connection of its own,
// not inside a caller's commit (see Checkpoints in checkpoint.go).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/internal/store"
	"golang.org/x/sync/semaphore"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// busyTimeoutMs bounds how long a writer waits for another process's
// write lock before the step fails.
const busyTimeoutMs = 30000

// pageSize is the page size of a log file Open creates: 8 KiB rather
// than SQLite's 4 KiB. A row never spans pages, and the records a busy
// `harn mcp serve` appends (action-graph records and scan audits of
// 0.5–1.5 KiB with their headers) left a third of each 4 KiB page empty;
// in 8 KiB pages the same records take fewer pages, so a batch writes
// fewer WAL frames and the checkpoints copy fewer pages: about a quarter
// less of the writer's CPU per call (BenchmarkMCPLoad). A file created
// with another page size keeps it: SQLite changes a WAL database's page
// size only by rewriting it whole (VACUUM), which Open does not do.
const pageSize = 8192

const schema = `
CREATE TABLE IF NOT EXISTS topic_heads (
	topic   TEXT PRIMARY KEY,
	last_id INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
	topic          TEXT NOT NULL,
	event_id       INTEGER NOT NULL,
	kind           TEXT NOT NULL,
	payload        BLOB NOT NULL,
	headers        TEXT NOT NULL,
	occurred_at_ms INTEGER NOT NULL,
	PRIMARY KEY (topic, event_id)
);
CREATE TABLE IF NOT EXISTS consumers (
	topic         TEXT NOT NULL,
	consumer_id   TEXT NOT NULL,
	cursor        INTEGER NOT NULL,
	updated_at_ms INTEGER NOT NULL,
	PRIMARY KEY (topic, consumer_id)
);
CREATE TABLE IF NOT EXISTS deliveries (
	id               TEXT PRIMARY KEY,
	binding_id       TEXT NOT NULL,
	envelope         BLOB NOT NULL,
	state            TEXT NOT NULL,
	attempts         INTEGER NOT NULL DEFAULT 0,
	due_at_ms        INTEGER NOT NULL,
	created_ms       INTEGER NOT NULL,
	last_error       TEXT NOT NULL DEFAULT '',
	lease_owner      TEXT NOT NULL DEFAULT '',
	lease_token      INTEGER NOT NULL DEFAULT 0,
	lease_expires_ms INTEGER NOT NULL DEFAULT 0,
	ready_at_ms      INTEGER
);
CREATE INDEX IF NOT EXISTS deliveries_ready ON deliveries (ready_at_ms, created_ms, id) WHERE ready_at_ms IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_state ON deliveries (state);
`

// The statements every step uses, prepared once on the writer connection.
const (
	sqlBumpHead = `INSERT INTO topic_heads (topic, last_id) VALUES (?1, ?2)
		ON CONFLICT (topic) DO UPDATE SET last_id = last_id + ?2 RETURNING last_id`
	sqlAccept = `INSERT INTO deliveries (id, binding_id, envelope, state, due_at_ms, created_ms, ready_at_ms)
		VALUES (?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT (id) DO NOTHING`
	sqlAcceptLeased = `INSERT INTO deliveries (id, binding_id, envelope, state, attempts, due_at_ms, created_ms,
			lease_owner, lease_token, lease_expires_ms, ready_at_ms)
		VALUES (?1, ?2, ?3, 'leased', 1, ?4, ?4, ?5, 1, ?6, ?6) ON CONFLICT (id) DO NOTHING`
	sqlGet   = `SELECT ` + store.DeliveryCols + ` FROM deliveries WHERE id = ?`
	sqlClaim = `UPDATE deliveries SET state = 'leased', attempts = attempts + 1,
		lease_owner = ?1, lease_token = lease_token + 1, lease_expires_ms = ?2, ready_at_ms = ?2
		WHERE id IN (SELECT id FROM deliveries WHERE ready_at_ms IS NOT NULL AND ready_at_ms <= ?3
			ORDER BY ready_at_ms, created_ms, id LIMIT ?4)
		RETURNING ` + store.LeaseCols
	// Each step of a group commit runs under its own savepoint.
	sqlSavepoint  = `SAVEPOINT step`
	sqlRelease    = `RELEASE step`
	sqlRollbackTo = `ROLLBACK TO step`
	fence         = ` WHERE id = ? AND state = 'leased' AND lease_token = ? AND lease_owner = ?`
	sqlExtend     = `UPDATE deliveries SET lease_expires_ms = ?1, ready_at_ms = ?1` + fence
	sqlComplete   = `UPDATE deliveries SET state = ?, last_error = ?, lease_expires_ms = 0, ready_at_ms = NULL` + fence
	sqlRetry      = `UPDATE deliveries SET state = 'pending', due_at_ms = ?1, ready_at_ms = ?1, last_error = ?2,
		lease_expires_ms = 0` + fence
)

// sqlInsertEvents[k] inserts 1<<k events: a run of records is inserted
// in chunks of these sizes (87 records: 64+16+4+2+1), which costs far
// fewer statement executions than one per record.
var sqlInsertEvents = func() (qs [7]string) {
	for k := range qs {
		q := `INSERT INTO events (topic, event_id, kind, payload, headers, occurred_at_ms) VALUES (?, ?, ?, ?, ?, ?)`
		q += strings.Repeat(`, (?, ?, ?, ?, ?, ?)`, 1<<k-1)
		qs[k] = q
	}
	return qs
}()

// eventCols is the number of values sqlInsertEvents takes per event.
const eventCols = 6

// The frequent reads, prepared once on the read pool (database/sql
// prepares them again on each connection it opens): a tool call that
// reads a topic does not parse SQL.
const (
	sqlRead = `SELECT ` + store.RecordCols + ` FROM events WHERE topic = ? AND event_id > ?
		ORDER BY event_id LIMIT ?`
	sqlTail = `SELECT ` + store.RecordCols + ` FROM events WHERE topic = ?
		ORDER BY event_id DESC LIMIT ?`
	sqlCount = `SELECT last_id FROM topic_heads WHERE topic = ?`
)

// readConns is the size of the read pool. Every connection stays open:
// opening one costs more than most reads.
//
// Readers take a turn at Log.turns, a FIFO semaphore of readConns, before
// they ask the pool for a connection. database/sql hands a freed
// connection to a waiter chosen at random, so under load (64 callers on
// readConns connections) a read can lose that draw many times in a row:
// its wait has a long tail, and so does the latency of every call that
// reads. Waiting in line first keeps the pool's own queue empty and each
// read's wait near the mean.
const readConns = 4

// Log is the SQLite event log. It implements eventlog.Log and
// eventlog.Inbox.
type Log struct {
	path  string
	w     *sql.DB              // the one writer connection, used by writer() alone
	r     *sql.DB              // read-only connections
	turns *semaphore.Weighted  // in front of r: readers take its connections in arrival order (see readConns)
	stmts map[string]*sql.Stmt // on w
	reads map[string]*sql.Stmt // on r

	ops     chan *op      // steps for writer(); unbuffered, so none is left behind at Close
	quit    chan struct{} // closed by Close
	stopped chan struct{} // closed when writer() returned
	writing bool          // writer() was started (Open got that far)

	// The checkpointer (see Checkpoints); ckpt is nil when SQLite
	// checkpoints by itself.
	policy   walPolicy
	ckpt     *sql.DB
	ckptMu   sync.Mutex // held by the checkpoint running: SQLite refuses a second one rather than wait
	ckptWake chan struct{}
	ckptDone chan struct{}
	// retryRestart is the WAL size at which the writer tries a RESTART
	// again after one gave up (the writer's alone).
	retryRestart uint32

	wal   *walIndex // nil when the WAL-index cannot be mapped (see Generation)
	genMu sync.Mutex
	// walHdr is the last index header whose commits gen and topicGen
	// account for: gen moves for a commit of unknown topics (another
	// process's, another handle's), topicGen[t] for this log's own
	// commits that appended to topic t.
	walHdr   [walHeaderWords]uint32
	gen      uint64
	topicGen map[string]uint64
	// appended are the topics the transaction being committed appended
	// to (the writer's alone).
	appended []string
	// savepoints counts the steps run under a savepoint (the writer's
	// alone; tests read it).
	savepoints int
	// bumps counts the head bumps run (the writer's alone; tests read it).
	bumps int
}

var (
	_ eventlog.Log         = (*Log)(nil)
	_ eventlog.Inbox       = (*Log)(nil)
	_ eventlog.Generations = (*Log)(nil)
)

// Synchronous is SQLite's commit durability level.
type Synchronous string

const (
	// Full fsyncs the WAL at every commit: a returned step survives a kill
	// of the process, a kernel crash and a power loss. The default.
	Full Synchronous = "FULL"
	// Normal fsyncs only at checkpoints: a returned step survives a kill
	// of the process, but a power loss can roll back the last commits.
	Normal Synchronous = "NORMAL"
)

// ParseSynchronous reads "full" or "normal" (any case); "" is Full.
func ParseSynchronous(s string) (Synchronous, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "", "FULL":
		return Full, nil
	case "NORMAL":
		return Normal, nil
	}
	return "", fmt.Errorf("eventlog: sqlite synchronous %q (want full or normal)", s)
}

// Open opens (creating when missing) the event log file at path and its
// parent directory, with synchronous=FULL.
func Open(ctx context.Context, path string) (*Log, error) {
	return OpenSync(ctx, path, Full)
}

// OpenSync is Open with a chosen commit durability.
func OpenSync(ctx context.Context, path string, sync Synchronous) (*Log, error) {
	return OpenOptions(ctx, path, Options{Sync: sync})
}

// Options are the settings of OpenOptions; the zero value is Open's.
type Options struct {
	Sync Synchronous // "" is Full
	// CheckpointPages is how many pages written to the WAL and not yet
	// copied start a checkpoint; the WAL starts over at 4 times it and
	// is bounded at 8 times it (see Checkpoints). 0 is
	// DefaultCheckpointPages.
	CheckpointPages int
}

// OpenOptions is Open with chosen settings.
func OpenOptions(ctx context.Context, path string, o Options) (*Log, error) {
	if o.Sync == "" {
		o.Sync = Full
	}
	if o.CheckpointPages < 0 {
		return nil, fmt.Errorf("eventlog: sqlite checkpoint pages %d (want a positive number)", o.CheckpointPages)
	}
	if o.CheckpointPages == 0 {
		o.CheckpointPages = DefaultCheckpointPages
	}
	return openPolicy(ctx, path, o.Sync, policyFor(o.CheckpointPages))
}

// openPolicy is OpenSync with the WAL sizes that move checkpoints.
func openPolicy(ctx context.Context, path string, sync Synchronous, policy walPolicy) (*Log, error) {
	if sync != Full && sync != Normal {
		return nil, fmt.Errorf("eventlog: sqlite synchronous %q (want %s or %s)", sync, Full, Normal)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("eventlog: sqlite: %w", err)
	}
	// temp_store(MEMORY) keeps the statement journal of each step's
	// savepoint (the pages a step may have to roll back) in memory: by
	// default it moves to a temporary file past 64 KiB, which a group
	// commit's steps often reach, and the file's creation and writes
	// cost a call a few microseconds under load. It is scratch space for
	// rollbacks within a transaction, not part of the commit.
	//
	// page_size applies to a file this creates (see pageSize); a file
	// that exists keeps the page size it has, so no state directory
	// needs converting. It must come before the journal mode, which
	// writes a new file's first page: the driver runs the _pragma list
	// in name order and the _journal_mode key after it.
	w, err := sql.Open("sqlite", dsn(path, "_txlock=immediate",
		"_pragma=page_size("+fmt.Sprint(pageSize)+")", "_journal_mode=WAL", "_pragma=synchronous("+string(sync)+")", "_pragma=foreign_keys(OFF)",
		"_pragma=temp_store(MEMORY)"))
	if err != nil {
		return nil, fmt.Errorf("eventlog: sqlite %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	l := &Log{path: path, w: w, stmts: map[string]*sql.Stmt{}, policy: policy,
		ops: make(chan *op), quit: make(chan struct{}), stopped: make(chan struct{})}
	if err := l.init(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("eventlog: sqlite %s: %w", path, err)
	}
	// The journal mode is persistent in the file, so readers need not set it.
	l.r, err = sql.Open("sqlite", dsn(path, "_pragma=query_only(1)"))
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("eventlog: sqlite %s: %w", path, err)
	}
	l.r.SetMaxOpenConns(readConns)
	l.turns = semaphore.NewWeighted(readConns)
	l.r.SetMaxIdleConns(readConns)
	l.reads = map[string]*sql.Stmt{}
	for _, q := range []string{sqlRead, sqlTail, sqlCount, sqlGet} {
		st, err := l.r.PrepareContext(ctx, q)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("eventlog: sqlite %s: %w", path, err)
		}
		l.reads[q] = st
	}
	// The reads above opened the WAL-index, which now stays open as long
	// as the log's connections do.
	l.wal = openWALIndex(path)
	if err := l.startCheckpointer(ctx, sync); err != nil {
		l.Close()
		return nil, fmt.Errorf("eventlog: sqlite %s: %w", path, err)
	}
	l.writing = true
	go l.writer()
	return l, nil
}

func dsn(path string, params ...string) string {
	q := "_pragma=busy_timeout(" + fmt.Sprint(busyTimeoutMs) + ")"
	for _, p := range params {
		q += "&" + p
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q
}

func (l *Log) init(ctx context.Context) error {
	if _, err := l.w.ExecContext(ctx, schema); err != nil {
		return err
	}
	var mode string
	if err := l.w.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode is %q, want wal", mode)
	}
	for _, q := range append([]string{sqlBumpHead, sqlAccept, sqlAcceptLeased, sqlGet, sqlClaim, sqlExtend, sqlComplete, sqlRetry,
		sqlSavepoint, sqlRelease, sqlRollbackTo}, sqlInsertEvents[:]...) {
		st, err := l.w.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		l.stmts[q] = st
	}
	return nil
}

// Pragmas reports the writer connection's journal mode and synchronous
// level (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA), for diagnostics and tests.
func (l *Log) Pragmas(ctx context.Context) (journal string, synchronous int, err error) {
	if err = l.w.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&journal); err != nil {
		return "", 0, err
	}
	err = l.w.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&synchronous)
	return journal, synchronous, err
}

// Path is the database file.
func (l *Log) Path() string { return l.path }

func (l *Log) Backend() string       { return "sqlite" }
func (l *Log) Inbox() eventlog.Inbox { return l }

func (l *Log) Close() error {
	if l.quit != nil {
		select {
		case <-l.quit:
			return nil // already closed
		default:
		}
		close(l.quit)
		if l.writing {
			<-l.stopped
		}
		if l.ckptDone != nil {
			<-l.ckptDone
		}
	}
	var errs []error
	for _, st := range l.stmts {
		errs = append(errs, st.Close())
	}
	for _, st := range l.reads {
		errs = append(errs, st.Close())
	}
	if l.r != nil {
		errs = append(errs, l.r.Close())
	}
	if l.ckpt != nil {
		errs = append(errs, l.ckpt.Close())
	}
	errs = append(errs, l.w.Close())
	if l.wal != nil { // after the connections: see walIndex
		errs = append(errs, l.wal.close())
	}
	return errors.Join(errs...)
}

// Generation implements eventlog.Generations by comparing the WAL-index
// header with the one it accounted for last (see walIndex): a few loads
// instead of a query, so a reader that keeps what it read
// (harn.trust.query) checks freshness on every call for nearly nothing,
// and still sees another process's commits. A change of the header that
// the writer has not explained moves the generation of every topic; the
// writer explains each of its own commits (see account), which then
// moves only the generations of the topics it appended to: the
// action-graph record every MCP tool call appends does not make the
// trust topic's readers read again.
func (l *Log) Generation(topic string) (uint64, bool) {
	if l.wal == nil || !l.wal.mapped() {
		return 0, false
	}
	var h [walHeaderWords]uint32
	l.wal.header(&h)
	l.genMu.Lock()
	defer l.genMu.Unlock()
	l.observe(&h)
	return l.gen + l.topicGen[topic], true
}

// observe moves every topic's generation if h is not the header last
// accounted for: something committed that nobody explained. genMu is
// held.
func (l *Log) observe(h *[walHeaderWords]uint32) {
	if *h != l.walHdr {
		l.walHdr = *h
		l.gen++
	}
}

// walChangeWord is the index header's change counter (iChange, the
// third 32-bit word), which every commit increments.
const walChangeWord = 2

// beginAccount is called by the writer once its transaction holds the
// write lock: whatever the header shows then was committed by others
// (no one can commit until this transaction ends). It returns that
// header, for account.
func (l *Log) beginAccount() (h0 [walHeaderWords]uint32) {
	if l.wal == nil || !l.wal.mapped() {
		return h0
	}
	l.wal.header(&h0)
	l.genMu.Lock()
	l.observe(&h0)
	l.genMu.Unlock()
	return h0
}

// account is called by the writer after its transaction ended, with the
// header beginAccount returned: the generations of the topics it
// appended to move, and, unless the header shows this transaction and
// nothing else since h0 (its change counter moved by exactly one, and
// no reader saw anything in between), every topic's does as well. A
// rolled-back transaction moves its topics too: generations may move
// when nothing was committed, never stay when something was.
func (l *Log) account(h0 [walHeaderWords]uint32) {
	if l.wal == nil || !l.wal.mapped() {
		return
	}
	var h1 [walHeaderWords]uint32
	l.genMu.Lock()
	defer l.genMu.Unlock()
	l.wal.header(&h1)
	if l.topicGen == nil {
		l.topicGen = map[string]uint64{}
	}
	for _, t := range l.appended {
		l.topicGen[t]++
	}
	if l.walHdr != h0 || h1[walChangeWord] != h0[walChangeWord]+1 {
		l.gen++
	}
	l.walHdr = h1
}

// tx is one write step: a BEGIN IMMEDIATE transaction with the prepared
// statements bound to it.
type tx struct {
	*sql.Tx
	ctx context.Context
	l   *Log
	// bound are the prepared statements bound to the transaction so far:
	// the steps of a group commit share them rather than bind each
	// statement again per record (database/sql closes them at the end
	// of the transaction).
	bound map[string]*sql.Stmt
}

func (t tx) stmt(q string) *sql.Stmt {
	st := t.bound[q]
	if st == nil {
		st = t.StmtContext(t.ctx, t.l.stmts[q])
		t.bound[q] = st
	}
	return st
}

// op is one write step waiting for the writer.
type op struct {
	ctx  context.Context
	fn   func(t tx) error
	done chan error
	// appends is set on a step that only appends (AppendAll): fn appends
	// them and sets ids. The writer runs a row of such steps as one step
	// (see commit).
	appends []eventlog.TopicRecord
	ids     []int64
}

// write runs fn as one step and returns once the transaction holding it
// committed (or fn failed and was rolled back alone).
func (l *Log) write(ctx context.Context, fn func(t tx) error) error {
	return l.submit(&op{ctx: ctx, fn: fn})
}

// submit hands o to the writer and waits for its outcome.
func (l *Log) submit(o *op) error {
	ctx := o.ctx
	o.done = make(chan error, 1)
	select {
	case l.ops <- o:
	case <-l.quit:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once taken, the step is committed or refused as a whole: waiting for
	// its outcome rather than for ctx keeps "returned without error" equal
	// to "committed".
	return <-o.done
}

var errClosed = errors.New("eventlog: sqlite: log is closed")

// writer is the one goroutine that writes. It commits the steps waiting
// at the same moment in one transaction (group commit), each under its own
// savepoint so a failing step is rolled back alone: with
// synchronous=FULL, concurrent callers share one fsync instead of queueing
// for one each.
func (l *Log) writer() {
	defer close(l.stopped)
	for {
		group, ok := store.NextGroup(l.ops, l.quit)
		if !ok {
			return
		}
		l.commit(group)
		l.maintainWAL()
	}
}

func (l *Log) commit(group []*op) {
	errs, again := l.commitGroup(group, true)
	if again {
		errs, _ = l.commitGroup(group, false)
	}
	for i, o := range group {
		o.done <- errs[i]
	}
}

// commitGroup runs group in one transaction and returns each step's
// outcome. The log's generations account for the transaction before
// any caller learns its outcome.
//
// With whole set, a group that is all one row of appending steps (the
// audits of concurrent calls and the recorder's batch, under load) runs
// as one step without a savepoint: SAVEPOINT and RELEASE, and the
// statement journal that keeps every page the step touches, are the
// price of rolling one step back alone, which such a row never needs
// unless a record fails. If one does, the transaction is rolled back
// and again is set: the group must run once more without whole, where
// its steps run one by one, so that only the failing step fails.
func (l *Log) commitGroup(group []*op, whole bool) (errs []error, again bool) {
	// Statements run under the writer's context, not the callers': an
	// interrupted statement would roll back the whole shared transaction.
	ctx := context.Background()
	errs = make([]error, len(group))
	sqlTx, err := l.w.BeginTx(ctx, nil)
	if err != nil {
		for i := range errs {
			errs[i] = fmt.Errorf("eventlog: sqlite: begin: %w", err)
		}
		return errs, false
	}
	l.appended = l.appended[:0]
	defer l.account(l.beginAccount())
	t := tx{sqlTx, ctx, l, map[string]*sql.Stmt{}}
	if len(group) == 1 {
		// Alone, a step needs no savepoint: if it fails, so does the
		// transaction.
		o := group[0]
		err := o.ctx.Err()
		if err == nil {
			err = o.fn(t)
		}
		if err != nil {
			sqlTx.Rollback()
			errs[0] = err
			return errs, false
		}
	} else if whole && appendingRow(group) == len(group) {
		if err := t.appendSteps(group); err != nil {
			sqlTx.Rollback()
			return nil, true
		}
	} else if lost := t.steps(group, errs); lost != nil {
		sqlTx.Rollback()
		for i := range errs {
			if errs[i] == nil {
				errs[i] = fmt.Errorf("eventlog: sqlite: transaction rolled back: %w", lost)
			}
		}
		return errs, false
	}
	if err := sqlTx.Commit(); err != nil {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = fmt.Errorf("eventlog: sqlite: commit: %w", err)
			}
		}
	}
	return errs, false
}

// steps runs the steps of a group, each under a savepoint, setting errs.
// A row of appending steps (the audits of concurrent calls, the
// recorder's batch) runs as one step: one head bump per topic and
// multi-row inserts instead of a savepoint, a bump and an insert per
// step. If that fails, its steps run one by one, so a failing step still
// fails alone. lost is the error of a step that took the transaction
// with it (see step): the steps after it do not run.
func (t tx) steps(group []*op, errs []error) (lost error) {
	run := func(i int, fn func(t tx) error) bool {
		errs[i], lost = t.step(fn)
		return lost == nil
	}
	for i := 0; i < len(group); {
		if n := appendingRow(group[i:]); n > 1 {
			row := group[i : i+n]
			err, rowLost := t.step(func(t tx) error { return t.appendSteps(row) })
			if rowLost != nil {
				return rowLost
			}
			if err == nil {
				i += n
				continue
			}
			for end := i + n; i < end; i++ {
				if !run(i, group[i].fn) {
					return lost
				}
			}
			continue
		}
		if errs[i] = group[i].ctx.Err(); errs[i] == nil && !run(i, group[i].fn) {
			return lost
		}
		i++
	}
	return nil
}

// step runs fn under a savepoint: when fn fails, what it did is rolled
// back and the other steps of the transaction stand. When the rollback
// itself fails, SQLite may have rolled back the whole transaction (it
// may on SQLITE_FULL or an I/O error): lost is then fn's error, and no
// other step may run, since it would run, and commit, outside it.
func (t tx) step(fn func(t tx) error) (err, lost error) {
	if _, err := t.stmt(sqlSavepoint).ExecContext(t.ctx); err != nil {
		return err, nil
	}
	t.l.savepoints++
	if err = fn(t); err != nil {
		if _, rerr := t.stmt(sqlRollbackTo).ExecContext(t.ctx); rerr != nil {
			return err, fmt.Errorf("%w (rolling back its step: %v)", err, rerr)
		}
	}
	t.stmt(sqlRelease).ExecContext(t.ctx)
	return err, nil
}

// appendingRow is the number of steps at the start of group that only
// append and whose callers are still waiting.
func appendingRow(group []*op) int {
	n := 0
	for n < len(group) && group[n].appends != nil && group[n].ctx.Err() == nil {
		n++
	}
	return n
}

// appendSteps appends the records of steps, all of them appending steps,
// as one: topic by topic, each topic's records in the steps' order, so
// every step gets the ids it would have got alone, in turn. The steps'
// ids are set only if every record was appended.
func (t tx) appendSteps(steps []*op) error {
	var topics []string // in order of first appearance
	total := 0
	for _, o := range steps {
		total += len(o.appends)
		for _, r := range o.appends {
			if !slices.Contains(topics, r.Topic) {
				topics = append(topics, r.Topic)
			}
		}
	}
	records := make([]eventlog.TopicRecord, 0, total)
	dst := make([]*int64, 0, total)
	for _, topic := range topics {
		for _, o := range steps {
			for k, r := range o.appends {
				if r.Topic == topic {
					records = append(records, r)
					dst = append(dst, &o.ids[k])
				}
			}
		}
	}
	ids := make([]int64, total)
	if err := t.appendRuns(records, ids, store.NowMs()); err != nil {
		return err
	}
	for k, p := range dst {
		*p = ids[k]
	}
	return nil
}

func (t tx) appendAll(records []eventlog.TopicRecord, now int64) error {
	return t.appendRuns(records, make([]int64, len(records)), now)
}

// appendRuns appends records in order, setting ids: each run of
// consecutive records bound for one topic takes its ids with one bump
// of the topic's head (a recorder's batch is one run).
func (t tx) appendRuns(records []eventlog.TopicRecord, ids []int64, now int64) error {
	for start := 0; start < len(records); {
		end := start + 1
		for end < len(records) && records[end].Topic == records[start].Topic {
			end++
		}
		if err := t.appendRun(records[start:end], ids[start:end], now); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// appendRun appends records that are all bound for one topic: the head
// moves by their number, and they take the ids up to it (the write lock
// is held, so no other writer takes ids in between).
func (t tx) appendRun(records []eventlog.TopicRecord, ids []int64, now int64) error {
	topic := records[0].Topic
	if !slices.Contains(t.l.appended, topic) {
		t.l.appended = append(t.l.appended, topic)
	}
	var last int64
	t.l.bumps++
	if err := t.stmt(sqlBumpHead).QueryRowContext(t.ctx, topic, len(records)).Scan(&last); err != nil {
		return fmt.Errorf("eventlog: sqlite: append to %s: %w", topic, err)
	}
	first := last - int64(len(records)-1)
	args := make([]any, 0, eventCols*min(len(records), 1<<(len(sqlInsertEvents)-1)))
	for done := 0; done < len(records); {
		k := min(bits.Len(uint(len(records)-done)), len(sqlInsertEvents)) - 1
		args = args[:0]
		for i := done; i < done+1<<k; i++ {
			ids[i] = first + int64(i)
			rec := store.Stamp(records[i].Record, now)
			args = append(args, topic, ids[i], rec.Kind, store.Payload(rec.Payload),
				store.EncodeHeaders(rec.Headers), rec.OccurredAtMs)
		}
		if _, err := t.stmt(sqlInsertEvents[k]).ExecContext(t.ctx, args...); err != nil {
			return fmt.Errorf("eventlog: sqlite: append to %s: %w", topic, err)
		}
		done += 1 << k
	}
	return nil
}

func (l *Log) Append(ctx context.Context, topic string, rec eventlog.Record) (int64, error) {
	return store.AppendOne(ctx, l.AppendAll, topic, rec)
}

func (l *Log) AppendAll(ctx context.Context, records ...eventlog.TopicRecord) ([]int64, error) {
	if err := store.CheckRecords(records); err != nil {
		return nil, err
	}
	o := appendOp(ctx, records)
	if err := l.submit(o); err != nil {
		return nil, err
	}
	return o.ids, nil
}

// appendOp is the step of AppendAll. Alone in its transaction it
// appends as a row of appending steps does (appendSteps), topic by
// topic: a batch whose topics alternate (the recorder's, a scan's audit
// then its action-graph record, call after call) would otherwise take
// a head bump and an insert per record instead of one each per topic
// and chunk, about four times the writer's CPU.
func appendOp(ctx context.Context, records []eventlog.TopicRecord) *op {
	o := &op{ctx: ctx, appends: records, ids: make([]int64, len(records))}
	o.fn = func(t tx) error { return t.appendSteps([]*op{o}) }
	return o
}

func (l *Log) Read(ctx context.Context, topic string, after int64, limit int) ([]eventlog.Record, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	return l.records(shortRead(ctx, limit), sqlRead, topic, after, limit)
}

func (l *Log) Tail(ctx context.Context, topic string, n int) ([]eventlog.Record, error) {
	if n <= 0 {
		return nil, nil
	}
	recs, err := l.records(shortRead(ctx, n), sqlTail, topic, n)
	slices.Reverse(recs) // newest first from the query; callers get ascending ids
	return recs, err
}

// maxShortRead is the most records a read returns for it to count as
// short (see shortRead).
const maxShortRead = 1000

// shortRead is the context to run a read of up to limit records (-1:
// all) under. database/sql watches a cancellable context with a
// goroutine of its own for every query; a short read (a page, a tail,
// one row) is not worth one, so it only checks for cancellation before
// it starts: a cancelled context fails it, and one cancelled while it
// runs lets it finish. Longer reads stay cancellable while they run.
func shortRead(ctx context.Context, limit int) context.Context {
	if limit < 0 || limit > maxShortRead || ctx.Done() == nil {
		return ctx
	}
	if ctx.Err() != nil {
		return ctx // fails at once
	}
	return context.WithoutCancel(ctx)
}

func (l *Log) records(ctx context.Context, q string, args ...any) ([]eventlog.Record, error) {
	if err := l.turns.Acquire(ctx, 1); err != nil {
		return nil, fmt.Errorf("eventlog: sqlite: read: %w", err)
	}
	defer l.turns.Release(1)
	rows, err := l.reads[q].QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("eventlog: sqlite: read: %w", err)
	}
	defer rows.Close()
	return store.ReadRecords(rows, "sqlite")
}

func (l *Log) Count(ctx context.Context, topic string) (int64, error) {
	// Ids are dense from 1 and records are never removed, so the head is the count.
	var n int64
	if err := l.turns.Acquire(ctx, 1); err != nil {
		return 0, fmt.Errorf("eventlog: sqlite: count: %w", err)
	}
	defer l.turns.Release(1)
	err := l.reads[sqlCount].QueryRowContext(shortRead(ctx, 1), topic).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("eventlog: sqlite: count: %w", err)
	}
	return n, nil
}

func (l *Log) Topics(ctx context.Context) ([]string, error) {
	if err := l.turns.Acquire(ctx, 1); err != nil {
		return nil, fmt.Errorf("eventlog: sqlite: topics: %w", err)
	}
	defer l.turns.Release(1)
	rows, err := l.r.QueryContext(ctx, `SELECT topic FROM topic_heads WHERE last_id > 0 ORDER BY topic`)
	if err != nil {
		return nil, fmt.Errorf("eventlog: sqlite: topics: %w", err)
	}
	defer rows.Close()
	var topics []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, fmt.Errorf("eventlog: sqlite: topics: %w", err)
		}
		topics = append(topics, t)
	}
	return topics, rows.Err()
}

func (l *Log) Cursor(ctx context.Context, topic, consumer string) (int64, error) {
	var c int64
	if err := l.turns.Acquire(ctx, 1); err != nil {
		return 0, fmt.Errorf("eventlog: sqlite: cursor: %w", err)
	}
	defer l.turns.Release(1)
	err := l.r.QueryRowContext(ctx, `SELECT cursor FROM consumers WHERE topic = ? AND consumer_id = ?`,
		topic, consumer).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("eventlog: sqlite: cursor: %w", err)
	}
	return c, nil
}

func (l *Log) SetCursor(ctx context.Context, topic, consumer string, cursor int64) error {
	if err := store.CheckCursor(topic, consumer); err != nil {
		return err
	}
	return l.write(ctx, func(t tx) error {
		_, err := t.ExecContext(t.ctx, `INSERT INTO consumers (topic, consumer_id, cursor, updated_at_ms)
			VALUES (?, ?, ?, ?) ON CONFLICT (topic, consumer_id)
			DO UPDATE SET cursor = excluded.cursor, updated_at_ms = excluded.updated_at_ms`,
			topic, consumer, cursor, store.NowMs())
		if err != nil {
			return fmt.Errorf("eventlog: sqlite: set cursor: %w", err)
		}
		return nil
	})
}

// ---- the inbox ----

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
	created := false
	err := l.write(ctx, func(t tx) error {
		stored, isNew, err := t.insertOrGet(sqlAccept, d.ID, records, now, d.ID, d.BindingID, []byte(d.Envelope), d.DueAtMs, now, d.DueAtMs)
		if err == nil && !isNew {
			d = stored
		}
		created = isNew
		return err
	})
	if err != nil {
		return eventlog.Delivery{}, false, err
	}
	return d, created, nil
}

func (l *Log) AcceptLeased(ctx context.Context, d eventlog.Delivery, owner string, ttl time.Duration, records ...eventlog.TopicRecord) (eventlog.Lease, bool, error) {
	if err := store.CheckAcceptLeased(d, owner, ttl, records); err != nil {
		return eventlog.Lease{}, false, err
	}
	now := store.NowMs()
	d.State, d.Attempts, d.DueAtMs, d.CreatedMs, d.LastError = eventlog.Leased, 1, now, now, ""
	d.Envelope = store.Payload(d.Envelope)
	ls := eventlog.Lease{Delivery: d, Owner: owner, Token: 1, ExpiresAtMs: now + store.TTLMs(ttl)}
	created := false
	err := l.write(ctx, func(t tx) error {
		stored, isNew, err := t.insertOrGet(sqlAcceptLeased, d.ID, records, now, d.ID, d.BindingID, []byte(d.Envelope), now, owner, ls.ExpiresAtMs)
		if err == nil && !isNew {
			ls = eventlog.Lease{Delivery: stored}
		}
		created = isNew
		return err
	})
	if err != nil {
		return eventlog.Lease{}, false, err
	}
	return ls, created, nil
}

func (l *Log) Claim(ctx context.Context, owner string, n int, ttl time.Duration) ([]eventlog.Lease, error) {
	if err := store.CheckClaim(owner, ttl); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nil
	}
	now := store.NowMs()
	var leases []eventlog.Lease
	err := l.write(ctx, func(t tx) error {
		rows, err := t.stmt(sqlClaim).QueryContext(t.ctx, owner, now+store.TTLMs(ttl), now, n)
		if err != nil {
			return fmt.Errorf("eventlog: sqlite: claim: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var ls eventlog.Lease
			ls.Delivery, err = store.ScanDelivery(rows, &ls.Owner, &ls.Token, &ls.ExpiresAtMs)
			if err != nil {
				return fmt.Errorf("eventlog: sqlite: claim: %w", err)
			}
			leases = append(leases, ls)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("eventlog: sqlite: claim: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	store.SortLeases(leases)
	return leases, nil
}

// fenced runs a statement that ends in the fence clause and reports
// ErrLeaseLost when it matched no row.
func (t tx) fenced(q string, l eventlog.Lease, args ...any) error {
	res, err := t.stmt(q).ExecContext(t.ctx, append(args, l.ID, l.Token, l.Owner)...)
	if err != nil {
		return fmt.Errorf("eventlog: sqlite: delivery %s: %w", l.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return eventlog.ErrLeaseLost
	}
	return nil
}

func (l *Log) Extend(ctx context.Context, ls *eventlog.Lease, ttl time.Duration) error {
	if err := store.CheckClaim(ls.Owner, ttl); err != nil {
		return err
	}
	exp := store.NowMs() + store.TTLMs(ttl)
	err := l.write(ctx, func(t tx) error { return t.fenced(sqlExtend, *ls, exp) })
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
	return l.write(ctx, func(t tx) error {
		if err := t.fenced(sqlComplete, ls, string(final), errMsg); err != nil {
			return err
		}
		return t.appendAll(records, store.NowMs())
	})
}

func (l *Log) Retry(ctx context.Context, ls eventlog.Lease, dueAtMs int64, errMsg string, records ...eventlog.TopicRecord) error {
	errMsg = store.ErrorText(errMsg)
	if err := store.CheckRecords(records); err != nil {
		return err
	}
	now := store.NowMs()
	if dueAtMs == 0 {
		dueAtMs = now
	}
	return l.write(ctx, func(t tx) error {
		if err := t.fenced(sqlRetry, ls, dueAtMs, errMsg); err != nil {
			return err
		}
		return t.appendAll(records, now)
	})
}

func (l *Log) Get(ctx context.Context, id string) (eventlog.Delivery, error) {
	if err := l.turns.Acquire(ctx, 1); err != nil {
		return eventlog.Delivery{}, fmt.Errorf("eventlog: sqlite: get %s: %w", id, err)
	}
	defer l.turns.Release(1)
	d, err := store.ScanDelivery(l.reads[sqlGet].QueryRowContext(shortRead(ctx, 1), id))
	if errors.Is(err, sql.ErrNoRows) {
		return eventlog.Delivery{}, eventlog.ErrNotFound
	}
	if err != nil {
		return eventlog.Delivery{}, fmt.Errorf("eventlog: sqlite: get %s: %w", id, err)
	}
	return d, nil
}

func (l *Log) LeasedByBinding(ctx context.Context) (map[string]int64, error) {
	if err := l.turns.Acquire(ctx, 1); err != nil {
		return nil, fmt.Errorf("eventlog: sqlite: leased: %w", err)
	}
	defer l.turns.Release(1)
	rows, err := l.r.QueryContext(ctx, `SELECT binding_id, count(*) FROM deliveries WHERE state = 'leased' GROUP BY binding_id`)
	if err != nil {
		return nil, fmt.Errorf("eventlog: sqlite: leased: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	if err := store.ReadCounts(rows, "sqlite", "leased", func(id string, n int64) { out[id] = n }); err != nil {
		return nil, err
	}
	return out, nil
}

func (l *Log) Stats(ctx context.Context) (eventlog.InboxStats, error) {
	var st eventlog.InboxStats
	if err := l.turns.Acquire(ctx, 1); err != nil {
		return st, fmt.Errorf("eventlog: sqlite: stats: %w", err)
	}
	defer l.turns.Release(1)
	rows, err := l.r.QueryContext(ctx, `SELECT state, count(*) FROM deliveries GROUP BY state`)
	if err != nil {
		return st, fmt.Errorf("eventlog: sqlite: stats: %w", err)
	}
	defer rows.Close()
	err = store.ReadCounts(rows, "sqlite", "stats", func(state string, n int64) { store.AddStat(&st, eventlog.DeliveryState(state), n) })
	return st, err
}

// insertOrGet runs an insert of delivery id that affects no row when the
// delivery exists: a new one gets records appended in the same
// transaction, an existing one is read back and nothing is appended.
func (t tx) insertOrGet(insert, id string, records []eventlog.TopicRecord, now int64, args ...any) (stored eventlog.Delivery, created bool, err error) {
	res, err := t.stmt(insert).ExecContext(t.ctx, args...)
	if err != nil {
		return stored, false, fmt.Errorf("eventlog: sqlite: accept %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if stored, err = store.ScanDelivery(t.stmt(sqlGet).QueryRowContext(t.ctx, id)); err != nil {
			return stored, false, fmt.Errorf("eventlog: sqlite: accept %s: %w", id, err)
		}
		return stored, false, nil
	}
	return stored, true, t.appendAll(records, now)
}
