package secretscan

import (
	"strings"
	"testing"
)

// BenchmarkScan is the cost of one harn.secret_scan on a one-line
// finding and on 64 KiB diff-sized texts, without and with the
// assignment rule's keywords on every line, and with one token.
func BenchmarkScan(b *testing.B) {
	line := `token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"`
	diff := strings.Repeat("+ some ordinary code line with words, numbers 12345 and = signs\n", 1024)
	keys := strings.Repeat("+ cfg.token = load(key)  // password: see vault\n", 1400)
	token := diff + "+ GITHUB_TOKEN=ghp_1234567890abcdefghijklmnopqrstuvwxyzAB\n"
	for _, bc := range []struct{ name, content string }{{"line", line}, {"64KiB", diff}, {"64KiB-keywords", keys}, {"64KiB-token", token}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.content)))
			for range b.N {
				Scan(bc.content)
			}
		})
	}
}
