package vm

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
)

// TestDictMatchesMap drives random sets and deletes through both the small
// and the trie forms and compares every version with a Go map.
func TestDictMatchesMap(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	d := NewDict()
	ref := map[string]int64{}
	var history []*Dict
	var refs []map[string]int64
	for step := 0; step < 5000; step++ {
		k := fmt.Sprintf("k%d", r.Intn(300))
		if r.Intn(4) == 0 {
			d = d.Delete(k)
			delete(ref, k)
		} else {
			v := r.Int63n(1000)
			d = d.Set(k, IntOf(v))
			ref[k] = v
		}
		if step%250 == 0 {
			snap := map[string]int64{}
			for k, v := range ref {
				snap[k] = v
			}
			history = append(history, d)
			refs = append(refs, snap)
		}
	}
	history = append(history, d)
	refs = append(refs, ref)
	for i, h := range history {
		checkDict(t, h, refs[i])
	}
}

func checkDict(t *testing.T, d *Dict, ref map[string]int64) {
	t.Helper()
	if d.Len() != len(ref) {
		t.Fatalf("len %d, want %d", d.Len(), len(ref))
	}
	var want []string
	for k, v := range ref {
		want = append(want, k)
		got, ok := d.Get(k)
		if !ok || !Identical(got, IntOf(v)) {
			t.Fatalf("get %s = %v %v, want %d", k, got, ok, v)
		}
	}
	sort.Strings(want)
	keys := d.Keys()
	if fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	if _, ok := d.Get("absent"); ok {
		t.Fatal("absent key found")
	}
}

// BenchmarkDictSetLoop guards against a quadratic d[k] = v loop.
func BenchmarkDictSetLoop(b *testing.B) {
	for i := 0; i < b.N; i++ {
		d := NewDict()
		for j := 0; j < 100000; j++ {
			d = d.Set(fmt.Sprint("k", j), IntOf(int64(j)))
		}
	}
}

func BenchmarkListPushLoop(b *testing.B) {
	for i := 0; i < b.N; i++ {
		l := EmptyList
		for j := 0; j < 1000000; j++ {
			l = l.Push(IntOf(int64(j)))
		}
	}
}

func BenchmarkStringConcatLoop(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s := String{}
		for j := 0; j < 200000; j++ {
			s = s.Concat("xy")
		}
	}
}

// TestOwnedDictMatchesMap fills owned dicts in place (the table form, from
// empty and from small and trie dicts), checking every read against a Go
// map as the table grows, then updates and deletes through the persistent
// forms the owned dict turns into.
func TestOwnedDictMatchesMap(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	starts := []*Dict{EmptyDict, EmptyDict.Set("a", IntOf(1)), nil}
	big := NewDictBuilder(100)
	for i := 0; i < 100; i++ {
		big.Set(fmt.Sprintf("k%d", i), IntOf(-1))
	}
	starts[2] = big.Build()
	for _, start := range starts {
		ref := map[string]int64{}
		start.Range(func(k string, v Value) bool { n, _ := v.AsInt(); ref[k] = int64(n); return true })
		d := start.ownedCopy()
		for step := 0; step < 20000; step++ {
			k := fmt.Sprintf("k%d", r.Intn(5000))
			v := r.Int63n(1000)
			d.setInPlace(k, IntOf(v))
			ref[k] = v
			if step%2000 == 0 {
				checkDict(t, d, ref)
			}
		}
		checkDict(t, d, ref)
		d.owned = false
		k := fmt.Sprintf("k%d", r.Intn(5000))
		e := d.Set(k, IntOf(7))
		checkDict(t, d, ref)
		ref[k] = 7
		checkDict(t, e, ref)
		e = e.Delete(k)
		delete(ref, k)
		checkDict(t, e, ref)
	}
}

// BenchmarkOwnedDictFill is `d[k] = i` for 100,000 new keys on an owned
// dict, as the dicts workload's first loop does.
func BenchmarkOwnedDictFill(b *testing.B) {
	keys := make([]string, 100000)
	for i := range keys {
		keys[i] = fmt.Sprint("key", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		d := EmptyDict.ownedCopy()
		for j, k := range keys {
			d.setInPlace(k, IntOf(int64(j)))
		}
	}
}

// BenchmarkOwnedDictLookup is `k in d` over 100,000 keys of which half are
// missing, on an owned dict of 100,000 entries.
func BenchmarkOwnedDictLookup(b *testing.B) {
	d := EmptyDict.ownedCopy()
	keys := make([]string, 100000)
	for i := range keys {
		d.setInPlace(fmt.Sprint("key", i), IntOf(int64(i)))
		keys[i] = fmt.Sprint("key", i*2)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, k := range keys {
			d.Has(k)
		}
	}
}

// TestEntryDict: the {key, value} dict of a `for` loop is one allocation
// and behaves as any small dict.
func TestEntryDict(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() { EntryDict("k", IntOf(1)) })
	if allocs != 1 {
		t.Fatalf("%v allocations, want 1", allocs)
	}
	e := EntryDict("k", IntOf(1))
	f := e.Set("key", Str("other")).Set("a", Nil).Delete("value")
	if got := ToDisplay(Of(e)) + " " + ToDisplay(Of(f)); got != "{key: k, value: 1} {a: nil, key: other}" {
		t.Fatal(got)
	}
}

// BenchmarkDictIterate is a `for` loop over a 1,000-entry dict.
func BenchmarkDictIterate(b *testing.B) {
	bd := NewDictBuilder(1000)
	for i := range 1000 {
		bd.Set(fmt.Sprint("k", i), IntOf(int64(i)))
	}
	d := bd.Build()
	b.ReportAllocs()
	for b.Loop() {
		it := d.Iterate()
		for {
			if _, ok, _ := it.Next(); !ok {
				break
			}
		}
	}
}
