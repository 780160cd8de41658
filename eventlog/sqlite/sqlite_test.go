package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/eventlogtest"
	"github.com/harnlang/harn/eventlog/sqlite"
)

func open(t *testing.T, path string) *sqlite.Log {
	t.Helper()
	l, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestConformance(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlog.Log {
		return open(t, filepath.Join(t.TempDir(), "events.sqlite"))
	})
}

// TestReopen: what one process accepted and appended is there for the
// next, and ids and leases continue where they stopped.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state", "events.sqlite")
	l := open(t, path)
	for i := 0; i < 3; i++ {
		if _, err := l.Append(ctx, "t", eventlog.Record{Kind: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.SetCursor(ctx, "t", "c", 2); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Accept(ctx, eventlog.Delivery{ID: "d1"}); err != nil {
		t.Fatal(err)
	}
	leases, err := l.Claim(ctx, "w", 1, time.Hour)
	if err != nil || len(leases) != 1 {
		t.Fatalf("Claim = %v, %v", leases, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l = open(t, path)
	defer l.Close()
	if id, err := l.Append(ctx, "t", eventlog.Record{Kind: "k"}); err != nil || id != 4 {
		t.Errorf("append after reopen: id %d, %v; want 4", id, err)
	}
	if c, err := l.Cursor(ctx, "t", "c"); err != nil || c != 2 {
		t.Errorf("cursor after reopen: %d, %v", c, err)
	}
	if err := l.Complete(ctx, leases[0], eventlog.Done, ""); err != nil {
		t.Errorf("a lease taken before reopen: Complete: %v", err)
	}
	if _, created, err := l.Accept(ctx, eventlog.Delivery{ID: "d1"}); err != nil || created {
		t.Errorf("Accept of a known id after reopen: created %v, %v", created, err)
	}
}

// TestPragmas: the file is in WAL mode and commits are synchronous=FULL
// unless NORMAL was asked for.
func TestPragmas(t *testing.T) {
	for _, c := range []struct {
		sync sqlite.Synchronous
		want int
	}{{sqlite.Full, 2}, {sqlite.Normal, 1}} {
		l, err := sqlite.OpenSync(context.Background(), filepath.Join(t.TempDir(), "events.sqlite"), c.sync)
		if err != nil {
			t.Fatal(err)
		}
		mode, sync, err := l.Pragmas(context.Background())
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		if mode != "wal" || sync != c.want {
			t.Errorf("%s: journal_mode %q synchronous %d, want wal and %d", c.sync, mode, sync, c.want)
		}
	}
	if _, err := sqlite.OpenSync(context.Background(), filepath.Join(t.TempDir(), "x.sqlite"), "OFF"); err == nil {
		t.Error("synchronous=OFF was accepted")
	}
}

func BenchmarkDispatch(b *testing.B) {
	for _, sync := range []sqlite.Synchronous{sqlite.Full, sqlite.Normal} {
		b.Run(string(sync), func(b *testing.B) {
			eventlogtest.Bench(b, func(b *testing.B) eventlog.Log {
				l, err := sqlite.OpenSync(context.Background(), filepath.Join(b.TempDir(), "events.sqlite"), sync)
				if err != nil {
					b.Fatal(err)
				}
				return l
			})
		})
	}
}

// Short reads do not watch their context while they run (database/sql
// would start a goroutine per query to), but a context cancelled before
// one starts still fails it.
func TestReadsCheckCancellation(t *testing.T) {
	l := open(t, filepath.Join(t.TempDir(), "events.sqlite"))
	defer l.Close()
	live, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := l.Append(live, "t", eventlog.Record{Kind: "k"}); err != nil {
		t.Fatal(err)
	}
	if recs, err := l.Read(live, "t", 0, 10); err != nil || len(recs) != 1 {
		t.Fatalf("read under a live context: %v %v", recs, err)
	}
	dead, cancelled := context.WithCancel(context.Background())
	cancelled()
	for name, read := range map[string]func() error{
		"Read":     func() error { _, err := l.Read(dead, "t", 0, 10); return err },
		"Read all": func() error { _, err := l.Read(dead, "t", 0, 0); return err },
		"Tail":     func() error { _, err := l.Tail(dead, "t", 10); return err },
		"Count":    func() error { _, err := l.Count(dead, "t"); return err },
		"Get":      func() error { _, err := l.Get(dead, "none"); return err },
	} {
		if err := read(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s under a cancelled context: %v", name, err)
		}
	}
}

// TestSchema: the three tables of docs/spec/orchestrator.md §4 with its
// columns and primary keys, so a tool written for upstream's
// events.sqlite reads ours, and a record is where that layout says.
func TestSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.sqlite")
	l := open(t, path)
	if _, err := l.Append(context.Background(), "trigger.outbox", eventlog.Record{Kind: "k", Payload: []byte(`{"a":1}`), Headers: map[string]string{"h": "v"}, OccurredAtMs: 42}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, want := range map[string]string{
		"topic_heads": "topic:1 last_id:0",
		"events":      "topic:1 event_id:2 kind:0 payload:0 headers:0 occurred_at_ms:0",
		"consumers":   "topic:1 consumer_id:2 cursor:0 updated_at_ms:0",
	} {
		rows, err := db.Query(`SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`, table)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var name string
			var pk int
			rows.Scan(&name, &pk)
			cols = append(cols, fmt.Sprintf("%s:%d", name, pk))
		}
		rows.Close()
		if got := strings.Join(cols, " "); got != want {
			t.Errorf("%s: columns (name:primary-key position) %q, want %q", table, got, want)
		}
	}
	var id, at int64
	var kind, payload, headers string
	if err := db.QueryRow(`SELECT event_id, kind, CAST(payload AS TEXT), headers, occurred_at_ms FROM events WHERE topic = 'trigger.outbox'`).Scan(&id, &kind, &payload, &headers, &at); err != nil {
		t.Fatal(err)
	}
	var last int64
	db.QueryRow(`SELECT last_id FROM topic_heads WHERE topic = 'trigger.outbox'`).Scan(&last)
	if id != 1 || kind != "k" || payload != `{"a":1}` || headers != `{"h":"v"}` || at != 42 || last != 1 {
		t.Errorf("row: id %d kind %q payload %s headers %s at %d, head %d", id, kind, payload, headers, at, last)
	}
}

// pageSizeOf reads the page size of the database file at path.
func pageSizeOf(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("PRAGMA page_size").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A log file Open creates has 8 KiB pages, in WAL mode; a file created
// with SQLite's default 4 KiB pages (every state directory from before)
// keeps them, and its records, and takes appends as before.
func TestPageSize(t *testing.T) {
	ctx := context.Background()
	fresh := filepath.Join(t.TempDir(), "events.sqlite")
	l := open(t, fresh)
	if mode, _, _ := l.Pragmas(ctx); mode != "wal" {
		t.Errorf("journal mode %s", mode)
	}
	l.Close()
	if n := pageSizeOf(t, fresh); n != 8192 {
		t.Errorf("a new log has %d-byte pages, want 8192", n)
	}

	old := filepath.Join(t.TempDir(), "events.sqlite")
	db, err := sql.Open("sqlite", "file:"+old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA page_size=4096; PRAGMA journal_mode=WAL;
		CREATE TABLE topic_heads (topic TEXT PRIMARY KEY, last_id INTEGER NOT NULL);
		INSERT INTO topic_heads VALUES ('t', 1);
		CREATE TABLE events (topic TEXT NOT NULL, event_id INTEGER NOT NULL, kind TEXT NOT NULL, payload BLOB NOT NULL,
			headers TEXT NOT NULL, occurred_at_ms INTEGER NOT NULL, PRIMARY KEY (topic, event_id));
		INSERT INTO events VALUES ('t', 1, 'before', '{}', '{}', 1);`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	l = open(t, old)
	if _, err := l.Append(ctx, "t", eventlog.Record{Kind: "after", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	recs, err := l.Read(ctx, "t", 0, 0)
	if err != nil || len(recs) != 2 || recs[0].Kind != "before" || recs[1].Kind != "after" || recs[1].ID != 2 {
		t.Fatalf("records of the old file: %v, %v", recs, err)
	}
	l.Close()
	if n := pageSizeOf(t, old); n != 4096 {
		t.Errorf("the old file now has %d-byte pages, want 4096 kept", n)
	}
}
