package collections

import (
	"cmp"
	"math"
	"slices"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// sortByKeys sorts items stably by keys with the ordering of docs/spec/builtins.md
// §1.6; keys are left in an unspecified order. Up to 20 items are
// insertion-sorted exactly as upstream does, which fixes the outcome when
// the order is not total (mixed kinds, NaN).
//
// Longer lists whose keys are all ints, all strings, or numbers that all
// convert to float64 exactly with no NaN among them are totally ordered:
// their keys are unboxed into (key, index) pairs and sorted with pdqsort
// (slices.SortFunc), the index breaking ties so that the sort is stable.
// Any other list is merge-sorted through vm.Compare.
//
// A long sort stops at an interrupt (deadline, cancel, Ctrl-C): the
// comparator checks every few thousand calls and unwinds the sort by
// panicking with the error, which sortByKeys recovers and returns.
func sortByKeys(th *vm.Thread, items, keys []vm.Value) (err error) {
	if len(items) <= 20 {
		for i := 1; i < len(items); i++ {
			for j := i; j > 0 && vm.Compare(keys[j], keys[j-1]) < 0; j-- {
				keys[j], keys[j-1] = keys[j-1], keys[j]
				items[j], items[j-1] = items[j-1], items[j]
			}
		}
		return nil
	}
	p := &lib.Pacer{Th: th}
	defer func() {
		if r := recover(); r != nil {
			stop, ok := r.(sortInterrupt)
			if !ok {
				panic(r)
			}
			err = stop.err
		}
	}()
	switch keyKind(keys) {
	case intKeys:
		sortUnboxed(items, keys, p, func(v vm.Value) int64 { n, _ := v.AsInt(); return int64(n) })
	case stringKeys:
		sortUnboxed(items, keys, p, func(v vm.Value) string { s, _ := v.AsString(); return s.Go() })
	case floatKeys:
		sortUnboxed(items, keys, p, exactFloat)
	default:
		mergeSort(items, keys, p)
	}
	return nil
}

// sortInterrupt carries an interrupt out of a comparator.
type sortInterrupt struct{ err error }

func step(p *lib.Pacer) {
	if err := p.Step(); err != nil {
		panic(sortInterrupt{err})
	}
}

type sortKind int

const (
	mixedKeys sortKind = iota
	intKeys
	stringKeys
	floatKeys // ints and floats, none NaN, every int exact as a float64
)

// maxExactInt bounds the ints whose float64 conversion is exact, so that
// comparing them as floats agrees with vm.Compare's int-to-int order.
const maxExactInt = 1 << 53

func keyKind(keys []vm.Value) sortKind {
	ints, strs, floats := true, true, true
	for _, k := range keys {
		// By kind: Object would box every int, float and string key.
		switch k.Kind() {
		case vm.KInt:
			x, _ := k.AsInt()
			strs = false
			floats = floats && x >= -maxExactInt && x <= maxExactInt
		case vm.KFloat:
			x, _ := k.AsFloat()
			ints, strs = false, false
			floats = floats && !math.IsNaN(float64(x))
		case vm.KString:
			ints, floats = false, false
		default:
			return mixedKeys
		}
		if !ints && !strs && !floats {
			return mixedKeys
		}
	}
	switch {
	case ints:
		return intKeys
	case strs:
		return stringKeys
	case floats:
		return floatKeys
	}
	return mixedKeys
}

func exactFloat(v vm.Value) float64 {
	if i, ok := v.AsInt(); ok {
		return float64(i)
	}
	f, _ := v.AsFloat()
	return float64(f)
}

// keyed is an unboxed sort key and the position of its item.
type keyed[K cmp.Ordered] struct {
	k K
	i int
}

// sortUnboxed sorts by the unboxed keys; cmp.Compare agrees with
// vm.Compare on them because NaN is excluded (and -0.0 == 0.0 in both).
func sortUnboxed[K cmp.Ordered](items, keys []vm.Value, p *lib.Pacer, unbox func(vm.Value) K) {
	ks := make([]keyed[K], len(keys))
	for i, k := range keys {
		ks[i] = keyed[K]{unbox(k), i}
	}
	slices.SortFunc(ks, func(a, b keyed[K]) int {
		step(p)
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		return a.i - b.i
	})
	orig := slices.Clone(items)
	for j, e := range ks {
		items[j] = orig[e.i]
	}
}

// entry is an item with its key, the unit mergeSort moves.
type entry struct{ key, item vm.Value }

// mergeSort is a stable bottom-up merge sort through vm.Compare: runs of
// 20 are insertion-sorted (as sort.Stable did before), then merged
// pairwise through a buffer; an item from the right run goes first only
// when its key is strictly less.
func mergeSort(items, keys []vm.Value, p *lib.Pacer) {
	const run = 20
	n := len(items)
	a := make([]entry, n)
	for i := range a {
		a[i] = entry{keys[i], items[i]}
	}
	for lo := 0; lo < n; lo += run {
		hi := min(lo+run, n)
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo; j-- {
				step(p)
				if vm.Compare(a[j].key, a[j-1].key) >= 0 {
					break
				}
				a[j], a[j-1] = a[j-1], a[j]
			}
		}
	}
	b := make([]entry, n)
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				step(p)
				if vm.Compare(a[j].key, a[i].key) < 0 {
					b[k] = a[j]
					j++
				} else {
					b[k] = a[i]
					i++
				}
				k++
			}
			k += copy(b[k:], a[i:mid])
			copy(b[k:], a[j:hi])
		}
		a, b = b, a
	}
	for i, e := range a {
		items[i] = e.item
	}
}
