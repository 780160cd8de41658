package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/sqlite"
)

// actionGraphRecord is a record the size and shape of the MCP recorder's
// (one per tool call).
func actionGraphRecord(i int) eventlog.Record {
	return eventlog.Record{Kind: "tool_call",
		Payload:      []byte(fmt.Sprintf(`{"tool":"harn.trust.query","client":"bench/1","status":"completed","duration_us":%d,"trace_id":"mcp_%08d"}`, 100+i, i)),
		Headers:      map[string]string{"trace_id": fmt.Sprintf("mcp_%08d", i), "mcp_client": "bench/1"},
		OccurredAtMs: 1754000000000 + int64(i)}
}

// BenchmarkAppendAll is one AppendAll of a recorder's batch (87 records
// on average under issue 11's load) to one topic, with synchronous=NORMAL
// so that fsync does not hide the statements' cost. cpu-ns/record is the
// process's CPU time (user + system) per record.
func BenchmarkAppendAll(b *testing.B) {
	for _, n := range []int{1, 87} {
		b.Run(fmt.Sprint("records=", n), func(b *testing.B) {
			ctx := context.Background()
			l, err := sqlite.OpenSync(ctx, filepath.Join(b.TempDir(), "events.sqlite"), sqlite.Normal)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			batch := make([]eventlog.TopicRecord, n)
			for i := range batch {
				batch[i] = eventlog.TopicRecord{Topic: "observability.action_graph", Record: actionGraphRecord(i)}
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := l.AppendAll(ctx, batch...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*n), "cpu-ns/record")
		})
	}
}

// BenchmarkAppendConcurrent is 64 callers appending one record each at a
// time (the synchronous audit of issue 11's 64 concurrent
// harn.secret_scan calls), with synchronous=FULL (the default) and
// NORMAL: the writer groups the steps that wait at the same moment into
// one transaction. Besides CPU per record it reports the appends'
// latency percentiles: a writer that stops for a checkpoint shows in
// the tail.
func BenchmarkAppendConcurrent(b *testing.B) {
	for _, level := range []sqlite.Synchronous{sqlite.Full, sqlite.Normal} {
		b.Run(strings.ToLower(string(level)), func(b *testing.B) {
			ctx := context.Background()
			l, err := sqlite.OpenSync(ctx, filepath.Join(b.TempDir(), "events.sqlite"), level)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			b.ReportAllocs()
			b.SetParallelism(32) // 64 callers on 2 CPUs
			cpu0 := cpuTime()
			var n atomic.Int64
			var mu sync.Mutex
			var took []time.Duration
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					i := int(n.Add(1))
					begin := time.Now()
					if _, err := l.Append(ctx, "audit.secret_scan", actionGraphRecord(i)); err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(begin))
				}
				mu.Lock()
				took = append(took, mine...)
				mu.Unlock()
			})
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/record")
			slices.Sort(took)
			if len(took) > 0 {
				b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-us")
				b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-us")
				b.ReportMetric(float64(took[len(took)-1].Microseconds()), "max-us")
			}
		})
	}
}

// cpuTime is the process's CPU time so far, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// A batch stores exactly what appending its records one at a time
// stores: the same rows, ids, values and SQLite types.
func TestAppendAllStoresWhatAppendStores(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	batched, single := open(t, filepath.Join(dir, "batched.sqlite")), open(t, filepath.Join(dir, "single.sqlite"))
	defer batched.Close()
	defer single.Close()
	i := 0
	for _, n := range []int{1, 2, 3, 7, 64, 65, 87, 130, 200} {
		batch := make([]eventlog.TopicRecord, n)
		for j := range batch {
			topic := "observability.action_graph"
			if j == n/2 && n > 2 {
				topic = "audit" // a run of one topic ends inside the batch
			}
			rec := actionGraphRecord(i)
			if j%7 == 3 {
				rec.Payload, rec.Headers = nil, nil
			}
			batch[j] = eventlog.TopicRecord{Topic: topic, Record: rec}
			i++
		}
		ids, err := batched.AppendAll(ctx, batch...)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range batch {
			id, err := single.Append(ctx, r.Topic, r.Record)
			if err != nil {
				t.Fatal(err)
			}
			if id != ids[j] {
				t.Fatalf("batch of %d, record %d: id %d, appended alone %d", n, j, ids[j], id)
			}
		}
	}
	batched.Close()
	single.Close()
	want, got := dumpRows(t, filepath.Join(dir, "single.sqlite")), dumpRows(t, filepath.Join(dir, "batched.sqlite"))
	if len(got) != i+2 {
		t.Fatalf("%d rows, want %d", len(got), i+2)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stored rows differ:\n got %v\nwant %v", got, want)
	}
}

// dumpRows is every row of the events and topic_heads tables, with the
// SQLite type of each value.
func dumpRows(t *testing.T, path string) [][]any {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out [][]any
	for _, q := range []string{
		`SELECT topic, event_id, kind, typeof(payload), payload, typeof(headers), headers, occurred_at_ms FROM events ORDER BY topic, event_id`,
		`SELECT topic, last_id FROM topic_heads ORDER BY topic`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			row := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for k := range row {
				ptrs[k] = &row[k]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, row)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return out
}
