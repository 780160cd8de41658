package secretscan

import (
	"strings"
	"testing"
)

// BenchmarkScan is the cost of one harn.secret_scan on a one-line
// finding and on a 64 KiB diff-sized text.
func BenchmarkScan(b *testing.B) {
	line := `token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"`
	diff := strings.Repeat("+ some ordinary code line with words, numbers 12345 and = signs\n", 1024)
	for _, bc := range []struct{ name, content string }{{"line", line}, {"64KiB", diff}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.content)))
			for range b.N {
				Scan(bc.content)
			}
		})
	}
}
