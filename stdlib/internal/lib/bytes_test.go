package lib

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// Only a bytes value is bytes: not its text as a string, nor nil.
func TestIsBytes(t *testing.T) {
	if !IsBytes(vm.Of(NewBytes([]byte("ab")))) || !IsBytes(vm.Of(NewBytes(nil))) {
		t.Error("a bytes value is not bytes")
	}
	for _, v := range []vm.Value{vm.Str("ab"), vm.Nil, vm.IntOf(1), vm.Of(vm.NewList(nil))} {
		if IsBytes(v) {
			t.Errorf("%s is bytes", v.Type())
		}
	}
}
