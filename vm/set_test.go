package vm

import (
	"fmt"
	"math"
	"sync"
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

// TestSetAddShares: sets grown from one another share their array and
// index, yet each keeps exactly its own items: a key claimed by a newer
// set is no member of an older one, and adding to an older set copies.
func TestSetAddShares(t *testing.T) {
	a := NewSet([]Value{IntOf(1), IntOf(2)})
	b := a.Add(IntOf(3))
	c := a.Add(IntOf(4))
	d := b.Add(IntOf(5))
	want := map[*Set]string{a: "set(1, 2)", b: "set(1, 2, 3)", c: "set(1, 2, 4)", d: "set(1, 2, 3, 5)"}
	for s, w := range want {
		if got := ToDisplay(Of(s)); got != w {
			t.Errorf("got %s, want %s", got, w)
		}
	}
	if a.HasKey(IntOf(3)) || b.HasKey(IntOf(4)) || c.HasKey(IntOf(3)) || b.HasKey(IntOf(5)) {
		t.Error("a set sees a key added to another set")
	}
	if b.tab != a.tab || d.tab != a.tab || c.tab == a.tab {
		t.Error("only the newest set should grow the shared table")
	}
	if b.Add(IntOf(1)) != b || a.Add(FloatOf(2)) != a {
		t.Error("adding a present key should return the receiver")
	}
}

// TestSetAddConcurrent: goroutines growing sets from one shared set each
// get their own items (run under -race).
func TestSetAddConcurrent(t *testing.T) {
	base := NewSet([]Value{IntOf(-1)})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			s := base
			for i := 0; i < 200; i++ {
				s = s.Add(IntOf(int64(g*1000 + i)))
				if base.HasKey(IntOf(int64(g*1000+i))) || !s.HasKey(IntOf(int64(g*1000+i))) {
					t.Errorf("goroutine %d: wrong membership after %d adds", g, i)
					return
				}
			}
			if s.Len() != 201 {
				t.Errorf("goroutine %d: len %d, want 201", g, s.Len())
			}
		}(g)
	}
	wg.Wait()
	if base.Len() != 1 {
		t.Errorf("base set changed: %s", ToDisplay(Of(base)))
	}
}

// TestSetWithout: removing items keeps the others in order, returns the
// receiver when nothing goes, and leaves the key index of the result
// unbuilt until a lookup or an add needs it (`s = s.remove(x)` in a loop
// used to recompute every remaining item's structural key each step).
func TestSetWithout(t *testing.T) {
	s := NewSet([]Value{IntOf(1), Str("a"), FloatOf(2.5), IntOf(3), FloatOf(math.NaN()), FloatOf(math.NaN())})
	if s.Without(func(Value) bool { return false }) != s {
		t.Error("removing nothing should return the receiver")
	}
	if s.Without(func(Value) bool { return true }) != EmptySet {
		t.Error("removing everything should give the empty set")
	}
	r := s.Without(func(v Value) bool { return Equal(v, IntOf(1)) || Equal(v, IntOf(3)) })
	if got := ToDisplay(Of(r)); got != "set(a, 2.5, NaN, NaN)" {
		t.Errorf("got %s", got)
	}
	if r.tab == nil || r.tab.index != nil {
		t.Fatal("the index of a set made by Without should wait for its first use")
	}
	if !r.HasKey(Str("a")) || r.HasKey(IntOf(1)) || !r.HasKey(FloatOf(2.5)) || r.HasKey(IntOf(3)) {
		t.Error("membership by key is wrong after a removal")
	}
	if r.tab.index == nil {
		t.Error("a lookup should build the index")
	}
	r2 := s.Without(func(v Value) bool { return Equal(v, Str("a")) })
	grown := r2.Add(Str("a")).Add(IntOf(1)).Add(IntOf(9))
	if got := ToDisplay(Of(grown)); got != "set(1, 2.5, 3, NaN, NaN, a, 9)" {
		t.Errorf("adding after a removal: got %s", got)
	}
}
