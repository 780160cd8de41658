//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStartupProcess times `harn run` of an empty script from
// process start to exit with freshly built binaries: lite (-tags harnlite,
// what make install installs as harn) and full (harn-full, go install's
// harn). Each iteration runs both, one after the other, so a changing load
// skews them alike; it reports each one's median wall and CPU time (user
// plus system) and minor page faults, which vary far less than time on a
// loaded machine:
//
//	go test ./cmd/harn -run '^$' -bench StartupProcess -benchtime 50x
func BenchmarkStartupProcess(b *testing.B) {
	dir := b.TempDir()
	empty := filepath.Join(dir, "empty.harn")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	builds := []struct {
		name, tags         string
		bin                string
		wall, cpu, minflts []float64
	}{{name: "lite", tags: "harnlite"}, {name: "full"}}
	for i := range builds {
		builds[i].bin = filepath.Join(dir, "harn-"+builds[i].name)
		if out, err := exec.Command("go", "build", "-tags", builds[i].tags, "-o", builds[i].bin, ".").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range builds {
			bd := &builds[j]
			cmd := exec.Command(bd.bin, "run", empty)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			bd.wall = append(bd.wall, float64(time.Since(start).Microseconds())/1e3)
			bd.cpu = append(bd.cpu, float64((cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()).Microseconds())/1e3)
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				bd.minflts = append(bd.minflts, float64(ru.Minflt))
			}
		}
	}
	median := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	for _, bd := range builds {
		b.ReportMetric(median(bd.wall), bd.name+"-wall-ms")
		b.ReportMetric(median(bd.cpu), bd.name+"-cpu-ms")
		b.ReportMetric(median(bd.minflts), bd.name+"-minflt")
	}
}
