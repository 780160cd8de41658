package time

import (
	"time"

	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// harness.clock (docs/spec/newer.md §2.15): the clock builtins as methods of the
// HarnessClock handle, reading the same (mockable) VM clock.

func init() {
	const t = "HarnessClock"
	harness.RegisterCapability("time", "clock", []harness.CapabilityMethod{
		harness.Delegate(t, "now_ms", "now_ms", "clock.now_ms() -> int", "wall clock milliseconds since the epoch"),
		harness.Delegate(t, "timestamp", "timestamp", "clock.timestamp() -> float", "float seconds since the epoch"),
		harness.Delegate(t, "monotonic_ms", "monotonic_ms", "clock.monotonic_ms() -> int", "milliseconds from a monotonic origin"),
		harness.Delegate(t, "elapsed", "elapsed", "clock.elapsed() -> int", "milliseconds from a monotonic origin"),
		harness.Delegate(t, "date_iso", "date_now_iso", "clock.date_iso() -> string", "the current UTC time as ISO 8601"),
		harness.Delegate(t, "now", "date_now", "clock.now() -> dict", "current UTC date fields"),
		{Name: "sleep_ms", Sig: "clock.sleep_ms(n: int | duration) -> nil", Doc: "pause for n milliseconds (an int) or a duration", Fn: func(th *vm.Thread, _ vm.Value, a vm.Args) (vm.Value, error) {
			var d time.Duration
			switch x := a.At(0).Object().(type) {
			case vm.Int:
				d = lib.Millis(int64(x))
			case vm.Duration:
				d = lib.Millis(int64(x))
			default:
				return vm.Value{}, vm.Typef("HarnessClock.sleep_ms expects an int or duration argument")
			}
			return vm.Nil, Sleep(th, d)
		}},
	})
}
