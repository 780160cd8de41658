package jsonschema

import (
	"strconv"
	"testing"

	"github.com/harnlang/harn/vm"
)

func BenchmarkNormalize(b *testing.B) {
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
		Normalize(v)
	}
}
