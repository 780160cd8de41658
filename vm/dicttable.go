package vm

// strTable is the hash table of an owned dict (see own.go), laid out like
// CPython's compact dict: the entries sit in one slice in insertion order,
// and a power-of-two array of slots indexes them. Growing copies the
// entries with one memmove and rebuilds the slots from the hash bits they
// keep, without hashing a key again. (A Go map rehashed every key at each
// split and cleared fresh tables; filling a 500,000-key dict spent most of
// its time there.) Keys are never removed: deleting from an owned dict
// converts it to the trie form (Dict.Delete).
//
// A slot is 0 when empty, otherwise the low 32 bits of the key's hash in
// its high half and the entry's index plus one in its low half. The probe
// starts at the hash's low bits and moves linearly; the stored hash bits
// place the entry again on growth and skip most non-matching entries
// without touching them. At most half the slots are used.
type strTable struct {
	slots   []uint64
	entries []hamtEntry
}

const (
	slotIndex = 1<<32 - 1
	minSlots  = 8
)

// newStrTable returns a table with room for n entries before it grows.
func newStrTable(n int) *strTable {
	size := minSlots
	for size < 2*n {
		size *= 2
	}
	noteGrowth(int64(size)*8 + int64(size/2)*dictEntrySize)
	return &strTable{slots: make([]uint64, size), entries: make([]hamtEntry, 0, size/2)}
}

func (t *strTable) len() int { return len(t.entries) }

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
		if s&^slotIndex == tag && t.entries[s&slotIndex-1].key == k {
			return int(i), true
		}
	}
}

func (t *strTable) get(k string) (Value, bool) {
	slot, ok := t.lookup(k, hashKey(k))
	if !ok {
		return Value{}, false
	}
	return t.entries[t.slots[slot]&slotIndex-1].val, true
}

// set binds k to v and reports whether k is new.
func (t *strTable) set(k string, v Value) bool {
	h := hashKey(k)
	slot, ok := t.lookup(k, h)
	if ok {
		t.entries[t.slots[slot]&slotIndex-1].val = v
		return false
	}
	if 2*(len(t.entries)+1) > len(t.slots) {
		t.grow()
		slot, _ = t.lookup(k, h)
	}
	t.entries = append(t.entries, hamtEntry{k, v})
	t.slots[slot] = h<<32 | uint64(len(t.entries))
	return true
}

// grow doubles the slots, places every entry again by its stored hash
// bits and moves the entries to an array of twice the room (append would
// grow a large one by a quarter at a time, copying it far more often).
func (t *strTable) grow() {
	old := t.slots
	noteGrowth(int64(len(old))*2*8 + int64(len(old))*dictEntrySize)
	entries := make([]hamtEntry, len(t.entries), len(old))
	copy(entries, t.entries)
	t.entries = entries
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
