package stdlib

import (
	"unicode/utf8"

	"github.com/harnlang/harn/vm"
)

// Small helpers shared by the library files.

func str(s string) vm.Value { return vm.Str(s) }
func intv(i int64) vm.Value { return vm.IntOf(i) }
func intOf(i int) vm.Value  { return vm.IntOf(int64(i)) }
func display(v vm.Value) string {
	if v == nil {
		return "nil"
	}
	return vm.ToDisplay(v)
}

// list wraps items (which the caller must not touch afterwards); an empty
// slice gives the shared empty list.
func list(items []vm.Value) *vm.List {
	if len(items) == 0 {
		return vm.NewList(nil)
	}
	return vm.NewList(items)
}

// strList converts Go strings to a Harn list of strings.
func strList(ss []string) *vm.List {
	items := make([]vm.Value, len(ss))
	for i, s := range ss {
		items[i] = vm.Str(s)
	}
	return list(items)
}

// textOr returns the display form of argument i, or def when it was not
// passed at all.
func textOr(args vm.Args, i int, def string) string {
	if !args.Has(i) {
		return def
	}
	return args.Text(i)
}

// truth calls f(v) as a callback and reports the truthiness of its result.
func truth(th *vm.Thread, f vm.Value, v vm.Value) (bool, error) {
	r, err := th.Call1(f, v)
	if err != nil {
		return false, err
	}
	return r.Truth(), nil
}

// runeCount is the number of Unicode scalar values (the length unit of
// Harn strings).
func runeCount(s string) int { return utf8.RuneCountInString(s) }

// clampInt limits n to [lo, hi].
func clampInt(n, lo, hi int64) int64 {
	if n < lo {
		return lo
	}
	if n > hi {
		return hi
	}
	return n
}

// payload returns an enum variant's first payload value (nil when none).
func payload(e *vm.EnumValue) vm.Value {
	if len(e.Fields) == 0 {
		return vm.Nil
	}
	return e.Fields[0]
}

// isNumber reports whether v is an int or a float.
func isNumber(v vm.Value) bool {
	switch v.(type) {
	case vm.Int, vm.Float:
		return true
	}
	return false
}

// toFloat converts an int or float.
func toFloat(v vm.Value) (float64, bool) {
	switch n := v.(type) {
	case vm.Int:
		return float64(n), true
	case vm.Float:
		return float64(n), true
	}
	return 0, false
}
