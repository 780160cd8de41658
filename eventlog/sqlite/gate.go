package sqlite

import (
	"context"
	"slices"
	"sync"
)

// gate admits at most n readers at a time to the read pool, in the order
// they arrive. database/sql hands a freed connection to a waiter chosen at
// random, so under load (64 callers on readConns connections) a read can
// lose that draw many times in a row: its wait has a long tail, and so
// does the latency of every call that reads. Waiting here first, in line,
// keeps the pool's own queue empty and each read's wait near the mean.
type gate struct {
	mu      sync.Mutex
	free    int
	waiters []chan struct{} // oldest first
}

func newGate(n int) *gate { return &gate{free: n} }

// enter waits for a turn; it fails only when ctx ends first.
func (g *gate) enter(ctx context.Context) error {
	g.mu.Lock()
	if g.free > 0 {
		g.free--
		g.mu.Unlock()
		return nil
	}
	w := make(chan struct{}, 1)
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	select {
	case <-w:
		return nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	if i := slices.Index(g.waiters, w); i >= 0 {
		g.waiters = slices.Delete(g.waiters, i, i+1)
		g.mu.Unlock()
		return ctx.Err()
	}
	g.mu.Unlock()
	// The turn came as ctx ended: pass it on.
	<-w
	g.leave()
	return ctx.Err()
}

// leave ends a turn, handing it to the oldest waiter.
func (g *gate) leave() {
	g.mu.Lock()
	if len(g.waiters) == 0 {
		g.free++
		g.mu.Unlock()
		return
	}
	w := g.waiters[0]
	g.waiters[0] = nil
	g.waiters = g.waiters[1:]
	g.mu.Unlock()
	w <- struct{}{}
}
