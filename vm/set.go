package vm

import (
	"strings"
	"sync"
)

// Set is an immutable, insertion-ordered collection without duplicates.
// Construction deduplicates by the structural key (docs/spec/builtins.md §1.7); the
// set *methods* compare with ordinary equality (§3.9), which callers
// implement on top of Items.
//
// `s = s.add(x)` must stay linear over many iterations, so, as List.Push
// does, sets grown by Add share their backing array and key index: the
// items a Set sees (items[:len]) are never overwritten, and an Add whose
// receiver ends exactly at the table's claimed length appends in place.
// The index holds the position of every claimed item, so a key counts as
// a member only below the receiver's length. Any other Add copies.
type Set struct {
	items []Value
	tab   *setTable // nil for a set with no items
}

// setTable is the key index shared by the sets grown from one another.
// Values are read by other goroutines (adapters, tasks), so the index is
// guarded by a lock of its own rather than by the VM lock.
type setTable struct {
	mu    sync.RWMutex
	index map[string]int // structural key -> position; nil until first needed (see Without)
	tip   int            // items claimed in the shared array
}

// built builds the key index of a set made by Without on its first use.
// The caller holds t.mu for writing.
func (t *setTable) built(items []Value) {
	if t.index != nil {
		return
	}
	index := make(map[string]int, len(items))
	for i, v := range items[:t.tip] {
		k := StructuralKey(v)
		if _, ok := index[k]; !ok {
			index[k] = i
		}
	}
	t.index = index
}

// EmptySet is set().
var EmptySet = &Set{}

// NewSet builds a set from values in order, keeping the first of each
// structural key.
func NewSet(items []Value) *Set {
	t := &setTable{index: make(map[string]int, len(items))}
	kept := make([]Value, 0, len(items))
	for _, v := range items {
		k := StructuralKey(v)
		i, ok := t.index[k]
		if !ok {
			t.index[k] = len(kept)
			kept = append(kept, v)
		} else if !sameKeyEqual(kept, i, k, v) {
			kept = append(kept, v) // same key, yet != (NaN, durations, closures…)
		}
	}
	t.tip = len(kept)
	return &Set{items: kept, tab: t}
}

// sameKeyEqual reports whether v duplicates an item of items, given that
// items[first] is the first item with v's structural key k. Newer upstream
// deduplicates by the key's hash *then* by == (docs/spec/newer.md §2.6,
// §5 item 13), so values that are never equal — NaN, durations, closures,
// two different iterators — are kept apart although their keys agree.
func sameKeyEqual(items []Value, first int, k string, v Value) bool {
	if Equal(items[first], v) {
		return true
	}
	for _, it := range items[first+1:] {
		if Equal(it, v) && StructuralKey(it) == k {
			return true
		}
	}
	return false
}

// position returns the index of key k in s, or false when s lacks it.
func (s *Set) position(k string) (int, bool) {
	if s.tab == nil {
		return 0, false
	}
	s.tab.mu.RLock()
	if s.tab.index == nil {
		s.tab.mu.RUnlock()
		s.tab.mu.Lock()
		s.tab.built(s.items)
		s.tab.mu.Unlock()
		s.tab.mu.RLock()
	}
	i, ok := s.tab.index[k]
	s.tab.mu.RUnlock()
	return i, ok && i < len(s.items)
}

func (*Set) Type() string                  { return "set" }
func (s *Set) Truth() bool                 { return len(s.items) > 0 }
func (s *Set) Display(sb *strings.Builder) { s.display(sb, 0) }
func (s *Set) display(sb *strings.Builder, depth int) {
	displayItems(sb, "set(", s.items, ')', depth)
}

// Len is the number of items.
func (s *Set) Len() int { return len(s.items) }

// Items returns the items in insertion order. The slice must not be modified.
func (s *Set) Items() []Value { return s.items[:len(s.items):len(s.items)] }

// HasKey reports membership by structural key.
func (s *Set) HasKey(v Value) bool {
	k := StructuralKey(v)
	i, ok := s.position(k)
	return ok && sameKeyEqual(s.items, i, k, v)
}

// Has reports whether an item equals x, as `x in s` asks (ordinary
// equality, 1 == 1.0). For a string, or an int that a float represents
// exactly, the structural key agrees with equality, so the index answers;
// any other x is compared with every item.
func (s *Set) Has(x Value) bool {
	if n, ok := x.AsInt(); ok && n >= -maxExactInt && n <= maxExactInt || x.Kind() == KString {
		return s.HasKey(x)
	}
	for _, v := range s.items {
		if Equal(v, x) {
			return true
		}
	}
	return false
}

// maxExactInt bounds the ints that convert to float64 exactly.
const maxExactInt = 1 << 53

// Add returns a set with v appended if its structural key is new:
// amortised O(1) when s is the newest set grown from its table.
func (s *Set) Add(v Value) *Set {
	k := StructuralKey(v)
	if t := s.tab; t != nil {
		t.mu.Lock()
		t.built(s.items)
		if i, ok := t.index[k]; ok && i < len(s.items) {
			t.mu.Unlock()
			if sameKeyEqual(s.items, i, k, v) {
				return s
			}
			noteGrowth(int64(len(s.items)+1) * dictEntrySize)
			return NewSet(append(s.Items(), v))
		}
		if n := len(s.items); t.tip == n {
			if n == cap(s.items) {
				noteGrowth(int64(n+1) * dictEntrySize)
			}
			items := append(s.items, v)
			t.index[k] = n
			t.tip = n + 1
			t.mu.Unlock()
			return &Set{items: items, tab: t}
		}
		t.mu.Unlock()
	}
	noteGrowth(int64(len(s.items)+1) * dictEntrySize)
	return NewSet(append(s.Items(), v))
}

// Without returns s without the items drop reports, in order; s itself
// when nothing is dropped. The remaining items are already distinct, so
// the key index of the result is built only when something asks for it
// (`s = s.remove(x)` in a loop stays a plain copy per step).
func (s *Set) Without(drop func(Value) bool) *Set {
	var kept []Value
	for i, v := range s.items {
		if drop(v) {
			if kept == nil {
				kept = make([]Value, i, len(s.items))
				copy(kept, s.items[:i])
			}
			continue
		}
		if kept != nil {
			kept = append(kept, v)
		}
	}
	if kept == nil {
		return s
	}
	if len(kept) == 0 {
		return EmptySet
	}
	return &Set{items: kept, tab: &setTable{tip: len(kept)}}
}

// Iterate walks the items in insertion order.
func (s *Set) Iterate() Iterator { return &sliceIter{items: s.items} }
