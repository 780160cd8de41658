package lib

import (
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/vm"
)

// Small helpers shared by the library files.

// IntOf is the Harn int of a Go int (vm.IntOf takes an int64).
func IntOf(i int) vm.Value { return vm.IntOf(int64(i)) }

// Display is the display form of v ("nil" for a Go nil).
func Display(v vm.Value) string {
	if !v.IsValid() {
		return "nil"
	}
	return vm.ToDisplay(v)
}

// Shown names a bad argument or option in an error: nil, a number or a
// bool as it is, a string quoted after its type (`string "3"`, so a
// number in quotes cannot pass for a number), anything else by its type.
func Shown(v vm.Value) string {
	switch v.Kind() {
	case vm.KInvalid, vm.KNil:
		return "nil"
	case vm.KString:
		return fmt.Sprintf("string %q", vm.ToDisplay(v))
	case vm.KInt, vm.KFloat, vm.KBool, vm.KDuration:
		return vm.ToDisplay(v)
	}
	return v.Type()
}

// DidYouMean is lang/diag.DidYouMean: ` (did you mean "x"?)` for the
// candidate closest to name, or "".
func DidYouMean(name string, candidates []string) string {
	return diag.DidYouMean(name, candidates)
}

// List wraps items (which the caller must not touch afterwards); an empty
// slice gives the shared empty list.
func List(items []vm.Value) *vm.List {
	if len(items) == 0 {
		return vm.NewList(nil)
	}
	return vm.NewList(items)
}

// StrList converts Go strings to a Harn list of strings.
func StrList(ss []string) *vm.List {
	items := make([]vm.Value, len(ss))
	for i, s := range ss {
		items[i] = vm.Str(s)
	}
	return List(items)
}

// DictList wraps dicts as a Harn list of them.
func DictList(ds []*vm.Dict) *vm.List {
	items := make([]vm.Value, len(ds))
	for i, d := range ds {
		items[i] = vm.Of(d)
	}
	return List(items)
}

// TextOr returns the display form of argument i, or def when it was not
// passed at all.
func TextOr(args vm.Args, i int, def string) string {
	if !args.Has(i) {
		return def
	}
	return args.Text(i)
}

// Truth calls f(v) as a callback and reports the truthiness of its result.
func Truth(th *vm.Thread, f vm.Value, v vm.Value) (bool, error) {
	r, err := th.Call1(f, v)
	if err != nil {
		return false, err
	}
	return r.Truth(), nil
}

// RuneCount is the number of Unicode scalar values (the length unit of
// Harn strings).
func RuneCount(s string) int { return vm.RuneCount(s) }

// ClampInt limits n to [lo, hi].
func ClampInt(n, lo, hi int64) int64 {
	if n < lo {
		return lo
	}
	if n > hi {
		return hi
	}
	return n
}

// Payload returns an enum variant's first payload value (nil when none).
func Payload(e *vm.EnumValue) vm.Value {
	if len(e.Fields) == 0 {
		return vm.Nil
	}
	return e.Fields[0]
}

// IsNumber reports whether v is an int or a float.
func IsNumber(v vm.Value) bool {
	k := v.Kind()
	return k == vm.KInt || k == vm.KFloat
}

// ToFloat converts an int or float.
func ToFloat(v vm.Value) (float64, bool) {
	if n, ok := v.AsInt(); ok {
		return float64(n), true
	}
	if f, ok := v.AsFloat(); ok {
		return float64(f), true
	}
	return 0, false
}

// ASCIIDigit reports whether c is 0-9.
func ASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// JoinItems joins the display forms of items with sep.
// The builder is sized up front from the string items (other items are
// guessed at 8 bytes), so joining many strings copies them once.
func JoinItems(th *vm.Thread, items []vm.Value, sep string) (string, error) {
	if len(items) == 0 {
		return "", nil
	}
	size := len(sep) * (len(items) - 1)
	strs := true
	for _, v := range items {
		if s, ok := v.AsString(); ok {
			size += len(s.Go())
		} else {
			size += 8
			strs = false
		}
	}
	if strs {
		return joinStrings(th, items, sep, size)
	}
	var sb strings.Builder
	sb.Grow(size)
	p := Pacer{Th: th}
	for i, v := range items {
		if err := p.Step(); err != nil {
			return "", err
		}
		if i > 0 {
			sb.WriteString(sep)
		}
		if s, ok := v.AsString(); ok {
			sb.WriteString(s.Go())
		} else {
			v.Display(&sb)
		}
	}
	return sb.String(), nil
}

// joinStrings is JoinItems when every item is a string and the result is
// size bytes. Its builder stays on the stack (JoinItems' escapes, to
// Display), so appending to it needs no write barrier, and it checks
// for interrupts once per pacerEvery items.
func joinStrings(th *vm.Thread, items []vm.Value, sep string, size int) (string, error) {
	var sb strings.Builder
	sb.Grow(size)
	for start := 0; start < len(items); start += pacerEvery {
		if start > 0 && th != nil {
			if err := th.CheckInterrupt(); err != nil {
				return "", err
			}
		}
		for i, v := range items[start:min(start+pacerEvery, len(items))] {
			if start+i > 0 {
				if len(sep) == 1 {
					sb.WriteByte(sep[0]) // no copy call for a comma
				} else {
					sb.WriteString(sep)
				}
			}
			s, _ := v.AsString()
			sb.WriteString(s.Go())
		}
	}
	return sb.String(), nil
}

// Pacer lets a long native loop honour deadlines, cancellation and
// Ctrl-C: Step checks the thread for an interrupt every pacerEvery calls,
// rarely enough to cost nothing measurable.
type Pacer struct {
	Th *vm.Thread
	n  uint32
}

const pacerEvery = 4096

// Step counts one iteration and returns the interrupt, if any, on every
// pacerEvery-th call.
func (p *Pacer) Step() error {
	p.n++
	if p.n%pacerEvery != 0 || p.Th == nil {
		return nil
	}
	return p.Th.CheckInterrupt()
}

// OffThread runs f, a Go computation over a large input that cannot check
// for interrupts itself (a library parser, Go's regexp) and touches no
// Harn state, so that th's deadline, cancellation or Ctrl-C still stop
// the builtin. From offThreadMin bytes of input it runs f on a goroutine
// of its own while th waits (releasing the VM lock, so other tasks run
// meanwhile); when th is stopped, OffThread returns th's error at once and
// f finishes unobserved, so the caller must not read what f writes unless
// OffThread returned nil. A panic in f is raised again on th. When f
// ends after th's deadline has passed (the deadline's timer can fire late
// on a loaded machine), th's error wins over f's result, so a block never
// finishes work that overran its deadline. Smaller inputs, and calls
// without a thread, run f inline.
func OffThread(th *vm.Thread, size int, f func()) error {
	if th == nil || size < OffThreadMin {
		f()
		return nil
	}
	done := make(chan struct{})
	var failure any
	go func() {
		defer close(done)
		defer func() { failure = recover() }()
		f()
	}()
	for {
		fired, err := th.Wait(done, -1)
		if err != nil {
			return err
		}
		if fired {
			if failure != nil {
				panic(failure)
			}
			return th.CheckInterrupt()
		}
	}
}

// OffThreadMin is where OffThread starts using a goroutine: below a MiB
// the work takes around a millisecond, less than a goroutine hand-over is
// worth.
const OffThreadMin = 1 << 20

// CopyItems returns a fresh copy of items.
func CopyItems(items []vm.Value) []vm.Value {
	return append([]vm.Value(nil), items...)
}

// IndexOf is the index of the first item equal to x, -1 if none.
func IndexOf(items []vm.Value, x vm.Value) int {
	for i, v := range items {
		if vm.Equal(v, x) {
			return i
		}
	}
	return -1
}

// CheckKeys refuses the first key of the option dict d that is not in
// known: `WHERE: unknown key "k" — did you mean …? (known: a, b)`.
func CheckKeys(where string, d *vm.Dict, known []string) error {
	return checkNames(where, "key", d, known)
}

// CheckOptions is CheckKeys worded for an options dict: `WHERE: unknown
// option "k" — did you mean …? (known: a, b)`.
func CheckOptions(where string, d *vm.Dict, known []string) error {
	return checkNames(where, "option", d, known)
}

func checkNames(where, what string, d *vm.Dict, known []string) error {
	for _, k := range d.Keys() {
		if !slices.Contains(known, k) {
			return vm.Throwf("%s: unknown %s %q%s (known: %s)", where, what, k, DidYouMean(k, known), strings.Join(known, ", "))
		}
	}
	return nil
}
