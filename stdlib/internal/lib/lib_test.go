package lib

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// Every harn process registers its whole library at init, so registering
// one descriptor must not cost an allocation of its own (the slabs).
func TestRegistrationAllocatesBySlab(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts do not hold under -race")
	}
	bt, mt, bs, ms := builtinTable, methodTable, builtinSlab, methodSlab
	defer func() { builtinTable, methodTable, builtinSlab, methodSlab = bt, mt, bs, ms }()
	fn := func(*vm.Thread, vm.Args) (vm.Value, error) { return vm.Nil, nil }
	mfn := func(*vm.Thread, vm.Value, vm.Args) (vm.Value, error) { return vm.Nil, nil }
	if n := testing.AllocsPerRun(512, func() { Def("x", "x()", "", fn) }); n > 0.1 {
		t.Errorf("Def: %.2f allocations per builtin, want one per slab", n)
	}
	if n := testing.AllocsPerRun(512, func() { Method("list", "x", "xs.x()", "", mfn) }); n > 0.1 {
		t.Errorf("Method: %.2f allocations per method, want one per slab", n)
	}
	// Later registrations never move earlier descriptors.
	first := builtinTable[len(bt)]
	for range 300 {
		Def("y", "y()", "", fn)
	}
	if builtinTable[len(bt)] != first || first.Name() != "x" {
		t.Error("a registered builtin moved")
	}
}
