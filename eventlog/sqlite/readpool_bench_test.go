package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// BenchmarkRead64 is 64 concurrent readers of a short topic on the read
// pool, each reading again as soon as its read returns (the orchestrator's
// tools under issue 11's load). It reports latency percentiles and how
// many reads finished while one was waiting (p99-passed): about 63 when
// the pool serves readers in arrival order.
func BenchmarkRead64(b *testing.B) {
	ctx := context.Background()
	l, err := Open(ctx, filepath.Join(b.TempDir(), "events.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for range 20 {
		if _, err := l.Append(ctx, "t", eventlog.Record{Kind: "k", Payload: []byte(`{"a":1}`)}); err != nil {
			b.Fatal(err)
		}
	}
	const readers = 64
	n := max(b.N, 100*readers)
	var next, done atomic.Int64
	passed := make([]int64, n)
	took := make([]time.Duration, n)
	var wg sync.WaitGroup
	b.ResetTimer()
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				before, start := done.Load(), time.Now()
				if _, err := l.Read(ctx, "t", 0, 20); err != nil {
					b.Error(err)
					return
				}
				took[i], passed[i] = time.Since(start), done.Add(1)-1-before
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(passed)
	slices.Sort(took)
	b.ReportMetric(float64(took[n/2].Microseconds()), "p50-us")
	b.ReportMetric(float64(took[n*99/100].Microseconds()), "p99-us")
	b.ReportMetric(float64(passed[n/2]), "p50-passed")
	b.ReportMetric(float64(passed[n*99/100]), "p99-passed")
	b.ReportMetric(float64(passed[n-1]), "max-passed")
}
