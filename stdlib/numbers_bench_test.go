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
