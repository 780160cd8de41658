package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/harnlang/harn/eventlog"
)

// openWithRecord opens a log in a temporary directory holding one
// record of topic "t".
func openWithRecord(t *testing.T) *Log {
	t.Helper()
	l, err := Open(context.Background(), filepath.Join(t.TempDir(), "events.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if _, err := l.Append(context.Background(), "t", eventlog.Record{Kind: "k"}); err != nil {
		t.Fatal(err)
	}
	return l
}

// allTurnsFree reports whether no read holds or has lost a turn.
func allTurnsFree(l *Log) bool {
	if !l.turns.TryAcquire(readConns) {
		return false
	}
	l.turns.Release(readConns)
	return true
}

// A read that waits for a turn gives up when its context ends, and
// neither it nor the read let in after it keeps a turn.
func TestWaitingReadGivesUp(t *testing.T) {
	l := openWithRecord(t)
	if err := l.turns.Acquire(context.Background(), readConns); err != nil { // every turn busy
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error)
	go func() { _, err := l.Topics(ctx); gaveUp <- err }()
	next := make(chan error)
	go func() { _, err := l.Read(context.Background(), "t", 0, 10); next <- err }()
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting read under a cancelled context: %v, want %v", err, context.Canceled)
	}
	l.turns.Release(1)
	if err := <-next; err != nil {
		t.Fatalf("read let in after a turn was given back: %v", err)
	}
	l.turns.Release(readConns - 1)
	if !allTurnsFree(l) {
		t.Fatal("a turn was kept after every read returned")
	}
}

// Many concurrent readers all get their turn and give it back.
func TestConcurrentReadsShareTheTurns(t *testing.T) {
	l := openWithRecord(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			var err error
			switch i % 3 {
			case 0:
				_, err = l.Read(context.Background(), "t", 0, 10)
			case 1:
				_, err = l.Tail(context.Background(), "t", 1)
			default:
				_, err = l.Count(context.Background(), "t")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !allTurnsFree(l) {
		t.Fatal("a turn was kept after every read returned")
	}
}
