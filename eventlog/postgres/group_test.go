package postgres

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestFailingStepInGroup: a step the database refuses fails alone; the
// steps submitted with it (and so first committed in its group) succeed,
// and ids stay dense.
func TestFailingStepInGroup(t *testing.T) {
	ctx := context.Background()
	l, err := Open(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const n = 32
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if i%8 != 3 {
				_, errs[i] = l.Append(ctx, "t", eventlog.Record{Kind: fmt.Sprint("ok", i)})
				return
			}
			// A step whose statement fails, with records of its own.
			errs[i] = l.write(ctx, &step{
				queue:   func(b *pgx.Batch, _ string) { b.Queue(`SELECT 1 / 0`) },
				records: []eventlog.TopicRecord{{Topic: "t", Record: eventlog.Record{Kind: "never"}}},
			})
		}(i)
	}
	wg.Wait()
	bad := 0
	for i, err := range errs {
		if i%8 == 3 {
			bad++
			if err == nil {
				t.Errorf("step %d: the failing statement did not fail it", i)
			}
		} else if err != nil {
			t.Errorf("append %d: %v", i, err)
		}
	}
	recs, err := l.Read(ctx, "t", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if r.ID != int64(i+1) || r.Kind == "never" {
			t.Fatalf("record %d: id %d kind %q; want dense ids and no record of a failed step", i, r.ID, r.Kind)
		}
	}
	if len(recs) != n-bad {
		t.Errorf("%d records, want %d", len(recs), n-bad)
	}
}

// TestGroupKeepsEachStepsOutcome commits steps of every kind in one
// group: the records of a duplicate Accept and of a fenced-off Complete
// are not appended, the others' are, with dense ids in step order.
func TestGroupKeepsEachStepsOutcome(t *testing.T) {
	ctx := context.Background()
	l, err := Open(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, id := range []string{"x", "y"} {
		if _, _, err := l.Accept(ctx, eventlog.Delivery{ID: id, BindingID: "b"}); err != nil {
			t.Fatal(err)
		}
	}
	leases, err := l.Claim(ctx, "w", 2, time.Hour)
	if err != nil || len(leases) != 2 {
		t.Fatalf("claim: %v %v", leases, err)
	}
	stale := leases[0]
	stale.Token++
	out := func(topic, kind string) []eventlog.TopicRecord {
		return []eventlog.TopicRecord{{Topic: topic, Record: eventlog.Record{Kind: kind}}}
	}
	accept := func(id, kind string) *step {
		var due, created int64
		return gated(sqlAccept, []any{id, "b", []byte("{}"), int64(0)}, []any{&due, &created}, out("env", kind))
	}
	complete := func(ls eventlog.Lease, kind string) *step {
		return fenceStep(sqlComplete, ls, nil, append(out("out", kind), out("att", kind)...), string(eventlog.Done), "")
	}
	group := []*step{
		accept("a", "a"),
		complete(stale, "stale"),
		{records: append(out("out", "appended"), out("env", "appended")...)},
		accept("a", "dup"),
		complete(leases[1], "ok"),
		accept("c", "c"),
	}
	for _, s := range group {
		s.ctx = ctx
	}
	l.commit(group)

	want := []struct {
		took bool
		ids  []int64
	}{{true, []int64{1}}, {false, nil}, {false, []int64{1, 2}}, {false, nil}, {true, []int64{2, 1}}, {true, []int64{3}}}
	for i, s := range group {
		if s.err != nil || (s.gated && s.took != want[i].took) || !slices.Equal(s.ids, want[i].ids) {
			t.Errorf("step %d: err %v took %v ids %v, want took %v ids %v", i, s.err, s.took, s.ids, want[i].took, want[i].ids)
		}
	}
	for topic, kinds := range map[string][]string{"env": {"a", "appended", "c"}, "out": {"appended", "ok"}, "att": {"ok"}} {
		recs, err := l.Read(ctx, topic, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, r := range recs {
			if r.ID != int64(i+1) {
				t.Errorf("%s: record %d has id %d", topic, i, r.ID)
			}
			got = append(got, r.Kind)
		}
		if !slices.Equal(got, kinds) {
			t.Errorf("%s holds %v, want %v", topic, got, kinds)
		}
	}
	if d, err := l.Get(ctx, stale.ID); err != nil || d.State != eventlog.Leased {
		t.Errorf("fenced-off delivery: %+v %v, want it still leased", d, err)
	}
}

// roundTrips counts the round trips of a connection's queries and batches.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestDispatchRoundTrips: a dispatch (AcceptLeased with its envelope
// record, then Complete with its attempt and outbox records) costs one
// round trip to the server per step.
func TestDispatchRoundTrips(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1 // statements are prepared once per connection; the warm-up prepares them all
	rt := &roundTrips{}
	cfg.ConnConfig.Tracer = rt
	l, err := open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dispatch := func(id string) {
		ls, ok, err := l.AcceptLeased(ctx, eventlog.Delivery{ID: id, BindingID: "b", Envelope: []byte(`{}`)}, "w", time.Hour,
			eventlog.TopicRecord{Topic: "envelopes", Record: eventlog.Record{Kind: "envelope"}})
		if err != nil || !ok {
			t.Fatalf("accept %s: %v %v", id, ok, err)
		}
		if err := l.Complete(ctx, ls, eventlog.Done, "",
			eventlog.TopicRecord{Topic: "attempts", Record: eventlog.Record{Kind: "attempt"}},
			eventlog.TopicRecord{Topic: "outbox", Record: eventlog.Record{Kind: "result"}}); err != nil {
			t.Fatalf("complete %s: %v", id, err)
		}
	}
	dispatch("warm")
	rt.n.Store(0)
	const n = 5
	for i := 0; i < n; i++ {
		dispatch(fmt.Sprint("d", i))
	}
	if got := rt.n.Load(); got != 2*n {
		t.Errorf("%d dispatches took %d round trips, want %d", n, got, 2*n)
	}
}
