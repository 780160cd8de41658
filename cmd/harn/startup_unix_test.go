//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkStartupProcess times `harn run` of an empty script from
// process start to exit with a freshly built binary, and reports the
// child's peak RSS and minor page faults, which vary far less than time
// on a loaded machine:
//
//	go test ./cmd/harn -run '^$' -bench StartupProcess -benchtime 50x
func BenchmarkStartupProcess(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "harn")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	empty := filepath.Join(dir, "empty.harn")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	var rss, faults int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "run", empty)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss += ru.Maxrss
			faults += ru.Minflt
		}
	}
	b.ReportMetric(float64(rss)/float64(b.N), "maxrss-KB")
	b.ReportMetric(float64(faults)/float64(b.N), "minflt/op")
}
