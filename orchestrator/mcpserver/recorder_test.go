package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

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
	r := newRecorder(log, func(err error) { t.Error(err) })
	r.add("t", eventlog.Record{Kind: "k0"})
	<-log.entered
	for i := 1; i <= 10; i++ {
		r.add("t", eventlog.Record{Kind: fmt.Sprint("k", i)})
	}
	close(log.release)
	r.Flush()
	r.close()
	if want := []int{1, 10}; !slices.Equal(log.batches, want) {
		t.Errorf("batches of %v records, want %v", log.batches, want)
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
