package vm

import (
	"math"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/compiler"
)

// intArith is + - * on two ints, promoting to float on overflow
// (docs/spec/language.md §6.6).
func intArith(op compiler.Opcode, a, b int64) Value {
	switch op {
	case compiler.ADD:
		s := a + b
		if (s > a) == (b > 0) {
			return IntOf(s)
		}
		return FloatOf(float64(float64(a) + float64(b)))
	case compiler.SUB:
		d := a - b
		if (d < a) == (b > 0) {
			return IntOf(d)
		}
		return FloatOf(float64(float64(a) - float64(b)))
	case compiler.MUL:
		if p, ok := mulInt(a, b); ok {
			return IntOf(p)
		}
		return FloatOf(float64(float64(a) * float64(b)))
	}
	panic("vm: intArith op")
}

func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	neg := (a < 0) != (b < 0)
	ua, ub := absU(a), absU(b)
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true
	}
	if lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// Arith applies a binary arithmetic operator (+ - * / % **) following the
// table of docs/spec/language.md §6.6.
func Arith(op compiler.Opcode, x, y Value) (Value, error) {
	switch x.Kind() {
	case KInt:
		switch y.Kind() {
		case KInt:
			a, b := x.int64(), y.int64()
			switch op {
			case compiler.ADD, compiler.SUB, compiler.MUL:
				return intArith(op, a, b), nil
			case compiler.DIV:
				if b == 0 {
					return Value{}, DivisionByZero()
				}
				if a == math.MinInt64 && b == -1 {
					return FloatOf(-float64(a)), nil
				}
				return IntOf(a / b), nil
			case compiler.MOD:
				if b == 0 {
					return Value{}, DivisionByZero()
				}
				if b == -1 {
					return IntOf(0), nil
				}
				return IntOf(a % b), nil
			case compiler.POW:
				return IntPow(a, b), nil
			}
		case KFloat:
			return floatArith(op, float64(x.int64()), y.float64())
		}
	case KFloat:
		switch y.Kind() {
		case KInt:
			return floatArith(op, x.float64(), float64(y.int64()))
		case KFloat:
			return floatArith(op, x.float64(), y.float64())
		}
	}
	if a, ok := x.AsString(); ok {
		switch op {
		case compiler.ADD:
			if b, ok := y.AsString(); ok {
				if err := checkJoin("joining strings", int64(len(a.s))+int64(len(b.s)), 1); err != nil {
					return Value{}, err
				}
				return stringValue(a.Concat(b.s)), nil
			}
		case compiler.MUL:
			if n, ok := y.AsInt(); ok {
				return RepeatString(a.s, int64(n))
			}
		}
	}
	switch a := x.Object().(type) {
	case *List:
		if op == compiler.ADD {
			if b, ok := y.AsList(); ok {
				if err := checkJoin("joining lists", int64(len(a.items))+int64(len(b.items)), valueSize); err != nil {
					return Value{}, err
				}
				return Of(a.Concat(b.items)), nil
			}
		}
	case *Dict:
		if op == compiler.ADD {
			if b, ok := y.AsDict(); ok {
				return Of(a.Merge(b)), nil
			}
		}
	}
	if op == compiler.MUL {
		if n, ok := x.AsInt(); ok {
			if s, ok := y.AsString(); ok {
				return RepeatString(s.s, int64(n))
			}
		}
	}
	if a, ok := x.Object().(Arithmetic); ok {
		if v, handled, err := a.Arith(op, y, false); handled || err != nil {
			return v, err
		}
	}
	if b, ok := y.Object().(Arithmetic); ok {
		if v, handled, err := b.Arith(op, x, true); handled || err != nil {
			return v, err
		}
	}
	lt, rt := x.Type(), y.Type()
	switch op {
	case compiler.ADD:
		return Value{}, Typef("Cannot add %s and %s", lt, rt)
	case compiler.SUB:
		return Value{}, Typef("Cannot subtract %s from %s", rt, lt)
	case compiler.MUL:
		return Value{}, Typef("Cannot multiply %s and %s", lt, rt)
	case compiler.DIV:
		return Value{}, Runtimef("Cannot divide %s by %s", lt, rt)
	case compiler.MOD:
		return Value{}, Runtimef("Cannot modulo %s by %s", lt, rt)
	}
	return Value{}, Typef("Cannot exponentiate %s by %s", lt, rt)
}

func floatArith(op compiler.Opcode, a, b float64) (Value, error) {
	switch op {
	case compiler.ADD:
		return FloatOf(float64(a + b)), nil
	case compiler.SUB:
		return FloatOf(float64(a - b)), nil
	case compiler.MUL:
		return FloatOf(float64(a * b)), nil
	case compiler.DIV:
		return FloatOf(float64(a / b)), nil
	case compiler.MOD:
		if b == 0 {
			return Value{}, DivisionByZero()
		}
		return FloatOf(float64(math.Mod(a, b))), nil
	}
	return FloatOf(Pow(a, b)), nil
}

// IntPow is int ** int: exact for exponents 0…2³²−1 when the result fits,
// else a float (docs/spec/language.md §6.6), the correctly rounded power of
// the operands as floats.
func IntPow(a, b int64) Value {
	if b < 0 || b >= 1<<32 {
		return FloatOf(Pow(float64(a), float64(b)))
	}
	result := int64(1)
	base := a
	e := b
	for e > 0 {
		if e&1 == 1 {
			r, ok := mulInt(result, base)
			if !ok {
				return FloatOf(Pow(float64(a), float64(b)))
			}
			result = r
		}
		e >>= 1
		if e > 0 {
			nb, ok := mulInt(base, base)
			if !ok {
				return FloatOf(Pow(float64(a), float64(b)))
			}
			base = nb
		}
	}
	return IntOf(result)
}

// RepeatString is s repeated n times (n <= 0 gives ""), refused with a
// catchable out-of-memory error when the result would pass the ceiling.
func RepeatString(s string, n int64) (Value, error) {
	if n <= 0 || s == "" {
		return EmptyString, nil
	}
	if err := CheckAlloc("repeating a string", n, int64(len(s))); err != nil {
		return Value{}, err
	}
	return Str(strings.Repeat(s, int(n))), nil
}

// Negate is unary minus.
func Negate(v Value) (Value, error) {
	switch x := v.Object().(type) {
	case Int:
		if x == math.MinInt64 {
			return FloatOf(float64(-float64(x))), nil
		}
		return IntOf(-int64(x)), nil
	case Float:
		return FloatOf(float64(-x)), nil
	case Arithmetic:
		if r, handled, err := x.Arith(compiler.SUB, IntOf(0), true); handled || err != nil {
			return r, err
		}
	}
	return Value{}, Runtimef("Cannot negate value of type %s", v.Type())
}

// Arithmetic is implemented by library value kinds with their own
// arithmetic (decimal). Arith computes `v op other` (or `other op v` when
// right is set); handled=false leaves the operands to the usual rules and
// their type error.
type Arithmetic interface {
	Arith(op compiler.Opcode, other Value, right bool) (r Value, handled bool, err error)
}

// Contains is `x in c` (docs/spec/language.md §6.6).
func Contains(c, x Value) bool {
	if c, ok := c.AsString(); ok {
		return strings.Contains(c.s, ToDisplay(x))
	}
	switch c := c.Object().(type) {
	case *List:
		for _, v := range c.items {
			if Equal(v, x) {
				return true
			}
		}
	case *Set:
		return c.Has(x)
	case *Dict:
		return c.Has(keyString(x))
	case *Range:
		if n, ok := x.AsInt(); ok {
			return c.Has(int64(n))
		}
	}
	return false
}

// keyString converts a dict key to its string (display form).
func keyString(v Value) string {
	if s, ok := v.AsString(); ok {
		return s.s
	}
	return ToDisplay(v)
}

// dictFromPairs builds the dict of MAKE_DICT and MAKE_STRUCT from the n
// key/value pairs below sp on stack, and clears their slots (it leaves
// them on a key that cannot be one).
func dictFromPairs(stack []Value, sp, n int) (*Dict, error) {
	b := NewDictBuilder(n)
	for i := sp - 2*n; i < sp; i += 2 {
		k, err := keyStringChecked(stack[i])
		if err != nil {
			return nil, err
		}
		b.Set(k, stack[i+1])
	}
	clear(stack[sp-2*n : sp])
	return b.Build(), nil
}

// keyStringChecked is keyString that reports a key nested too deeply to
// display as an error, for callers in the interpreter loop.
func keyStringChecked(v Value) (string, error) {
	if s, ok := v.AsString(); ok {
		return s.s, nil
	}
	return DisplayChecked(v)
}

// KeyString is the dict-key conversion of a value (its display form).
func KeyString(v Value) string { return keyString(v) }

// HasAttrs is implemented by values with named fields of their own
// (capability handles, namespaces).
type HasAttrs interface {
	Object
	Attr(name string) (Value, error)
}

// GetProp is `x.name` / `x?.name` (docs/spec/language.md §6.7).
func GetProp(x Value, name string, optional bool) (Value, error) {
	switch v := x.Object().(type) {
	case *Dict:
		if r, ok := v.Get(name); ok {
			return r, nil
		}
		return Nil, nil
	case *StructValue:
		if r, ok := v.Get(name); ok {
			return r, nil
		}
		return Nil, nil
	case nilValue:
		if optional {
			return Nil, nil
		}
	}
	if optional {
		if _, ok := x.Object().(HasAttrs); !ok {
			// Otherwise as the plain form (`xs?.count` is the count), except
			// that a read which would fail is nil (docs/spec/builtins.md §2:
			// "nil for a nil receiver and for receivers that would
			// otherwise error"; docs/spec/language.md §6.7).
			if v, err := GetProp(x, name, false); err == nil {
				return v, nil
			}
			return Nil, nil
		}
	}
	if v, ok := x.AsString(); ok {
		switch name {
		case "count":
			return IntOf(int64(v.Len())), nil
		case "empty":
			return BoolOf(v.s == ""), nil
		}
		return Nil, nil
	}
	switch v := x.Object().(type) {
	case *EnumValue:
		switch name {
		case "variant":
			return Str(v.Variant), nil
		case "fields":
			return Of(NewList(append([]Value(nil), v.Fields...))), nil
		}
		return Nil, nil
	case *List:
		switch name {
		case "count":
			return IntOf(int64(v.Len())), nil
		case "empty":
			return BoolOf(v.Len() == 0), nil
		case "first":
			if v.Len() == 0 {
				return Nil, nil
			}
			return v.items[0], nil
		case "last":
			if v.Len() == 0 {
				return Nil, nil
			}
			return v.items[v.Len()-1], nil
		}
		return Nil, nil
	case *Pair:
		switch name {
		case "first":
			return v.First, nil
		case "second":
			return v.Second, nil
		}
		return Value{}, Typef("cannot access property `%s` on pair (expected `first` or `second`)", name)
	case HasAttrs:
		return v.Attr(name)
	case *Builtin:
		if v.structType {
			// fields and impl methods belong to instances
			// (docs/spec/language.md §10.2, §10.3)
			return Value{}, Typef("cannot access property `%s` on struct type %s (fields and methods belong to its instances)", name, v.name)
		}
	}
	return Value{}, Typef("cannot access property `%s` on %s", name, x.Type())
}

// Index is `x[i]` (docs/spec/language.md §6.7).
func Index(x, i Value) (Value, error) {
	if v, ok := x.AsString(); ok {
		n, ok := i.AsInt()
		if !ok {
			return Value{}, Typef("cannot index into string with %s", i.Type())
		}
		r, ok := runeAt(v.s, int64(n))
		if !ok {
			return Nil, nil
		}
		return Str(r), nil
	}
	switch v := x.Object().(type) {
	case *List:
		n, ok := i.AsInt()
		if !ok {
			return Value{}, Typef("cannot index into list with %s", i.Type())
		}
		k := int64(n)
		if k < 0 {
			k += int64(v.Len())
		}
		if k < 0 || k >= int64(v.Len()) {
			return Nil, nil
		}
		return v.items[k], nil
	case *Dict:
		k, err := keyStringChecked(i)
		if err != nil {
			return Value{}, err
		}
		if r, ok := v.Get(k); ok {
			return r, nil
		}
		return Nil, nil
	case *Range:
		n, ok := i.AsInt()
		if !ok {
			return Value{}, Typef("cannot index into range with %s", i.Type())
		}
		k, l := int64(n), v.Len()
		if k < 0 {
			// Count from the last element, not from Len: Len saturates
			// for ranges with more than MaxInt64 elements.
			last, ok := v.Last()
			back := uint64(-(k + 1))
			if ok && uint64(last)-uint64(v.Start) >= back {
				return IntOf(last - int64(back)), nil
			}
		}
		if k < 0 || k >= l {
			return Value{}, Runtimef("range index out of range: index %d for range of length %d", int64(n), l)
		}
		return IntOf(v.Start + k), nil
	}
	return Value{}, Typef("cannot index into %s with %s", x.Type(), i.Type())
}

// runeAt returns the i-th character (negative counts from the end).
func runeAt(s string, i int64) (string, bool) {
	if isASCII(s) {
		n := int64(len(s))
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return "", false
		}
		return s[i : i+1], true
	}
	rs := []rune(s)
	n := int64(len(rs))
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return "", false
	}
	return string(rs[i]), true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// SliceBounds clamps [lo, hi) for a sequence of length n (negative bounds
// count from the end; nil means the default).
func SliceBounds(lo, hi Value, n int) (int, int, error) {
	start, end := 0, n
	if lo.IsValid() && !lo.IsNil() {
		k, ok := lo.AsInt()
		if !ok {
			return 0, 0, Typef("slice start must be an integer, got %s", lo.Type())
		}
		start = clampIndex(int64(k), n)
	}
	if hi.IsValid() && !hi.IsNil() {
		k, ok := hi.AsInt()
		if !ok {
			return 0, 0, Typef("slice end must be an integer, got %s", hi.Type())
		}
		end = clampIndex(int64(k), n)
	}
	if start > end {
		start = end
	}
	return start, end, nil
}

func clampIndex(k int64, n int) int {
	if k < 0 {
		k += int64(n)
	}
	if k < 0 {
		return 0
	}
	if k > int64(n) {
		return n
	}
	return int(k)
}

// Slice is `x[lo:hi]`.
func Slice(x, lo, hi Value) (Value, error) {
	if v, ok := x.AsString(); ok {
		if isASCII(v.s) {
			a, b, err := SliceBounds(lo, hi, len(v.s))
			if err != nil {
				return Value{}, err
			}
			return Str(v.s[a:b]), nil
		}
		rs := []rune(v.s)
		a, b, err := SliceBounds(lo, hi, len(rs))
		if err != nil {
			return Value{}, err
		}
		return Str(string(rs[a:b])), nil
	}
	switch v := x.Object().(type) {
	case *List:
		a, b, err := SliceBounds(lo, hi, v.Len())
		if err != nil {
			return Value{}, err
		}
		items := make([]Value, b-a)
		copy(items, v.items[a:b])
		return Of(NewList(items)), nil
	}
	return Value{}, Typef("cannot slice %s", x.Type())
}

// SetPath implements path assignment `root.a[k].b op= v` (docs/spec/language.md
// §3.3): read each intermediate value (and, for a compound form, the target)
// with the ordinary read rules, so a read that fails on its own fails here
// too; apply the last accessor, and store the updated values back towards
// the root.
func SetPath(root Value, steps []compiler.PathStep, keys []Value, val Value, op compiler.Opcode) (Value, error) {
	// Read the chain of intermediate values.
	chain := make([]Value, len(steps)) // chain[i] = value the i-th step applies to
	cur := root
	ki := 0
	keyOf := make([]Value, len(steps))
	for i, st := range steps {
		chain[i] = cur
		if st.IsIndex {
			keyOf[i] = keys[ki]
			ki++
		}
		if i == len(steps)-1 {
			break
		}
		next, err := readStep(cur, st, keyOf[i])
		if err != nil {
			return Value{}, err
		}
		cur = next
	}
	last := len(steps) - 1
	if op != 0 {
		old, err := readStep(chain[last], steps[last], keyOf[last])
		if err != nil {
			return Value{}, err
		}
		nv, err := Arith(op, old, val)
		if err != nil {
			return Value{}, err
		}
		val = nv
	}
	for i := last; i >= 0; i-- {
		nv, err := setStep(chain[i], steps[i], keyOf[i], val)
		if err != nil {
			return Value{}, err
		}
		val = nv
	}
	return val, nil
}

// readStep reads one accessor of a path as an expression would
// (docs/spec/language.md §6.7: a missing key or an index past the end is nil).
func readStep(x Value, st compiler.PathStep, key Value) (Value, error) {
	var v Value
	var err error
	if st.IsIndex {
		v, err = Index(x, key)
	} else {
		v, err = GetProp(x, st.Prop, false)
	}
	if err != nil {
		return Value{}, err
	}
	if !v.IsValid() {
		return Nil, nil
	}
	return v, nil
}

// assignIndex is the element `xs[n] = v` replaces: a negative n counts
// from the end (clamped to the first element), and there must be one.
func assignIndex(xs *List, n Int) (int, error) {
	i := int64(n)
	if i < 0 {
		i += int64(xs.Len())
		if i < 0 {
			i = 0
		}
	}
	if xs.Len() == 0 || i >= int64(xs.Len()) {
		return 0, Runtimef("Index %d out of bounds for list of length %d", int64(n), xs.Len())
	}
	return int(i), nil
}

// setStep applies one accessor assignment and returns the updated container.
func setStep(x Value, st compiler.PathStep, key, val Value) (Value, error) {
	if !st.IsIndex {
		switch c := x.Object().(type) {
		case *Dict:
			return Of(c.Set(st.Prop, val)), nil
		case *StructValue:
			return Of(c.With(st.Prop, val)), nil
		}
		return Value{}, Typef("cannot set property `%s` on %s", st.Prop, x.Type())
	}
	switch c := x.Object().(type) {
	case *List:
		n, ok := key.AsInt()
		if !ok {
			return x, nil
		}
		i, err := assignIndex(c, n)
		if err != nil {
			return Value{}, err
		}
		return Of(c.With(i, val)), nil
	case *Dict:
		k, err := keyStringChecked(key)
		if err != nil {
			return Value{}, err
		}
		return Of(c.Set(k, val)), nil
	}
	return x, nil
}

// spreadItems returns the elements a `...x` spread contributes to a list
// literal.

func spreadItems(th *Thread, v Value) ([]Value, bool, error) {
	switch x := v.Object().(type) {
	case *List:
		return x.items, true, nil
	case *Set:
		return x.items, true, nil
	case nilValue:
		return nil, true, nil
	}
	it, ok := v.Object().(Iterable)
	if !ok {
		return nil, false, nil
	}
	// read as a for loop reads: on th, and a failure part-way closes the
	// source (its finally blocks run) and is raised
	iter := it.Iterate()
	var out []Value
	for {
		var e Value
		var more bool
		var err error
		if ti, isTI := iter.(ThreadIterator); isTI {
			e, more, err = ti.NextOn(th)
		} else {
			e, more, err = iter.Next()
		}
		if err != nil {
			if c, ok := iter.(IterCloser); ok {
				_ = c.CloseIter(th)
			}
			return nil, true, err
		}
		if !more {
			return out, true, nil
		}
		out = append(out, e)
	}
}

// iterate returns the iterator a for loop uses; non-iterable values yield
// nothing (docs/spec/language.md §7.2).
func iterate(v Value) Iterator {
	if it, ok := v.Object().(Iterable); ok {
		return it.Iterate()
	}
	return &sliceIter{}
}

// Iterate is the for-loop view of any value (empty for non-iterables).
func Iterate(v Value) Iterator { return iterate(v) }
