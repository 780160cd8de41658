package math

import (
	stdmath "math"

	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// harness.random (docs/spec/language.md §5.4, the capability table's `random`
// entry): the random builtins as methods of the HarnessRandom handle, so a
// newer-style script that reaches entropy through its handle runs. The
// method names are the specification's (f64, u64, range, choice, shuffle,
// uuid, uuid_v7, bytes); each behaves like the free function it replaces.
// u64 gives a non-negative int (ints are 64-bit signed, so the top bit is
// never set): this implementation's choice, the references are silent.

func init() {
	const t = "HarnessRandom"
	harness.RegisterCapability("math", "random", []harness.CapabilityMethod{
		harness.Delegate(t, "f64", "random", "random.f64() -> float", "a uniform float in [0, 1)"),
		harness.Delegate(t, "range", "random_int", "random.range(min, max) -> int", "a uniform int in [min, max]"),
		harness.Delegate(t, "choice", "random_choice", "random.choice(list)", "a uniform element, nil for an empty list"),
		harness.Delegate(t, "shuffle", "random_shuffle", "random.shuffle(list) -> list", "a shuffled copy"),
		harness.Delegate(t, "uuid", "uuid", "random.uuid() -> string", "a random (v4) UUID"),
		harness.Delegate(t, "uuid_v7", "uuid_v7", "random.uuid_v7() -> string", "a time-ordered (v7) UUID"),
		{Name: "u64", Sig: "random.u64() -> int", Doc: "a uniform non-negative int", Fn: func(th *vm.Thread, _ vm.Value, a vm.Args) (vm.Value, error) {
			return vm.IntOf(globalRng.between(0, stdmath.MaxInt64)), nil
		}},
		{Name: "bytes", Sig: "random.bytes(n: int) -> bytes", Doc: "n random bytes", Fn: func(th *vm.Thread, _ vm.Value, a vm.Args) (vm.Value, error) {
			n, ok := a.Int(0)
			if !ok || n < 0 {
				return vm.Value{}, vm.Typef("HarnessRandom.bytes expects a non-negative int argument, got %s", a.At(0).Type())
			}
			if err := vm.CheckAlloc("random.bytes", n, 1); err != nil {
				return vm.Value{}, err
			}
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(globalRng.between(0, 255))
			}
			return vm.Of(lib.NewBytes(b)), nil
		}},
	})
}
