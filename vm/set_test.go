package vm

import (
	"fmt"
	"math"
	"testing"
)

// TestSetHasMatchesEqual: membership answers exactly as comparing x with
// every item does, for keys the index answers and for the others.
func TestSetHasMatchesEqual(t *testing.T) {
	items := []Value{
		IntOf(1), FloatOf(2), FloatOf(2.5), Str("a"), Str(""), Str("1"), Nil, BoolOf(true),
		IntOf(1 << 53), FloatOf(-0.0), FloatOf(math.Inf(1)), FloatOf(math.NaN()),
		Of(NewList([]Value{IntOf(1)})),
	}
	s := NewSet(items)
	probes := append([]Value{
		FloatOf(1), IntOf(2), IntOf(3), Str("b"), IntOf(0), FloatOf(0),
		IntOf(1<<53 + 1), FloatOf(1 << 53), IntOf(-(1 << 53)), Of(NewList([]Value{FloatOf(1)})),
	}, items...)
	for _, x := range probes {
		want := false
		for _, v := range s.Items() {
			want = want || Equal(v, x)
		}
		if got := s.Has(x); got != want {
			t.Errorf("%s in set: %v, want %v", ToDisplay(x), got, want)
		}
	}
}

// BenchmarkSetHas is `x in s` on a 10,000-string set.
func BenchmarkSetHas(b *testing.B) {
	items := make([]Value, 10000)
	for i := range items {
		items[i] = Str(fmt.Sprint("k", i))
	}
	s, x := Of(NewSet(items)), Str("k9999")
	b.ReportAllocs()
	for b.Loop() {
		Contains(s, x)
	}
}
