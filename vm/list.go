package vm

import (
	"strings"
	"sync/atomic"
)

// List is an immutable sequence of values.
//
// `xs = xs.push(x)` must stay linear over a million iterations, so lists
// that are grown by Push share their backing array: the elements a List
// sees (items[:len]) are never overwritten, and a Push whose receiver ends
// exactly at the array's claimed length claims the next slot with a
// compare-and-swap and writes there. Any other Push copies.
type List struct {
	items []Value
	// tip is the claimed length of the shared array; nil when the array is
	// not shared-growable, and &ownedTip for a list that exactly one
	// variable holds, whose elements path assignments (`xs[i] = v`)
	// replace in place (see own.go). Keeping that mark here rather than in
	// a field of its own makes the header 32 bytes: one is allocated per
	// Push.
	tip *atomic.Int64
}

// ownedTip marks owned lists. It is never claimed: an owned list has an
// array of its own, and Push and Concat never extend it in place.
var ownedTip atomic.Int64

func (l *List) owned() bool { return l.tip == &ownedTip }

// appendTip marks a list that exactly one variable holds and that
// `x = x.push(v)` extends in place (own.go): its array may share the
// elements before len with other lists, but nobody else can claim the
// slots after them. Path assignments copy it as they copy any unowned list.
var appendTip atomic.Int64

// appendable reports whether the one variable holding l may append to it
// in place.
func (l *List) appendable() bool { return l.tip == &ownedTip || l.tip == &appendTip }

// growable reports whether l's tip may be claimed by Push and Concat.
func (l *List) growable() bool { return l.tip != nil && !l.appendable() }

// valueSize is the size of one element slot (an interface value).
const valueSize = 16

// NewList wraps items; the caller must not modify the slice afterwards.
func NewList(items []Value) *List { return &List{items: items} }

// EmptyList is [].
var EmptyList = &List{}

func (*List) Type() string                  { return "list" }
func (l *List) Truth() bool                 { return len(l.items) > 0 }
func (l *List) Display(sb *strings.Builder) { l.display(sb, 0) }
func (l *List) display(sb *strings.Builder, depth int) {
	displayItems(sb, "[", l.items, ']', depth)
}

// Len is the number of elements.
func (l *List) Len() int { return len(l.items) }

// At returns element i (0 ≤ i < Len()).
func (l *List) At(i int) Value { return l.items[i] }

// Items returns the elements. The slice must not be modified.
func (l *List) Items() []Value { return l.items[:len(l.items):len(l.items)] }

// Push returns a list with v appended.
func (l *List) Push(v Value) *List {
	n := len(l.items)
	if l.growable() && n < cap(l.items) && l.tip.CompareAndSwap(int64(n), int64(n+1)) {
		items := l.items[:n+1]
		items[n] = v
		return &List{items: items, tip: l.tip}
	}
	c := 2*n + 4
	noteGrowth(int64(c) * valueSize)
	items := make([]Value, n+1, c)
	copy(items, l.items)
	items[n] = v
	tip := new(atomic.Int64)
	tip.Store(int64(n + 1))
	return &List{items: items, tip: tip}
}

// Concat returns l followed by other's elements (used by `+` and spreads).
func (l *List) Concat(other []Value) *List {
	if len(other) == 0 {
		return l
	}
	n := len(l.items)
	if l.growable() && n+len(other) <= cap(l.items) && l.tip.CompareAndSwap(int64(n), int64(n+len(other))) {
		items := l.items[:n+len(other)]
		copy(items[n:], other)
		return &List{items: items, tip: l.tip}
	}
	c := 2*(n+len(other)) + 4
	noteGrowth(int64(c) * valueSize)
	items := make([]Value, n+len(other), c)
	copy(items, l.items)
	copy(items[n:], other)
	tip := new(atomic.Int64)
	tip.Store(int64(len(items)))
	return &List{items: items, tip: tip}
}

// With returns a copy with element i replaced.
func (l *List) With(i int, v Value) *List {
	items := make([]Value, len(l.items))
	copy(items, l.items)
	items[i] = v
	return &List{items: items}
}

// Iterate walks the elements in order.
func (l *List) Iterate() Iterator { return &sliceIter{items: l.items} }

type sliceIter struct {
	items []Value
	i     int
}

func (it *sliceIter) Next() (Value, bool, error) {
	if it.i >= len(it.items) {
		return Value{}, false, nil
	}
	v := it.items[it.i]
	it.i++
	return v, true, nil
}
