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

// Options is v as the options dict of builtin where, the one check every
// builtin makes of its options argument: nil (no options) for nil, else
// `Type error: WHERE: options must be a dict, got T`. CheckOptions then
// refuses the keys it does not know.
func Options(where string, v vm.Value) (*vm.Dict, error) {
	if !v.IsValid() || v.IsNil() {
		return nil, nil
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, BadOptions(where, v)
	}
	return d, nil
}

// BadOptions is the failure of builtin where given options v that are not
// a dict: `Type error: WHERE: options must be a dict, got T`, one wording
// for every builtin.
func BadOptions(where string, v vm.Value) error {
	return vm.Typef("%s: options must be a dict, got %s", where, v.Type())
}

// OptionsArg is the options dict at argument i of builtin name (Options):
// an empty dict when the argument is absent or nil.
func OptionsArg(name string, a vm.Args, i int) (*vm.Dict, error) {
	d, err := Options(name, a.At(i))
	if d == nil && err == nil {
		d = vm.NewDict()
	}
	return d, err
}

// ArgCountError is the `[T] NAME requires N arguments` failure.
func ArgCountError(name string, n int) error {
	if n == 1 {
		return vm.Throwf("%s requires 1 argument", name)
	}
	return vm.Throwf("%s requires %d arguments", name, n)
}

// LossyUTF8 decodes b as UTF-8 as Rust's String::from_utf8_lossy does
// (upstream decodes so): each ill-formed sequence, as InvalidUTF8 measures
// it, becomes one U+FFFD, so a character cut short ("\xE2\x82") is one
// replacement, not one per byte.
func LossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			n, _ := InvalidUTF8(b)
			sb.WriteRune(utf8.RuneError)
			b = b[n:]
			continue
		}
		sb.Write(b[:size])
		b = b[size:]
	}
	return sb.String()
}

// InvalidUTF8 measures the ill-formed sequence at the start of b (which
// does not start with a valid character) as Rust's UTF-8 validator does:
// the lead byte and the continuation bytes that could still belong to it,
// n bytes in all; incomplete when b ends inside that character (n is then
// len(b)).
func InvalidUTF8(b []byte) (n int, incomplete bool) {
	// the second byte's range depends on the lead byte (no overlong
	// forms, no surrogates, nothing past U+10FFFF)
	lo, hi := byte(0x80), byte(0xBF)
	width := 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		width = 2
	case c >= 0xE0 && c <= 0xEF:
		width = 3
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
	case c >= 0xF0 && c <= 0xF4:
		width = 4
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
	}
	for k := 1; k < width; k++ {
		if k >= len(b) {
			return len(b), true
		}
		c := b[k]
		if k == 1 && (c < lo || c > hi) || k > 1 && (c < 0x80 || c > 0xBF) {
			return k, false
		}
	}
	return 1, false
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
