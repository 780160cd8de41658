package vm

import "math/bits"

// strTable is the hash table of an owned dict (see own.go), laid out like
// CPython's compact dict: the entries sit in insertion order, and a
// power-of-two array of slots indexes them. Growing rebuilds the slots
// from the hash bits they keep, without hashing a key again, and never
// moves an entry: the entries fill chunks of doubling size. (A Go map
// rehashed every key at each split and cleared fresh tables; filling a
// 500,000-key dict spent most of its time there. Copying a single entry
// array at each doubling was the next largest cost.) Keys are never
// removed: deleting from an owned dict converts it to the trie form
// (Dict.Delete).
//
// A slot is 0 when empty, otherwise the low 32 bits of the key's hash in
// its high half and the entry's index plus one in its low half. The probe
// starts at the hash's low bits and moves linearly; the stored hash bits
// place the entry again on growth and skip most non-matching entries
// without touching them. At most half the slots are used.
type strTable struct {
	slots []uint64
	// chunks[0] holds entries 0 to firstChunk-1; chunks[k] for k ≥ 1
	// holds the firstChunk<<(k-1) entries from firstChunk<<(k-1) on.
	chunks [][]hamtEntry
	n      int
}

const (
	slotIndex  = 1<<32 - 1
	minSlots   = 8
	firstChunk = 8 // a power of two
)

// newStrTable returns a table with room for n entries before its slots
// grow.
func newStrTable(n int) *strTable {
	size := minSlots
	for size < 2*n {
		size *= 2
	}
	noteGrowth(int64(size) * 8)
	return &strTable{slots: make([]uint64, size)}
}

func (t *strTable) len() int { return t.n }

// entry returns entry i (0 ≤ i < t.n).
func (t *strTable) entry(i int) *hamtEntry {
	if i < firstChunk {
		return &t.chunks[0][i]
	}
	top := bits.Len(uint(i)) - 1 // firstChunk<<(k-1) is 1<<top
	return &t.chunks[top-bits.TrailingZeros(firstChunk)+1][i&^(1<<top)]
}

// each calls fn for every entry in insertion order.
func (t *strTable) each(fn func(e *hamtEntry)) {
	left := t.n
	for _, c := range t.chunks {
		for i := range c[:min(len(c), left)] {
			fn(&c[i])
		}
		left -= len(c)
	}
}

// lookup returns the slot for k: the slot of its entry, or the empty slot
// where it would go.
func (t *strTable) lookup(k string, h uint64) (slot int, found bool) {
	mask := uint64(len(t.slots) - 1)
	tag := h << 32
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return int(i), false
		}
		if s&^slotIndex == tag && t.entry(int(s&slotIndex-1)).key == k {
			return int(i), true
		}
	}
}

// find returns k's entry, or nil.
func (t *strTable) find(k string) *hamtEntry {
	slot, ok := t.lookup(k, hashKey(k))
	if !ok {
		return nil
	}
	return t.entry(int(t.slots[slot]&slotIndex - 1))
}

func (t *strTable) get(k string) (Value, bool) {
	slot, ok := t.lookup(k, hashKey(k))
	if !ok {
		return Value{}, false
	}
	return t.entry(int(t.slots[slot]&slotIndex - 1)).val, true
}

// set binds k to v and reports whether k is new.
func (t *strTable) set(k string, v Value) bool {
	h := hashKey(k)
	slot, ok := t.lookup(k, h)
	if ok {
		t.entry(int(t.slots[slot]&slotIndex - 1)).val = v
		return false
	}
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
		slot, _ = t.lookup(k, h)
	}
	if len(t.chunks) == 0 || t.n == firstChunk<<(len(t.chunks)-1) {
		size := max(t.n, firstChunk)
		noteGrowth(int64(size) * dictEntrySize)
		t.chunks = append(t.chunks, make([]hamtEntry, size))
	}
	t.n++
	*t.entry(t.n - 1) = hamtEntry{k, v}
	t.slots[slot] = h<<32 | uint64(t.n)
	return true
}

// grow doubles the slots and places every entry again by its stored hash
// bits.
func (t *strTable) grow() {
	old := t.slots
	noteGrowth(int64(len(old)) * 2 * 8)
	t.slots = make([]uint64, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := s >> 32 & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// keyHit is what a thread's last `k in d` found in a dict of the table
// form, so that the `d[k]` which usually follows (`if k in d { … d[k] …
// }`) does not hash and probe for k again. Entries never move nor leave
// a table (deleting converts the dict to the trie form, with another
// table or none), so e stays k's entry for as long as the dict holds t;
// its value is read when d[k] runs, so an assignment in between is seen.
// A Thread's hit is its own, like its stack.
type keyHit struct {
	t *strTable
	k string
	e *hamtEntry
}

// dictHas is k in d, remembering the entry it finds in a table.
func (th *Thread) dictHas(d *Dict, k string) bool {
	if d.tab == nil {
		return d.Has(k)
	}
	e := d.tab.find(k)
	if e != nil {
		th.hit = keyHit{d.tab, k, e}
	}
	return e != nil
}

// dictIndex is d[k] for a string k: the entry dictHas remembered when k is
// the very string it was given (same bytes at the same address), else
// Index. The hit is used once; one that no d[k] uses keeps its table
// alive until the thread's next `k in d` that finds its key.
func (th *Thread) dictIndex(d *Dict, k string) Value {
	if h := &th.hit; h.t != nil && h.t == d.tab && sameString(h.k, k) {
		v := h.e.val
		*h = keyHit{}
		return v
	}
	if v, ok := d.Get(k); ok {
		return v
	}
	return Nil
}
