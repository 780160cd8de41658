package orchestrator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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

// benchFire reports, besides the rate, figures that a machine shared
// with other work does not skew: the log writes (transactions, each a
// commit and, on PostgreSQL, round trips) per dispatch, and this
// process's CPU time per dispatch (the database server's is not in it;
// serverCPU, when not nil, gives the server's CPU time so far).
func benchFire(b *testing.B, log eventlog.Log, serverCPU func() time.Duration) {
	for _, mode := range []string{"serial", "parallel"} {
		b.Run(mode, func(b *testing.B) {
			counted := &countingLog{Log: log}
			o := benchNode(b, counted)
			ctx := context.Background()
			fire := func() {
				h, err := o.Fire(ctx, "trivial", nil, Caller{Client: "bench/1"})
				if err != nil || h.Status != "succeeded" {
					b.Fatalf("%+v %v", h, err)
				}
			}
			b.ResetTimer()
			start, cpu := time.Now(), cpuTime()
			var server time.Duration
			if serverCPU != nil {
				server = serverCPU()
			}
			counted.writes.Store(0)
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
			b.ReportMetric(float64(counted.writes.Load())/float64(b.N), "log-writes/op")
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-us/op")
			if serverCPU != nil {
				b.ReportMetric(float64((serverCPU()-server).Microseconds())/float64(b.N), "server-cpu-us/op")
			}
		})
	}
}

// cpuTime is the CPU time (user and system) this process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countingLog counts the writes made through it: appends and every
// inbox transition.
type countingLog struct {
	eventlog.Log
	writes atomic.Int64
}

func (c *countingLog) Append(ctx context.Context, topic string, rec eventlog.Record) (int64, error) {
	c.writes.Add(1)
	return c.Log.Append(ctx, topic, rec)
}

func (c *countingLog) AppendAll(ctx context.Context, records ...eventlog.TopicRecord) ([]int64, error) {
	c.writes.Add(1)
	return c.Log.AppendAll(ctx, records...)
}

func (c *countingLog) Inbox() eventlog.Inbox { return countingInbox{c.Log.Inbox(), &c.writes} }

type countingInbox struct {
	eventlog.Inbox
	writes *atomic.Int64
}

func (c countingInbox) Accept(ctx context.Context, d eventlog.Delivery, records ...eventlog.TopicRecord) (eventlog.Delivery, bool, error) {
	c.writes.Add(1)
	return c.Inbox.Accept(ctx, d, records...)
}

func (c countingInbox) AcceptLeased(ctx context.Context, d eventlog.Delivery, owner string, ttl time.Duration, records ...eventlog.TopicRecord) (eventlog.Lease, bool, error) {
	c.writes.Add(1)
	return c.Inbox.AcceptLeased(ctx, d, owner, ttl, records...)
}

func (c countingInbox) Claim(ctx context.Context, owner string, n int, ttl time.Duration) ([]eventlog.Lease, error) {
	c.writes.Add(1)
	return c.Inbox.Claim(ctx, owner, n, ttl)
}

func (c countingInbox) Extend(ctx context.Context, l *eventlog.Lease, ttl time.Duration) error {
	c.writes.Add(1)
	return c.Inbox.Extend(ctx, l, ttl)
}

func (c countingInbox) Complete(ctx context.Context, l eventlog.Lease, final eventlog.DeliveryState, errMsg string, records ...eventlog.TopicRecord) error {
	c.writes.Add(1)
	return c.Inbox.Complete(ctx, l, final, errMsg, records...)
}

func (c countingInbox) Retry(ctx context.Context, l eventlog.Lease, dueAtMs int64, errMsg string, records ...eventlog.TopicRecord) error {
	c.writes.Add(1)
	return c.Inbox.Retry(ctx, l, dueAtMs, errMsg, records...)
}

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func BenchmarkFireMemory(b *testing.B) { benchFire(b, memory.New(), nil) }

func BenchmarkFireSQLite(b *testing.B) {
	log, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "events.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	benchFire(b, log, nil)
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
	benchFire(b, log, postgresCPU(b, url))
}

// postgresCPU returns a function that tells the CPU time used so far by
// the PostgreSQL server at url — its postmaster and every process it
// started (the backends, the WAL writer …) — read from /proc, or nil
// when the server is not a process of this machine one can see.
func postgresCPU(b *testing.B, url string) func() time.Duration {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	var backend int
	err = conn.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend)
	conn.Close(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	postmaster, _, ok := procStat(backend)
	if !ok {
		return nil
	}
	return func() time.Duration {
		_, total, _ := procStat(postmaster)
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if parent, cpu, ok := procStat(pid); ok && parent == postmaster {
				total += cpu
			}
		}
		return total
	}
}

// procStat reads a process's parent and CPU time (user and system) from
// /proc/PID/stat.
func procStat(pid int) (parent int, cpu time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:])) // from field 3 (state) on
	if len(f) < 13 {
		return 0, 0, false
	}
	parent, _ = strconv.Atoi(f[1])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const clockTicks = 100 // USER_HZ, 100 on every Linux architecture Go supports
	return parent, time.Duration(utime+stime) * time.Second / clockTicks, true
}

// BenchmarkViewRefreshActionGraph is the view's share of an MCP tool
// call: folding the call's action-graph record (one op), read back from
// the log or handed over by the process that appended it.
func BenchmarkViewRefreshActionGraph(b *testing.B) {
	// What harn mcp serve records for a harn.trust.query call.
	payload := []byte(`{"context":{"client_identity":"bench/1","tool_name":"harn.trust.query","trace_id":"mcp_01a2360f67a772fd82cbea0a308fac63"},` +
		`"error":null,"observability":{"action_graph_edges":[],"action_graph_nodes":[{"id":"mcp/mcp_01a2360f67a772fd82cbea0a308fac63",` +
		`"kind":"mcp_tool_call","label":"harn.trust.query","outcome":"success","status":"completed","trace_id":"mcp_01a2360f67a772fd82cbea0a308fac63"}],` +
		`"compaction_events":[],"daemon_events":[],"planner_rounds":[],"research_fact_count":0,"schema_version":1,"transcript_pointers":[],` +
		`"verification_outcomes":[],"worker_lineage":[]},"result":{"results":[]}}`)
	for _, handed := range []bool{false, true} {
		name := "read"
		if handed {
			name = "handed"
		}
		b.Run("sqlite/"+name, func(b *testing.B) {
			log, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "events.sqlite"))
			if err != nil {
				b.Fatal(err)
			}
			defer log.Close()
			v := newView(log, time.Now)
			const page = 256
			batch := make([]eventlog.TopicRecord, page)
			for i := range batch {
				batch[i] = eventlog.TopicRecord{Topic: TopicActionGraph, Record: eventlog.Record{Kind: "action_graph_update", Payload: payload,
					Headers: map[string]string{"trace_id": "mcp_0", "mcp_client": "anonymous", "tool_name": "harn.trust.query"}}}
			}
			var cpu time.Duration
			b.ResetTimer()
			b.StopTimer()
			for n := 0; n < b.N; n += page {
				ids, err := log.AppendAll(context.Background(), batch...)
				if err != nil {
					b.Fatal(err)
				}
				before := cpuTime()
				b.StartTimer()
				if handed {
					recs := make([]eventlog.Record, page)
					for i := range recs {
						recs[i] = batch[i].Record
						recs[i].ID = ids[i]
					}
					v.appended(TopicActionGraph, recs)
				}
				if err := v.refresh(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cpu += cpuTime() - before
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
