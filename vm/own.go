package vm

import (
	"math"
	"runtime"
	"sync/atomic"

	"github.com/harnlang/harn/compiler"
)

// Owned collections.
//
// Values are immutable, but `d[k] = v` and `xs[i] = v` in a loop should not
// copy the whole collection each time. A path assignment therefore gives
// its variable an *owned* copy of the collection the first time, and
// updates that copy in place afterwards. The invariant that makes this
// invisible: an owned collection is referenced by exactly one variable
// slot. The compiler keeps it by loading such variables with the *_SH
// opcodes wherever the value could escape (passed, stored, returned,
// captured, iterated, printed): those loads call share, which clears the
// flag before a second reference exists, so the next assignment copies
// again. Reads that cannot keep a reference (indexing, `in`, a few
// builtin methods) load without sharing. Only non-captured locals and
// module globals qualify, and all Harn code runs under the VM lock.
//
// `x = x.push(v)` gives x an owned list the same way (METHOD_PUSH_LOCAL,
// METHOD_PUSH_GLOBAL): the first push makes a list only x holds, marked
// appendTip when it claimed the rest of a shared array or ownedTip when it
// copied, and later pushes append to it in place until x is shared.

// share ends a value's owned status before a second reference is made.
func share(v Value) {
	switch c := v.Object().(type) {
	case *Dict:
		if c.owned {
			c.owned = false
		}
	case *List:
		if c.appendable() {
			// A tip of its own, which only this list reaches: pushes
			// through any of its references still extend the array
			// rather than copy it.
			t := new(atomic.Int64)
			t.Store(int64(len(c.items)))
			c.tip = t
		}
	}
}

// Share is share for callers outside the interpreter loop that read a
// variable directly (module exports, adapters).
func Share(v Value) Value {
	share(v)
	return v
}

// ownedCopy returns an owned copy of d in the table form.
func (d *Dict) ownedCopy() *Dict {
	t := newStrTable(d.Len() + 1)
	d.Range(func(k string, v Value) bool {
		t.set(k, v)
		return true
	})
	return &Dict{tab: t, owned: true}
}

// setInPlace updates an owned dict.
func (d *Dict) setInPlace(k string, v Value) {
	d.tab.set(k, v)
	if d.view.Load() != nil {
		d.view.Store(nil)
	}
}

// ownedCopy returns an owned copy of l with its own backing array.
func (l *List) ownedCopy() *List {
	noteGrowth(int64(len(l.items)) * valueSize)
	items := make([]Value, len(l.items))
	copy(items, l.items)
	return &List{items: items, tip: &ownedTip}
}

// setPathOwned is SetPath for a root variable eligible for in-place
// updates (docs/spec/language.md §3.3 semantics unchanged): a single `[k]` or `.f`
// step on a dict, or `[i]` on a list, updates an owned copy in place; any
// other shape falls back to the persistent path.
func setPathOwned(root Value, steps []compiler.PathStep, keys []Value, val Value, op compiler.Opcode) (Value, error) {
	if len(steps) != 1 {
		return SetPath(root, steps, keys, val, op)
	}
	st := steps[0]
	switch c := root.Object().(type) {
	case *Dict:
		k := st.Prop
		if st.IsIndex {
			var err error
			if k, err = keyStringChecked(keys[0]); err != nil {
				return Value{}, err
			}
		}
		if op != 0 {
			old, ok := c.Get(k)
			if !ok {
				old = Nil
			}
			nv, err := Arith(op, old, val)
			if err != nil {
				return Value{}, err
			}
			val = nv
		}
		if !c.owned {
			c = c.ownedCopy()
		}
		c.setInPlace(k, val)
		return Of(c), nil
	case *List:
		if !st.IsIndex {
			break // `.f = v` on a list: SetPath reports the type error
		}
		n, ok := keys[0].AsInt()
		if !ok {
			break
		}
		if op != 0 {
			// `xs[i] op= v` is `xs[i] = xs[i] op v`: the read (nil past
			// the end) and the operator come before the bounds check
			old, err := Index(root, keys[0])
			if err != nil {
				return Value{}, err
			}
			if val, err = Arith(op, old, val); err != nil {
				return Value{}, err
			}
		}
		i, err := assignIndex(c, n)
		if err != nil {
			return Value{}, err
		}
		if !c.owned() {
			c = c.ownedCopy()
		}
		c.items[i] = val
		return Of(c), nil
	}
	return SetPath(root, steps, keys, val, op)
}

// appendOwned appends v in place to the list one variable holds
// (l.appendable()).
func (l *List) appendOwned(v Value) {
	if n := len(l.items); n == cap(l.items) {
		c := 2*n + 4
		noteGrowth(int64(c) * valueSize)
		items := make([]Value, n, c)
		copyGrown(items, l.items)
		l.items, l.tip = items, &ownedTip // the new array is its own
	}
	l.items = append(l.items, v)
}

// pushOwned is Push for a result that one variable will hold: it can be
// appended to in place.
func (l *List) pushOwned(v Value) *List {
	n := len(l.items)
	// Claiming every free slot for good makes the other lists on this
	// array copy when they grow, so none of them writes after n.
	if l.growable() && n < cap(l.items) && l.tip.CompareAndSwap(int64(n), math.MaxInt64) {
		items := l.items[:n+1]
		items[n] = v
		return &List{items: items, tip: &appendTip}
	}
	c := 2*n + 4
	noteGrowth(int64(c) * valueSize)
	items := make([]Value, n+1, c)
	copyGrown(items, l.items)
	items[n] = v
	return &List{items: items, tip: &ownedTip}
}

// growChunk is how many values copyGrown copies between two points where
// the garbage collector can stop the goroutine (256 KiB).
const growChunk = 16 << 10

// copyGrown copies a list's items into its grown array. One copy of a
// large list is a single runtime memmove, which the garbage collector
// cannot interrupt: a collection that starts meanwhile spins, signalling
// the thread again and again, until the copy ends (in the lists workload
// a quarter of the CPU time went to that, most of it in the kernel). A
// large copy is done in chunks with a scheduling point between them,
// where a pending stop for the collector takes effect at once.
func copyGrown(dst, src []Value) {
	for len(src) > growChunk {
		copy(dst, src[:growChunk])
		dst, src = dst[growChunk:], src[growChunk:]
		runtime.Gosched()
	}
	copy(dst, src)
}
