package concurrency

import (
	"strings"
	"sync"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Atomics: shared int, float or bool cells that tasks update without a
// lock of their own.

// Atomic is a shared mutable int, float or bool cell (type_of "atomic"); atomics compare
// equal when their current values do.
type Atomic struct {
	mu sync.Mutex
	v  vm.Value
}

func (*Atomic) Type() string { return "atomic" }
func (*Atomic) Truth() bool  { return true }
func (a *Atomic) Display(sb *strings.Builder) {
	sb.WriteString("<atomic:")
	a.Load().Display(sb)
	sb.WriteByte('>')
}

// Load returns the current value.
func (a *Atomic) Load() vm.Value {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.v
}

// EqualTo compares current values.
func (a *Atomic) EqualTo(o vm.Value) bool {
	b, ok := o.Object().(*Atomic)
	return ok && vm.Equal(a.Load(), b.Load())
}

// checkHeld refuses a value an atomic cannot hold: docs/spec/newer.md §2.8
// gives atomic(initial) the kinds int | float | bool, and every writer keeps
// the cell inside them. what names the argument in the message.
func checkHeld(fn, what string, v vm.Value) error {
	switch v.Kind() {
	case vm.KInt, vm.KFloat, vm.KBool:
		return nil
	}
	return vm.Typef("%s: %s must be an int, float or bool, got %s", fn, what, v.Type())
}

// atomicArg is the atomic a builtin operates on; anything else is a type
// error, as a channel builtin given a non-channel is.
func atomicArg(fn string, v vm.Value) (*Atomic, error) {
	a, ok := v.Object().(*Atomic)
	if !ok {
		return nil, vm.Typef("%s: expected an atomic, got %s", fn, v.Type())
	}
	return a, nil
}

func init() {
	lib.Def("atomic", "atomic(initial: int | float | bool | nil = 0) -> atomic", "a shared int, float or bool cell", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if !args.Given(0) {
			return vm.Of(&Atomic{v: vm.IntOf(0)}), nil
		}
		if err := checkHeld("atomic", "initial value", args.At(0)); err != nil {
			return vm.Value{}, err
		}
		return vm.Of(&Atomic{v: args.At(0)}), nil
	})
	lib.Def("atomic_get", "atomic_get(a)", "the current value", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, err := atomicArg("atomic_get", args.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return a.Load(), nil
	})
	lib.Def("atomic_set", "atomic_set(a, v: int | float | bool)", "store v (an int, float or bool); returns the previous value", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, err := atomicArg("atomic_set", args.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		if err := checkHeld("atomic_set", "value", args.At(1)); err != nil {
			return vm.Value{}, err
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		old := a.v
		a.v = args.At(1)
		return old, nil
	})
	lib.Def("atomic_add", "atomic_add(a, n: int | float)", "add n (as floats when either is a float); returns the previous value", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, err := atomicArg("atomic_add", args.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		delta := vm.IntOf(0)
		if args.Has(1) { // an explicit nil is a wrong kind, not "no delta"
			delta = args.At(1)
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		old := a.v
		// the sum follows + (docs/spec/language.md §6.6): ints stay ints
		// unless the result overflows 64 bits, and a float on either side
		// makes a float (docs/spec/newer.md §2.8 allows float atomics)
		for _, v := range []vm.Value{old, delta} {
			if k := v.Kind(); k != vm.KInt && k != vm.KFloat {
				return vm.Value{}, vm.Typef("atomic_add: expected a number, got %s", v.Type())
			}
		}
		sum, err := vm.Arith(compiler.ADD, old, delta)
		if err != nil {
			return vm.Value{}, err
		}
		a.v = sum
		return old, nil
	})
	lib.Def("atomic_cas", "atomic_cas(a, expected, new: int | float | bool) -> bool", "store new (an int, float or bool) if the value equals expected; whether it did", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, err := atomicArg("atomic_cas", args.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		if err := checkHeld("atomic_cas", "new value", args.At(2)); err != nil {
			return vm.Value{}, err
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if !vm.Equal(a.v, args.At(1)) {
			return vm.False, nil
		}
		a.v = args.At(2)
		return vm.True, nil
	})
}
