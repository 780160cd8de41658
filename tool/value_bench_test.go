package tool

import (
	"strconv"
	"testing"

	"github.com/harnlang/harn/vm"
)

// BenchmarkToJSON converts 1000 records of ints, floats, strings and
// bools, the shape of a tool's result.
func BenchmarkToJSON(b *testing.B) {
	items := make([]vm.Value, 1000)
	for i := range items {
		d := vm.NewDictBuilder(4)
		d.Set("id", vm.IntOf(int64(i*7919)))
		d.Set("name", vm.Str("item-"+strconv.Itoa(i)))
		d.Set("score", vm.FloatOf(float64(i)/3))
		d.Set("ok", vm.BoolOf(i%2 == 0))
		items[i] = vm.Of(d.Build())
	}
	v := vm.Of(vm.NewList(items))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ToJSON(v); err != nil {
			b.Fatal(err)
		}
	}
}
