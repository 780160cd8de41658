package interp

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkWorkloads runs each bench/*.harn program (the CPython
// comparison set of `make bench`) in process: compile once, run b.N times.
func BenchmarkWorkloads(b *testing.B) {
	files, _ := filepath.Glob("../bench/*.harn")
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".harn")
		src, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s := NewSession(Options{Stdout: io.Discard, Stderr: io.Discard})
				m, err := s.Compile(path, src)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Run(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
