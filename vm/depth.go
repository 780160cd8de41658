package vm

import "strings"

// MaxValueDepth bounds how deeply the recursive walks over a value
// (display, ==, structural keys, the JSON and YAML writers) descend. A list
// nested millions deep is easy to build with a loop; past this depth the
// walk raises a catchable run-time error instead of overflowing the Go stack.
const MaxValueDepth = 10000

// TooDeep is the error a walk raises on a value nested past MaxValueDepth;
// what names the walk ("display", "compare", "hash", "encode as JSON").
func TooDeep(what string) *Error {
	return Runtimef("value nested too deeply to %s (over %d levels)", what, MaxValueDepth)
}

// nested is implemented by the containers whose display recurses into
// their elements; display carries the depth so far.
type nested interface {
	display(sb *strings.Builder, depth int)
}

// displayAt writes v's display form at nesting depth depth. It panics with
// TooDeep past MaxValueDepth: the public entry points (ToDisplay, Display)
// return no error, so callers that must not panic use DisplayChecked, and
// calls from builtins are turned into a catchable error by recoverNative.
func displayAt(sb *strings.Builder, v Value, depth int) {
	if v.Kind() < KList {
		v.Display(sb)
		return
	}
	n, ok := v.Object().(nested)
	if !ok {
		v.Display(sb)
		return
	}
	if depth >= MaxValueDepth {
		panic(TooDeep("display"))
	}
	n.display(sb, depth+1)
}

// displayItems writes items, separated by ", ", between open and end:
// a list, a set, an enum variant's fields.
func displayItems(sb *strings.Builder, open string, items []Value, end byte, depth int) {
	sb.WriteString(open)
	for i, v := range items {
		if i > 0 {
			sb.WriteString(", ")
		}
		displayAt(sb, v, depth)
	}
	sb.WriteByte(end)
}

// catchDeep runs f, turning a TooDeep panic (or any *Error panic) into an
// error for code in the interpreter loop, which has no recoverNative around it.
func catchDeep(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}

// isNested reports whether v may hold other values (and so be deep).
func isNested(v Value) bool {
	switch v.Kind() {
	case KList, KDict, KSet, KPair, KEnum, KStruct:
		return true
	}
	return false
}

// DisplayChecked is ToDisplay that reports a too-deep value as an error.
func DisplayChecked(v Value) (s string, err error) {
	if !isNested(v) {
		return ToDisplay(v), nil
	}
	err = catchDeep(func() { s = ToDisplay(v) })
	return s, err
}

// EqualChecked is Equal that reports a too-deep value as an error.
func EqualChecked(a, b Value) (eq bool, err error) {
	if !isNested(a) {
		return Equal(a, b), nil
	}
	err = catchDeep(func() { eq = Equal(a, b) })
	return eq, err
}
