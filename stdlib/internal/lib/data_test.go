package lib

import (
	"math"
	"testing"

	"github.com/harnlang/harn/vm"
)

// NonData finds the first value that is not JSON data, in order, with its
// path; non-finite floats count only when they are not allowed; nesting
// past the limit is reported where it happens.
func TestNonData(t *testing.T) {
	nan := vm.FloatOf(math.NaN())
	set := vm.Of(vm.NewSet(nil))
	data := vm.Of(vm.NewList([]vm.Value{vm.Nil, vm.True, vm.IntOf(1), vm.FloatOf(1.5), vm.Str("s"),
		vm.Of(vm.NewDict().Set("k", vm.Of(vm.NewList(nil))))}))
	cases := []struct {
		name      string
		v         vm.Value
		nonFinite bool
		path      string // "" when all is data
		badType   string
	}{
		{"all data", data, false, "", ""},
		{"a set", set, false, "value", "set"},
		{"NaN refused", vm.Of(vm.NewList([]vm.Value{vm.IntOf(1), nan})), false, "value[1]", "float"},
		{"NaN allowed", vm.Of(vm.NewList([]vm.Value{nan})), true, "", ""},
		{"first of two, by key", vm.Of(vm.NewDict().Set("b", set).Set("a", vm.Of(vm.NewList([]vm.Value{set})))), false, `value["a"][0]`, "set"},
	}
	for _, c := range cases {
		bad, path, deep := NonData(c.v, "value", c.nonFinite)
		if deep || path != c.path || bad.IsValid() != (c.path != "") || bad.IsValid() && bad.Type() != c.badType {
			t.Errorf("%s: NonData = %v at %q, deep %v; want a %s at %q", c.name, bad, path, deep, c.badType, c.path)
		}
	}
	deepest := vm.Nil
	for range vm.MaxValueDepth + 1 {
		deepest = vm.Of(vm.NewList([]vm.Value{deepest}))
	}
	if bad, path, deep := NonData(deepest, "v", false); !deep || bad.IsValid() || len(path) != len("v")+3*(vm.MaxValueDepth+1) {
		t.Errorf("nested past the limit: %v at %q, deep %v", bad, path, deep)
	}
}
