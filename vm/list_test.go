package vm

import (
	"testing"
	"unsafe"
)

// TestListHeaderSize: Push allocates one header per call, so it must stay
// in the 32-byte size class.
func TestListHeaderSize(t *testing.T) {
	if n := unsafe.Sizeof(List{}); n != 32 {
		t.Fatalf("List is %d bytes, want 32", n)
	}
}

// TestPushOnOwnedListCopies: pushes onto an owned list never share its
// array, and unsharing it keeps the elements.
func TestPushOnOwnedListCopies(t *testing.T) {
	l := EmptyList.Push(IntOf(1)).ownedCopy()
	if !l.owned() {
		t.Fatal("ownedCopy is not owned")
	}
	a, b := l.Push(IntOf(2)), l.Push(IntOf(3))
	if a.owned() || b.owned() || !Identical(a.At(1), IntOf(2)) || !Identical(b.At(1), IntOf(3)) {
		t.Fatalf("pushes share the owned array: %v %v", a.items, b.items)
	}
	share(Of(l))
	if l.owned() || l.Len() != 1 || ownedTip.Load() != 0 {
		t.Fatalf("after share: owned %v, len %d, ownedTip %d", l.owned(), l.Len(), ownedTip.Load())
	}
}

// BenchmarkListPush is `xs = xs.push(i)` for 100,000 ints.
func BenchmarkListPush(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		l := EmptyList
		for j := range 100000 {
			l = l.Push(IntOf(int64(j)))
		}
	}
}

// TestPushOwnedAppendsInPlace: the list `x = x.push(v)` makes is appended
// to in place until shared; a shared list it grew from keeps its elements,
// and the lists sharing its array copy rather than claim the slots the
// owned list writes.
func TestPushOwnedAppendsInPlace(t *testing.T) {
	shared := EmptyList.Push(IntOf(0)) // a growable array with free slots
	l := shared.pushOwned(IntOf(1))
	if !l.appendable() || l.owned() || &l.items[0] != &shared.items[0] {
		t.Fatalf("pushOwned on a growable list: appendable %v, owned %v, same array %v", l.appendable(), l.owned(), &l.items[0] == &shared.items[0])
	}
	other := shared.Push(IntOf(9))
	l.appendOwned(IntOf(2))
	if !Identical(other.At(1), IntOf(9)) || !Identical(l.At(1), IntOf(1)) || !Identical(l.At(2), IntOf(2)) || shared.Len() != 1 {
		t.Fatalf("lists on one array overwrote each other: shared %v, other %v, owned %v", shared.items, other.items, l.items)
	}
	for i := 3; i < 20; i++ { // past the capacity: a new array of its own
		l.appendOwned(IntOf(int64(i)))
	}
	if !l.owned() || l.Len() != 20 || !Identical(l.At(19), IntOf(19)) {
		t.Fatalf("after growing: owned %v, %v", l.owned(), l.items)
	}
	share(Of(l))
	if l.appendable() || l.Len() != 20 {
		t.Fatalf("after share: appendable %v, len %d", l.appendable(), l.Len())
	}
	a, b := l.Push(IntOf(20)), l.Push(IntOf(21))
	if &a.items[0] != &l.items[0] || !Identical(a.At(20), IntOf(20)) || !Identical(b.At(20), IntOf(21)) || l.Len() != 20 {
		t.Fatalf("pushes after share: %v %v", a.items, b.items)
	}
}
