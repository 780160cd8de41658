package collections

import (
	"math"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// sortByKeys sorts items stably by keys with the ordering of docs/spec/builtins.md
// §1.6; keys are left in an unspecified order. Up to 20 items are
// insertion-sorted exactly as upstream does, which fixes the outcome when
// the order is not total (mixed kinds, NaN).
//
// Longer lists whose keys are all ints, all strings, or numbers that all
// convert to float64 exactly with no NaN among them are totally ordered.
// Number keys are mapped to unsigned integers of the same order and
// radix-sorted (stable, linear); string keys are unboxed into (key, index)
// pairs and sorted with pdqsort (slices.SortFunc), the index breaking ties
// so that the sort is stable. Any other list is merge-sorted through
// vm.Compare.
//
// A long sort stops at an interrupt (deadline, cancel, Ctrl-C): the
// comparator checks every few thousand calls, and a radix pass every
// radixBlock entries, and unwinds the sort by panicking with the error,
// which sortByKeys recovers and returns.
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
	defer recoverInterrupt(&err)
	switch keyKind(keys) {
	case intKeys:
		sortRadix(items, keys, p, intBits)
	case stringKeys:
		sortStrings(items, keys, p)
	case floatKeys:
		sortRadix(items, keys, p, floatBits)
	default:
		mergeSort(items, keys, p)
	}
	return nil
}

// sortValues returns a sorted copy of items, each item its own key. Ints
// are radix-sorted by value alone: equal ints are indistinguishable, so
// there is no order among them to keep.
func sortValues(th *vm.Thread, items []vm.Value) (out []vm.Value, err error) {
	if len(items) <= 20 || keyKind(items) != intKeys {
		out = slices.Clone(items)
		return out, sortByKeys(th, out, slices.Clone(items))
	}
	defer recoverInterrupt(&err)
	a := make([]uint64, len(items))
	for i, v := range items {
		a[i] = intBits(v)
	}
	a = radixSort(a, func(k uint64) uint64 { return k }, &lib.Pacer{Th: th})
	out = make([]vm.Value, len(a))
	for i, k := range a {
		out[i] = vm.IntOf(int64(k ^ 1<<63))
	}
	return out, nil
}

// recoverInterrupt turns the panic with which a sort stops at an interrupt
// into the error it carries.
func recoverInterrupt(err *error) {
	if r := recover(); r != nil {
		stop, ok := r.(sortInterrupt)
		if !ok {
			panic(r)
		}
		*err = stop.err
	}
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

// intBits maps an int key to an unsigned integer of the same order.
func intBits(v vm.Value) uint64 {
	n, _ := v.AsInt()
	return uint64(n) ^ 1<<63
}

// floatBits maps a number key (no NaN, ints exact as floats) to an
// unsigned integer of the same order: -0.0 becomes 0.0, which it equals;
// negative numbers have every bit flipped, so that larger magnitudes come
// first, and the others only the sign bit.
func floatBits(v vm.Value) uint64 {
	var f float64
	if i, ok := v.AsInt(); ok {
		f = float64(i)
	} else {
		x, _ := v.AsFloat()
		f = float64(x)
	}
	if f == 0 {
		return 1 << 63
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// radixEntry is a key mapped by intBits or floatBits and the position of
// its item.
type radixEntry struct {
	k uint64
	i int
}

// sortRadix sorts items stably by keys mapped through bits.
func sortRadix(items, keys []vm.Value, p *lib.Pacer, bits func(vm.Value) uint64) {
	a := make([]radixEntry, len(keys))
	for i, k := range keys {
		a[i] = radixEntry{bits(k), i}
	}
	a = radixSort(a, func(e radixEntry) uint64 { return e.k }, p)
	orig := slices.Clone(items)
	for j, e := range a {
		items[j] = orig[e.i]
	}
}

// radixSort sorts a by key, stably: a least-significant-digit radix sort
// on bytes, skipping the bytes every key shares. It returns the sorted
// slice, which is a or a buffer of the same length.
func radixSort[E any](a []E, key func(E) uint64, p *lib.Pacer) []E {
	if len(a) < 2 {
		return a
	}
	var counts [8][256]int
	for lo := 0; lo < len(a); lo += radixBlock {
		checkInterrupt(p)
		for _, e := range a[lo:min(lo+radixBlock, len(a))] {
			k := key(e)
			for d := range 8 {
				counts[d][byte(k>>(8*d))]++
			}
		}
	}
	var buf []E
	for d := range 8 {
		c := &counts[d]
		if c[byte(key(a[0])>>(8*d))] == len(a) {
			continue // every key has this byte
		}
		if buf == nil {
			buf = make([]E, len(a))
		}
		pos := 0
		for b, n := range c {
			c[b] = pos
			pos += n
		}
		shift := 8 * d
		for lo := 0; lo < len(a); lo += radixBlock {
			checkInterrupt(p)
			for _, e := range a[lo:min(lo+radixBlock, len(a))] {
				b := byte(key(e) >> shift)
				buf[c[b]] = e
				c[b]++
			}
		}
		a, buf = buf, a
	}
	return a
}

// radixBlock is how many entries a radix pass moves between checks for an
// interrupt.
const radixBlock = 1 << 16

// checkInterrupt stops the sort if the thread has been interrupted.
func checkInterrupt(p *lib.Pacer) {
	if p.Th == nil {
		return
	}
	if err := p.Th.CheckInterrupt(); err != nil {
		panic(sortInterrupt{err})
	}
}

// keyed is a string sort key and the position of its item.
type keyed struct {
	k string
	i int
}

// sortStrings sorts by string keys, unboxed: Go's string order is
// vm.Compare's on strings (bytewise).
func sortStrings(items, keys []vm.Value, p *lib.Pacer) {
	ks := make([]keyed, len(keys))
	for i, k := range keys {
		s, _ := k.AsString()
		ks[i] = keyed{s.Go(), i}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		step(p)
		if c := strings.Compare(a.k, b.k); c != 0 {
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
