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

// TestNativeMethodDoesNotBox: finding the universe method of a float or a
// string receiver (CALL_METHOD's lookup) allocates nothing; the namespace
// check must not box the receiver through Object.
func TestNativeMethodDoesNotBox(t *testing.T) {
	u := NewUniverse()
	u.AddMethod(&Method{Recv: "float", Name: "round", Fn: func(*Thread, Value, Args) (Value, error) { return Nil, nil }})
	u.AddMethod(&Method{Recv: "string", Name: "upper", Fn: func(*Thread, Value, Args) (Value, error) { return Nil, nil }})
	th := New(u).NewThread()
	rt := &funcRT{caches: newSiteCaches(1)}
	for _, c := range []struct {
		recv Value
		name string
	}{{FloatOf(1.5), "round"}, {Str("a longer string than fits inline"), "upper"}} {
		if th.nativeMethod(rt, 0, c.recv, c.name) == nil {
			t.Fatalf("no %s method", c.name)
		}
		if raceEnabled {
			continue
		}
		allocs := testing.AllocsPerRun(100, func() { th.nativeMethod(rt, 0, c.recv, c.name) })
		if allocs != 0 {
			t.Errorf("%s: %v allocations, want 0", c.name, allocs)
		}
	}
}
