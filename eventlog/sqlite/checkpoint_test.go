package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// testWAL is a small walPolicy, so that a test reaches every threshold
// in a few hundred commits.
var testWAL = policyFor(50)

func openTestWAL(t *testing.T) *Log {
	t.Helper()
	l, err := openPolicy(context.Background(), filepath.Join(t.TempDir(), "events.sqlite"), Normal, testWAL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if l.ckpt == nil {
		t.Skip("the WAL-index is not mapped here: SQLite checkpoints by itself")
	}
	return l
}

// bigRecords are n records of a few pages' worth together.
func bigRecords(n int) []eventlog.TopicRecord {
	recs := make([]eventlog.TopicRecord, n)
	for i := range recs {
		recs[i] = eventlog.TopicRecord{Topic: "t", Record: eventlog.Record{Kind: "k", Payload: bytes.Repeat([]byte("x"), 3000)}}
	}
	return recs
}

// The writer does not checkpoint inside its commits, and the WAL still
// starts over again and again and stays within its limit while
// concurrent writers and readers use the log.
func TestCheckpointsBoundTheWAL(t *testing.T) {
	l := openTestWAL(t)
	ctx := context.Background()
	var auto int
	if err := l.w.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("writer's wal_autocheckpoint = %d (%v), want 0", auto, err)
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := l.Tail(ctx, "t", 20); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var mu sync.Mutex
	var maxFrames uint32
	restarts := 0
	var writers sync.WaitGroup
	for range 8 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			last := uint32(0)
			for range 60 {
				if _, err := l.AppendAll(ctx, bigRecords(4)...); err != nil {
					t.Error(err)
					return
				}
				frames, _ := l.wal.frames()
				mu.Lock()
				maxFrames = max(maxFrames, frames)
				if frames < last {
					restarts++
				}
				mu.Unlock()
				last = frames
			}
		}()
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	// The WAL may pass the limit by one group's frames (8 steps of 4
	// records of a page or so, and the pages of the index and the head)
	// before the writer starts it over.
	bound := testWAL.limit + 100
	if maxFrames > bound {
		t.Errorf("the WAL reached %d frames, want at most %d", maxFrames, bound)
	}
	if restarts == 0 {
		t.Errorf("the WAL never started over (largest: %d frames)", maxFrames)
	}
	st, err := os.Stat(l.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if pages := st.Size() / pageSize; pages > int64(bound)+1 {
		t.Errorf("the WAL file holds %d pages, want at most %d", pages, bound)
	}
	n, err := l.Count(ctx, "t")
	if err != nil || n != 8*60*4 {
		t.Errorf("Count = %d, %v; want %d", n, err, 8*60*4)
	}
}

// The checkpointer copies pages while the writer commits: after a burst
// of appends past walPolicy.start, the pages reach the database file
// without another commit.
func TestCheckpointerCopiesInBackground(t *testing.T) {
	l := openTestWAL(t)
	ctx := context.Background()
	for range 30 {
		if _, err := l.AppendAll(ctx, bigRecords(2)...); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		frames, backfilled := l.wal.frames()
		if frames >= testWAL.start && backfilled > 0 {
			break
		}
		if frames < testWAL.start && frames > 0 {
			break // copied and started over
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing was checkpointed: %d frames, %d copied", frames, backfilled)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A reader that keeps an old snapshot blocks the WAL's restart: the
// writer's RESTART at the limit gives up after restartWaitMs and is
// tried again only after walPolicy.start more frames, so the writes go
// on; once the reader lets go, the WAL starts over.
func TestRestartGivesUpOnAStuckReader(t *testing.T) {
	l := openTestWAL(t)
	ctx := context.Background()
	if _, err := l.AppendAll(ctx, bigRecords(1)...); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", dsn(l.path))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	reader, err := other.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	var frames uint32
	for frames < 2*testWAL.limit {
		if _, err := l.AppendAll(ctx, bigRecords(4)...); err != nil {
			t.Fatal(err)
		}
		frames, _ = l.wal.frames()
	}
	// From the limit to twice it the writer gives up at most
	// limit/start+1 times.
	maxStall := time.Duration(testWAL.limit/testWAL.start+1) * restartWaitMs * time.Millisecond
	if took := time.Since(begin); took > maxStall+5*time.Second {
		t.Errorf("appending past the limit with a stuck reader took %v", took)
	}
	reader.Rollback()
	for range 200 {
		if _, err := l.AppendAll(ctx, bigRecords(1)...); err != nil {
			t.Fatal(err)
		}
		if f, _ := l.wal.frames(); f < frames {
			return
		}
	}
	f, _ := l.wal.frames()
	t.Errorf("the WAL did not start over once the reader let go: %d frames", f)
}
