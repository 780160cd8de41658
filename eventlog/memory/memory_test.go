package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/eventlogtest"
	"github.com/harnlang/harn/eventlog/memory"
)

func TestConformance(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlog.Log { return memory.New() })
}

func BenchmarkDispatch(b *testing.B) {
	eventlogtest.Bench(b, func(b *testing.B) eventlog.Log { return memory.New() })
}

func openDir(t *testing.T, dir string) *memory.Log {
	t.Helper()
	l, err := memory.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestFileConformance(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlog.Log { return openDir(t, t.TempDir()) })
}

// TestFileReopen: what one process accepted, appended and leased is there
// for the next, the topics are readable JSON lines, and a second process
// cannot open the directory while the first has it.
func TestFileReopen(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "events")
	l := openDir(t, dir)
	if _, err := memory.OpenDir(dir); err == nil || !strings.Contains(err.Error(), "open in another process") {
		t.Fatalf("second open: %v", err)
	}
	for i := 0; i < 3; i++ {
		if _, err := l.Append(ctx, "trigger.outbox", eventlog.Record{Kind: "k", Payload: []byte(`{"n":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.SetCursor(ctx, "trigger.outbox", "c", 2); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Accept(ctx, eventlog.Delivery{ID: "d1"}, eventlog.TopicRecord{Topic: "a/b", Record: eventlog.Record{Kind: "env"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Accept(ctx, eventlog.Delivery{ID: "d2"}); err != nil {
		t.Fatal(err)
	}
	leases, err := l.Claim(ctx, "w", 1, time.Hour)
	if err != nil || len(leases) != 1 {
		t.Fatalf("Claim = %v, %v", leases, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "trigger.outbox.jsonl"))
	if err != nil || strings.Count(string(raw), "\n") != 3 || !strings.Contains(string(raw), `"payload":{"n":1}`) {
		t.Fatalf("topic file: %q %v", raw, err)
	}

	l = openDir(t, dir)
	defer l.Close()
	if l.Backend() != "file" {
		t.Errorf("backend %s", l.Backend())
	}
	if id, err := l.Append(ctx, "trigger.outbox", eventlog.Record{Kind: "k"}); err != nil || id != 4 {
		t.Errorf("append after reopen: id %d, %v; want 4", id, err)
	}
	if n, _ := l.Count(ctx, "a/b"); n != 1 {
		t.Errorf("escaped topic: %d records", n)
	}
	if c, err := l.Cursor(ctx, "trigger.outbox", "c"); err != nil || c != 2 {
		t.Errorf("cursor after reopen: %d, %v", c, err)
	}
	if err := l.Complete(ctx, leases[0], eventlog.Done, ""); err != nil {
		t.Errorf("a lease taken before reopen: Complete: %v", err)
	}
	if _, created, err := l.Accept(ctx, eventlog.Delivery{ID: "d1"}); err != nil || created {
		t.Errorf("Accept of a known id after reopen: created %v, %v", created, err)
	}
	if st, _ := l.Stats(ctx); st.Done != 1 || st.Pending != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestFileCrashRepair: a crash can tear the last line of a file, and can
// fall between a transaction's journal line and its topic lines. Opening
// drops the torn line (it was never acknowledged) and copies the
// journalled records into their topic.
func TestFileCrashRepair(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l := openDir(t, dir)
	if _, err := l.Append(ctx, "t", eventlog.Record{Kind: "first"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Accept(ctx, eventlog.Delivery{ID: "d1"}, eventlog.TopicRecord{Topic: "t", Record: eventlog.Record{Kind: "accepted"}}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	// The topic line of the transaction never reached the disk; a torn
	// append follows.
	path := filepath.Join(dir, "t.jsonl")
	raw, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(raw), "\n")
	os.WriteFile(path, []byte(lines[0]+`{"id":3,"kind":"to`), 0o644)

	l = openDir(t, dir)
	defer l.Close()
	recs, err := l.Read(ctx, "t", 0, 0)
	if err != nil || len(recs) != 2 || recs[1].Kind != "accepted" {
		t.Fatalf("after repair: %+v %v", recs, err)
	}
	if d, err := l.Get(ctx, "d1"); err != nil || d.State != eventlog.Pending {
		t.Fatalf("delivery %+v %v", d, err)
	}
	raw, _ = os.ReadFile(path)
	if strings.Count(string(raw), "\n") != 2 || strings.Contains(string(raw), `"to`) {
		t.Fatalf("topic file after repair: %q", raw)
	}
}

// TestFileAcceptLeasedAndAppendAll: the operations that write without an
// Accept or a Claim are on disk when they return.
func TestFileAcceptLeasedAndAppendAll(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l := openDir(t, dir)
	lease, created, err := l.AcceptLeased(ctx, eventlog.Delivery{ID: "d1"}, "w", time.Hour, eventlog.TopicRecord{Topic: "env", Record: eventlog.Record{Kind: "accepted"}})
	if err != nil || !created {
		t.Fatal(created, err)
	}
	if _, err := l.AppendAll(ctx, eventlog.TopicRecord{Topic: "a", Record: eventlog.Record{Kind: "x"}}, eventlog.TopicRecord{Topic: "b", Record: eventlog.Record{Kind: "y"}}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l = openDir(t, dir)
	defer l.Close()
	for _, topic := range []string{"env", "a", "b"} {
		if n, _ := l.Count(ctx, topic); n != 1 {
			t.Errorf("%s: %d records after reopen", topic, n)
		}
	}
	if d, err := l.Get(ctx, "d1"); err != nil || d.State != eventlog.Leased {
		t.Fatalf("delivery after reopen: %+v %v", d, err)
	}
	if err := l.Complete(ctx, lease, eventlog.Done, ""); err != nil {
		t.Fatalf("the lease survives the reopen: %v", err)
	}
}

// Reads copy records outside the log's lock while appends go on: every
// page read during the appends holds exactly the records appended, in
// order (run with -race).
func TestReadsDuringAppends(t *testing.T) {
	ctx := context.Background()
	l := memory.New()
	const n = 2000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= n; i++ {
			p := []byte(strconv.Itoa(i))
			if _, err := l.Append(ctx, "t", eventlog.Record{Kind: "k", Payload: p, Headers: map[string]string{"i": string(p)}}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	check := func(recs []eventlog.Record, first int64) {
		for j, r := range recs {
			want := strconv.FormatInt(first+int64(j), 10)
			if r.ID != first+int64(j) || string(r.Payload) != want || r.Headers["i"] != want {
				t.Fatalf("record %d: id %d, payload %s, header %q", first+int64(j), r.ID, r.Payload, r.Headers["i"])
			}
		}
	}
	var after int64
	for after < n {
		recs, err := l.Read(ctx, "t", after, 100)
		if err != nil {
			t.Fatal(err)
		}
		check(recs, after+1)
		after += int64(len(recs))
		tail, err := l.Tail(ctx, "t", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(tail) > 0 {
			check(tail, tail[0].ID)
		}
	}
	<-done
}
