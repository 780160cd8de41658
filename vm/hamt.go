package vm

import (
	"hash/maphash"
	"math/bits"
)

// A hash array mapped trie: the persistent map behind large dicts. Every
// update copies only the nodes on the path to the changed entry, so
// `d[k] = v` in a loop costs O(log n) per step while every earlier dict
// value stays unchanged and safe to share.

var hamtSeed = maphash.MakeSeed()

const (
	hamtBits  = 4
	hamtWidth = 1 << hamtBits
	hamtMask  = hamtWidth - 1
	hamtDepth = 64 / hamtBits // levels before hash bits run out
)

type hamtEntry struct {
	key string
	val Value
}

// hamtNode is a bitmap-compressed interior node; each slot is either an
// entry or a child node. Leaves that ran out of hash bits keep collisions
// in a plain list.
type hamtNode struct {
	bitmap  uint32
	entries []hamtSlot
	collide []hamtEntry // only at the bottom level
}

type hamtSlot struct {
	child *hamtNode
	entry *hamtEntry
}

func hashKey(k string) uint64 { return maphash.String(hamtSeed, k) }

func (n *hamtNode) get(k string, h uint64, shift uint) (Value, bool) {
	for {
		if shift >= 64 {
			for _, e := range n.collide {
				if e.key == k {
					return e.val, true
				}
			}
			return Value{}, false
		}
		bit := uint32(1) << ((h >> shift) & hamtMask)
		if n.bitmap&bit == 0 {
			return Value{}, false
		}
		s := &n.entries[bits.OnesCount32(n.bitmap&(bit-1))]
		if s.child == nil {
			if s.entry.key == k {
				return s.entry.val, true
			}
			return Value{}, false
		}
		n = s.child
		shift += hamtBits
	}
}

// set returns a copy of n with k bound to v and whether k was new.
func (n *hamtNode) set(k string, h uint64, v Value, shift uint) (*hamtNode, bool) {
	if shift >= 64 {
		out := &hamtNode{collide: make([]hamtEntry, len(n.collide), len(n.collide)+1)}
		copy(out.collide, n.collide)
		for i, e := range out.collide {
			if e.key == k {
				out.collide[i].val = v
				return out, false
			}
		}
		out.collide = append(out.collide, hamtEntry{k, v})
		return out, true
	}
	bit := uint32(1) << ((h >> shift) & hamtMask)
	idx := bits.OnesCount32(n.bitmap & (bit - 1))
	if n.bitmap&bit == 0 {
		out := &hamtNode{bitmap: n.bitmap | bit, entries: make([]hamtSlot, len(n.entries)+1)}
		copy(out.entries, n.entries[:idx])
		out.entries[idx] = hamtSlot{entry: &hamtEntry{k, v}}
		copy(out.entries[idx+1:], n.entries[idx:])
		return out, true
	}
	out := &hamtNode{bitmap: n.bitmap, entries: make([]hamtSlot, len(n.entries))}
	copy(out.entries, n.entries)
	s := &out.entries[idx]
	if s.child != nil {
		child, added := s.child.set(k, h, v, shift+hamtBits)
		s.child = child
		return out, added
	}
	if s.entry.key == k {
		s.entry = &hamtEntry{k, v}
		return out, false
	}
	// Push the existing entry one level down next to the new one.
	old := *s.entry
	child := &hamtNode{}
	child, _ = child.set(old.key, hashKey(old.key), old.val, shift+hamtBits)
	child, _ = child.set(k, h, v, shift+hamtBits)
	*s = hamtSlot{child: child}
	return out, true
}

// del returns a copy of n without k (nil when n becomes empty) and whether
// k was present.
func (n *hamtNode) del(k string, h uint64, shift uint) (*hamtNode, bool) {
	if shift >= 64 {
		for i, e := range n.collide {
			if e.key == k {
				if len(n.collide) == 1 {
					return nil, true
				}
				out := &hamtNode{collide: make([]hamtEntry, 0, len(n.collide)-1)}
				out.collide = append(append(out.collide, n.collide[:i]...), n.collide[i+1:]...)
				return out, true
			}
		}
		return n, false
	}
	bit := uint32(1) << ((h >> shift) & hamtMask)
	if n.bitmap&bit == 0 {
		return n, false
	}
	idx := bits.OnesCount32(n.bitmap & (bit - 1))
	s := n.entries[idx]
	if s.child == nil {
		if s.entry.key != k {
			return n, false
		}
		if len(n.entries) == 1 {
			return nil, true
		}
		out := &hamtNode{bitmap: n.bitmap &^ bit, entries: make([]hamtSlot, 0, len(n.entries)-1)}
		out.entries = append(append(out.entries, n.entries[:idx]...), n.entries[idx+1:]...)
		return out, true
	}
	child, found := s.child.del(k, h, shift+hamtBits)
	if !found {
		return n, false
	}
	out := &hamtNode{bitmap: n.bitmap, entries: make([]hamtSlot, len(n.entries))}
	copy(out.entries, n.entries)
	if child == nil {
		out.bitmap &^= bit
		out.entries = append(out.entries[:idx], out.entries[idx+1:]...)
		if len(out.entries) == 0 {
			return nil, true
		}
	} else {
		out.entries[idx].child = child
	}
	return out, true
}

// each calls fn for every entry, in hash order.
func (n *hamtNode) each(fn func(e hamtEntry)) {
	for _, e := range n.collide {
		fn(e)
	}
	for i := range n.entries {
		s := &n.entries[i]
		if s.child != nil {
			s.child.each(fn)
		} else {
			fn(*s.entry)
		}
	}
}
