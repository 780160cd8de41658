package core

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// dropper is a handle whose release means something: a channel closes, a
// sync permit is given back (docs/concurrency.md). Every other value is
// released by the garbage collector, so drop only accepts it.
type dropper interface{ Drop() }

// drop (docs/spec/newer.md §2.25) is the release an `owned<T>` binding implies
// at the end of its scope. It is idempotent and returns nil.
func init() {
	lib.Def("drop", "drop(handle)", "release a handle now (idempotent; a channel is closed, a sync permit given back); returns nil", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if d, ok := args.At(0).Object().(dropper); ok {
			d.Drop()
		}
		return vm.Nil, nil
	})
}
