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
