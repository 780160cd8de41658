package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator"
)

// BenchmarkTrustQuery is one harn.trust.query on a SQLite log holding
// n trust records, without the protocol around it.
func BenchmarkTrustQuery(b *testing.B) {
	for _, n := range []int{0, 100, 1000} {
		ctx := context.Background()
		dir := writeFixture(b)
		log, err := sqlite.Open(ctx, filepath.Join(dir, "events.db"))
		if err != nil {
			b.Fatal(err)
		}
		recs := make([]eventlog.TopicRecord, n)
		for i := range recs {
			p, _ := json.Marshal(orchestrator.TrustRecord{Agent: "triage", Tier: "act_auto", Outcome: "success", EventID: fmt.Sprintf("e%d", i)})
			recs[i] = eventlog.TopicRecord{Topic: orchestrator.TopicTrust, Record: eventlog.Record{Kind: "trust_success", Payload: p}}
		}
		if n > 0 {
			if _, err := log.AppendAll(ctx, recs...); err != nil {
				b.Fatal(err)
			}
		}
		srv, err := New(ctx, Options{ManifestPath: filepath.Join(dir, "harn.toml"), StateDir: dir, Log: log, Version: "9.9.9", Bind: "stdio", Stderr: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range []struct {
			name string
			args map[string]any
		}{{"all", map[string]any{"outcome": "success"}}, {"limit10", map[string]any{"limit": json.Number("10")}}} {
			b.Run(fmt.Sprintf("records=%d/%s", n, q.name), func(b *testing.B) {
				c := &callCtx{ctx: ctx}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := srv.trustQuery(c, q.args); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		srv.Close()
		log.Close()
	}
}

// Concurrent queries share the cached records while a writer appends
// (run with -race).
func TestTrustQueryConcurrent(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := &callCtx{ctx: ctx}
			for range 20 {
				got, err := c.srv.trustQuery(cc, map[string]any{"outcome": "success", "limit": json.Number("5")})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := jsonMarshal(got); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 40 {
		p, _ := json.Marshal(orchestrator.TrustRecord{Agent: "triage", Tier: "act_auto", Outcome: "success", EventID: fmt.Sprintf("e%d", i)})
		if _, err := c.log.Append(ctx, orchestrator.TopicTrust, eventlog.Record{Kind: "trust_success", Payload: p}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	got, err := c.srv.trustQuery(&callCtx{ctx: ctx}, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.(trustResults).Results); n != 40 {
		t.Errorf("%d records, want 40", n)
	}
}

// gatedLog is a log whose first Count takes the head and then waits at
// gate before returning it: a head read in flight while others arrive.
type gatedLog struct {
	eventlog.Log
	entered chan struct{} // closed when the first Count has its head
	gate    chan struct{}
	mu      sync.Mutex
	counts  int
}

func (g *gatedLog) Count(ctx context.Context, topic string) (int64, error) {
	n, err := g.Log.Count(ctx, topic)
	g.mu.Lock()
	g.counts++
	first := g.counts == 1
	g.mu.Unlock()
	if first {
		close(g.entered)
		<-g.gate
	}
	return n, err
}

func appendTrustRecord(t *testing.T, l eventlog.Log, id string) {
	t.Helper()
	p, _ := json.Marshal(orchestrator.TrustRecord{Agent: "triage", Tier: "act_auto", Outcome: "success", EventID: id})
	if _, err := l.Append(context.Background(), orchestrator.TopicTrust, eventlog.Record{Kind: "trust_success", Payload: p}); err != nil {
		t.Fatal(err)
	}
}

// waitJoined waits until the trust cache's next head read has n joiners
// besides the query that runs it.
func waitJoined(c *trustCache, n int) {
	for {
		c.hmu.Lock()
		ok := c.gather != nil && c.gather.joined >= n
		c.hmu.Unlock()
		if ok {
			return
		}
		runtime.Gosched()
	}
}

// Queries that arrive while a head read is in flight do not take its
// result: it may predate an append that returned before they came. They
// share one read of their own, after it.
func TestTrustHeadReadsAreShared(t *testing.T) {
	ctx := context.Background()
	log := &gatedLog{Log: memory.New(), entered: make(chan struct{}), gate: make(chan struct{})}
	var c trustCache
	first := make(chan int)
	go func() {
		recs, err := c.records(ctx, log)
		if err != nil {
			t.Error(err)
		}
		first <- len(recs)
	}()
	<-log.entered // the first read has taken head 0
	appendTrustRecord(t, log, "e1")
	const later = 5
	got := make(chan int, later)
	for range later {
		go func() {
			recs, err := c.records(ctx, log)
			if err != nil {
				t.Error(err)
			}
			got <- len(recs)
		}()
	}
	waitJoined(&c, later-1) // all five wait for the next read
	close(log.gate)
	if n := <-first; n != 0 {
		t.Errorf("first query: %d records, want 0 (its read predates the append)", n)
	}
	for range later {
		if n := <-got; n != 1 {
			t.Errorf("later query: %d records, want 1: it took a head read older than itself", n)
		}
	}
	if log.counts != 2 {
		t.Errorf("%d head reads for %d queries, want 2", log.counts, later+1)
	}
}

// A query whose shared head read failed because the query running it
// was cancelled reads again rather than failing.
func TestTrustHeadReadOutlivesItsRunner(t *testing.T) {
	log := &gatedLog{Log: memory.New(), entered: make(chan struct{}), gate: make(chan struct{})}
	appendTrustRecord(t, log, "e1")
	var c trustCache
	// A read in flight, so that the next one gathers joiners.
	go c.records(context.Background(), log)
	<-log.entered
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	runner := make(chan error)
	go func() { _, err := c.records(cancelled, &cancelledCount{log}); runner <- err }()
	waitJoined(&c, 0)
	got := make(chan int)
	go func() {
		recs, err := c.records(context.Background(), log)
		if err != nil {
			t.Error(err)
		}
		got <- len(recs)
	}()
	waitJoined(&c, 1)
	close(log.gate)
	if err := <-runner; !errors.Is(err, context.Canceled) {
		t.Errorf("runner: %v, want context.Canceled", err)
	}
	if n := <-got; n != 1 {
		t.Errorf("joiner: %d records, want 1", n)
	}
}

// cancelledCount is a log whose Count fails with its context's error,
// as a read under a cancelled context does.
type cancelledCount struct{ eventlog.Log }

func (l *cancelledCount) Count(ctx context.Context, topic string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	return l.Log.Count(ctx, topic)
}

// countingLog counts head reads of a SQLite log (whose Generation it
// keeps).
type countingLog struct {
	*sqlite.Log
	mu     sync.Mutex
	counts int
}

func (l *countingLog) Count(ctx context.Context, topic string) (int64, error) {
	l.mu.Lock()
	l.counts++
	l.mu.Unlock()
	return l.Log.Count(ctx, topic)
}

// On a log with generations, a query reads the head only when something
// may have been committed to the trust topic since the last read: by
// this log to that topic, or by another handle to any.
func TestTrustQuerySkipsReadsOfUnchangedLog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.db")
	open := func() *sqlite.Log {
		l, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	log := &countingLog{Log: open()}
	other := open()
	var c trustCache
	query := func(wantRecs, wantCounts int) {
		t.Helper()
		recs, err := c.records(ctx, log)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != wantRecs || log.counts != wantCounts {
			t.Fatalf("%d records after %d head reads, want %d after %d", len(recs), log.counts, wantRecs, wantCounts)
		}
	}
	appendTrustRecord(t, log, "e1")
	query(1, 1)
	query(1, 1)
	appendTrustRecord(t, other, "e2")
	query(2, 2)
	query(2, 2)
	if _, err := other.Append(ctx, "elsewhere", eventlog.Record{Kind: "k"}); err != nil {
		t.Fatal(err)
	}
	query(2, 3) // another handle's commit costs one read, whatever its topic
	query(2, 3)
	// This log's own appends to other topics (the action-graph record
	// of every tool call) cost none.
	for range 3 {
		if _, err := log.Append(ctx, orchestrator.TopicActionGraph, eventlog.Record{Kind: "k"}); err != nil {
			t.Fatal(err)
		}
		query(2, 3)
	}
	appendTrustRecord(t, log, "e3")
	query(3, 4)
}
