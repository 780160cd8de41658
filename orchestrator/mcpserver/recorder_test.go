package mcpserver

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
)

// batchLog is a memory log that counts AppendAll batches and holds the
// first one until release is closed.
type batchLog struct {
	eventlog.Log
	mu      sync.Mutex
	batches []int
	entered chan struct{}
	release chan struct{}
}

func (l *batchLog) AppendAll(ctx context.Context, records ...eventlog.TopicRecord) ([]int64, error) {
	l.mu.Lock()
	first := len(l.batches) == 0
	l.batches = append(l.batches, len(records))
	l.mu.Unlock()
	if first {
		close(l.entered)
		<-l.release
	}
	return l.Log.AppendAll(ctx, records...)
}

// The records queued while a batch is written go together in the next
// one, in order: one transaction for many calls.
func TestRecorderBatches(t *testing.T) {
	log := &batchLog{Log: memory.New(), entered: make(chan struct{}), release: make(chan struct{})}
	var writes []string
	r := newRecorder(log, func(b []byte) { writes = append(writes, string(b)) }, nil, func(err error) { t.Error(err) })
	r.add([]byte("line 0\n"), "t", eventlog.Record{Kind: "k0"})
	<-log.entered
	for i := 1; i <= 10; i++ {
		r.add(fmt.Appendf(nil, "line %d\n", i), "t", eventlog.Record{Kind: fmt.Sprint("k", i)})
	}
	close(log.release)
	r.Flush()
	r.close()
	if want := []int{1, 10}; !slices.Equal(log.batches, want) {
		t.Errorf("batches of %v records, want %v", log.batches, want)
	}
	if len(writes) != 2 || writes[0] != "line 0\n" || !strings.HasPrefix(writes[1], "line 1\nline 2\n") || !strings.HasSuffix(writes[1], "line 10\n") {
		t.Errorf("stderr writes %q, want line 0 then lines 1 to 10 in one", writes)
	}
	recs, _ := log.Read(context.Background(), "t", 0, 0)
	var kinds []string
	for _, rec := range recs {
		kinds = append(kinds, rec.Kind)
	}
	if len(kinds) != 11 || kinds[0] != "k0" || kinds[10] != "k10" || kinds[5] != "k5" {
		t.Errorf("records %v", kinds)
	}
}

// The records of a stored batch are handed over by topic with the ids
// the log gave them, so the orchestrator's view need not read them back.
func TestRecorderHandsOverStoredRecords(t *testing.T) {
	log := memory.New()
	log.Append(context.Background(), "a", eventlog.Record{Kind: "earlier"})
	handed := map[string][]string{}
	r := newRecorder(log, func([]byte) {}, func(topic string, recs []eventlog.Record) {
		for _, rec := range recs {
			handed[topic] = append(handed[topic], fmt.Sprintf("%d:%s", rec.ID, rec.Kind))
		}
	}, func(err error) { t.Error(err) })
	r.add(nil, "a", eventlog.Record{Kind: "x"})
	r.add(nil, "b", eventlog.Record{Kind: "y"})
	r.add(nil, "a", eventlog.Record{Kind: "z"})
	r.close()
	if got := fmt.Sprint(handed); got != "map[a:[2:x 3:z] b:[1:y]]" {
		t.Errorf("handed over %s", got)
	}
}

// batchSizeLog is a memory log that records the size of each AppendAll.
type batchSizeLog struct {
	eventlog.Log
	mu      sync.Mutex
	batches []int
}

func (l *batchSizeLog) AppendAll(ctx context.Context, records ...eventlog.TopicRecord) ([]int64, error) {
	l.mu.Lock()
	l.batches = append(l.batches, len(records))
	l.mu.Unlock()
	return l.Log.AppendAll(ctx, records...)
}

// A batch waits for more records for the recorder's window, even when
// the log is idle and nothing else is queued: records that arrive one by
// one go in one AppendAll, one transaction, rather than one each. A
// Flush ends the wait (the window here is an hour), and so does close.
func TestRecorderGathersWithinWindow(t *testing.T) {
	log := &batchSizeLog{Log: memory.New()}
	var lines []string
	r := newRecorderWindow(log, func(b []byte) { lines = append(lines, string(b)) }, nil, func(err error) { t.Error(err) }, time.Hour)
	for i := range 3 {
		r.add(fmt.Appendf(nil, "line %d\n", i), "t", eventlog.Record{Kind: fmt.Sprint("k", i)})
		// The recorder has taken the record (a recorder without a
		// window writes it now, alone).
		for len(r.queue) > 0 {
			runtime.Gosched()
		}
	}
	r.Flush()
	r.add([]byte("line 3\n"), "t", eventlog.Record{Kind: "k3"})
	r.close()
	if want := []int{3, 1}; !slices.Equal(log.batches, want) {
		t.Errorf("batches of %v records, want %v", log.batches, want)
	}
	if want := []string{"line 0\nline 1\nline 2\n", "line 3\n"}; !slices.Equal(lines, want) {
		t.Errorf("stderr writes %q, want %q", lines, want)
	}
	if n, _ := log.Count(context.Background(), "t"); n != 4 {
		t.Errorf("%d records in the log, want 4", n)
	}
}
