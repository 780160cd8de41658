package mcpserver

import (
	"context"
	"sync"

	"github.com/harnlang/harn/eventlog"
)

// recorder writes the per-call observability off the call path: a tool
// call answers without waiting for its stderr line to be written or its
// action-graph record to reach the disk (one fsync per call would bound
// the server's rate by the disk's), while lines and records keep their
// order. What is queued while the previous batch is written goes
// together: the lines in one write, the records in one AppendAll, one
// transaction, however many calls they describe. A full queue makes
// callers wait (backpressure); Close and Flush drain it. What is still
// queued when the process is killed is lost — it describes calls, not
// events; events and audits are written synchronously.
type recorder struct {
	log   eventlog.Log
	queue chan recorderItem
	done  chan struct{}
	fail  func(error)
	emit  func(lines []byte) // writes stderr lines
	// appended is told the records of each batch the log stored, ids set.
	appended func(topic string, recs []eventlog.Record)
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
	r := &recorder{log: log, queue: make(chan recorderItem, 4096), done: make(chan struct{}), emit: emit, appended: appended, fail: fail}
	go r.run()
	return r
}

// maxBatch bounds the records of one AppendAll.
const maxBatch = 256

func (r *recorder) run() {
	defer close(r.done)
	var batch []eventlog.TopicRecord
	var flushes []chan struct{}
	var lines []byte
	for it := range r.queue {
		batch, flushes, lines = batch[:0], flushes[:0], lines[:0]
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
			var ok bool
			select {
			case it, ok = <-r.queue:
			default:
			}
			if !ok {
				break
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

// add queues a call's stderr line (ending in a newline) and record.
func (r *recorder) add(line []byte, topic string, rec eventlog.Record) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		r.emit(line)
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
