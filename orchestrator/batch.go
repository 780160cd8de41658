package orchestrator

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"
)

// Batching (`batch = {size, timeout?, key?}`, docs/spec/orchestrator.md §3 step 4)
// runs the handler once for several events of one partition. On each
// node, the first event of a partition to reach its attempt opens a
// batch and leads it; the events that reach theirs while it is open join
// it. The batch closes when it holds size events or timeout after it
// opened; the leader then passes the other gates once and calls the
// handler with the list of events, oldest first, and every member ends
// its own delivery with the leader's outcome. Each delivery keeps its own
// lease, so a node that dies with a batch open loses nothing: every
// member runs again. A batch holds at most as many events as the node has
// workers (HARN_ORCHESTRATOR_WORKERS), since each waits in a worker slot.

// DefaultBatchTimeout closes a batch whose manifest sets no timeout.
const DefaultBatchTimeout = time.Second

type batcher struct {
	mu   sync.Mutex
	open map[string]*batch // partition -> the batch collecting events
}

type batch struct {
	events []map[string]any
	full   chan struct{} // closed when size events joined
	done   chan struct{} // closed when the leader has the outcome
	result attempt
}

// join adds an event to its partition's open batch, or opens one; it
// reports whether the caller leads the batch.
func (bt *batcher) join(b *Binding, env Envelope) (*batch, bool) {
	g := b.Flow.Batch
	k := batchKey(b, env)
	bt.mu.Lock()
	defer bt.mu.Unlock()
	if bt.open == nil {
		bt.open = map[string]*batch{}
	}
	x := bt.open[k]
	lead := x == nil
	if lead {
		x = &batch{full: make(chan struct{}), done: make(chan struct{})}
		bt.open[k] = x
	}
	x.events = append(x.events, env.Event)
	if len(x.events) >= g.Size {
		close(x.full)
		delete(bt.open, k)
	}
	return x, lead
}

// collect waits, as the leader, until the batch is full or its timeout
// passes, closes it and returns its events (as the handler's list).
func (bt *batcher) collect(ctx context.Context, b *Binding, env Envelope, x *batch) []any {
	timeout := b.Flow.Batch.Timeout
	if timeout <= 0 {
		timeout = DefaultBatchTimeout
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-x.full:
	case <-t.C:
	case <-ctx.Done():
	}
	k := batchKey(b, env)
	bt.mu.Lock()
	defer bt.mu.Unlock()
	if bt.open[k] == x {
		delete(bt.open, k)
	}
	out := make([]any, len(x.events))
	for i, e := range x.events {
		out[i] = e
	}
	return out
}

// batchKey is an event's batch partition. It includes the binding
// version: the members of a batch share one handler call, so an event
// replayed as an earlier version of the binding never joins a batch of
// the current one.
func batchKey(b *Binding, env Envelope) string {
	return keyOf(b, "batch", b.Flow.Batch, env.Event) + "@" + strconv.Itoa(b.Version)
}

// finish hands the leader's outcome to the members.
func (x *batch) finish(a attempt) {
	x.result = a
	close(x.done)
}

// await is a member's outcome: the leader's, without its usage (the
// leader's record counts the handler run once).
func (x *batch) await(ctx context.Context) attempt {
	select {
	case <-x.done:
		r := x.result
		return attempt{status: r.status, result: r.result, err: r.err, errorClass: r.errorClass, hopeless: r.hopeless, retryAtMs: r.retryAtMs, batched: true}
	case <-ctx.Done():
		return attempt{status: "failed", err: errors.New("the batch's lease was lost before it ran"), errorClass: "unknown"}
	}
}
