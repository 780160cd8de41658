package vm

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// FormatFloat renders a float in the display form (docs/spec/builtins.md §1.2):
// integral values below 1e15 keep one decimal (`3.0`), NaN/inf are spelled
// `NaN`/`inf`/`-inf`, everything else is the shortest round-trip decimal,
// never in exponent notation.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// FormatJSONFloat renders a float in the JSON form: shortest round-trip
// decimal for every finite value (`1.0` → `1`), `NaN`/`inf`/`-inf` as
// FormatFloat spells them.
func FormatJSONFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return FormatFloat(f)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// FormatDuration renders milliseconds in the largest exact unit among
// w, d, h, m, s and ms (docs/spec/newer.md §2.13; April stopped at h).
func FormatDuration(ms int64) string {
	sign := ""
	a := uint64(ms)
	if ms < 0 {
		sign = "-"
		a = -a // as uint64, so the minimum int64 has its magnitude too
	}
	return sign + formatMagnitude(a)
}

func formatMagnitude(a uint64) string {
	for _, u := range syntax.DurationUnits {
		if unit := uint64(u.Ms); a >= unit && a%unit == 0 {
			return strconv.FormatUint(a/unit, 10) + u.Suffix
		}
	}
	return "0ms"
}

// Equal is `==` (docs/spec/builtins.md §1.5): never fails; int and float compare
// numerically; collections, variants and structs structurally; closures,
// durations and handles are never equal.
//
// It panics with TooDeep on values nested past MaxValueDepth; the
// interpreter loop uses EqualChecked.
func Equal(a, b Value) bool { return equal(a, b, 0) }

func equal(a, b Value, depth int) bool {
	if depth > MaxValueDepth {
		panic(TooDeep("compare"))
	}
	depth++
	switch a.Kind() {
	case KNil:
		return b.Kind() == KNil
	case KBool:
		return b.Kind() == KBool && a.n == b.n
	case KInt:
		switch b.Kind() {
		case KInt:
			return a.n == b.n
		case KFloat:
			return float64(a.int64()) == b.float64()
		}
		return false
	case KFloat:
		switch b.Kind() {
		case KInt:
			return a.float64() == float64(b.int64())
		case KFloat:
			return a.float64() == b.float64()
		}
		return false
	case KString:
		return b.Kind() == KString && a.str() == b.str()
	case KDuration:
		return false
	}
	switch x := a.Object().(type) {
	case *List:
		y, ok := b.AsList()
		return ok && equalAll(x.items, y.items, depth)
	case *Dict:
		y, ok := b.AsDict()
		if !ok || x.Len() != y.Len() {
			return false
		}
		eq := true
		x.Range(func(k string, v Value) bool {
			w, ok := y.Get(k)
			eq = ok && equal(v, w, depth)
			return eq
		})
		return eq
	case *Set:
		y, ok := b.AsSet()
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, v := range x.items {
			found := false
			for _, w := range y.items {
				if equal(v, w, depth) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case *EnumValue:
		y, ok := b.AsEnum()
		return ok && x.Enum == y.Enum && x.Variant == y.Variant && equalAll(x.Fields, y.Fields, depth)
	case *StructValue:
		y, ok := b.AsStruct()
		if !ok || x.Name != y.Name || len(x.Fields) != len(y.Fields) {
			return false
		}
		for i := range x.Fields {
			if x.Fields[i].Name != y.Fields[i].Name || !equal(x.Fields[i].Value, y.Fields[i].Value, depth) {
				return false
			}
		}
		return true
	case *Range:
		y, ok := b.AsRange()
		return ok && *x == *y
	case *Pair:
		y, ok := b.AsPair()
		return ok && equal(x.First, y.First, depth) && equal(x.Second, y.Second, depth)
	case *Builtin:
		y, ok := b.AsBuiltin()
		return ok && x.Name() == y.Name()
	}
	if e, ok := a.Object().(interface{ EqualTo(Value) bool }); ok {
		return e.EqualTo(b)
	}
	return false
}

// equalAll reports whether two sequences have equal elements pairwise.
func equalAll(a, b []Value, depth int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equal(a[i], b[i], depth) {
			return false
		}
	}
	return true
}

// Compare orders two values (docs/spec/builtins.md §1.6, docs/spec/newer.md
// §2.14): numbers numerically, strings byte-wise, pairs by first then
// second, lists lexicographically with a proper prefix first; every other
// combination compares as equal (0).
func Compare(a, b Value) int {
	if xs, ys, ok := sequences(a, b); ok {
		return compareSeqs(xs, ys)
	}
	return compareFlat(a, b)
}

// seq is a list's items or a pair's two halves, read by position so a
// pair needs no slice of its own.
type seq struct {
	items []Value
	pair  *Pair
}

func (s seq) len() int {
	if s.pair != nil {
		return 2
	}
	return len(s.items)
}

func (s seq) at(i int) Value {
	if s.pair == nil {
		return s.items[i]
	}
	if i == 0 {
		return s.pair.First
	}
	return s.pair.Second
}

// sequences reports whether a and b are both lists or both pairs, the
// kinds Compare orders element by element.
func sequences(a, b Value) (seq, seq, bool) {
	if x, ok := a.AsList(); ok {
		if y, ok := b.AsList(); ok {
			return seq{items: x.items}, seq{items: y.items}, true
		}
		return seq{}, seq{}, false
	}
	if x, ok := a.AsPair(); ok {
		if y, ok := b.AsPair(); ok {
			return seq{pair: x}, seq{pair: y}, true
		}
	}
	return seq{}, seq{}, false
}

// compareSeqs orders two sequences lexicographically, walking nested ones
// with a stack of its own instead of recursing: a list or pair nested
// millions deep (easy to build in a loop) must not overflow the Go stack,
// and Compare has no error to report (the interpreter loop and sort call
// it directly).
func compareSeqs(xs, ys seq) int {
	type frame struct {
		xs, ys seq
		i      int
	}
	var buf [8]frame
	todo := append(buf[:0], frame{xs: xs, ys: ys})
	for len(todo) > 0 {
		top := &todo[len(todo)-1]
		if top.i == top.xs.len() || top.i == top.ys.len() {
			c := cmpInt(int64(top.xs.len()), int64(top.ys.len()))
			if c != 0 {
				return c
			}
			todo = todo[:len(todo)-1]
			continue
		}
		a, b := top.xs.at(top.i), top.ys.at(top.i)
		top.i++
		if xs, ys, ok := sequences(a, b); ok {
			todo = append(todo, frame{xs: xs, ys: ys})
			continue
		}
		if c := compareFlat(a, b); c != 0 {
			return c
		}
	}
	return 0
}

// compareFlat is Compare for everything but two lists or two pairs.
func compareFlat(a, b Value) int {
	switch a.Kind() {
	case KInt:
		switch b.Kind() {
		case KInt:
			return cmpInt(a.int64(), b.int64())
		case KFloat:
			return cmpFloat(float64(a.int64()), b.float64())
		}
	case KFloat:
		switch b.Kind() {
		case KInt:
			return cmpFloat(a.float64(), float64(b.int64()))
		case KFloat:
			return cmpFloat(a.float64(), b.float64())
		}
	case KString:
		if b.Kind() == KString {
			return strings.Compare(a.str(), b.str())
		}
	}
	if o, ok := a.Object().(Ordered); ok {
		if c, ok := o.CompareTo(b); ok {
			return c
		}
	} else if o, ok := b.Object().(Ordered); ok {
		if c, ok := o.CompareTo(a); ok {
			return -c
		}
	}
	return 0
}

// Ordered is implemented by library value kinds with their own order
// (decimal). CompareTo reports false when the two values are unordered,
// which makes every relational comparison of them false.
type Ordered interface {
	CompareTo(other Value) (c int, ok bool)
}

// unordered reports whether an Ordered operand declines to compare.
func unordered(a, b Value) bool {
	if o, ok := a.Object().(Ordered); ok {
		_, ok := o.CompareTo(b)
		return !ok
	}
	if o, ok := b.Object().(Ordered); ok {
		_, ok := o.CompareTo(a)
		return !ok
	}
	return false
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0 // equal, or a NaN operand
}

// StructuralKey is the identity key used by set(), unique() and
// hash_value (docs/spec/builtins.md §1.7). An integral float keys like the equal int,
// so 1 and 1.0 (and 0.0 and -0.0) are one item (docs/spec/newer.md §2.6),
// also inside the struct fields, enum payloads and pairs that key by their
// display form.
func StructuralKey(v Value) string {
	var sb strings.Builder
	writeKey(&sb, v, 0)
	return sb.String()
}

func writeKey(sb *strings.Builder, v Value, depth int) {
	if depth > MaxValueDepth {
		panic(TooDeep("hash"))
	}
	depth++
	switch v.Kind() {
	case KInt:
		sb.WriteByte('i')
		var buf [24]byte
		sb.Write(strconv.AppendInt(buf[:0], v.int64(), 10))
		sb.WriteByte(';')
		return
	case KString:
		sb.WriteByte('s')
		var buf [24]byte
		sb.Write(strconv.AppendInt(buf[:0], int64(len(v.str())), 10))
		sb.WriteByte(':')
		sb.WriteString(v.str())
		return
	case KFloat: // an integral float has its int's key, as 1 == 1.0
		if f := v.float64(); f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			sb.WriteByte('i')
			var buf [24]byte
			sb.Write(strconv.AppendInt(buf[:0], int64(f), 10))
			sb.WriteByte(';')
			return
		}
		sb.WriteByte('f')
		var buf [24]byte
		sb.Write(strconv.AppendUint(buf[:0], v.n, 10))
		sb.WriteByte(';')
		return
	}
	// Ints, strings and floats were handled above: Object would box them.
	switch x := v.Object().(type) {
	case nilValue:
		sb.WriteByte('N')
	case Bool:
		if x {
			sb.WriteByte('T')
		} else {
			sb.WriteByte('F')
		}
	case Duration:
		sb.WriteByte('d')
		sb.WriteString(strconv.FormatInt(int64(x), 10))
		sb.WriteByte(';')
	case *List:
		sb.WriteByte('L')
		for _, it := range x.items {
			writeKey(sb, it, depth)
			sb.WriteByte(',')
		}
		sb.WriteByte(']')
	case *Dict:
		sb.WriteByte('D')
		x.Range(func(k string, val Value) bool {
			sb.WriteString(strconv.Itoa(len(k)))
			sb.WriteByte(':')
			sb.WriteString(k)
			sb.WriteByte('=')
			writeKey(sb, val, depth)
			sb.WriteByte(',')
			return true
		})
		sb.WriteByte('}')
	case *Set:
		keys := make([]string, len(x.items))
		for i, it := range x.items {
			var kb strings.Builder
			writeKey(&kb, it, depth)
			keys[i] = kb.String()
		}
		sort.Strings(keys)
		sb.WriteByte('S')
		for _, k := range keys {
			sb.WriteString(k)
			sb.WriteByte(',')
		}
		sb.WriteByte('}')
	default:
		if b, ok := v.Object().(interface{ KeyBytes() string }); ok {
			sb.WriteString(b.KeyBytes())
			return
		}
		t := v.Type()
		keyed, _ := intFloats(v, depth)
		d := ToDisplay(keyed)
		sb.WriteByte('o')
		sb.WriteString(strconv.Itoa(len(t)))
		sb.WriteByte(':')
		sb.WriteString(t)
		sb.WriteString(strconv.Itoa(len(d)))
		sb.WriteByte(':')
		sb.WriteString(d)
	}
}

// intFloats returns v with every integral float inside a struct, enum
// variant, pair, list or dict replaced by the equal int, so that a value
// keyed by its display form keys 1.0 like 1 (docs/spec/newer.md §2.6) while
// one without such floats keeps the display key of docs/spec/builtins.md
// §1.7. It reports whether anything changed.
func intFloats(v Value, depth int) (Value, bool) {
	if depth > MaxValueDepth {
		panic(TooDeep("hash"))
	}
	depth++
	if v.Kind() == KFloat {
		if f := v.float64(); f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return IntOf(int64(f)), true
		}
		return v, false
	}
	if !isNested(v) {
		return v, false
	}
	items := func(in []Value) []Value {
		var out []Value
		for i, it := range in {
			n, changed := intFloats(it, depth)
			if out == nil && changed {
				out = append(make([]Value, 0, len(in)), in[:i]...)
			}
			if out != nil {
				out = append(out, n)
			}
		}
		return out
	}
	switch x := v.Object().(type) {
	case *List:
		if out := items(x.items); out != nil {
			return Of(NewList(out)), true
		}
	case *EnumValue:
		if out := items(x.Fields); out != nil {
			return Of(&EnumValue{Enum: x.Enum, Variant: x.Variant, Fields: out}), true
		}
	case *Pair:
		if out := items([]Value{x.First, x.Second}); out != nil {
			return Of(&Pair{First: out[0], Second: out[1]}), true
		}
	case *StructValue:
		var out []Field
		for i, f := range x.Fields {
			n, changed := intFloats(f.Value, depth)
			if out == nil && changed {
				out = append(make([]Field, 0, len(x.Fields)), x.Fields[:i]...)
			}
			if out != nil {
				out = append(out, Field{f.Name, n})
			}
		}
		if out != nil {
			return Of(&StructValue{Name: x.Name, Fields: out}), true
		}
	case *Dict:
		b := NewDictBuilder(x.Len())
		anyChanged := false
		x.Range(func(k string, val Value) bool {
			n, changed := intFloats(val, depth)
			anyChanged = anyChanged || changed
			b.Set(k, n)
			return true
		})
		if anyChanged {
			return Of(b.Build()), true
		}
	}
	return v, false
}
