// Package jsonv holds JSON values that keep the key order of their
// objects. The tool contract embeds documents it does not own (JSON
// Schemas, source bindings, _meta records): they must be emitted with
// their own key order, byte-for-byte stable, which Go maps cannot do.
//
// A value is one of nil, bool, json.Number, string, []any or *Object.
// Numbers keep their literal text, so an integer never turns into a
// float on the way through. Values are treated as immutable once built;
// Object.Set exists for construction only.
//
// The package is a leaf (it imports only the standard library) and sits
// in internal/, outside the pipeline of stages, because stages at both
// ends of it write ordered JSON: lang/typeschema builds JSON Schema
// documents, and tool, the adapters, mcp and the orchestrator parse and
// emit catalogs and protocol messages. Under tool/ it would be out of
// lang's reach, which only imports upstream packages.
package jsonv

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
)

// Object is a JSON object with ordered keys. It may be read from several
// goroutines once built.
type Object struct {
	keys  []string
	vals  []any
	index map[string]int // key positions, for objects above indexThreshold
}

// NewObject returns an empty object with room for n members.
func NewObject(n int) *Object {
	if n == 0 {
		return &Object{}
	}
	if n <= smallObjectSize {
		s := new(smallObject)
		s.Object.keys, s.Object.vals = s.keys[:0], s.vals[:0]
		return &s.Object
	}
	return &Object{keys: make([]string, 0, n), vals: make([]any, 0, n)}
}

// Obj builds an object of alternating keys and values (keys are
// strings), the short form for documents written in Go.
func Obj(kv ...any) *Object {
	o := NewObject(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Strings returns ss as an array value: the []any form a parsed
// document has, which readers of documents type-switch on.
func Strings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// smallObjectSize is the most members a smallObject holds.
const smallObjectSize = 4

// A smallObject is an Object with its first members' room in the same
// allocation. Most objects a request parses or an answer builds have at
// most four members, and three allocations each (object, keys, values)
// were a third of an MCP tools/call's allocations.
type smallObject struct {
	Object
	keys [smallObjectSize]string
	vals [smallObjectSize]any
}

// Len is the number of members.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys returns the keys in order. The slice must not be modified.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// At returns member i.
func (o *Object) At(i int) (string, any) { return o.keys[i], o.vals[i] }

// find never mutates the object, so finished objects can be read from
// several goroutines; the index is maintained while the object is built.
func (o *Object) find(k string) int {
	if o == nil {
		return -1
	}
	if o.index != nil {
		if i, ok := o.index[k]; ok {
			return i
		}
		return -1
	}
	for i, key := range o.keys {
		if key == k {
			return i
		}
	}
	return -1
}

// indexThreshold is the size above which lookups use a map.
const indexThreshold = 8

func (o *Object) noteAppend() {
	n := len(o.keys)
	switch {
	case o.index != nil:
		o.index[o.keys[n-1]] = n - 1
	case n > indexThreshold:
		o.index = make(map[string]int, 2*n)
		for i, key := range o.keys {
			o.index[key] = i
		}
	}
}

// Get returns the member named k.
func (o *Object) Get(k string) (any, bool) {
	if i := o.find(k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Member returns the member k of o when it holds a T: the typed read of
// a document's keyword (o may be nil).
func Member[T any](o *Object, k string) (T, bool) {
	v, _ := o.Get(k)
	t, ok := v.(T)
	return t, ok
}

// Has reports whether k is a member.
func (o *Object) Has(k string) bool { return o.find(k) >= 0 }

// Set replaces the member k in place, or appends it.
func (o *Object) Set(k string, v any) {
	if i := o.find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	o.noteAppend()
}

// Append adds a member whose key the caller knows is new. It is cheaper
// than Set while building a copy: it builds no lookup index (lookups on
// such an object scan, until a Set indexes it).
func (o *Object) Append(k string, v any) {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	if o.index != nil {
		o.index[k] = len(o.keys) - 1
	}
}

// Range calls fn for each member in order until it returns false.
func (o *Object) Range(fn func(k string, v any) bool) {
	if o == nil {
		return
	}
	for i, k := range o.keys {
		if !fn(k, o.vals[i]) {
			return
		}
	}
}

// Copy returns a shallow copy.
func (o *Object) Copy() *Object {
	if o == nil {
		return nil
	}
	c := &Object{keys: append([]string(nil), o.keys...), vals: append([]any(nil), o.vals...)}
	if o.index != nil {
		c.index = make(map[string]int, len(o.index))
		for k, i := range o.index {
			c.index[k] = i
		}
	}
	return c
}

// Without returns a shallow copy without the member k.
func (o *Object) Without(k string) *Object {
	out := NewObject(o.Len())
	o.Range(func(key string, v any) bool {
		if key != k {
			out.Set(key, v)
		}
		return true
	})
	return out
}

// SortedKeys reports whether the keys are in ascending order.
func (o *Object) SortedKeys() bool { return sort.StringsAreSorted(o.Keys()) }

// MarshalJSON writes the object compactly, keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("null"), nil
	}
	return Append(nil, o), nil
}

// UnmarshalJSON reads an object, keeping its key order.
func (o *Object) UnmarshalJSON(b []byte) error {
	v, err := Parse(b)
	if err != nil {
		return err
	}
	obj, ok := v.(*Object)
	if !ok {
		return fmt.Errorf("expected a JSON object, found %s", TypeName(v))
	}
	*o = *obj
	return nil
}

// Int returns a JSON number for n.
func Int(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }

// Float returns a JSON number for a finite f, spelled as the shortest
// round-trip decimal (integral values without a fraction).
func Float(f float64) json.Number {
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

// TypeName is the JSON type of v: null, boolean, number, string, array
// or object ("integer" is never returned). It also names the generic
// form encoding/json decodes into (a map[string]any is an object).
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64, int64, int:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case *Object, map[string]any:
		return "object"
	}
	return "unknown"
}

// Plain converts v to the generic form (map[string]any) that schema
// libraries and encoding/json consumers expect. Numbers stay json.Number.
func Plain(v any) any {
	switch x := v.(type) {
	case *Object:
		m := make(map[string]any, x.Len())
		x.Range(func(k string, v any) bool { m[k] = Plain(v); return true })
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Plain(e)
		}
		return out
	}
	return v
}

// FromPlain converts a generic value (map[string]any, []any, float64,
// json.Number …) to the ordered form; map keys are sorted.
func FromPlain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := NewObject(len(keys))
		for _, k := range keys {
			o.Set(k, FromPlain(x[k]))
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = FromPlain(e)
		}
		return out
	case float64:
		return Float(x)
	case int:
		return Int(int64(x))
	case int64:
		return Int(x)
	}
	return v
}

// Equal is JSON equality: numbers compare by value (1 equals 1.0),
// objects ignore member order.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && CompareNumbers(x, y) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i, k := range x.keys {
			w, ok := y.Get(k)
			if !ok || !Equal(x.vals[i], w) {
				return false
			}
		}
		return true
	}
	return false
}

// CompareNumbers orders two JSON numbers by value.
func CompareNumbers(a, b json.Number) int {
	if a == b {
		return 0
	}
	if x, err := strconv.ParseInt(string(a), 10, 64); err == nil {
		if y, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	x, okx := Rat(a)
	y, oky := Rat(b)
	if okx && oky {
		return x.Cmp(y)
	}
	fx, _ := strconv.ParseFloat(string(a), 64)
	fy, _ := strconv.ParseFloat(string(b), 64)
	switch {
	case fx < fy:
		return -1
	case fx > fy:
		return 1
	}
	return 0
}

// Rat returns the exact value of a JSON number.
func Rat(n json.Number) (*big.Rat, bool) {
	return new(big.Rat).SetString(string(n))
}

// IsInteger reports whether a JSON number has no fractional part
// (1.0 and 1e2 are integers, as Draft 2020-12 counts them).
func IsInteger(n json.Number) bool {
	s := string(n)
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '.' || c == 'e' || c == 'E' {
			plain = false
			break
		}
	}
	if plain {
		return true
	}
	if r, ok := Rat(n); ok {
		return r.IsInt()
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f == math.Trunc(f)
}
