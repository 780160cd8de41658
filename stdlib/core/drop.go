package core

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// drop (docs/spec/newer.md §2.25) is the release an `owned<T>` binding implies
// at the end of its scope. No value kind of this runtime holds a resource
// that must be released early, so it only accepts the value and returns
// nil; it exists so that scripts calling it run.
func init() {
	lib.Def("drop", "drop(handle)", "release a handle now (idempotent); returns nil", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Nil, nil
	})
}
