package sqlite

import (
	"context"
	"runtime"
	"testing"
)

// queued waits until n callers wait at g.
func queued(g *gate, n int) {
	for {
		g.mu.Lock()
		k := len(g.waiters)
		g.mu.Unlock()
		if k == n {
			return
		}
		runtime.Gosched()
	}
}

func TestGateTurnsInArrivalOrder(t *testing.T) {
	g := newGate(1)
	if err := g.enter(context.Background()); err != nil {
		t.Fatal(err)
	}
	const n = 8
	order := make(chan int, n)
	for i := range n {
		go func() {
			if err := g.enter(context.Background()); err != nil {
				t.Error(err)
			}
			order <- i
			g.leave()
		}()
		queued(g, i+1)
	}
	g.leave()
	for want := range n {
		if got := <-order; got != want {
			t.Fatalf("turn %d went to caller %d", want, got)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.free != 1 || len(g.waiters) != 0 {
		t.Fatalf("after the last turn: free %d, %d waiting; want 1, 0", g.free, len(g.waiters))
	}
}

func TestGateCancelledWaiterLeavesTheLine(t *testing.T) {
	g := newGate(1)
	g.enter(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	failed := make(chan error)
	go func() { failed <- g.enter(ctx) }()
	queued(g, 1)
	next := make(chan error)
	go func() { next <- g.enter(context.Background()) }()
	queued(g, 2)
	cancel()
	if err := <-failed; err != context.Canceled {
		t.Fatalf("cancelled enter: %v, want %v", err, context.Canceled)
	}
	queued(g, 1)
	g.leave() // to the second waiter: the cancelled one is gone
	if err := <-next; err != nil {
		t.Fatal(err)
	}
	g.leave()
	if g.free != 1 {
		t.Fatalf("free %d, want 1", g.free)
	}
}
