package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// recorder writes the per-call records off the call path: a tool call
// answers without waiting for its stderr line to be written or its
// action-graph record (and harn.secret_scan's audit record) to reach the
// disk (one fsync per call would bound the server's rate by the disk's,
// and its tail by the disk's fsync tail), while lines and records keep
// their order. The records of many calls go together: the lines in one write,
// the records in one AppendAll, one transaction. A batch starts with the
// first record queued after the previous batch was written and gathers
// for up to window, or until it holds maxBatch records, or someone
// flushes: a transaction costs the SQLite log a fixed few hundred
// microseconds of CPU (its commit, fsync and page writes) besides what
// each record costs, which under load otherwise fell on batches of a few
// dozen records. A full queue makes callers wait (backpressure); Close
// and Flush drain it. What is still queued when the process is killed is
// lost — it describes calls, not events: accepted events and dispatch
// outcomes never go through it (docs/orchestrator.md, Failure
// semantics).
type recorder struct {
	log   eventlog.Log
	queue chan recorderItem
	done  chan struct{}
	fail  func(error)
	emit  func(lines []byte) // writes stderr lines
	// appended is told the records of each batch the log stored, ids set.
	appended func(topic string, recs []eventlog.Record)
	// window is how long a batch waits for more records.
	window time.Duration
	// mu guards closed: a call that finishes after close (its connection
	// ended while it ran) appends synchronously instead.
	mu     sync.RWMutex
	closed bool
}

type recorderItem struct {
	line  []byte // a stderr line, with its newline
	topic string
	rec   eventlog.Record
	flush chan struct{}
}

func newRecorder(log eventlog.Log, emit func([]byte), appended func(string, []eventlog.Record), fail func(error)) *recorder {
	return newRecorderWindow(log, emit, appended, fail, gatherWindow)
}

// newRecorderWindow is newRecorder with a gathering window of its own.
func newRecorderWindow(log eventlog.Log, emit func([]byte), appended func(string, []eventlog.Record), fail func(error), window time.Duration) *recorder {
	r := &recorder{log: log, queue: make(chan recorderItem, 4096), done: make(chan struct{}), emit: emit, appended: appended, fail: fail,
		window: window}
	go r.run()
	return r
}

// maxBatch bounds the records of one AppendAll: the log's other writers
// (synchronous audits, dispatches) wait while it commits.
const maxBatch = 256

// gatherWindow is how long a batch of records waits for more. Under
// issue 11's load (64 clients calling harn.trust.query, about 17,000
// calls a second on two cores) batches grew from about 70 records on
// average to about 235; a stderr line or record reaches its destination
// at most this much later than it did, which nothing reading them
// notices (tests and shutdown flush).
const gatherWindow = 10 * time.Millisecond

func (r *recorder) run() {
	defer close(r.done)
	var batch []eventlog.TopicRecord
	var flushes []chan struct{}
	var lines []byte
	timer := time.NewTimer(r.window)
	defer timer.Stop()
	for it := range r.queue {
		batch, flushes, lines = batch[:0], flushes[:0], lines[:0]
		timer.Reset(r.window)
		open := true
	gather:
		for {
			switch {
			case it.flush != nil:
				flushes = append(flushes, it.flush)
			default:
				lines = append(lines, it.line...)
				batch = append(batch, eventlog.TopicRecord{Topic: it.topic, Record: it.rec})
			}
			if len(batch) == maxBatch {
				break
			}
			// What is queued joins the batch; then, unless someone
			// waits for it, the batch waits for more until the window
			// ends.
			select {
			case it, open = <-r.queue:
				if !open {
					break gather
				}
				continue
			default:
			}
			if len(flushes) > 0 {
				break
			}
			select {
			case it, open = <-r.queue:
				if !open {
					break gather
				}
			case <-timer.C:
				break gather
			}
		}
		if len(lines) > 0 {
			r.emit(lines)
		}
		if len(batch) > 0 {
			r.write(batch)
		}
		for _, f := range flushes {
			close(f)
		}
		if !open {
			return
		}
	}
}

// write appends a batch; when the log refuses it, the records are
// appended one by one, so one record the log cannot store does not take
// the others with it.
func (r *recorder) write(batch []eventlog.TopicRecord) {
	if ids, err := r.log.AppendAll(context.Background(), batch...); err == nil {
		r.handOver(batch, ids)
		return
	}
	for _, tr := range batch {
		if _, err := r.log.Append(context.Background(), tr.Topic, tr.Record); err != nil {
			r.fail(err)
		}
	}
}

// handOver tells appended the records of a stored batch, by topic.
func (r *recorder) handOver(batch []eventlog.TopicRecord, ids []int64) {
	if r.appended == nil || len(ids) != len(batch) {
		return
	}
	byTopic := map[string][]eventlog.Record{}
	for i, tr := range batch {
		rec := tr.Record
		rec.ID = ids[i]
		byTopic[tr.Topic] = append(byTopic[tr.Topic], rec)
	}
	for topic, recs := range byTopic {
		r.appended(topic, recs)
	}
}

// add queues a call's stderr line (ending in a newline; nil for none)
// and record.
func (r *recorder) add(line []byte, topic string, rec eventlog.Record) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		if len(line) > 0 {
			r.emit(line)
		}
		if _, err := r.log.Append(context.Background(), topic, rec); err != nil {
			r.fail(err)
		}
		return
	}
	r.queue <- recorderItem{line: line, topic: topic, rec: rec}
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
