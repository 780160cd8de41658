package vm

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Object is implemented by every kind of Harn value: the scalar types
// below, strings, the collections and functions of this package, and the
// extension types of the standard library (channels, tasks, ...). A Value
// holds one; Value.Object returns it and Of wraps it.
type Object interface {
	// Type is the name type_of returns (docs/spec/builtins.md §1.3).
	Type() string
	// Truth is the value's truthiness (docs/spec/builtins.md §1.4).
	Truth() bool
	// Display appends the display form (docs/spec/builtins.md §1.1) to sb.
	Display(sb *strings.Builder)
}

// Iterable is implemented by values a `for` loop can walk.
type Iterable interface {
	Object
	// Iterate returns a fresh iterator over the value's elements.
	Iterate() Iterator
}

// Iterator produces the elements of an Iterable one by one.
type Iterator interface {
	// Next returns the next element, or ok=false when exhausted.
	Next() (v Value, ok bool, err error)
}

// ThreadIterator is an Iterator whose elements may take waiting or
// running Harn code to produce (channels, generators, streams); a for loop
// passes it the running thread.
type ThreadIterator interface {
	Iterator
	NextOn(th *Thread) (v Value, ok bool, err error)
}

// IterCloser is implemented by iterators whose source is suspended Harn
// code (a generator): a for loop that stops before the end closes it, so
// the source's pending finally blocks and defers run (docs/language.md,
// Generators). CloseIter of a finished or closed source does nothing.
type IterCloser interface {
	CloseIter(th *Thread) error
}

// ErrClosing is what a Yielder's Yield returns when the consumer closes
// the generator instead of resuming it: the body then returns from the
// yield (JUMP_OPEN).
var ErrClosing = errors.New("generator closing")

// Callable is implemented by values that can be called: closures, builtins
// and bound methods.
type Callable interface {
	Object
	Name() string
}

// ---- nil, bool, int, float, duration ----

type nilValue struct{}

func (nilValue) Type() string                { return "nil" }
func (nilValue) Truth() bool                 { return false }
func (nilValue) Display(sb *strings.Builder) { sb.WriteString("nil") }

// Bool is true or false.
type Bool bool

func (b Bool) Type() string { return "bool" }
func (b Bool) Truth() bool  { return bool(b) }
func (b Bool) Display(sb *strings.Builder) {
	if b {
		sb.WriteString("true")
	} else {
		sb.WriteString("false")
	}
}

// Int is a signed 64-bit integer.
type Int int64

func (Int) Type() string  { return "int" }
func (i Int) Truth() bool { return i != 0 }
func (i Int) Display(sb *strings.Builder) {
	var buf [24]byte
	sb.Write(strconv.AppendInt(buf[:0], int64(i), 10))
}

// Float is an IEEE double.
type Float float64

func (Float) Type() string  { return "float" }
func (f Float) Truth() bool { return f != 0 }
func (f Float) Display(sb *strings.Builder) {
	sb.WriteString(FormatFloat(float64(f)))
}

// Duration is a signed number of milliseconds.
type Duration int64

func (Duration) Type() string  { return "duration" }
func (d Duration) Truth() bool { return d != 0 }
func (d Duration) Display(sb *strings.Builder) {
	sb.WriteString(FormatDuration(int64(d)))
}

// ---- pair ----

// Pair is the value built by pair(a, b) and yielded by dict iterators.
type Pair struct {
	First, Second Value
}

func (*Pair) Type() string                  { return "pair" }
func (*Pair) Truth() bool                   { return true }
func (p *Pair) Display(sb *strings.Builder) { p.display(sb, 0) }
func (p *Pair) display(sb *strings.Builder, depth int) {
	sb.WriteByte('(')
	displayAt(sb, p.First, depth)
	sb.WriteString(", ")
	displayAt(sb, p.Second, depth)
	sb.WriteByte(')')
}

// ---- range ----

// Range is `a to b` or `a to b exclusive`; it never lists its elements.
type Range struct {
	Start, End int64
	Inclusive  bool
}

func (*Range) Type() string { return "range" }
func (*Range) Truth() bool  { return true }
func (r *Range) Display(sb *strings.Builder) {
	var buf [24]byte
	sb.Write(strconv.AppendInt(buf[:0], r.Start, 10))
	sb.WriteString(" to ")
	sb.Write(strconv.AppendInt(buf[:0], r.End, 10))
	if !r.Inclusive {
		sb.WriteString(" exclusive")
	}
}

// Len is the number of elements, saturated at math.MaxInt64 (a range
// such as -2 to 9223372036854775807 has more elements than an int holds).
func (r *Range) Len() int64 {
	last, ok := r.Last()
	if !ok {
		return 0
	}
	n := uint64(last) - uint64(r.Start) // exact: last >= Start
	if n >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n) + 1
}

// Last is the last element; ok is false for an empty range.
func (r *Range) Last() (last int64, ok bool) {
	last = r.End
	if !r.Inclusive {
		if r.End == math.MinInt64 {
			return 0, false
		}
		last--
	}
	return last, last >= r.Start
}

// Has reports whether n is an element, exactly for any bounds.
func (r *Range) Has(n int64) bool {
	last, ok := r.Last()
	return ok && n >= r.Start && n <= last
}

// Iterate walks the range's ints in order.
func (r *Range) Iterate() Iterator {
	return &rangeIter{next: r.Start, remaining: r.Len()}
}

type rangeIter struct {
	next, remaining int64
}

func (it *rangeIter) Next() (Value, bool, error) {
	if it.remaining <= 0 {
		return Value{}, false, nil
	}
	v := IntOf(it.next)
	it.next++
	it.remaining--
	return v, true, nil
}

// ---- enum variants and struct instances ----

// EnumValue is one enum variant, including Result.Ok / Result.Err.
type EnumValue struct {
	Enum    string
	Variant string
	Fields  []Value
}

func (*EnumValue) Type() string                  { return "enum" }
func (*EnumValue) Truth() bool                   { return true }
func (e *EnumValue) Display(sb *strings.Builder) { e.display(sb, 0) }
func (e *EnumValue) display(sb *strings.Builder, depth int) {
	sb.WriteString(e.Enum)
	sb.WriteByte('.')
	sb.WriteString(e.Variant)
	if len(e.Fields) > 0 {
		displayItems(sb, "(", e.Fields, ')', depth)
	}
}

// Ok and Err build Result variants.
func Ok(v Value) *EnumValue  { return &EnumValue{Enum: "Result", Variant: "Ok", Fields: []Value{v}} }
func Err(v Value) *EnumValue { return &EnumValue{Enum: "Result", Variant: "Err", Fields: []Value{v}} }

// IsResult reports whether v is Result.Ok or Result.Err, and which.
func IsResult(v Value) (ok, isResult bool) {
	e, is := v.AsEnum()
	if !is || e.Enum != "Result" {
		return false, false
	}
	switch e.Variant {
	case "Ok":
		return true, true
	case "Err":
		return false, true
	}
	return false, false
}

// StructValue is an instance of a struct; Fields holds only the set fields,
// sorted by name.
type StructValue struct {
	Name   string
	Fields []Field
}

// Field is one struct field value.
type Field struct {
	Name  string
	Value Value
}

func (*StructValue) Type() string                  { return "struct" }
func (*StructValue) Truth() bool                   { return true }
func (s *StructValue) Display(sb *strings.Builder) { s.display(sb, 0) }
func (s *StructValue) display(sb *strings.Builder, depth int) {
	sb.WriteString(s.Name)
	sb.WriteString(" {")
	for i, f := range s.Fields {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(f.Name)
		sb.WriteString(": ")
		displayAt(sb, f.Value, depth)
	}
	sb.WriteByte('}')
}

// Get returns the named field.
func (s *StructValue) Get(name string) (Value, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return Value{}, false
}

// With returns a copy with the field set (added if unset).
func (s *StructValue) With(name string, v Value) *StructValue {
	out := &StructValue{Name: s.Name, Fields: make([]Field, 0, len(s.Fields)+1)}
	placed := false
	for _, f := range s.Fields {
		if !placed && f.Name >= name {
			if f.Name == name {
				out.Fields = append(out.Fields, Field{name, v})
				placed = true
				continue
			}
			out.Fields = append(out.Fields, Field{name, v})
			placed = true
		}
		out.Fields = append(out.Fields, f)
	}
	if !placed {
		out.Fields = append(out.Fields, Field{name, v})
	}
	return out
}

// NewStruct builds a struct instance from unsorted fields (later duplicates win).
func NewStruct(name string, fields []Field) *StructValue {
	s := &StructValue{Name: name}
	for _, f := range fields {
		s = s.With(f.Name, f.Value)
	}
	return s
}

// ---- helpers ----

// ToDisplay returns the display form of v.
func ToDisplay(v Value) string {
	switch v.Kind() {
	case KString:
		return v.str()
	case KInt:
		return strconv.FormatInt(v.int64(), 10)
	case KFloat:
		return FormatFloat(v.float64())
	case KBool:
		if v.n != 0 {
			return "true"
		}
		return "false"
	case KDuration:
		return FormatDuration(v.int64())
	}
	var sb strings.Builder
	v.Display(&sb)
	return sb.String()
}
