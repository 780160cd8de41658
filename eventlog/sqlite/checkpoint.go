package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// # Checkpoints
//
// A checkpoint copies the WAL's pages into the database file, so that
// the WAL can start over. By default SQLite runs one inside the commit
// that takes the WAL past 1000 pages, on the committing connection: here
// the writer, so every step queued behind it waited for a thousand pages
// to be copied and the database file to be fsynced. Under issue 11's
// load (BenchmarkMCPLoad: 64 concurrent harn.secret_scan calls, each
// waiting for its audit record's commit) those stalls made much of the
// tail: with them turned off, the slowest commit of a run took 11-17 ms
// instead of 24-72 ms, and the audits' p99 fell from 18-37 ms to 12-17.
//
// When the WAL-index is mapped (the writer can then read the WAL's size
// after each commit for nothing), the writer turns them off
// (wal_autocheckpoint=0) and checkpoints happen off the commit path:
//
//   - A checkpointer goroutine with a connection of its own runs a
//     PASSIVE checkpoint whenever walPolicy.start frames have not been
//     copied: it copies pages while the writer keeps committing, and
//     waits for no one.
//   - Passive checkpoints alone never let the WAL start over under steady
//     load: SQLite restarts the WAL at a commit only when every frame was
//     copied and no reader still uses them, and by the time a checkpoint
//     ends the writer has appended a few more. So once the WAL holds
//     walPolicy.restart frames, the checkpointer copies again until it
//     leaves at most walPolicy.catchUp frames, the writer copies those
//     itself between two transactions (a PASSIVE checkpoint of a few
//     dozen pages, but two fsyncs, which all waiting steps wait for), and
//     its next commit starts the WAL over. restart is four times start,
//     so that the writer does this once per 32 MiB written by default
//     (16 MiB in a file with 4 KiB pages) rather than once per 4: measured, the catch-ups were what was left
//     of the writer's checkpoint stalls.
//   - Should the WAL still reach walPolicy.limit frames (readers kept old
//     snapshots, the checkpointer fell behind), the writer runs a RESTART
//     checkpoint between two transactions: it copies what is left and
//     waits, up to restartWaitMs, for readers of old snapshots, so the
//     next commit starts the WAL over. That stalls the writes once, and
//     bounds the WAL file at about limit pages while no reader keeps a
//     snapshot for longer.
//
// Durability does not change: a commit is as durable as before (see
// Durability) whether or not its pages were copied yet, and a checkpoint
// fsyncs the WAL before it copies and the database file before the WAL
// may start over. Without a mapped WAL-index, SQLite checkpoints as it
// does by default.

// walPolicy holds the WAL sizes, in frames (one page each), that move
// the checkpoints.
type walPolicy struct {
	start   uint32 // uncopied frames that wake the checkpointer
	restart uint32 // frames at which the WAL is made to start over
	catchUp uint32 // uncopied frames the writer copies itself
	limit   uint32 // frames at which the writer waits for readers to start it over
}

// DefaultCheckpointPages is where the checkpointer starts by default:
// where SQLite's automatic checkpoint did (1000 pages, 4 MiB at the
// default page size).
const DefaultCheckpointPages = 1000

// policyFor is the walPolicy of a checkpointer that starts at pages
// frames: the WAL starts over at 4 times that (32 MiB with 8 KiB pages), the
// writer catches up on the last sixteenth of pages (at most 64 frames),
// and the WAL is bounded at 8 times pages (64 MiB with 8 KiB pages).
func policyFor(pages int) walPolicy {
	p := uint32(max(pages, 1))
	return walPolicy{start: p, restart: 4 * p, catchUp: min(64, max(1, p/16)), limit: 8 * p}
}

const (
	sqlCheckpointPassive = `PRAGMA wal_checkpoint(PASSIVE)`
	sqlCheckpointRestart = `PRAGMA wal_checkpoint(RESTART)`
)

// startCheckpointer turns off SQLite's automatic checkpoints on the
// writer and starts the checkpointer, when the WAL-index is mapped.
// If the writer's connection is ever replaced (database/sql drops a
// connection the driver reports bad), the new one checkpoints
// automatically again: slower, not less safe.
func (l *Log) startCheckpointer(ctx context.Context, sync Synchronous) error {
	if l.wal == nil || !l.wal.mapped() {
		return nil
	}
	c, err := sql.Open("sqlite", dsn(l.path, "_pragma=synchronous("+string(sync)+")"))
	if err != nil {
		return err
	}
	c.SetMaxOpenConns(1)
	c.SetMaxIdleConns(1)
	c.SetConnMaxLifetime(0)
	if err := c.PingContext(ctx); err != nil {
		c.Close()
		return err
	}
	if _, err := l.w.ExecContext(ctx, `PRAGMA wal_autocheckpoint=0`); err != nil {
		c.Close()
		return err
	}
	l.ckpt = c
	l.ckptWake = make(chan struct{}, 1)
	l.ckptDone = make(chan struct{})
	go l.checkpointer()
	return nil
}

// checkpointer runs passive checkpoints when the writer wakes it, until
// the log closes. A failed checkpoint leaves the pages in the WAL, where
// they are as durable as in the database file; the next one retries.
func (l *Log) checkpointer() {
	defer close(l.ckptDone)
	for {
		select {
		case <-l.ckptWake:
		case <-l.quit:
			return
		}
		// One pass copies what the WAL held when it began; once the WAL
		// is due to start over, passes go on until the writer can copy
		// the rest.
		for prev := int64(-1); ; {
			l.ckptMu.Lock()
			log, done, _, err := checkpoint(l.ckpt, sqlCheckpointPassive)
			l.ckptMu.Unlock()
			if err != nil || log < int64(l.policy.restart) || log-done <= int64(l.policy.catchUp) || done == prev {
				break // done, or no progress: readers hold old snapshots, or another checkpoint runs
			}
			prev = done
			select {
			case <-l.quit:
				return
			default:
			}
		}
	}
}

// checkpoint runs a wal_checkpoint pragma and returns the frames in the
// WAL and how many of them are now in the database file; busy is set
// when a RESTART could not finish (readers kept old snapshots past the
// busy timeout) or another checkpoint was running.
func checkpoint(db interface {
	QueryRow(string, ...any) *sql.Row
}, q string) (log, done int64, busy bool, err error) {
	err = db.QueryRow(q).Scan(&busy, &log, &done)
	return log, done, busy, err
}

// restartWaitMs bounds how long the writer waits for readers of old
// snapshots when the WAL reached its limit. A reader that holds one
// longer (a long read in another process) makes the RESTART give up;
// the writer tries again once the WAL has grown by walPolicy.start more
// frames, so such a reader costs the writes one short stall every few
// megabytes rather than one per commit.
const restartWaitMs = 200

// restartWAL runs a RESTART checkpoint on the writer, waiting up to
// restartWaitMs for readers, and reports whether it finished.
func (l *Log) restartWAL() bool {
	ctx := context.Background()
	if _, err := l.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout=%d`, restartWaitMs)); err != nil {
		return false
	}
	defer l.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout=%d`, busyTimeoutMs))
	// SQLite runs one checkpoint at a time and would refuse this one
	// while the checkpointer copies.
	l.ckptMu.Lock()
	defer l.ckptMu.Unlock()
	_, _, busy, err := checkpoint(l.w, sqlCheckpointRestart)
	return err == nil && !busy
}

// maintainWAL is called by the writer after each transaction: it wakes
// the checkpointer, copies the last frames itself, or starts the WAL
// over, as the WAL's size asks (see Checkpoints).
func (l *Log) maintainWAL() {
	if l.ckpt == nil {
		return
	}
	frames, backfilled := l.wal.frames()
	uncopied := frames - min(backfilled, frames)
	if frames < l.policy.limit {
		l.retryRestart = 0
	}
	switch {
	case frames >= l.policy.limit && frames >= l.retryRestart:
		if !l.restartWAL() {
			l.retryRestart = frames + l.policy.start
		}
	case uncopied >= l.policy.start, frames >= l.policy.restart && uncopied > l.policy.catchUp:
		select {
		case l.ckptWake <- struct{}{}:
		default: // already awake
		}
	case frames >= l.policy.restart && uncopied > 0:
		// Unless the checkpointer is copying: it then leaves the rest
		// for the next commit.
		if l.ckptMu.TryLock() {
			checkpoint(l.w, sqlCheckpointPassive)
			l.ckptMu.Unlock()
		}
	}
	// Otherwise the WAL is small, or every frame is copied and the next
	// commit starts it over (unless a reader still uses it).
}
