package concurrency

import "github.com/harnlang/harn/vm"

// NewStream makes a stream value whose elements next produces, pulled one
// at a time on the consumer's thread (ok=false ends the stream; an error
// is raised by the pull that meets it). Areas outside this package build
// their streams with it (llm_stream).
func NewStream(v *vm.VM, next func(th *vm.Thread) (vm.Value, bool, error)) vm.Value {
	return vm.Of(newStream(v, funcSource(next)))
}
