package stdlib_test

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// BenchmarkNumberBuiltins calls the numeric builtins on a float, which
// reading the argument through Value.Object would box on every call.
func BenchmarkNumberBuiltins(b *testing.B) {
	e := newCore()
	x := vm.Args{vm.FloatOf(-2.75)}
	for _, name := range []string{"abs", "floor", "sign", "to_int", "to_float"} {
		fn := e.u.Builtin(name).Fn
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := fn(e.th, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJqSelect filters 1000 records with select on a bool field
// and a number, the jq helpers that test kinds per value.
func BenchmarkJqSelect(b *testing.B) {
	e := newCore()
	items := make([]vm.Value, 1000)
	for n := range items {
		items[n] = vm.Of(d("id", i(int64(n*7919%1000)), "score", f(float64(n)/3), "ok", vm.BoolOf(n%2 == 0)))
	}
	x := vm.Args{vm.Of(l(items...)), s("[.[] | select(.ok) | select(.score > 10) | .id] | length")}
	fn := e.u.Builtin("jq").Fn
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fn(e.th, x); err != nil {
			b.Fatal(err)
		}
	}
}
