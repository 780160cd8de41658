package json

import (
	"strconv"
	"testing"

	"github.com/harnlang/harn/vm"
)

// benchRecords is a list of records of the usual JSON kinds: ints,
// floats, strings, bools and nil.
func benchRecords(n int) vm.Value {
	items := make([]vm.Value, n)
	for i := range items {
		b := vm.NewDictBuilder(5)
		b.Set("id", vm.IntOf(int64(i*7919)))
		b.Set("name", vm.Str("item-"+strconv.Itoa(i)))
		b.Set("score", vm.FloatOf(float64(i)/3))
		b.Set("ok", vm.BoolOf(i%2 == 0))
		b.Set("note", vm.Nil)
		items[i] = vm.Of(b.Build())
	}
	return vm.Of(vm.NewList(items))
}

func BenchmarkStringify(b *testing.B) {
	v := benchRecords(1000)
	b.ReportAllocs()
	for b.Loop() {
		Stringify(v)
	}
}

func TestStringifyScalars(t *testing.T) {
	for _, c := range []struct {
		v    vm.Value
		want string
	}{
		{vm.IntOf(123456789), "123456789"},
		{vm.IntOf(-3), "-3"},
		{vm.FloatOf(2), "2"},
		{vm.FloatOf(0.5), "0.5"},
		{vm.Str("a\"b"), `"a\"b"`},
		{vm.EmptyString, `""`},
		{vm.True, "true"},
		{vm.False, "false"},
		{vm.Nil, "null"},
		{vm.Value{}, "null"},
		{vm.DurationOf(5), "null"},
	} {
		if got := Stringify(c.v); got != c.want {
			t.Errorf("Stringify(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}
