package mcpserver

import (
	"context"
	"sync"

	"github.com/harnlang/harn/eventlog"
)

// recorder appends the per-call observability records off the call
// path: a tool call answers without waiting for its action-graph record
// to reach the disk (one fsync per call would bound the server's rate by
// the disk's), while the records keep their order. A full queue makes
// callers wait (backpressure); Close and Flush drain it. Records still
// queued when the process is killed are lost — they describe calls, not
// events; events and audits are written synchronously.
type recorder struct {
	log   eventlog.Log
	queue chan recorderItem
	done  chan struct{}
	fail  func(error)
	// mu guards closed: a call that finishes after close (its connection
	// ended while it ran) appends synchronously instead.
	mu     sync.RWMutex
	closed bool
}

type recorderItem struct {
	topic string
	rec   eventlog.Record
	flush chan struct{}
}

func newRecorder(log eventlog.Log, fail func(error)) *recorder {
	r := &recorder{log: log, queue: make(chan recorderItem, 4096), done: make(chan struct{}), fail: fail}
	go r.run()
	return r
}

func (r *recorder) run() {
	defer close(r.done)
	for it := range r.queue {
		if it.flush != nil {
			close(it.flush)
			continue
		}
		if _, err := r.log.Append(context.Background(), it.topic, it.rec); err != nil {
			r.fail(err)
		}
	}
}

// add queues a record.
func (r *recorder) add(topic string, rec eventlog.Record) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		if _, err := r.log.Append(context.Background(), topic, rec); err != nil {
			r.fail(err)
		}
		return
	}
	r.queue <- recorderItem{topic: topic, rec: rec}
}

// Flush waits until every record queued before it is appended.
func (r *recorder) Flush() {
	r.mu.RLock()
	if r.closed {
		r.mu.RUnlock()
		return
	}
	ch := make(chan struct{})
	r.queue <- recorderItem{flush: ch}
	r.mu.RUnlock()
	<-ch
}

// close appends what is queued and stops.
func (r *recorder) close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	close(r.queue)
	r.mu.Unlock()
	<-r.done
}
