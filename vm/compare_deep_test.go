package vm_test

import (
	"runtime/debug"
	"testing"

	"github.com/harnlang/harn/vm"
)

// Ordering pairs nested 200,000 deep (through either side) gives the
// right answer instead of overflowing the Go stack (issue 17 item 3): the
// stack is capped at 4 MiB here, which the old recursive walk overran.
func TestCompareDeepPairs(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(4 << 20))
	const depth = 200000
	nest := func(leaf int64, viaFirst bool) vm.Value {
		var v vm.Value = vm.IntOf(leaf)
		for i := 0; i < depth; i++ {
			if viaFirst {
				v = vm.Of(&vm.Pair{First: v, Second: vm.IntOf(int64(i))})
			} else {
				v = vm.Of(&vm.Pair{First: vm.IntOf(int64(i)), Second: v})
			}
		}
		return v
	}
	for _, viaFirst := range []bool{true, false} {
		a, b := nest(1, viaFirst), nest(2, viaFirst)
		if got := vm.Compare(a, b); got != -1 {
			t.Errorf("viaFirst=%v: Compare(a, b) = %d, want -1", viaFirst, got)
		}
		if got := vm.Compare(b, a); got != 1 {
			t.Errorf("viaFirst=%v: Compare(b, a) = %d, want 1", viaFirst, got)
		}
		if got := vm.Compare(a, a); got != 0 {
			t.Errorf("viaFirst=%v: Compare(a, a) = %d, want 0", viaFirst, got)
		}
	}
	// Lexicographic: the first components decide before the second ones.
	p := func(x, y int64) vm.Value { return vm.Of(&vm.Pair{First: vm.IntOf(x), Second: vm.IntOf(y)}) }
	if vm.Compare(vm.Of(&vm.Pair{First: p(1, 9), Second: vm.IntOf(0)}), vm.Of(&vm.Pair{First: p(2, 0), Second: vm.IntOf(9)})) != -1 ||
		vm.Compare(vm.Of(&vm.Pair{First: p(1, 9), Second: vm.IntOf(0)}), vm.Of(&vm.Pair{First: p(1, 9), Second: vm.IntOf(1)})) != -1 {
		t.Error("pairs do not order lexicographically")
	}
}

// Lists nested 200,000 deep order without overflowing the Go stack, and
// a proper prefix sorts first at every level (docs/spec/newer.md §2.14).
func TestCompareDeepLists(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(4 << 20))
	const depth = 200000
	nest := func(leaf ...int64) vm.Value {
		items := make([]vm.Value, len(leaf))
		for i, n := range leaf {
			items[i] = vm.IntOf(n)
		}
		v := vm.Of(vm.NewList(items))
		for i := 0; i < depth; i++ {
			v = vm.Of(vm.NewList([]vm.Value{vm.IntOf(0), v}))
		}
		return v
	}
	a, b := nest(1), nest(1, 0)
	if got := vm.Compare(a, b); got != -1 {
		t.Errorf("Compare(a, b) = %d, want -1", got)
	}
	if got := vm.Compare(b, a); got != 1 {
		t.Errorf("Compare(b, a) = %d, want 1", got)
	}
	if got := vm.Compare(a, nest(1)); got != 0 {
		t.Errorf("Compare(a, a) = %d, want 0", got)
	}
}
