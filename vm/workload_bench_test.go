package vm_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/interp"
)

// BenchmarkWorkload runs the nine workloads of the CPython comparison
// (testdata/bench: the shared bench harness's programs scaled to about a
// tenth, so one run takes tens of milliseconds) with the full standard
// library. Parsing, compiling and building the universe are not timed:
// only the bytecode runs. Besides wall time it reports cpu-ns/op, the
// process's CPU time per run: on a shared machine that measures work where
// wall time measures waiting.
//
//	go test ./vm -run '^$' -bench Workload -count 5
func BenchmarkWorkload(b *testing.B) {
	files, _ := filepath.Glob("testdata/bench/*.harn")
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(filepath.Base(path), ".harn"), func(b *testing.B) {
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := interp.NewSession(interp.Options{Stdout: io.Discard, Stderr: io.Discard})
				m, err := s.Compile(path, src)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := cpuTime()
				if _, err := s.Run(m); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - start
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
