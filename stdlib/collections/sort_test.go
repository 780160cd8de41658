package collections

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/harnlang/harn/vm"
)

// referenceSort is the sort before the unboxed paths: sort.Stable
// through vm.Compare, which every path must match on totally ordered
// keys.
func referenceSort(items, keys []vm.Value) {
	type pair struct{ key, item vm.Value }
	ps := make([]pair, len(items))
	for i := range ps {
		ps[i] = pair{keys[i], items[i]}
	}
	sort.SliceStable(ps, func(i, j int) bool { return vm.Compare(ps[i].key, ps[j].key) < 0 })
	for i, p := range ps {
		items[i] = p.item
	}
}

// show renders items so that values equal under vm.Compare but distinct
// (1 and 1.0, 0.0 and -0.0, equal keys of different items) differ.
func show(items []vm.Value) string {
	s := ""
	for _, v := range items {
		switch x := v.Object().(type) {
		case vm.Float:
			s += fmt.Sprintf("f%v(%v) ", x, math.Signbit(float64(x)))
		default:
			s += v.Type() + ":" + vm.ToDisplay(v) + " " // %T would say vm.Value for every kind
		}
	}
	return s
}

// TestSortByKeysMatchesStableSort compares every path with the reference
// on totally ordered keys (on others, such as ints past 2^53 next to an
// equal float, stable sorts may legitimately differ).
func TestSortByKeysMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() vm.Value{
		"ints":     func() vm.Value { return vm.IntOf(int64(r.IntN(40) - 20)) },
		"big ints": func() vm.Value { return vm.IntOf(int64(int64(1)<<53 + int64(r.IntN(5)) - 2)) },
		"any ints": func() vm.Value { return vm.IntOf(int64(r.Uint64() >> r.IntN(64))) },
		"any floats": func() vm.Value {
			return vm.FloatOf(float64(r.NormFloat64() * math.Pow(2, float64(r.IntN(200)-100))))
		},
		"strings": func() vm.Value { return vm.Str(string(rune('a' + r.IntN(6)))) },
		"floats": func() vm.Value {
			return vm.FloatOf(float64([]float64{0, math.Copysign(0, -1), 1.5, -2, math.Inf(1), math.Inf(-1)}[r.IntN(6)]))
		},
		"int floats": func() vm.Value {
			return []vm.Value{vm.IntOf(int64(1)), vm.FloatOf(float64(1)), vm.IntOf(int64(2)), vm.FloatOf(float64(1.5)), vm.IntOf(int64(-3))}[r.IntN(5)]
		},
		"pairs": func() vm.Value {
			return vm.Of(&vm.Pair{First: vm.IntOf(int64(r.IntN(3))), Second: vm.Str(string(rune('a' + r.IntN(3))))})
		},
	}
	for name, gen := range gens {
		for _, n := range []int{21, 64, 1000} {
			keys := make([]vm.Value, n)
			items := make([]vm.Value, n)
			for i := range keys {
				keys[i] = gen()
				items[i] = vm.IntOf(int64(i)) // the item records its original position
			}
			want := append([]vm.Value(nil), items...)
			referenceSort(want, append([]vm.Value(nil), keys...))
			got := append([]vm.Value(nil), items...)
			if err := sortByKeys(nil, got, append([]vm.Value(nil), keys...)); err != nil {
				t.Fatal(err)
			}
			if show(got) != show(want) {
				t.Errorf("%s, %d keys: sort_by order differs\ngot  %s\nwant %s", name, n, show(got), show(want))
			}
			// xs.sort(): the items are their own keys.
			want = append([]vm.Value(nil), keys...)
			referenceSort(want, append([]vm.Value(nil), keys...))
			got, err := sortValues(nil, keys)
			if err != nil {
				t.Fatal(err)
			}
			if show(got) != show(want) {
				t.Errorf("%s, %d items: sort order differs\ngot  %s\nwant %s", name, n, show(got), show(want))
			}
		}
	}
}

func TestKeyKind(t *testing.T) {
	nan := vm.Float(math.NaN())
	for _, tc := range []struct {
		keys []vm.Value
		want sortKind
	}{
		{[]vm.Value{vm.IntOf(int64(1)), vm.IntOf(int64(2))}, intKeys},
		{[]vm.Value{vm.Str("a"), vm.Str("b")}, stringKeys},
		{[]vm.Value{vm.IntOf(int64(1)), vm.FloatOf(float64(2))}, floatKeys},
		{[]vm.Value{vm.FloatOf(float64(1)), vm.FloatOf(float64(nan))}, mixedKeys},
		{[]vm.Value{vm.IntOf(int64(1<<53 + 1)), vm.FloatOf(float64(2))}, mixedKeys},
		{[]vm.Value{vm.IntOf(int64(1<<53 + 1)), vm.IntOf(int64(2))}, intKeys},
		{[]vm.Value{vm.IntOf(int64(1)), vm.Str("a")}, mixedKeys},
		{[]vm.Value{vm.IntOf(int64(1)), vm.Nil}, mixedKeys},
	} {
		if got := keyKind(tc.keys); got != tc.want {
			t.Errorf("keyKind(%v) = %d, want %d", tc.keys, got, tc.want)
		}
	}
}

// TestSortStopsAtInterrupt: every path checks for an interrupt while it
// sorts and returns it.
func TestSortStopsAtInterrupt(t *testing.T) {
	v := vm.New(vm.NewUniverse())
	v.Interrupt()
	for name, gen := range map[string]func(i int) vm.Value{
		"ints":    func(i int) vm.Value { return vm.IntOf(int64(i * 7919 % 10007)) },
		"strings": func(i int) vm.Value { return vm.Str(fmt.Sprint(i * 7919 % 10007)) },
		"floats":  func(i int) vm.Value { return vm.FloatOf(float64(i * 7919 % 10007)) },
		"pairs":   func(i int) vm.Value { return vm.Of(&vm.Pair{First: vm.IntOf(int64(i * 7919 % 10007)), Second: vm.Nil}) },
	} {
		items := make([]vm.Value, 10000)
		for i := range items {
			items[i] = gen(i)
		}
		if err := sortByKeys(v.NewThread(), items, append([]vm.Value(nil), items...)); err == nil {
			t.Errorf("%s: an interrupted sort returned no error", name)
		}
		if _, err := sortValues(v.NewThread(), items); err == nil {
			t.Errorf("%s: an interrupted sort() returned no error", name)
		}
	}
}

// BenchmarkSort sorts 100,000 keys of each kind: the unboxed pdqsort
// paths (ints, strings, floats) and the merge sort (pairs).
func BenchmarkSort(b *testing.B) {
	const n = 100000
	for _, kind := range []struct {
		name string
		gen  func(x int) vm.Value
	}{
		{"ints", func(x int) vm.Value { return vm.IntOf(int64(x)) }},
		{"strings", func(x int) vm.Value { return vm.Str(fmt.Sprint(x)) }},
		{"floats", func(x int) vm.Value { return vm.FloatOf(float64(vm.Float(x) / 3)) }},
		{"pairs", func(x int) vm.Value {
			return vm.Of(&vm.Pair{First: vm.IntOf(int64(x % 100)), Second: vm.IntOf(int64(x))})
		}},
	} {
		keys := make([]vm.Value, n)
		x := 42
		for i := range keys {
			x = x * 48271 % 2147483647
			keys[i] = kind.gen(x)
		}
		b.Run(kind.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				items := append([]vm.Value(nil), keys...)
				if err := sortByKeys(nil, items, append([]vm.Value(nil), keys...)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
