package jsonschema

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/vm"
)

// A value nested past vm.MaxValueDepth is an error from ToAny, not a
// panic or a Go stack overflow (issue 17).
func TestToAnyTooDeep(t *testing.T) {
	var v vm.Value = vm.Of(vm.NewList(nil))
	for i := 0; i < vm.MaxValueDepth+5; i++ {
		v = vm.Of(vm.NewList([]vm.Value{v}))
	}
	_, err := ToAny(v)
	if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("ToAny: got %v, want a too-deep error", err)
	}
	if _, err := ToAny(vm.Of(vm.NewList([]vm.Value{vm.Of(vm.NewList(nil))}))); err != nil {
		t.Fatalf("ToAny of a shallow list: %v", err)
	}
}
