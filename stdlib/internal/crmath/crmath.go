// Package crmath has correctly rounded elementary functions: sin, cos,
// tan, asin, acos, atan, atan2, exp, ln and log2 return the float64
// nearest to the exact value, as the C library does in practice
// (docs/language.md §2), and log10 follows the C library's formula.
//
// Each function first tries a fast path in double-double arithmetic
// (dd.go) whose error is bounded, and rounds only when the whole error
// interval rounds to one float64 (Ziv's strategy, roundDD); otherwise,
// rarely, it computes the value again in big.Float (reference.go), which
// is also the path for special values and out-of-range arguments.
package crmath

import "math"

// fastErr is the relative error the fast paths claim. Each of them is
// argued below to be better than 2⁻⁹⁰; claiming 2⁻⁸⁰ leaves a factor of a
// thousand for a slip in those arguments, and a rounding boundary still
// falls within 2⁻⁸⁰ of the result in only about one call in 10⁸.
const fastErr = 0x1p-80

// roundDD returns v rounded to float64 when every value within relErr of
// it (relative) rounds the same, and false otherwise. Results so small
// or large that the low part could leave the normal range are refused.
//
// Rounding is monotonic, so when the two ends round alike everything
// between does. The ends are computed in float64: hi + fl(lo ∓ e) with
// e = 2·relErr·|hi| ≥ 2⁻⁷⁹·|hi| ≥ 2²⁶·|lo|, so fl(lo ∓ e) errs by far
// less than e/2 and the ends still enclose v·(1 ± relErr).
func roundDD(v dd, relErr float64) (float64, bool) {
	a := math.Abs(v.Hi)
	if !inFastRange(a) {
		return 0, false
	}
	e := 2 * relErr * a
	down, up := v.Hi+(v.Lo-e), v.Hi+(v.Lo+e)
	if down != up {
		return 0, false
	}
	return down, true
}

// Sin is the correctly rounded sine.
func Sin(x float64) float64 {
	if v, ok := fastSin(x); ok {
		return v
	}
	return refSin(x)
}

// Cos is the correctly rounded cosine.
func Cos(x float64) float64 {
	if v, ok := fastCos(x); ok {
		return v
	}
	return refCos(x)
}

// Tan is the correctly rounded tangent.
func Tan(x float64) float64 {
	if v, ok := fastTan(x); ok {
		return v
	}
	return refTan(x)
}

// Asin is the correctly rounded arcsine.
func Asin(x float64) float64 {
	if v, ok := fastAsin(x); ok {
		return v
	}
	return refAsin(x)
}

// Acos is the correctly rounded arccosine.
func Acos(x float64) float64 {
	if v, ok := fastAcos(x); ok {
		return v
	}
	return refAcos(x)
}

// Atan is the correctly rounded arctangent.
func Atan(x float64) float64 {
	if v, ok := fastAtan(x); ok {
		return v
	}
	return refAtan(x)
}

// Atan2 is the correctly rounded angle of the point (x, y).
func Atan2(y, x float64) float64 {
	if v, ok := fastAtan2(y, x); ok {
		return v
	}
	return refAtan2(y, x)
}

// Exp is the correctly rounded e**x.
func Exp(x float64) float64 {
	if v, ok := fastExp(x); ok {
		return v
	}
	return refExp(x)
}

// Log is the correctly rounded natural logarithm.
func Log(x float64) float64 {
	if v, ok := fastLog(x); ok {
		return v
	}
	return refLog(x)
}

// Log2 is the correctly rounded base-2 logarithm.
func Log2(x float64) float64 {
	if v, ok := fastLog2(x); ok {
		return v
	}
	return refLog2(x)
}

// Log10 is the base-10 logarithm by the C library's formula, on top of
// the correctly rounded Log.
func Log10(x float64) float64 { return log10With(Log, x) }

// refLog10 is Log10 on top of the reference natural logarithm.
func refLog10(x float64) float64 { return log10With(refLog, x) }

// inFastRange reports whether a ≥ 0 lies in [2⁻⁹⁰⁰, 2⁹⁰⁰], where the low
// parts of double-doubles and the residuals of exact products are
// normal float64 and nothing overflows.
func inFastRange(a float64) bool { return a >= 0x1p-900 && a <= 0x1p900 }
