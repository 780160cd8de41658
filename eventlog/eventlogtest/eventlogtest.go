// Package eventlogtest is the conformance suite of the eventlog contract.
// Every backend's tests call Run with a function that opens a fresh, empty
// log, so sqlite, postgres and memory are held to the same behaviour.
package eventlogtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// Run runs the whole suite; open must return a new, empty log (it is
// closed by the suite).
func Run(t *testing.T, open func(t *testing.T) eventlog.Log) {
	cases := []struct {
		name string
		fn   func(t *testing.T, l eventlog.Log)
	}{
		{"IDsPerTopic", testIDsPerTopic},
		{"AppendAll", testAppendAll},
		{"RecordRoundTrip", testRecordRoundTrip},
		{"ReadTailCountTopics", testReadTailCountTopics},
		{"Cursors", testCursors},
		{"BadInput", testBadInput},
		{"AcceptIdempotent", testAcceptIdempotent},
		{"AcceptLeased", testAcceptLeased},
		{"ClaimOrderAndDue", testClaimOrderAndDue},
		{"LeaseHeld", testLeaseHeld},
		{"LeaseExpiryAndFencing", testLeaseExpiryAndFencing},
		{"Extend", testExtend},
		{"Complete", testComplete},
		{"Retry", testRetry},
		{"ConcurrentAppends", testConcurrentAppends},
		{"ConcurrentClaimers", testConcurrentClaimers},
		{"ConcurrentMixedOutcomes", testConcurrentMixedOutcomes},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := open(t)
			t.Cleanup(func() {
				if err := l.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			defer func() {
				if r := recover(); r != nil {
					f, ok := r.(failure)
					if !ok {
						panic(r)
					}
					t.Fatalf("%s:%d: %v", f.file, f.line, f.err)
				}
			}()
			c.fn(t, l)
		})
	}
}

var ctx = context.Background()

// failure is must's panic, turned into t.Fatal by Run.
type failure struct {
	err  error
	file string
	line int
}

// must returns v, or stops the test case at the caller's line when err is
// set. It is only for the test case's own goroutine.
func must[T any](v T, err error) T {
	if err != nil {
		_, file, line, _ := runtime.Caller(1)
		panic(failure{err, filepath.Base(file), line})
	}
	return v
}

func rec(kind string) eventlog.Record {
	return eventlog.Record{Kind: kind, Payload: json.RawMessage(`{"k":"` + kind + `"}`)}
}

func kinds(recs []eventlog.Record) []string {
	var ks []string
	for _, r := range recs {
		ks = append(ks, r.Kind)
	}
	return ks
}

func ids(recs []eventlog.Record) []int64 {
	var is []int64
	for _, r := range recs {
		is = append(is, r.ID)
	}
	return is
}

func testIDsPerTopic(t *testing.T, l eventlog.Log) {
	for i, want := range []int64{1, 2, 3} {
		if got := must(l.Append(ctx, "a", rec(fmt.Sprint("a", i)))); got != want {
			t.Fatalf("append %d to a: id %d, want %d", i, got, want)
		}
	}
	if got := must(l.Append(ctx, "b", rec("b0"))); got != 1 {
		t.Fatalf("first append to b: id %d, want 1", got)
	}
	if got := must(l.Append(ctx, "a", rec("a3"))); got != 4 {
		t.Fatalf("append to a after b: id %d, want 4", got)
	}
}

func testAppendAll(t *testing.T, l eventlog.Log) {
	must(l.Append(ctx, "a", rec("a0")))
	got := must(l.AppendAll(ctx,
		eventlog.TopicRecord{Topic: "a", Record: rec("a1")},
		eventlog.TopicRecord{Topic: "b", Record: rec("b0")},
		eventlog.TopicRecord{Topic: "a", Record: rec("a2")}))
	if want := []int64{2, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("AppendAll ids %v, want %v", got, want)
	}
	if ks := kinds(must(l.Read(ctx, "a", 0, 0))); !slices.Equal(ks, []string{"a0", "a1", "a2"}) {
		t.Errorf("topic a holds %v", ks)
	}
	// Runs of records for one topic take consecutive ids, in order.
	got = must(l.AppendAll(ctx,
		eventlog.TopicRecord{Topic: "a", Record: rec("a3")},
		eventlog.TopicRecord{Topic: "a", Record: rec("a4")},
		eventlog.TopicRecord{Topic: "b", Record: rec("b1")},
		eventlog.TopicRecord{Topic: "b", Record: rec("b2")},
		eventlog.TopicRecord{Topic: "a", Record: rec("a5")}))
	if want := []int64{4, 5, 2, 3, 6}; !slices.Equal(got, want) {
		t.Errorf("AppendAll of runs: ids %v, want %v", got, want)
	}
	for topic, want := range map[string][]string{"a": {"a0", "a1", "a2", "a3", "a4", "a5"}, "b": {"b0", "b1", "b2"}} {
		recs := must(l.Read(ctx, topic, 0, 0))
		if ks := kinds(recs); !slices.Equal(ks, want) {
			t.Errorf("topic %s holds %v, want %v", topic, ks, want)
		}
		for i, r := range recs {
			if r.ID != int64(i+1) {
				t.Errorf("topic %s: record %d has id %d", topic, i, r.ID)
			}
		}
	}
	// All or nothing: a record that cannot be stored refuses the batch.
	if _, err := l.AppendAll(ctx,
		eventlog.TopicRecord{Topic: "a", Record: rec("a6")},
		eventlog.TopicRecord{Topic: "", Record: rec("x")}); err == nil {
		t.Error("AppendAll with a record for an empty topic succeeded")
	}
	if n := must(l.Count(ctx, "a")); n != 6 {
		t.Errorf("a refused AppendAll left topic a with %d records, want 6", n)
	}
	if got := must(l.AppendAll(ctx)); len(got) != 0 {
		t.Errorf("AppendAll of nothing: %v", got)
	}
}

func testRecordRoundTrip(t *testing.T, l eventlog.Log) {
	in := eventlog.Record{
		ID:           99, // ignored
		Kind:         "trigger.fired",
		Payload:      json.RawMessage(`{"n":1,"s":"x","list":[1,2]}`),
		Headers:      map[string]string{"x-harn-trace-id": "t1", "content-type": "application/json"},
		OccurredAtMs: 1700000000123,
	}
	before := time.Now().UnixMilli()
	must(l.Append(ctx, "t", in))
	must(l.Append(ctx, "t", eventlog.Record{Kind: "bare"}))
	after := time.Now().UnixMilli()
	recs := must(l.Read(ctx, "t", 0, 0))
	if len(recs) != 2 {
		t.Fatalf("read %d records, want 2", len(recs))
	}
	got := recs[0]
	if got.ID != 1 || got.Kind != in.Kind || got.OccurredAtMs != in.OccurredAtMs || !reflect.DeepEqual(got.Headers, in.Headers) {
		t.Errorf("round trip: got %+v, want %+v with id 1", got, in)
	}
	var a, b any
	if err := json.Unmarshal(got.Payload, &a); err != nil {
		t.Fatalf("stored payload %q: %v", got.Payload, err)
	}
	json.Unmarshal(in.Payload, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("payload %s, want %s", got.Payload, in.Payload)
	}
	bare := recs[1]
	if bare.ID != 2 || bare.OccurredAtMs < before || bare.OccurredAtMs > after {
		t.Errorf("bare record: id %d occurred %d, want id 2 stamped in [%d, %d]", bare.ID, bare.OccurredAtMs, before, after)
	}
	if len(bare.Headers) != 0 || string(bare.Payload) != "null" {
		t.Errorf("bare record: headers %v payload %q, want none and null", bare.Headers, bare.Payload)
	}
	// Records handed out are copies.
	recs[0].Headers["x-harn-trace-id"] = "changed"
	again := must(l.Read(ctx, "t", 0, 1))
	if again[0].Headers["x-harn-trace-id"] != "t1" {
		t.Errorf("mutating a read record changed the log")
	}
}

func testReadTailCountTopics(t *testing.T, l eventlog.Log) {
	if n := must(l.Count(ctx, "nope")); n != 0 {
		t.Errorf("Count(unknown) = %d", n)
	}
	if r := must(l.Read(ctx, "nope", 0, 0)); len(r) != 0 {
		t.Errorf("Read(unknown) = %v", r)
	}
	if r := must(l.Tail(ctx, "nope", 3)); len(r) != 0 {
		t.Errorf("Tail(unknown) = %v", r)
	}
	if ts := must(l.Topics(ctx)); len(ts) != 0 {
		t.Errorf("Topics of an empty log = %v", ts)
	}
	for i := 1; i <= 5; i++ {
		must(l.Append(ctx, "zeta", rec(fmt.Sprint("z", i))))
	}
	must(l.Append(ctx, "alpha", rec("a1")))
	must(l.Append(ctx, "mid.dle", rec("m1")))

	check := func(what string, got []eventlog.Record, want []int64) {
		t.Helper()
		if g := ids(got); !reflect.DeepEqual(g, want) && !(len(g) == 0 && len(want) == 0) {
			t.Errorf("%s: ids %v, want %v", what, g, want)
		}
	}
	check("Read(0, all)", must(l.Read(ctx, "zeta", 0, 0)), []int64{1, 2, 3, 4, 5})
	check("Read(2, all)", must(l.Read(ctx, "zeta", 2, 0)), []int64{3, 4, 5})
	check("Read(1, 2)", must(l.Read(ctx, "zeta", 1, 2)), []int64{2, 3})
	check("Read(5, all)", must(l.Read(ctx, "zeta", 5, 0)), nil)
	check("Read(-1, 1)", must(l.Read(ctx, "zeta", -1, 1)), []int64{1})
	check("Tail(2)", must(l.Tail(ctx, "zeta", 2)), []int64{4, 5})
	check("Tail(9)", must(l.Tail(ctx, "zeta", 9)), []int64{1, 2, 3, 4, 5})
	check("Tail(0)", must(l.Tail(ctx, "zeta", 0)), nil)
	if ks := kinds(must(l.Tail(ctx, "zeta", 2))); !reflect.DeepEqual(ks, []string{"z4", "z5"}) {
		t.Errorf("Tail kinds %v", ks)
	}
	if n := must(l.Count(ctx, "zeta")); n != 5 {
		t.Errorf("Count(zeta) = %d, want 5", n)
	}
	if ts := must(l.Topics(ctx)); !reflect.DeepEqual(ts, []string{"alpha", "mid.dle", "zeta"}) {
		t.Errorf("Topics = %v", ts)
	}
}

func testCursors(t *testing.T, l eventlog.Log) {
	if c := must(l.Cursor(ctx, "t", "c1")); c != 0 {
		t.Errorf("unset cursor = %d", c)
	}
	for _, set := range []int64{3, 7, 2} {
		if err := l.SetCursor(ctx, "t", "c1", set); err != nil {
			t.Fatal(err)
		}
		if c := must(l.Cursor(ctx, "t", "c1")); c != set {
			t.Errorf("cursor after SetCursor(%d) = %d", set, c)
		}
	}
	if err := l.SetCursor(ctx, "t", "c2", 11); err != nil {
		t.Fatal(err)
	}
	if err := l.SetCursor(ctx, "u", "c1", 5); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		topic, consumer string
		want            int64
	}{{"t", "c1", 2}, {"t", "c2", 11}, {"u", "c1", 5}, {"u", "c2", 0}} {
		if got := must(l.Cursor(ctx, c.topic, c.consumer)); got != c.want {
			t.Errorf("Cursor(%s, %s) = %d, want %d", c.topic, c.consumer, got, c.want)
		}
	}
	if ts := must(l.Topics(ctx)); len(ts) != 0 {
		t.Errorf("cursors made topics appear: %v", ts)
	}
}

func testBadInput(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	if _, err := l.Append(ctx, "", rec("x")); err == nil {
		t.Error("Append to an empty topic name succeeded")
	}
	for _, bad := range []eventlog.Record{
		{Kind: "not utf-8 \xff"},
		{Kind: "nul \x00"},
		{Kind: "k", Headers: map[string]string{"h": "\xfe"}},
	} {
		if _, err := l.Append(ctx, "t", bad); err == nil {
			t.Errorf("Append of %+v succeeded; every backend must refuse text it cannot store", bad)
		}
	}
	if n := must(l.Count(ctx, "t")); n != 0 {
		t.Errorf("refused appends stored %d records", n)
	}
	if _, _, err := in.Accept(ctx, eventlog.Delivery{}); err == nil {
		t.Error("Accept without an id succeeded")
	}
	if _, _, err := in.Accept(ctx, eventlog.Delivery{ID: "d"}, eventlog.TopicRecord{Record: rec("x")}); err == nil {
		t.Error("Accept with a record for an empty topic succeeded")
	}
	if _, err := in.Get(ctx, "d"); !errors.Is(err, eventlog.ErrNotFound) {
		t.Errorf("a refused Accept stored the delivery (Get: %v)", err)
	}
	if _, err := in.Claim(ctx, "", 1, time.Minute); err == nil {
		t.Error("Claim without an owner succeeded")
	}
	if _, err := in.Claim(ctx, "w", 1, 0); err == nil {
		t.Error("Claim with a zero ttl succeeded")
	}
	must(acceptN(t, in, "d1"))
	ls := must(in.Claim(ctx, "w", 1, time.Minute))
	if err := in.Complete(ctx, ls[0], eventlog.Pending, ""); err == nil || errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("Complete with final state pending: %v, want a usage error", err)
	}
	if d := must(in.Get(ctx, "d1")); d.State != eventlog.Leased {
		t.Errorf("refused Complete changed the state to %s", d.State)
	}
	// A handler's error message is recorded whatever its bytes.
	if err := in.Complete(ctx, ls[0], eventlog.Dead, "boom \xff\x00!"); err != nil {
		t.Fatalf("Complete with a binary error message: %v", err)
	}
	if d := must(in.Get(ctx, "d1")); d.LastError != "boom \uFFFD\uFFFD!" {
		t.Errorf("LastError = %q", d.LastError)
	}
	if _, err := in.Get(ctx, "missing"); !errors.Is(err, eventlog.ErrNotFound) {
		t.Errorf("Get(missing) = %v, want ErrNotFound", err)
	}
}

func acceptN(t *testing.T, in eventlog.Inbox, ids ...string) (int, error) {
	t.Helper()
	for _, id := range ids {
		if _, created, err := in.Accept(ctx, eventlog.Delivery{ID: id, BindingID: "b", Envelope: json.RawMessage(`{"id":"` + id + `"}`)}); err != nil || !created {
			return 0, fmt.Errorf("accept %s: created %v, %v", id, created, err)
		}
	}
	return len(ids), nil
}

func testAcceptIdempotent(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	before := time.Now().UnixMilli()
	d, created, err := in.Accept(ctx, eventlog.Delivery{
		ID: "evt1", BindingID: "b1", Envelope: json.RawMessage(`{"e":1}`),
		State: eventlog.Done, Attempts: 9, CreatedMs: 5, LastError: "ignored",
	}, eventlog.TopicRecord{Topic: "trigger.inbox.envelopes", Record: rec("env1")})
	if err != nil || !created {
		t.Fatalf("first Accept: created %v, %v", created, err)
	}
	if d.State != eventlog.Pending || d.Attempts != 0 || d.CreatedMs < before || d.DueAtMs != d.CreatedMs || d.LastError != "" {
		t.Errorf("accepted delivery %+v: want pending, 0 attempts, created now and due at creation", d)
	}
	again, created, err := in.Accept(ctx, eventlog.Delivery{ID: "evt1", BindingID: "other", Envelope: json.RawMessage(`{"e":2}`)},
		eventlog.TopicRecord{Topic: "trigger.inbox.envelopes", Record: rec("env2")})
	if err != nil || created {
		t.Fatalf("second Accept: created %v, %v", created, err)
	}
	if again.BindingID != "b1" || string(again.Envelope) != `{"e":1}` || again.CreatedMs != d.CreatedMs {
		t.Errorf("second Accept returned %+v, want the stored delivery %+v", again, d)
	}
	recs := must(l.Read(ctx, "trigger.inbox.envelopes", 0, 0))
	if ks := kinds(recs); !reflect.DeepEqual(ks, []string{"env1"}) {
		t.Errorf("inbox records %v, want only the first Accept's", ks)
	}
	got := must(l.Inbox().Get(ctx, "evt1"))
	if !reflect.DeepEqual(got, d) {
		t.Errorf("Get = %+v, want %+v", got, d)
	}
	st := must(in.Stats(ctx))
	if st != (eventlog.InboxStats{Pending: 1}) {
		t.Errorf("Stats = %+v", st)
	}
	// A delivery that is done is still deduplicated.
	ls := must(in.Claim(ctx, "w", 1, time.Minute))
	if err := in.Complete(ctx, ls[0], eventlog.Done, ""); err != nil {
		t.Fatal(err)
	}
	if _, created, err := in.Accept(ctx, eventlog.Delivery{ID: "evt1"}); err != nil || created {
		t.Errorf("Accept of a done delivery: created %v, %v", created, err)
	}
	if ls := must(in.Claim(ctx, "w", 1, time.Minute)); len(ls) != 0 {
		t.Errorf("re-accepting a done delivery made it claimable: %+v", ls)
	}
}

func testAcceptLeased(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	accepted := eventlog.TopicRecord{Topic: "trigger.inbox", Record: rec("accepted")}
	ls, created, err := in.AcceptLeased(ctx, eventlog.Delivery{ID: "d", BindingID: "b", Envelope: json.RawMessage(`{"n":1}`)}, "w", time.Hour, accepted)
	if err != nil || !created {
		t.Fatalf("AcceptLeased = %v, %v", created, err)
	}
	if ls.Owner != "w" || ls.Token <= 0 || ls.Attempts != 1 || ls.State != eventlog.Leased || ls.ID != "d" ||
		ls.ExpiresAtMs <= ls.CreatedMs || ls.DueAtMs == 0 || string(ls.Envelope) != `{"n":1}` {
		t.Errorf("lease %+v", ls)
	}
	if d := must(in.Get(ctx, "d")); d.State != eventlog.Leased || d.Attempts != 1 {
		t.Errorf("stored %+v, want leased after 1 attempt", d)
	}
	if got := must(in.Claim(ctx, "other", 5, time.Hour)); len(got) != 0 {
		t.Errorf("a delivery leased on accept was claimed again: %+v", got)
	}
	// The key is known: nothing changes, with either Accept.
	again, created, err := in.AcceptLeased(ctx, eventlog.Delivery{ID: "d", BindingID: "b2"}, "w2", time.Hour, accepted)
	if err != nil || created || again.Owner != "" || again.Token != 0 || again.BindingID != "b" || again.State != eventlog.Leased {
		t.Errorf("AcceptLeased of a known key = %+v, %v, %v", again, created, err)
	}
	if _, created, err := in.Accept(ctx, eventlog.Delivery{ID: "d", BindingID: "b"}); err != nil || created {
		t.Errorf("Accept of a key accepted leased: created %v, %v", created, err)
	}
	if n := must(l.Count(ctx, "trigger.inbox")); n != 1 {
		t.Errorf("%d accept records, want 1", n)
	}
	if err := in.Complete(ctx, ls, eventlog.Done, ""); err != nil {
		t.Errorf("Complete with the lease taken on accept: %v", err)
	}
	// The lease expires like a claimed one, and the next claim fences it off.
	short, _, err := in.AcceptLeased(ctx, eventlog.Delivery{ID: "e", BindingID: "b"}, "dead-worker", time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	waitPast(short.ExpiresAtMs)
	next := must(in.Claim(ctx, "live-worker", 1, time.Hour))
	if len(next) != 1 || next[0].ID != "e" || next[0].Token <= short.Token || next[0].Attempts != 2 {
		t.Fatalf("reclaim of an expired lease taken on accept: %+v (first %+v)", next, short)
	}
	if err := in.Complete(ctx, short, eventlog.Done, ""); !errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("Complete with the fenced-off lease: %v, want ErrLeaseLost", err)
	}
	if _, _, err := in.AcceptLeased(ctx, eventlog.Delivery{ID: "f"}, "", time.Hour); err == nil {
		t.Error("AcceptLeased without an owner succeeded")
	}
}

func testClaimOrderAndDue(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	now := time.Now().UnixMilli()
	for _, d := range []eventlog.Delivery{
		{ID: "late", BindingID: "b", DueAtMs: now - 1000},
		{ID: "early", BindingID: "a", DueAtMs: now - 3000},
		{ID: "middle", BindingID: "b", DueAtMs: now - 2000},
		{ID: "future", BindingID: "c", DueAtMs: now + time.Hour.Milliseconds()},
	} {
		must(func() (bool, error) { _, c, err := in.Accept(ctx, d); return c, err }())
	}
	if ls := must(in.Claim(ctx, "w", 0, time.Minute)); len(ls) != 0 {
		t.Errorf("Claim(n=0) leased %d", len(ls))
	}
	ls := must(in.Claim(ctx, "w1", 2, time.Minute))
	var got []string
	for _, l := range ls {
		got = append(got, l.ID)
		if l.Owner != "w1" || l.State != eventlog.Leased || l.Attempts != 1 || l.Token <= 0 {
			t.Errorf("lease %+v: want owner w1, leased, 1 attempt, a positive token", l)
		}
		if l.ExpiresAtMs < now+time.Minute.Milliseconds() {
			t.Errorf("lease expires at %d, before now+ttl %d", l.ExpiresAtMs, now+time.Minute.Milliseconds())
		}
	}
	if !reflect.DeepEqual(got, []string{"early", "middle"}) {
		t.Errorf("Claim(2) = %v, want the two oldest due [early middle]", got)
	}
	ls = must(in.Claim(ctx, "w2", 10, time.Minute))
	if len(ls) != 1 || ls[0].ID != "late" {
		t.Errorf("second Claim = %+v, want only [late] (future is not due)", ls)
	}
	if ls := must(in.Claim(ctx, "w3", 10, time.Minute)); len(ls) != 0 {
		t.Errorf("third Claim = %+v, want nothing", ls)
	}
	if st := must(in.Stats(ctx)); st != (eventlog.InboxStats{Pending: 1, Leased: 3}) {
		t.Errorf("Stats = %+v", st)
	}
	if by := must(in.LeasedByBinding(ctx)); !reflect.DeepEqual(by, map[string]int64{"a": 1, "b": 2}) {
		t.Errorf("LeasedByBinding = %v, want map[a:1 b:2]", by)
	}
	d := must(in.Get(ctx, "middle"))
	if d.State != eventlog.Leased || d.Attempts != 1 {
		t.Errorf("Get(middle) = %+v", d)
	}
}

func testLeaseHeld(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	must(acceptN(t, in, "d"))
	a := must(in.Claim(ctx, "a", 5, time.Hour))
	if len(a) != 1 {
		t.Fatalf("Claim = %+v", a)
	}
	if b := must(in.Claim(ctx, "b", 5, time.Hour)); len(b) != 0 {
		t.Fatalf("a live lease was claimed again: %+v", b)
	}
	// Only the holder, with its token, may end it.
	forged := a[0]
	forged.Owner = "b"
	if err := in.Complete(ctx, forged, eventlog.Done, ""); !errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("Complete by another owner: %v, want ErrLeaseLost", err)
	}
	forged = a[0]
	forged.Token++
	if err := in.Complete(ctx, forged, eventlog.Done, ""); !errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("Complete with a wrong token: %v, want ErrLeaseLost", err)
	}
	if err := in.Complete(ctx, a[0], eventlog.Done, ""); err != nil {
		t.Errorf("Complete by the holder: %v", err)
	}
}

func waitPast(ms int64) {
	for time.Now().UnixMilli() <= ms {
		time.Sleep(time.Duration(ms-time.Now().UnixMilli()+2) * time.Millisecond)
	}
}

func testLeaseExpiryAndFencing(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	must(acceptN(t, in, "d"))
	first := must(in.Claim(ctx, "dead-worker", 1, time.Millisecond))
	if len(first) != 1 {
		t.Fatalf("Claim = %+v", first)
	}
	waitPast(first[0].ExpiresAtMs)
	second := must(in.Claim(ctx, "live-worker", 1, time.Hour))
	if len(second) != 1 || second[0].ID != "d" {
		t.Fatalf("an expired lease was not reclaimed: %+v", second)
	}
	if second[0].Token <= first[0].Token || second[0].Attempts != 2 {
		t.Errorf("reclaim: token %d (first %d), attempts %d; want a larger token and 2 attempts",
			second[0].Token, first[0].Token, second[0].Attempts)
	}
	old := first[0]
	attempt := eventlog.TopicRecord{Topic: "trigger.attempts", Record: rec("stale")}
	if err := in.Complete(ctx, old, eventlog.Done, "", attempt); !errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("Complete with the fenced-off lease: %v, want ErrLeaseLost", err)
	}
	if err := in.Retry(ctx, old, 0, "x", attempt); !errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("Retry with the fenced-off lease: %v, want ErrLeaseLost", err)
	}
	if err := in.Extend(ctx, &old, time.Hour); !errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("Extend with the fenced-off lease: %v, want ErrLeaseLost", err)
	}
	if n := must(l.Count(ctx, "trigger.attempts")); n != 0 {
		t.Errorf("a refused Complete/Retry appended %d records", n)
	}
	if d := must(in.Get(ctx, "d")); d.State != eventlog.Leased {
		t.Errorf("state after refused calls = %s, want leased", d.State)
	}
	if err := in.Complete(ctx, second[0], eventlog.Done, "", attempt); err != nil {
		t.Errorf("Complete by the new holder: %v", err)
	}
	if n := must(l.Count(ctx, "trigger.attempts")); n != 1 {
		t.Errorf("attempt records after Complete = %d, want 1", n)
	}
	// A lease that expired but was not reclaimed still fences correctly:
	// its holder may finish.
	must(acceptN(t, in, "slow"))
	slow := must(in.Claim(ctx, "slow-worker", 1, time.Millisecond))
	waitPast(slow[0].ExpiresAtMs)
	if err := in.Complete(ctx, slow[0], eventlog.Done, ""); err != nil {
		t.Errorf("Complete of an expired, unclaimed lease: %v", err)
	}
	if ls := must(in.Claim(ctx, "w", 5, time.Hour)); len(ls) != 0 {
		t.Errorf("completed deliveries were claimed again: %+v", ls)
	}
}

func testExtend(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	must(acceptN(t, in, "d"))
	ls := must(in.Claim(ctx, "w", 1, time.Millisecond))
	lease := ls[0]
	if err := in.Extend(ctx, &lease, time.Hour); err != nil {
		t.Fatal(err)
	}
	if lease.ExpiresAtMs < time.Now().UnixMilli()+time.Hour.Milliseconds()-60000 {
		t.Errorf("Extend set expiry %d, not about an hour ahead", lease.ExpiresAtMs)
	}
	waitPast(ls[0].ExpiresAtMs)
	if other := must(in.Claim(ctx, "other", 1, time.Hour)); len(other) != 0 {
		t.Errorf("an extended lease was claimed after its first expiry: %+v", other)
	}
	if err := in.Complete(ctx, lease, eventlog.Done, ""); err != nil {
		t.Errorf("Complete after Extend: %v", err)
	}
	if err := in.Extend(ctx, &lease, time.Hour); !errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("Extend of a completed delivery: %v, want ErrLeaseLost", err)
	}
}

func testComplete(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	must(acceptN(t, in, "ok", "bad"))
	ls := must(in.Claim(ctx, "w", 2, time.Hour))
	if len(ls) != 2 {
		t.Fatalf("Claim = %+v", ls)
	}
	byID := map[string]eventlog.Lease{ls[0].ID: ls[0], ls[1].ID: ls[1]}
	err := in.Complete(ctx, byID["ok"], eventlog.Done, "",
		eventlog.TopicRecord{Topic: "trigger.attempts", Record: rec("attempt-ok")},
		eventlog.TopicRecord{Topic: "trigger.outbox", Record: rec("result-ok")})
	if err != nil {
		t.Fatal(err)
	}
	err = in.Complete(ctx, byID["bad"], eventlog.Dead, "handler_panic: boom",
		eventlog.TopicRecord{Topic: "trigger.attempts", Record: rec("attempt-bad")},
		eventlog.TopicRecord{Topic: "trigger.dlq", Record: rec("dlq-bad")})
	if err != nil {
		t.Fatal(err)
	}
	if d := must(in.Get(ctx, "ok")); d.State != eventlog.Done || d.Attempts != 1 {
		t.Errorf("Get(ok) = %+v", d)
	}
	if d := must(in.Get(ctx, "bad")); d.State != eventlog.Dead || d.LastError != "handler_panic: boom" {
		t.Errorf("Get(bad) = %+v", d)
	}
	for topic, want := range map[string][]string{
		"trigger.attempts": {"attempt-ok", "attempt-bad"},
		"trigger.outbox":   {"result-ok"},
		"trigger.dlq":      {"dlq-bad"},
	} {
		if ks := kinds(must(l.Read(ctx, topic, 0, 0))); !reflect.DeepEqual(ks, want) {
			t.Errorf("%s = %v, want %v", topic, ks, want)
		}
	}
	// Completing twice is refused and appends nothing.
	if err := in.Complete(ctx, byID["ok"], eventlog.Done, "", eventlog.TopicRecord{Topic: "trigger.outbox", Record: rec("twice")}); !errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("second Complete: %v, want ErrLeaseLost", err)
	}
	if n := must(l.Count(ctx, "trigger.outbox")); n != 1 {
		t.Errorf("outbox has %d records after a refused Complete, want 1", n)
	}
	if ls := must(in.Claim(ctx, "w2", 5, time.Millisecond)); len(ls) != 0 {
		t.Errorf("ended deliveries were claimed: %+v", ls)
	}
	if st := must(in.Stats(ctx)); st != (eventlog.InboxStats{Done: 1, Dead: 1}) {
		t.Errorf("Stats = %+v", st)
	}
}

func testRetry(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	must(acceptN(t, in, "d"))
	ls := must(in.Claim(ctx, "w", 1, time.Hour))
	future := time.Now().Add(time.Hour).UnixMilli()
	if err := in.Retry(ctx, ls[0], future, "provider_5xx", eventlog.TopicRecord{Topic: "trigger.attempts", Record: rec("a1")}); err != nil {
		t.Fatal(err)
	}
	d := must(in.Get(ctx, "d"))
	if d.State != eventlog.Pending || d.DueAtMs != future || d.LastError != "provider_5xx" || d.Attempts != 1 {
		t.Errorf("after Retry: %+v", d)
	}
	if got := must(in.Claim(ctx, "w", 1, time.Hour)); len(got) != 0 {
		t.Errorf("a delivery retried into the future was claimed: %+v", got)
	}
	if err := in.Retry(ctx, ls[0], 0, "again"); !errors.Is(err, eventlog.ErrLeaseLost) {
		t.Errorf("Retry with a returned lease: %v, want ErrLeaseLost", err)
	}
	must(acceptN(t, in, "e"))
	ls = must(in.Claim(ctx, "w", 1, time.Hour))
	if len(ls) != 1 || ls[0].ID != "e" {
		t.Fatalf("Claim = %+v", ls)
	}
	if err := in.Retry(ctx, ls[0], 0, "soon"); err != nil {
		t.Fatal(err)
	}
	again := must(in.Claim(ctx, "w2", 1, time.Hour))
	if len(again) != 1 || again[0].ID != "e" || again[0].Attempts != 2 || again[0].Token <= ls[0].Token {
		t.Errorf("claim after Retry(now) = %+v, want e with 2 attempts and a larger token", again)
	}
	if n := must(l.Count(ctx, "trigger.attempts")); n != 1 {
		t.Errorf("trigger.attempts holds %d records, want 1", n)
	}
}

func testConcurrentAppends(t *testing.T, l eventlog.Log) {
	const workers, each = 6, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := l.Append(ctx, "shared", rec(fmt.Sprintf("w%d-%d", w, i))); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	recs := must(l.Read(ctx, "shared", 0, 0))
	seen := map[string]bool{}
	for i, r := range recs {
		if r.ID != int64(i+1) {
			t.Fatalf("record %d has id %d: ids are not dense from 1", i, r.ID)
		}
		seen[r.Kind] = true
	}
	if len(recs) != workers*each || len(seen) != workers*each {
		t.Errorf("%d records, %d distinct, want %d", len(recs), len(seen), workers*each)
	}
}

func testConcurrentClaimers(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	const total, workers = 120, 6
	for i := 0; i < total; i++ {
		if _, _, err := in.Accept(ctx, eventlog.Delivery{ID: fmt.Sprintf("d%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	claims := map[string]int{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(owner string) {
			defer wg.Done()
			for {
				ls, err := in.Claim(ctx, owner, 4, time.Hour)
				if err != nil {
					errs <- err
					return
				}
				if len(ls) == 0 {
					return
				}
				for _, lease := range ls {
					mu.Lock()
					claims[lease.ID]++
					mu.Unlock()
					if err := in.Complete(ctx, lease, eventlog.Done, "",
						eventlog.TopicRecord{Topic: "done", Record: eventlog.Record{Kind: lease.ID}}); err != nil {
						errs <- fmt.Errorf("complete %s: %w", lease.ID, err)
						return
					}
				}
			}
		}(fmt.Sprint("w", w))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(claims) != total {
		t.Errorf("%d deliveries claimed, want %d", len(claims), total)
	}
	for id, n := range claims {
		if n != 1 {
			t.Errorf("%s claimed %d times", id, n)
		}
	}
	done := map[string]int{}
	for _, r := range must(l.Read(ctx, "done", 0, 0)) {
		done[r.Kind]++
	}
	if len(done) != total {
		t.Errorf("%d completion records, want %d", len(done), total)
	}
	if st := must(in.Stats(ctx)); st != (eventlog.InboxStats{Done: total}) {
		t.Errorf("Stats = %+v", st)
	}
}

// testConcurrentMixedOutcomes: steps submitted together (which a backend
// may commit in one transaction) keep their own outcomes: a fenced-off
// Complete fails and appends nothing while its neighbours succeed.
func testConcurrentMixedOutcomes(t *testing.T, l eventlog.Log) {
	in := l.Inbox()
	const n = 24
	for i := 0; i < n; i++ {
		must(acceptN(t, in, fmt.Sprintf("m%02d", i)))
	}
	leases := must(in.Claim(ctx, "w", n, time.Hour))
	if len(leases) != n {
		t.Fatalf("claimed %d of %d", len(leases), n)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, lease := range leases {
		if i%2 == 1 {
			lease.Token++ // a stale holder
		}
		wg.Add(1)
		go func(i int, lease eventlog.Lease) {
			defer wg.Done()
			errs[i] = in.Complete(ctx, lease, eventlog.Done, "",
				eventlog.TopicRecord{Topic: "out", Record: eventlog.Record{Kind: lease.ID}})
		}(i, lease)
	}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := l.Append(ctx, "side", rec(fmt.Sprint(i))); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	want := map[string]bool{}
	for i, err := range errs {
		if i%2 == 0 {
			if err != nil {
				t.Errorf("Complete of %s: %v", leases[i].ID, err)
			}
			want[leases[i].ID] = true
		} else if !errors.Is(err, eventlog.ErrLeaseLost) {
			t.Errorf("stale Complete of %s: %v, want ErrLeaseLost", leases[i].ID, err)
		}
	}
	got := map[string]bool{}
	for _, r := range must(l.Read(ctx, "out", 0, 0)) {
		got[r.Kind] = true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("completion records for %v, want %v", got, want)
	}
	if c := must(l.Count(ctx, "side")); c != n {
		t.Errorf("side topic holds %d records, want %d", c, n)
	}
	if st := must(in.Stats(ctx)); st != (eventlog.InboxStats{Done: n / 2, Leased: n / 2}) {
		t.Errorf("Stats = %+v", st)
	}
}
