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
	once  sync.Once
	fail  func(error)
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
	r.queue <- recorderItem{topic: topic, rec: rec}
}

// Flush waits until every record queued before it is appended.
func (r *recorder) Flush() {
	ch := make(chan struct{})
	r.queue <- recorderItem{flush: ch}
	<-ch
}

// close appends what is queued and stops.
func (r *recorder) close() {
	r.once.Do(func() {
		close(r.queue)
		<-r.done
	})
}
