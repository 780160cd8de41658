// Package numtext reads a number written as text the way to_int and
// to_float do (docs/spec/newer.md §2.12), so that the built-ins and the
// checker, which suggests those conversions, agree on what converts.
package numtext

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Int is s as to_int reads it: a decimal int64, surrounding whitespace
// trimmed; no sign other than one leading + or -, no fraction, exponent,
// base prefix or `_` separator.
func Int(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// Float is s as to_float reads it, surrounding whitespace trimmed: an
// optional sign, digits with an optional fraction, an optional exponent,
// or inf/infinity/nan. Go's parser also takes hex floats and `_`
// separators, which are refused; a value beyond the float range is ±inf.
func Float(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "_xXpP") {
		return 0, false
	}
	if t := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")); t == "nan" {
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}
