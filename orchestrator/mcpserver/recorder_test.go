package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
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
