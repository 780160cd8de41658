package collections

import (
	"strconv"
	"testing"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// benchList is n ints, or the strings "item0", "item1", … (the strings
// workload's parts).
func benchList(n int, strs bool) []vm.Value {
	items := make([]vm.Value, n)
	for i := range items {
		if strs {
			items[i] = vm.Str("item" + strconv.Itoa(i))
		} else {
			items[i] = vm.IntOf(int64(i))
		}
	}
	return items
}

func BenchmarkJoin200k(b *testing.B) {
	items := benchList(200000, true)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := lib.JoinItems(nil, items, ","); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFilterMap is the lists workload's map(x*2) and
// filter(x%3==0) on 200,000 ints, with builtins as the callbacks.
func BenchmarkFilterMap(b *testing.B) {
	items := benchList(200000, false)
	th := vm.New(vm.NewUniverse()).NewThread()
	double := vm.NewBuiltin("double", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		n, _ := a[0].AsInt()
		return vm.IntOf(int64(n * 2)), nil
	})
	third := vm.NewBuiltin("third", "", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		n, _ := a[0].AsInt()
		return vm.BoolOf(n%3 == 0), nil
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := mapItems(th, items, vm.Of(double)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("filter", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := filterItems(th, items, vm.Of(third), true); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSum adds 200,000 floats, the path where reading numbers
// through Value.Object would box each one.
func BenchmarkSum(b *testing.B) {
	items := make([]vm.Value, 200000)
	for i := range items {
		items[i] = vm.FloatOf(float64(i) / 4)
	}
	b.ReportAllocs()
	for b.Loop() {
		var s summer
		for _, it := range items {
			s.add(it)
		}
		_, _ = s.value("list.sum")
	}
}
