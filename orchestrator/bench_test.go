package orchestrator

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/eventlog/postgres"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator/manifest"
)

// The dispatch rate of harn.trigger.fire (issue 11: at least 1,000
// dispatches per second of a trivial handler on SQLite and PostgreSQL).
// Each operation is one Fire: accept into the inbox, lease, run the Harn
// handler, complete with its attempt and outbox records, and wait for
// the handle. "serial" is one caller; "parallel" keeps GOMAXPROCS*16
// callers busy, the sustained rate of many clients. `make bench-orch`
// runs them (and `make bench`).

const benchManifest = `
[[triggers]]
id = "trivial"
kind = "manual"
handler = "ok"
`

func benchNode(b *testing.B, log eventlog.Log) *Orchestrator {
	b.Helper()
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "harn.toml"), []byte(benchManifest), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("fn ok(event) { return {ok: true} }\n"), 0o644)
	m, err := manifest.Load(filepath.Join(dir, "harn.toml"))
	if err != nil {
		b.Fatal(err)
	}
	o, err := New(context.Background(), Options{Log: log, Manifest: m, Stderr: io.Discard, Workers: 32, Poll: 50 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	o.Start()
	b.Cleanup(func() { o.Close() })
	return o
}

func benchFire(b *testing.B, log eventlog.Log) {
	for _, mode := range []string{"serial", "parallel"} {
		b.Run(mode, func(b *testing.B) {
			o := benchNode(b, log)
			ctx := context.Background()
			fire := func() {
				h, err := o.Fire(ctx, "trivial", nil, Caller{Client: "bench/1"})
				if err != nil || h.Status != "succeeded" {
					b.Fatalf("%+v %v", h, err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			if mode == "serial" {
				for i := 0; i < b.N; i++ {
					fire()
				}
			} else {
				b.SetParallelism(16)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						fire()
					}
				})
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "dispatches/s")
		})
	}
}

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func BenchmarkFireMemory(b *testing.B) { benchFire(b, memory.New()) }

func BenchmarkFireSQLite(b *testing.B) {
	log, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "events.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	benchFire(b, log)
}

// BenchmarkFirePostgres uses the database HARN_BENCH_POSTGRES_URL names,
// or else a throwaway server of package pgtest (an empty schema of its
// own either way); without PostgreSQL it skips.
func BenchmarkFirePostgres(b *testing.B) {
	url := os.Getenv("HARN_BENCH_POSTGRES_URL")
	if url == "" {
		url = pgtest.Schema(b)
	}
	log, err := postgres.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	benchFire(b, log)
}
