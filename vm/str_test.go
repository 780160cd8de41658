package vm

import (
	"testing"

	"github.com/harnlang/harn/compiler"
)

// TestConcatAllocatesOnlyTheText checks that `"key" + s` allocates the new
// string's bytes and nothing else (no box for the unboxed result).
func TestConcatAllocatesOnlyTheText(t *testing.T) {
	x, y := Str("key"), Str("12345")
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Arith(compiler.ADD, x, y); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 1 {
		t.Fatalf("%v allocations, want 1", allocs)
	}
}

// BenchmarkConcatSmall is `"key" + to_string(i)`'s concatenation.
func BenchmarkConcatSmall(b *testing.B) {
	x, y := Str("key"), Str("12345")
	b.ReportAllocs()
	for b.Loop() {
		Arith(compiler.ADD, x, y)
	}
}
