package stdlib

import "testing"

// BenchmarkUniverse is what each process pays on `harn run`'s path for
// the builtin table: building the base universe from the descriptor
// table (once per process) and a session's clone of it.
//
//	go test ./stdlib -run '^$' -bench Universe -count 5
func BenchmarkUniverse(b *testing.B) {
	b.Run("base", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buildBase()
		}
	})
	b.Run("session", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			NewUniverse(Config{})
		}
	})
}
