package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
)

// readCountingLog counts the records its Reads return.
type readCountingLog struct {
	eventlog.Log
	read atomic.Int64
}

func (c *readCountingLog) Read(ctx context.Context, topic string, after int64, limit int) ([]eventlog.Record, error) {
	recs, err := c.Log.Read(ctx, topic, after, limit)
	c.read.Add(int64(len(recs)))
	return recs, err
}

// The views read each record once when folding it and afterwards only
// the records asked for: an event's trace does not rescan the topics,
// and a duplicate's handle reads one outbox record.
func TestViewsReadOnlyWhatTheyShow(t *testing.T) {
	log := &readCountingLog{Log: memory.New()}
	o := start(t, log, writeProject(t, testManifest, testLib, testHandlers))
	ctx := context.Background()
	var first Handle
	for i := 0; i < 60; i++ {
		h, err := o.Fire(ctx, "cron-ok", map[string]any{"n": i}, Caller{Client: "test/1", TraceID: fmt.Sprintf("mcp_trace_%d", i)})
		if err != nil || h.Status != "succeeded" {
			t.Fatal(h, err)
		}
		if i == 0 {
			first = h
		}
	}
	// What the MCP server appends after the call, related by trace id.
	log.Append(ctx, TopicActionGraph, eventlog.Record{Kind: "action_graph_update", Payload: []byte(`{"context":{"trace_id":"mcp_trace_0"}}`), Headers: map[string]string{"trace_id": "mcp_trace_0"}})
	if _, err := o.Queue(ctx); err != nil { // folds everything
		t.Fatal(err)
	}
	before := log.read.Load()
	et, err := o.Event(ctx, first.EventID)
	if err != nil || et == nil {
		t.Fatal(et, err)
	}
	if len(et.Trace.Outbox) != 1 || len(et.Trace.Attempts) != 1 || len(et.Trace.ActionGraph) != 1 || et.Event["n"] != json.Number("0") {
		t.Fatalf("trace %s", js(et))
	}
	// The event, its outcome, its attempt and its action-graph record;
	// rescanning would read the 240 records of the four topics.
	if n := log.read.Load() - before; n > 6 {
		t.Fatalf("harn://event read %d records", n)
	}
	before = log.read.Load()
	h, err := o.handleFromLog(ctx, Envelope{EventID: first.EventID, BindingID: "cron-ok", BindingVersion: 1})
	if err != nil || h.Status != "succeeded" || js(h.Result) != `{"kind":"cron.tick","ok":true}` {
		t.Fatalf("handle %s %v", js(h), err)
	}
	if n := log.read.Load() - before; n > 1 {
		t.Fatalf("a handle from the log read %d records", n)
	}
}

// A record that names events by its headers, its trace and its payload's
// context is related once to each event it names.
func TestRelateNotesEachEventOnce(t *testing.T) {
	v := newView(memory.New(), nil)
	v.byTrace["t1"] = []string{"e1", "e2", "e1"}
	v.relate(TopicActionGraph, eventlog.Record{ID: 7, Payload: []byte(`{"context":{"event_id":"e2"}}`),
		Headers: map[string]string{"event_id": "e1", "trace_id": "t1"}})
	v.relate(TopicActionGraph, eventlog.Record{ID: 8, Headers: map[string]string{"event_id": "e3"}})
	v.relate(TopicActionGraph, eventlog.Record{ID: 9, Payload: []byte(`{"context":{"event_id":"e4","tool_name":"t"},"result":{"x":1}}`)})
	v.relate(TopicActionGraph, eventlog.Record{ID: 10, Payload: []byte(`{"context":{"tool_name":"t"},"result":{"event_id":"e5"}}`)})
	for ev, want := range map[string]string{"e1": "[7]", "e2": "[7]", "e3": "[8]", "e4": "[9]", "e5": "[]"} {
		if got := fmt.Sprint(v.relatedTo(ev, TopicActionGraph)); got != want {
			t.Errorf("%s: related %s, want %s", ev, got, want)
		}
	}
}

// appendGraph appends action-graph records naming traces and returns
// them with their ids.
func appendGraph(t *testing.T, log eventlog.Log, traces ...string) []eventlog.Record {
	t.Helper()
	var batch []eventlog.TopicRecord
	for _, tr := range traces {
		batch = append(batch, eventlog.TopicRecord{Topic: TopicActionGraph, Record: eventlog.Record{Kind: "action_graph_update",
			Payload: []byte(`{}`), Headers: map[string]string{"trace_id": tr}}})
	}
	ids, err := log.AppendAll(context.Background(), batch...)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]eventlog.Record, len(batch))
	for i, tr := range batch {
		recs[i] = tr.Record
		recs[i].ID = ids[i]
	}
	return recs
}

// Records handed over by the process that appended them are folded
// without being read back; what was not handed over (another process's
// records, a gap) is read from the log, and the view relates the same
// records either way.
func TestViewFoldsHandedRecordsWithoutReadingThem(t *testing.T) {
	ctx := context.Background()
	log := &readCountingLog{Log: memory.New()}
	v := newView(log, nil)
	v.byTrace["t1"] = []string{"e1"}

	v.appended(TopicActionGraph, appendGraph(t, log, "t1", "t2", "t1"))
	if err := v.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n := log.read.Load(); n != 0 {
		t.Fatalf("the refresh read back %d handed records", n)
	}
	if got := fmt.Sprint(v.relatedTo("e1", TopicActionGraph)); got != "[1 3]" {
		t.Fatalf("e1 related to %s, want [1 3]", got)
	}

	appendGraph(t, log, "t1")                                     // id 4, not handed over
	v.appended(TopicActionGraph, appendGraph(t, log, "t2", "t1")) // ids 5, 6
	if err := v.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n := log.read.Load(); n != 3 {
		t.Fatalf("after a gap the refresh read %d records, want the 3 from the gap on", n)
	}
	if got := fmt.Sprint(v.relatedTo("e1", TopicActionGraph)); got != "[1 3 4 6]" {
		t.Fatalf("e1 related to %s, want [1 3 4 6]", got)
	}
	v.handMu.Lock()
	left := len(v.handed[TopicActionGraph])
	v.handMu.Unlock()
	if left != 0 {
		t.Fatalf("%d handed records kept after they were folded", left)
	}
}

// What a busy server hands over between two refreshes (half a second
// of a 64-client load's tool calls, over 10,000 a second at times) is
// folded without reading any of it back.
func TestViewKeepsAHalfSecondOfHandedRecords(t *testing.T) {
	log := &readCountingLog{Log: memory.New()}
	v := newView(log, nil)
	traces := make([]string, 256) // one recorder batch
	for i := range traces {
		traces[i] = "t"
	}
	for range 6000 / len(traces) {
		v.appended(TopicActionGraph, appendGraph(t, log, traces...))
	}
	if err := v.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := log.read.Load(); n != 0 {
		t.Fatalf("the refresh read back %d of %d handed records", n, 6000/len(traces)*len(traces))
	}
}
