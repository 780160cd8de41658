package stdlib

import "testing"

// BenchmarkUniverse is what each process pays on `harn run`'s path for
// the builtin table: building the base universe from the descriptor
// table (once per process) and a session's universe on top of it.
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

// A run's universe reads through to the library's instead of copying it
// (a copy was 85 allocations and 50 KB in every process).
func TestUniverseSharesLibrary(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts do not hold under -race")
	}
	baseUniverse()
	if n := testing.AllocsPerRun(10, func() { NewUniverse(Config{Argv: []string{}}) }); n > 40 {
		t.Errorf("NewUniverse: %.0f allocations, want the library's tables shared, not copied", n)
	}
}
