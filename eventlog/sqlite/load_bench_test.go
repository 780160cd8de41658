package sqlite

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// BenchmarkMCPLoad writes what `harn mcp serve` writes under issue 11's
// load (64 concurrent harn.secret_scan calls): each call queues its
// audit record and its action-graph record, which one goroutine appends
// in batches (orchestrator/mcpserver's recorder): recorder+queued-audit.
// recorder is the action-graph records alone (harn.trust.query), and
// recorder+audit the way the server wrote audits before, synchronously
// on the call path. One op is one call; cpu-us/op is the process's CPU
// per call, the writer's cost whatever else runs on the machine. The
// audit-*-us metrics are the synchronous audit appends' latency
// percentiles: a call answered only once its audit was committed, so a
// writer that stalls (a checkpoint, a slow fsync) showed there.
func BenchmarkMCPLoad(b *testing.B) {
	for _, mode := range []string{"recorder", "recorder+queued-audit", "recorder+audit"} {
		b.Run(mode, func(b *testing.B) { benchMCPLoad(b, mode) })
	}
}

func benchMCPLoad(b *testing.B, mode string) {
	audits, queued := mode == "recorder+audit", mode == "recorder+queued-audit"
	ctx := context.Background()
	l, err := Open(ctx, filepath.Join(b.TempDir(), "events.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	graph := bytes.Repeat([]byte("g"), 560)
	audit := bytes.Repeat([]byte("a"), 420)
	queue := make(chan eventlog.TopicRecord, 4096)
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		var batch []eventlog.TopicRecord
		for r := range queue {
			batch = append(batch[:0], r)
		more:
			for len(batch) < 256 {
				select {
				case r, ok := <-queue:
					if !ok {
						break more
					}
					batch = append(batch, r)
				default:
					break more
				}
			}
			if _, err := l.AppendAll(ctx, batch...); err != nil {
				b.Error(err)
			}
		}
	}()
	const callers = 64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var took []time.Duration
	work := make(chan struct{}, b.N)
	for range b.N {
		work <- struct{}{}
	}
	close(work)
	before := cpuTime()
	b.ResetTimer()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			defer func() {
				mu.Lock()
				took = append(took, mine...)
				mu.Unlock()
			}()
			for range work {
				id := "mcp_01a241ec747b7533b9a7f8f2bc401f9e"
				if audits {
					h := map[string]string{"trace_id": id, "mcp_client": "harn-loadtest/1"}
					begin := time.Now()
					if _, err := l.Append(ctx, "audit.secret_scan", eventlog.Record{Kind: "scan_detected", Payload: audit, Headers: h}); err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(begin))
				}
				if queued {
					h := map[string]string{"trace_id": id, "mcp_client": "harn-loadtest/1"}
					queue <- eventlog.TopicRecord{Topic: "audit.secret_scan",
						Record: eventlog.Record{Kind: "scan_detected", Payload: audit, Headers: h, OccurredAtMs: time.Now().UnixMilli()}}
				}
				h := map[string]string{"trace_id": id, "mcp_client": "harn-loadtest/1", "tool_name": "harn.secret_scan"}
				queue <- eventlog.TopicRecord{Topic: "observability.action_graph",
					Record: eventlog.Record{Kind: "action_graph_update", Payload: graph, Headers: h, OccurredAtMs: time.Now().UnixMilli()}}
			}
		}()
	}
	wg.Wait()
	close(queue)
	<-recorded
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-us/op")
	if len(took) > 0 {
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds()), "audit-p50-us")
		b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "audit-p99-us")
		b.ReportMetric(float64(took[len(took)-1].Microseconds()), "audit-max-us")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
