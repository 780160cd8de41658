package mcpserver

import (
	"context"
	"sync"

	"github.com/harnlang/harn/eventlog"
)

// recorder appends the per-call observability records off the call
// path: a tool call answers without waiting for its action-graph record
// to reach the disk (one fsync per call would bound the server's rate by
// the disk's), while the records keep their order. The records queued
// while the previous batch was written go in one AppendAll, one
// transaction, however many calls they describe. A full queue makes
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

// maxBatch bounds the records of one AppendAll.
const maxBatch = 256

func (r *recorder) run() {
	defer close(r.done)
	var batch []eventlog.TopicRecord
	var flushes []chan struct{}
	for it := range r.queue {
		batch, flushes = batch[:0], flushes[:0]
		for {
			if it.flush != nil {
				flushes = append(flushes, it.flush)
			} else {
				batch = append(batch, eventlog.TopicRecord{Topic: it.topic, Record: it.rec})
			}
			if len(batch) == maxBatch {
				break
			}
			var ok bool
			select {
			case it, ok = <-r.queue:
			default:
			}
			if !ok {
				break
			}
		}
		if len(batch) > 0 {
			r.write(batch)
		}
		for _, f := range flushes {
			close(f)
		}
	}
}

// write appends a batch; when the log refuses it, the records are
// appended one by one, so one record the log cannot store does not take
// the others with it.
func (r *recorder) write(batch []eventlog.TopicRecord) {
	if _, err := r.log.AppendAll(context.Background(), batch...); err == nil {
		return
	}
	for _, tr := range batch {
		if _, err := r.log.Append(context.Background(), tr.Topic, tr.Record); err != nil {
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
