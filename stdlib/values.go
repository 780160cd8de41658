package stdlib

import (
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"github.com/harnlang/harn/vm"
)

// Value kinds owned by the library (builtins.md §1): bytes, seeded random
// generators and atomics. Lazy iterators live in iter.go, harness handles
// in harness.go.

// Bytes is an immutable byte string (type_of "bytes").
type Bytes struct {
	data []byte
}

// NewBytes wraps b; the caller must not modify it afterwards.
func NewBytes(b []byte) *Bytes { return &Bytes{data: b} }

// Data returns the bytes. The slice must not be modified.
func (b *Bytes) Data() []byte { return b.data }

func (*Bytes) Type() string  { return "bytes" }
func (b *Bytes) Truth() bool { return len(b.data) > 0 }

// Display is `b"` + hex of the first 32 bytes + `...+N` for the rest + `"`.
func (b *Bytes) Display(sb *strings.Builder) {
	sb.WriteString(`b"`)
	head := b.data
	if len(head) > 32 {
		head = head[:32]
	}
	sb.WriteString(hex.EncodeToString(head))
	if n := len(b.data) - len(head); n > 0 {
		sb.WriteString("...+")
		sb.WriteString(strconv.Itoa(n))
	}
	sb.WriteByte('"')
}

// EqualTo compares content.
func (b *Bytes) EqualTo(o vm.Value) bool {
	c, ok := o.(*Bytes)
	return ok && string(b.data) == string(c.data)
}

// KeyBytes is the structural key `b<lower hex>;`.
func (b *Bytes) KeyBytes() string { return "b" + hex.EncodeToString(b.data) + ";" }

// Atomic is a shared mutable int cell (type_of "atomic"); atomics compare
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
	b, ok := o.(*Atomic)
	return ok && vm.Equal(a.Load(), b.Load())
}

func init() {
	def("atomic", "atomic(initial = 0)", "a shared int cell", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if !args.Given(0) {
			return &Atomic{v: intv(0)}, nil
		}
		if _, ok := args.Int(0); !ok {
			return nil, vm.Typef("atomic: initial value must be an int, got %s", args.At(0).Type())
		}
		return &Atomic{v: args.At(0)}, nil
	})
	def("atomic_get", "atomic_get(a)", "the current value", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, ok := args.At(0).(*Atomic)
		if !ok {
			return vm.Nil, nil
		}
		return a.Load(), nil
	})
	def("atomic_set", "atomic_set(a, v)", "store v; returns the previous value", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, ok := args.At(0).(*Atomic)
		if !ok {
			return vm.Nil, nil
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		old := a.v
		a.v = args.At(1)
		return old, nil
	})
	def("atomic_add", "atomic_add(a, n)", "add n; returns the previous value", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, ok := args.At(0).(*Atomic)
		if !ok {
			return vm.Nil, nil
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		old := a.v
		cur, _ := old.(vm.Int)
		n, _ := args.Int(1)
		a.v = intv(int64(cur) + n)
		return old, nil
	})
	def("atomic_cas", "atomic_cas(a, expected, new)", "store new if the value equals expected; whether it did", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		a, ok := args.At(0).(*Atomic)
		if !ok {
			return vm.False, nil
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
