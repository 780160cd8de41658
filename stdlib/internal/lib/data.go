package lib

import (
	"math"
	"strconv"

	"github.com/harnlang/harn/vm"
)

// NonData finds the first value in v (v itself, then the items of its
// lists and dicts in order) that is not JSON data: nil, a bool, an int,
// a float (finite only, unless nonFinite) or a string. It returns that
// value and its path (at, then `[index]` or `["key"]` a level); bad is
// invalid when v is all data. tooDeep is set instead, with the path
// where it happened, when v nests deeper than vm.MaxValueDepth.
//
// Checkpoints, project facts and trust records refuse what NonData finds
// (each in its own words) rather than save it as something else.
func NonData(v vm.Value, at string, nonFinite bool) (bad vm.Value, path string, tooDeep bool) {
	return nonData(v, at, nonFinite, 0)
}

func nonData(v vm.Value, at string, nonFinite bool, depth int) (vm.Value, string, bool) {
	if depth > vm.MaxValueDepth {
		return vm.Value{}, at, true
	}
	switch v.Kind() {
	case vm.KNil, vm.KBool, vm.KInt, vm.KString:
		return vm.Value{}, "", false
	case vm.KFloat:
		f, _ := v.AsFloat()
		if nonFinite || !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			return vm.Value{}, "", false
		}
		return v, at, false
	}
	switch x := v.Object().(type) {
	case *vm.List:
		for i, it := range x.Items() {
			if bad, path, deep := nonData(it, at+"["+strconv.Itoa(i)+"]", nonFinite, depth+1); bad.IsValid() || deep {
				return bad, path, deep
			}
		}
		return vm.Value{}, "", false
	case *vm.Dict:
		var bad vm.Value
		var path string
		var deep bool
		x.Range(func(k string, val vm.Value) bool {
			bad, path, deep = nonData(val, at+"["+strconv.Quote(k)+"]", nonFinite, depth+1)
			return !bad.IsValid() && !deep
		})
		return bad, path, deep
	}
	return v, at, false
}
