package lib

import (
	"math"
	"strconv"
	"strings"

	"github.com/harnlang/harn/vm"
)

// NonData finds the first value in v (v itself, then the items of its
// lists and dicts in order) that is not JSON data: nil, a bool, an int,
// a float (finite only, unless nonFinite) or a string. It returns that
// value and its path (at, then `[index]` or `["key"]` a level); bad is
// invalid when v is all data. tooDeep is set instead, with the path
// where it happened, when v nests deeper than vm.MaxValueDepth.
//
// Checkpoints, project facts and trust records refuse what NonData finds
// (each in its own words) rather than save it as something else.
func NonData(v vm.Value, at string, nonFinite bool) (bad vm.Value, path string, tooDeep bool) {
	return nonData(v, at, nonFinite, 0)
}

func nonData(v vm.Value, at string, nonFinite bool, depth int) (vm.Value, string, bool) {
	if depth > vm.MaxValueDepth {
		return vm.Value{}, at, true
	}
	switch v.Kind() {
	case vm.KNil, vm.KBool, vm.KInt, vm.KString:
		return vm.Value{}, "", false
	case vm.KFloat:
		f, _ := v.AsFloat()
		if nonFinite || !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			return vm.Value{}, "", false
		}
		return v, at, false
	}
	switch x := v.Object().(type) {
	case *vm.List:
		for i, it := range x.Items() {
			if bad, path, deep := nonData(it, at+"["+strconv.Itoa(i)+"]", nonFinite, depth+1); bad.IsValid() || deep {
				return bad, path, deep
			}
		}
		return vm.Value{}, "", false
	case *vm.Dict:
		var bad vm.Value
		var path string
		var deep bool
		x.Range(func(k string, val vm.Value) bool {
			bad, path, deep = nonData(val, at+"["+strconv.Quote(k)+"]", nonFinite, depth+1)
			return !bad.IsValid() && !deep
		})
		return bad, path, deep
	}
	return v, at, false
}

// RyuFloat prints a float as Rust's ryu crate does, the float output of
// serde_json and serde_yaml: the shortest round-tripping digits, written
// positionally with a ".0" while the point falls within 16 digits of the
// first, else in exponent form ("1e21", "1.5e-7"). NaN and infinities are
// "null" (the caller spells them when its format has a word for them).
func RyuFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign = "-"
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expText, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp10, _ := strconv.Atoi(expText)
	n := len(digits)
	kk := exp10 + 1 // position of the decimal point relative to the digits
	switch {
	case n <= kk && kk <= 16:
		return sign + digits + strings.Repeat("0", kk-n) + ".0"
	case 0 < kk && kk <= 16:
		return sign + digits[:kk] + "." + digits[kk:]
	case -5 < kk && kk <= 0:
		return sign + "0." + strings.Repeat("0", -kk) + digits
	case n == 1:
		return sign + digits + "e" + strconv.Itoa(kk-1)
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(kk-1)
}
