package vm

import (
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// Value is one Harn value as the machine moves it around: a pointer word
// and a payload word, 16 bytes, copied by value. Nil, bools, ints, floats
// and durations live in the payload word, with the pointer word naming
// their kind (it points at the kind's byte in scalarTags), so arithmetic
// allocates nothing; a string points at its bytes and keeps its length in
// the payload word (strMark); every other kind points at its object (a
// *List, ...) and keeps its kind in the payload word, and values of the
// standard library's extension types point at a box holding the Object.
// docs/architecture.md ("Values") gives the invariants that keep this safe
// under the garbage collector.
//
// The zero Value is not Harn's nil: it means "no value" (an unset slot, an
// absent result), as a nil interface did before. Values are not comparable
// with ==: use Identical for identity (what == on the old interface
// values meant) and Equal for Harn equality.
type Value struct {
	_ [0]func() // forbids ==, whose meaning would be unclear
	p unsafe.Pointer
	n uint64
}

// scalarTags gives each scalar kind an address: a scalar Value's pointer
// word is &scalarTags[kind]. The bytes themselves are never read.
var scalarTags [KString]byte

// tag is the pointer word of scalar kind k.
func tag(k Kind) unsafe.Pointer { return unsafe.Pointer(&scalarTags[k]) }

// ref makes a Value of pointer kind k.
func ref(p unsafe.Pointer, k Kind) Value { return Value{p: p, n: uint64(k)} }

// Kind says which representation a Value uses. Kinds below KString are
// scalars; KInvalid's only Value is the zero one.
type Kind uint8

// The kinds. The order matters twice: kinds below KString are the scalars
// (scalarTags), and kinds below KList hold no other values (displayAt).
const (
	KInvalid  Kind = iota // the zero Value
	KNil                  // Harn nil
	KBool                 // n: 0 or 1
	KInt                  // n: the int64's bits
	KFloat                // n: math.Float64bits
	KDuration             // n: milliseconds as int64 bits
	KString               // p: the text's bytes, n: strMark|length (or a boxed *String, kStrBuf)
	KList                 // p: *List
	KDict                 // p: *Dict
	KSet                  // p: *Set
	KClosure              // p: *Closure
	KBuiltin              // p: *Builtin
	KBound                // p: *BoundMethod
	KStruct               // p: *StructValue
	KEnum                 // p: *EnumValue
	KPair                 // p: *Pair
	KRange                // p: *Range
	KCell                 // p: *Cell
	KIterSlot             // p: *iterSlot, a for loop's iterator
	KObject               // p: *objectBox, any other Object
)

// objectBox holds an Object of a kind this package does not know.
type objectBox struct{ o Object }

// Nil is the nil value.
var Nil = Value{p: tag(KNil)}

// True and False are the boolean values.
var (
	True  = Value{p: tag(KBool), n: 1}
	False = Value{p: tag(KBool)}
)

// BoolOf converts a Go bool.
func BoolOf(b bool) Value {
	if b {
		return True
	}
	return False
}

// IntOf makes an int value.
func IntOf(i int64) Value { return Value{p: tag(KInt), n: uint64(i)} }

// FloatOf makes a float value.
func FloatOf(f float64) Value { return Value{p: tag(KFloat), n: math.Float64bits(f)} }

// DurationOf makes a duration value of ms milliseconds.
func DurationOf(ms int64) Value { return Value{p: tag(KDuration), n: uint64(ms)} }

// strMark marks the payload word of an unboxed string, whose pointer word
// is the first byte of the text (nil when empty) and whose payload word
// is strMark | length. Pointer kinds keep small kind numbers there, so the
// top bit tells the two apart.
const strMark = 1 << 63

// kStrBuf is the payload word of a boxed string: p is a *String that views
// a growable buffer (str.go). Kind reports it as KString.
const kStrBuf = KObject + 1

// Str makes a string value. It does not allocate: the value points at the
// string's bytes.
func Str(s string) Value {
	return Value{p: unsafe.Pointer(unsafe.StringData(s)), n: strMark | uint64(len(s))}
}

// EmptyString is "".
var EmptyString = Value{n: strMark}

// stringValue makes a string value of a String (which may share a buffer).
func stringValue(s String) Value {
	if s.buf == nil {
		return Str(s.s)
	}
	// A copy, not &s: taking the parameter's address would move it to the
	// heap on entry, allocating for the common unboxed case too.
	box := new(String)
	*box = s
	return Value{p: unsafe.Pointer(box), n: uint64(kStrBuf)}
}

// Of wraps any Object as a Value; Of(nil) is the zero Value.
func Of(o Object) Value {
	switch x := o.(type) {
	case nil:
		return Value{}
	case nilValue:
		return Nil
	case Bool:
		return BoolOf(bool(x))
	case Int:
		return IntOf(int64(x))
	case Float:
		return FloatOf(float64(x))
	case Duration:
		return DurationOf(int64(x))
	case String:
		return stringValue(x)
	case *List:
		return ref(unsafe.Pointer(x), KList)
	case *Dict:
		return ref(unsafe.Pointer(x), KDict)
	case *Set:
		return ref(unsafe.Pointer(x), KSet)
	case *Closure:
		return ref(unsafe.Pointer(x), KClosure)
	case *Builtin:
		return ref(unsafe.Pointer(x), KBuiltin)
	case *BoundMethod:
		return ref(unsafe.Pointer(x), KBound)
	case *StructValue:
		return ref(unsafe.Pointer(x), KStruct)
	case *EnumValue:
		return ref(unsafe.Pointer(x), KEnum)
	case *Pair:
		return ref(unsafe.Pointer(x), KPair)
	case *Range:
		return ref(unsafe.Pointer(x), KRange)
	case *Cell:
		return ref(unsafe.Pointer(x), KCell)
	case *iterSlot:
		return ref(unsafe.Pointer(x), KIterSlot)
	}
	return ref(unsafe.Pointer(&objectBox{o}), KObject)
}

// ifaceWords is the layout of a non-empty interface value.
type ifaceWords struct {
	tab  unsafe.Pointer
	data unsafe.Pointer
}

// stringTab is the method table of String as an Object, so Object can
// return a string without copying it into a new box: the interface's data
// word is the Value's own (immutable) *String.
var stringTab = func() unsafe.Pointer {
	var o Object = String{}
	return (*ifaceWords)(unsafe.Pointer(&o)).tab
}()

// intTab is the method table of Int as an Object.
var intTab = func() unsafe.Pointer {
	var o Object = Int(0)
	return (*ifaceWords)(unsafe.Pointer(&o)).tab
}()

// smallInts are the ints Object returns without allocating: the
// interface's data word points at the entry, as Go's own conversion does
// for values below 256. A table of 1,280 ready-made interfaces cost 1,024
// allocations in every process's start-up; this one is plain data.
var smallInts = func() (a [1280]Int) {
	for i := range a {
		a[i] = Int(i - 256)
	}
	return a
}()

// Object returns the value as an Object: an Int, Float, Bool, Duration,
// String, *List, ... or an extension type's own value; nil for the zero
// Value. Ints, floats and durations are boxed by this call; prefer the As
// accessors or Kind on hot paths.
func (v Value) Object() Object {
	switch v.Kind() {
	case KInvalid:
		return nil
	case KNil:
		return nilValue{}
	case KBool:
		return Bool(v.n != 0)
	case KInt:
		if i := int64(v.n); i >= -256 && i < 1024 {
			var o Object
			w := (*ifaceWords)(unsafe.Pointer(&o))
			w.tab, w.data = intTab, unsafe.Pointer(&smallInts[i+256])
			return o
		}
		return Int(v.n)
	case KFloat:
		return Float(math.Float64frombits(v.n))
	case KDuration:
		return Duration(v.n)
	case KString:
		if v.n != uint64(kStrBuf) {
			return String{s: v.str()} // boxes, as converting a string to an interface does
		}
		var o Object
		w := (*ifaceWords)(unsafe.Pointer(&o))
		w.tab, w.data = stringTab, v.p
		return o
	case KList:
		return (*List)(v.p)
	case KDict:
		return (*Dict)(v.p)
	case KSet:
		return (*Set)(v.p)
	case KClosure:
		return (*Closure)(v.p)
	case KBuiltin:
		return (*Builtin)(v.p)
	case KBound:
		return (*BoundMethod)(v.p)
	case KStruct:
		return (*StructValue)(v.p)
	case KEnum:
		return (*EnumValue)(v.p)
	case KPair:
		return (*Pair)(v.p)
	case KRange:
		return (*Range)(v.p)
	case KCell:
		return (*Cell)(v.p)
	case KIterSlot:
		return (*iterSlot)(v.p)
	}
	return (*objectBox)(v.p).o
}

// Kind is the value's representation.
func (v Value) Kind() Kind {
	if v.isScalar() {
		return Kind(uintptr(v.p) - uintptr(unsafe.Pointer(&scalarTags)))
	}
	if v.n >= strMark || v.n == uint64(kStrBuf) {
		return KString
	}
	return Kind(v.n)
}

// isScalar reports whether v's pointer word is a scalar tag.
func (v Value) isScalar() bool {
	return uintptr(v.p)-uintptr(unsafe.Pointer(&scalarTags)) < uintptr(len(scalarTags))
}

// is reports whether v is of pointer kind k (not KString).
func (v Value) is(k Kind) bool { return v.n == uint64(k) && !v.isScalar() }

// isStr reports whether v is a string.
func (v Value) isStr() bool {
	return (v.n >= strMark || v.n == uint64(kStrBuf)) && !v.isScalar()
}

// IsValid reports whether v holds a value (is not the zero Value).
func (v Value) IsValid() bool { return v.p != nil || v.n != 0 }

// IsNil reports whether v is Harn nil.
func (v Value) IsNil() bool { return v.p == tag(KNil) }

// AsInt returns the int, if v is one (0 and false if not; the other As
// accessors also return the zero value when v is of another kind).
func (v Value) AsInt() (Int, bool) {
	if v.p != tag(KInt) {
		return 0, false
	}
	return Int(v.n), true
}

// AsFloat returns the float, if v is one.
func (v Value) AsFloat() (Float, bool) {
	if v.p != tag(KFloat) {
		return 0, false
	}
	return Float(math.Float64frombits(v.n)), true
}

// AsBool returns the bool, if v is one.
func (v Value) AsBool() (Bool, bool) {
	if v.p != tag(KBool) {
		return false, false
	}
	return Bool(v.n != 0), true
}

// AsDuration returns the duration, if v is one.
func (v Value) AsDuration() (Duration, bool) {
	if v.p != tag(KDuration) {
		return 0, false
	}
	return Duration(v.n), true
}

// AsString returns the string, if v is one.
func (v Value) AsString() (String, bool) {
	if !v.isStr() {
		return String{}, false
	}
	if v.n >= strMark {
		return String{s: v.str()}, true
	}
	return *(*String)(v.p), true
}

// int64 is the payload of an int or duration (callers check the kind).
func (v Value) int64() int64 { return int64(v.n) }

// float64 is the payload of a float (callers check the kind).
func (v Value) float64() float64 { return math.Float64frombits(v.n) }

// str is the text of a string (callers check the kind).
func (v Value) str() string {
	if v.n >= strMark {
		return unsafe.String((*byte)(v.p), int(v.n&^strMark))
	}
	return (*String)(v.p).s
}

// AsList returns the list, if v is one.
func (v Value) AsList() (*List, bool) {
	if !v.is(KList) {
		return nil, false
	}
	return (*List)(v.p), true
}

// AsDict returns the dict, if v is one.
func (v Value) AsDict() (*Dict, bool) {
	if !v.is(KDict) {
		return nil, false
	}
	return (*Dict)(v.p), true
}

// AsSet returns the set, if v is one.
func (v Value) AsSet() (*Set, bool) {
	if !v.is(KSet) {
		return nil, false
	}
	return (*Set)(v.p), true
}

// AsCell returns the cell, if v is one.
func (v Value) AsCell() (*Cell, bool) {
	if !v.is(KCell) {
		return nil, false
	}
	return (*Cell)(v.p), true
}

// AsClosure returns the closure, if v is one.
func (v Value) AsClosure() (*Closure, bool) {
	if !v.is(KClosure) {
		return nil, false
	}
	return (*Closure)(v.p), true
}

// AsStruct returns the struct instance, if v is one.
func (v Value) AsStruct() (*StructValue, bool) {
	if !v.is(KStruct) {
		return nil, false
	}
	return (*StructValue)(v.p), true
}

// AsEnum returns the enum variant, if v is one.
func (v Value) AsEnum() (*EnumValue, bool) {
	if !v.is(KEnum) {
		return nil, false
	}
	return (*EnumValue)(v.p), true
}

// AsPair returns the pair, if v is one.
func (v Value) AsPair() (*Pair, bool) {
	if !v.is(KPair) {
		return nil, false
	}
	return (*Pair)(v.p), true
}

// AsRange returns the range, if v is one.
func (v Value) AsRange() (*Range, bool) {
	if !v.is(KRange) {
		return nil, false
	}
	return (*Range)(v.p), true
}

// AsBuiltin returns the builtin, if v is one.
func (v Value) AsBuiltin() (*Builtin, bool) {
	if !v.is(KBuiltin) {
		return nil, false
	}
	return (*Builtin)(v.p), true
}

// AsBound returns the bound method, if v is one.
func (v Value) AsBound() (*BoundMethod, bool) {
	if !v.is(KBound) {
		return nil, false
	}
	return (*BoundMethod)(v.p), true
}

// List returns the list, or nil if v is not one (for callers that already
// know the kind, such as a list method's receiver).
func (v Value) List() *List {
	l, _ := v.AsList()
	return l
}

// Dict returns the dict, or nil if v is not one.
func (v Value) Dict() *Dict {
	d, _ := v.AsDict()
	return d
}

// Type is the name type_of returns (docs/spec/builtins.md §1.3).
func (v Value) Type() string {
	switch v.Kind() {
	case KNil:
		return "nil"
	case KBool:
		return "bool"
	case KInt:
		return "int"
	case KFloat:
		return "float"
	case KDuration:
		return "duration"
	case KString:
		return "string"
	case KInvalid:
		return "nil"
	}
	return v.Object().Type()
}

// Truth is the value's truthiness (docs/spec/builtins.md §1.4).
func (v Value) Truth() bool {
	switch v.Kind() {
	case KInvalid, KNil:
		return false
	case KBool, KInt, KDuration:
		return v.n != 0
	case KFloat:
		return v.float64() != 0
	case KString:
		return v.str() != ""
	}
	return v.Object().Truth()
}

// Display appends the display form (docs/spec/builtins.md §1.1) to sb.
func (v Value) Display(sb *strings.Builder) {
	switch v.Kind() {
	case KInvalid, KNil:
		sb.WriteString("nil")
	case KInt:
		var buf [24]byte
		sb.Write(strconv.AppendInt(buf[:0], v.int64(), 10))
	case KString:
		sb.WriteString(v.str())
	case KFloat, KBool, KDuration:
		sb.WriteString(ToDisplay(v)) // Object would box the payload
	default:
		v.Object().Display(sb)
	}
}

// String is the display form, so fmt prints values as Harn does.
func (v Value) String() string {
	var sb strings.Builder
	v.Display(&sb)
	return sb.String()
}

// Identical reports whether a and b are the same value: equal scalars,
// equal strings, or the same object. (Equal is Harn's ==.)
func Identical(a, b Value) bool {
	k := a.Kind()
	if k != b.Kind() {
		return false
	}
	switch k {
	case KString:
		return a.str() == b.str()
	case KFloat:
		return a.float64() == b.float64()
	case KObject:
		return (*objectBox)(a.p).o == (*objectBox)(b.p).o
	}
	return a.p == b.p && a.n == b.n
}
