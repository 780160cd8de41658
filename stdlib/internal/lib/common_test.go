package lib

import (
	"strconv"
	"strings"
	"testing"

	"github.com/harnlang/harn/vm"
)

// joinParts is n strings "item0", "item1", … (the strings workload's
// parts).
func joinParts(n int) ([]vm.Value, []string) {
	items, strs := make([]vm.Value, n), make([]string, n)
	for i := range items {
		strs[i] = "item" + strconv.Itoa(i)
		items[i] = vm.Str(strs[i])
	}
	return items, strs
}

// TestJoinItemsStrings: a list of strings joins as strings.Join would,
// with separators of every length, across interrupt-check steps.
func TestJoinItemsStrings(t *testing.T) {
	for _, n := range []int{1, 2, pacerEvery, pacerEvery + 1, 3*pacerEvery + 7} {
		items, strs := joinParts(n)
		for _, sep := range []string{"", ",", ", ", " | "} {
			got, err := JoinItems(nil, items, sep)
			if err != nil || got != strings.Join(strs, sep) {
				t.Fatalf("n %d, sep %q: %d bytes, %v", n, sep, len(got), err)
			}
		}
	}
}

// TestJoinItemsMixed: other items join by their display forms.
func TestJoinItemsMixed(t *testing.T) {
	items := []vm.Value{vm.Str("a"), vm.IntOf(-12), vm.FloatOf(2.5), vm.Nil, vm.Of(vm.NewList([]vm.Value{vm.IntOf(1), vm.Str("b")})), vm.Str("")}
	if got, err := JoinItems(nil, items, ","); err != nil || got != "a,-12,2.5,nil,[1, b]," {
		t.Errorf("got %q, %v", got, err)
	}
}

// TestJoinItemsStringsAllocatesOnce: joining strings allocates the result
// and nothing else (the builder itself stays off the heap).
func TestJoinItemsStringsAllocatesOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts do not hold under -race")
	}
	items, _ := joinParts(1000)
	if n := testing.AllocsPerRun(20, func() { JoinItems(nil, items, ",") }); n != 1 {
		t.Errorf("%.1f allocations, want 1", n)
	}
}

// TestJoinItemsStopsWhenCancelled: a long join checks for interrupts.
func TestJoinItemsStopsWhenCancelled(t *testing.T) {
	th := vm.New(vm.NewUniverse()).NewThread()
	th.Cancel()
	items, _ := joinParts(2 * pacerEvery)
	if _, err := JoinItems(th, items, ","); err == nil {
		t.Error("a cancelled thread's join finished")
	}
}

// BenchmarkJoinItems joins what the strings workload joins: 200,000
// short strings with a one-byte separator; and the same with an int
// among them (the display path).
func BenchmarkJoinItems(b *testing.B) {
	items, _ := joinParts(200000)
	b.Run("strings", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := JoinItems(nil, items, ","); err != nil {
				b.Fatal(err)
			}
		}
	})
	mixed := append([]vm.Value{vm.IntOf(1)}, items...)
	b.Run("mixed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := JoinItems(nil, mixed, ","); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// DictList holds the dicts, in order.
func TestDictList(t *testing.T) {
	a, b := DictOf("k", vm.IntOf(1)), DictOf("k", vm.IntOf(2))
	if got := vm.ToDisplay(vm.Of(DictList([]*vm.Dict{a, b}))); got != "[{k: 1}, {k: 2}]" {
		t.Errorf("DictList = %s", got)
	}
	if got := DictList(nil).Len(); got != 0 {
		t.Errorf("DictList(nil) has %d items", got)
	}
}
