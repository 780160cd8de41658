package vm

import "math"

// Args is a builtin's argument list with lenient accessors: a missing
// argument reads as nil, and each typed accessor reports whether the value
// has the wanted kind so the builtin can pick its documented fallback.
// It is the one argument-unpacking helper every builtin uses.
type Args []Value

// Len is the number of arguments actually passed.
func (a Args) Len() int { return len(a) }

// At returns argument i, or nil when it was not passed.
func (a Args) At(i int) Value {
	if i < len(a) {
		return a[i]
	}
	return Nil
}

// Has reports whether argument i was passed (even as nil).
func (a Args) Has(i int) bool { return i < len(a) }

// Given reports whether argument i was passed and is not nil.
func (a Args) Given(i int) bool {
	if i >= len(a) {
		return false
	}
	_, isNil := a[i].Object().(nilValue)
	return !isNil
}

// Text returns the display form of argument i ("nil" when missing):
// the "text" parameters of docs/spec/builtins.md §0.
func (a Args) Text(i int) string { return ToDisplay(a.At(i)) }

// Str returns argument i when it is a string.
func (a Args) Str(i int) (string, bool) {
	if s, ok := a.At(i).AsString(); ok {
		return s.s, true
	}
	return "", false
}

// Int returns argument i when it is an int.
func (a Args) Int(i int) (int64, bool) {
	if n, ok := a.At(i).AsInt(); ok {
		return int64(n), true
	}
	return 0, false
}

// IntOr returns argument i when it is an int, else def.
func (a Args) IntOr(i int, def int64) int64 {
	if n, ok := a.Int(i); ok {
		return n
	}
	return def
}

// Num returns argument i as a float64 when it is an int or a float.
func (a Args) Num(i int) (float64, bool) {
	switch n := a.At(i).Object().(type) {
	case Int:
		return float64(n), true
	case Float:
		return float64(n), true
	}
	return math.NaN(), false
}

// Bool returns argument i when it is a bool.
func (a Args) Bool(i int) (bool, bool) {
	b, ok := a.At(i).AsBool()
	return bool(b), ok
}

// List returns argument i when it is a list.
func (a Args) List(i int) (*List, bool) {
	l, ok := a.At(i).AsList()
	return l, ok
}

// Dict returns argument i when it is a dict.
func (a Args) Dict(i int) (*Dict, bool) {
	d, ok := a.At(i).AsDict()
	return d, ok
}

// Set returns argument i when it is a set.
func (a Args) Set(i int) (*Set, bool) {
	s, ok := a.At(i).AsSet()
	return s, ok
}

// Callable returns argument i when it can be called.
func (a Args) Callable(i int) (Value, bool) {
	v := a.At(i)
	if IsCallable(v) {
		return v, true
	}
	return Value{}, false
}

// IsCallable reports whether v can be called (closure, builtin, bound method).
func IsCallable(v Value) bool {
	_, ok := v.Object().(Callable)
	return ok
}
