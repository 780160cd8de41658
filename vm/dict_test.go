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
