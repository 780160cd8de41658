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

// TestSmallIntObject: Object gives every small int as its Int without
// allocating, and a larger one boxed.
func TestSmallIntObject(t *testing.T) {
	for _, n := range []int64{-257, -256, -1, 0, 1, 255, 256, 1023, 1024, 1 << 40} {
		if o := IntOf(n).Object(); o != Int(n) {
			t.Errorf("IntOf(%d).Object() = %#v", n, o)
		}
	}
	if raceEnabled {
		return
	}
	var o Object
	allocs := testing.AllocsPerRun(100, func() { o = IntOf(700).Object() })
	if allocs != 0 {
		t.Fatalf("%v allocations, want 0", allocs)
	}
	_ = o
}

// BenchmarkSmallIntObject is Object for an int the table holds.
func BenchmarkSmallIntObject(b *testing.B) {
	var o Object
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		o = IntOf(int64(i & 1023)).Object()
	}
	_ = o
}
