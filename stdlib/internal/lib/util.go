package lib

// Small helpers shared by the Tier 2 library files.

import (
	"fmt"
	"io/fs"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harnlang/harn/vm"
)

// DictOf builds a dict from alternating string keys and values (each a
// vm.Value or a vm.Object such as a *vm.List).
func DictOf(kv ...any) *vm.Dict {
	b := vm.NewDictBuilder(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case vm.Value:
			b.Set(kv[i].(string), v)
		case vm.Object:
			b.Set(kv[i].(string), vm.Of(v))
		default:
			panic(fmt.Sprintf("DictOf: %T is not a value", v))
		}
	}
	return b.Build()
}

// Get is d[k], nil when k is absent.
func Get(d *vm.Dict, k string) vm.Value {
	if v, ok := d.Get(k); ok {
		return v
	}
	return vm.Nil
}

// OptionsArg is the options dict at argument i of builtin name: an
// empty dict when the argument is absent or nil, a runtime error when it
// is anything else.
func OptionsArg(name string, a vm.Args, i int) (*vm.Dict, error) {
	if !a.Has(i) || a.At(i).IsNil() {
		return vm.NewDict(), nil
	}
	d, ok := a.Dict(i)
	if !ok {
		return nil, vm.Runtimef("%s: expected dict at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	return d, nil
}

// ArgCountError is the `[T] NAME requires N arguments` failure.
func ArgCountError(name string, n int) error {
	if n == 1 {
		return vm.Throwf("%s requires 1 argument", name)
	}
	return vm.Throwf("%s requires %d arguments", name, n)
}

// LossyUTF8 decodes b as UTF-8, replacing each invalid byte with U+FFFD.
func LossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			sb.WriteRune(utf8.RuneError)
			b = b[1:]
			continue
		}
		sb.Write(b[:size])
		b = b[size:]
	}
	return sb.String()
}

// FileMode converts Unix permission bits.
func FileMode(perm int64) fs.FileMode { return fs.FileMode(perm & 0o7777) }

// Millis is ms milliseconds as a time.Duration, saturated at the largest
// durations Go holds (about 292 years) instead of wrapping: a huge sleep
// or deadline waits "forever" rather than firing at once.
func Millis(ms int64) time.Duration {
	const limit = math.MaxInt64 / int64(time.Millisecond)
	switch {
	case ms > limit:
		return math.MaxInt64
	case ms < -limit:
		return math.MinInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// MillisFloat is Millis for a fractional count (NaN counts as 0).
func MillisFloat(ms float64) time.Duration {
	return time.Duration(SaturatingInt(ms * float64(time.Millisecond)))
}

// SaturatingInt converts f to an int64 as upstream's float-to-int
// conversion does: toward zero, NaN as 0, values beyond the range
// (infinities included) clamped to it.
func SaturatingInt(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// WaitDuration reads a wait argument: a duration, or a number (int or
// float) of milliseconds.
func WaitDuration(v vm.Value) (time.Duration, bool) {
	if d, ok := v.AsDuration(); ok {
		return Millis(int64(d)), true
	}
	if n, ok := v.AsInt(); ok {
		return Millis(int64(n)), true
	}
	if f, ok := v.AsFloat(); ok {
		return MillisFloat(float64(f)), true
	}
	return 0, false
}
