// Package types is Harn's static type representation (docs/spec/language.md §2.4,
// §10.6): the values the checker reasons about and that the exports
// surface translates to JSON Schema.
//
// Model. A Type is one of a small set of immutable structs:
//
//   - *Basic: the named base types int, float, string, bool, nil, bytes,
//     duration, range and closure (any callable), plus the three special
//     types any (unchecked both ways), unknown (any value, to be narrowed
//     before use) and never (the bottom type, no values).
//   - *Literal: a string or int literal type ("pass", 0, -1).
//   - *List, *Dict, *Set, *Iter (iter, Generator, Stream) and *Result: the
//     built-in generic containers. `list` written without arguments is
//     list<any>, `dict` is dict<string, any>.
//   - *Shape: a dict with known fields in declaration order, each
//     optionally marked optional; shapes are open (extra fields allowed).
//   - *Union and *Intersection, kept flattened; T? is T | nil.
//   - *Func: a callable's signature (parameters with names, defaults and
//     rest markers when known, result and throws types).
//   - *Named: a reference to a struct, enum, interface or type alias
//     declaration (a *Decl) with type arguments.
//   - *TypeParam: a generic parameter of the declaration or function that
//     is being described; Subst replaces it.
//   - *Handle: a Harness capability handle (Harness, HarnessStdio, …).
//   - *Unresolved: a name no declaration matched (for example a type
//     exported by a module the checker cannot see). It behaves like any.
//
// Declarations live in an Env, built from one or more files' struct, enum,
// type and interface declarations; each Decl records the file it came from
// so that same-named declarations of different modules stay distinct.
//
// The relation between types is AssignableTo, a gradual-typing check: any,
// unknown, unresolved names and type parameters are compatible with
// everything, int flows into float, and a base type is compatible with a
// literal type of the same base (values are not tracked). This package
// knows nothing about the checker; the checker decides which mismatches are
// errors.
package types

import (
	"strconv"
	"strings"

	"github.com/harnlang/harn/lang/syntax"
)

// Type is a static type.
type Type interface {
	// String prints the type the way Harn source writes it: `list<int>`,
	// `int?`, `"a" | "b"`, `{name: string, age?: int}`, `fn(int) -> bool`.
	String() string
	isType()
}

// BasicKind enumerates the basic types.
type BasicKind uint8

const (
	KAny BasicKind = iota
	KUnknown
	KNever
	KNil
	KInt
	KFloat
	KString
	KBool
	KBytes
	KDuration
	KRange
	KClosure
	KDecimal
)

var basicNames = [...]string{"any", "unknown", "never", "nil", "int", "float", "string", "bool", "bytes", "duration", "range", "closure", "decimal"}

// Basic is a base type without structure.
type Basic struct{ Kind BasicKind }

// The basic types. Compare with == or IsBasic.
var (
	Any      = &Basic{KAny}
	Unknown  = &Basic{KUnknown}
	Never    = &Basic{KNever}
	Nil      = &Basic{KNil}
	Int      = &Basic{KInt}
	Float    = &Basic{KFloat}
	String   = &Basic{KString}
	Bool     = &Basic{KBool}
	Bytes    = &Basic{KBytes}
	Duration = &Basic{KDuration}
	Range    = &Basic{KRange}
	Closure  = &Basic{KClosure}
	Decimal  = &Basic{KDecimal} // docs/spec/newer.md §2.4: its own kind, not a number
)

func (t *Basic) String() string { return basicNames[t.Kind] }

// Literal is a string (Go string) or int (int64) literal type.
type Literal struct{ Value any }

func (t *Literal) String() string {
	switch v := t.Value.(type) {
	case string:
		return strconv.Quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return "?"
}

// Base is the basic type of a literal's value (string or int).
func (t *Literal) Base() *Basic {
	if _, ok := t.Value.(string); ok {
		return String
	}
	return Int
}

// List is list<Elem> (also written [Elem]).
type List struct{ Elem Type }

func (t *List) String() string {
	if t.Elem == Any {
		return "list"
	}
	return "list<" + t.Elem.String() + ">"
}

// Tuple is tuple<A, B, …>: at run time a list, statically one of fixed
// length with a type per position (docs/spec/newer.md §2.3).
type Tuple struct{ Elems []Type }

func (t *Tuple) String() string { return "tuple" + argsString(t.Elems) }

// ElemUnion is the type a dynamic index of t reads (besides nil).
func (t *Tuple) ElemUnion() Type { return NewUnion(t.Elems...) }

// Dict is dict<Key, Value>; runtime keys are always strings.
type Dict struct{ Key, Value Type }

func (t *Dict) String() string {
	if t.Value == Any && (t.Key == String || t.Key == Any) {
		return "dict"
	}
	return "dict<" + t.Key.String() + ", " + t.Value.String() + ">"
}

// Set is set<Elem>.
type Set struct{ Elem Type }

func (t *Set) String() string {
	if t.Elem == Any {
		return "set"
	}
	return "set<" + t.Elem.String() + ">"
}

// IterKind tells the lazy sequence types apart.
type IterKind uint8

const (
	IterPlain     IterKind = iota // iter<T>
	IterGenerator                 // Generator<T>
	IterStream                    // Stream<T>
)

// Iter is iter<T>, Generator<T> or Stream<T>.
type Iter struct {
	Kind IterKind
	Elem Type
}

func (t *Iter) String() string {
	name := [...]string{"iter", "Generator", "Stream"}[t.Kind]
	return name + "<" + t.Elem.String() + ">"
}

// Result is Result<Ok, Err>.
type Result struct{ Ok, Err Type }

func (t *Result) String() string {
	return "Result<" + t.Ok.String() + ", " + t.Err.String() + ">"
}

// Field is a shape or struct field.
type Field struct {
	Name     string
	Type     Type // Any when unannotated
	Optional bool
	Doc      string
}

// Shape is a dict with known fields, in declaration order. Values may
// carry more fields (width subtyping) either way; Open marks a row tail
// (`{a: int, ...rest}`), which also lets the program read the others.
type Shape struct {
	Fields []Field
	Open   bool
	// Tail is the value type of the other fields of an open record
	// `{name: string, ...dict<string, int>}` (nil when any value goes).
	Tail Type
	// Row is the type parameter a row tail `...R` names: a call binds it
	// to the argument's other fields.
	Row *TypeParam
	// RowName is the name a row tail that is not a dict was written with
	// (`...rest`, `...R`), for printing.
	RowName string
}

func (t *Shape) String() string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, f := range t.Fields {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(f.Name)
		if f.Optional {
			sb.WriteByte('?')
		}
		sb.WriteString(": ")
		sb.WriteString(f.Type.String())
	}
	if t.Tail != nil {
		if len(t.Fields) > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("...dict<string, " + t.Tail.String() + ">")
	} else if t.RowName != "" {
		if len(t.Fields) > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("..." + t.RowName)
	}
	sb.WriteByte('}')
	return sb.String()
}

// Field returns the shape's field named name.
func (t *Shape) Field(name string) (Field, bool) {
	for _, f := range t.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Union is A | B | …: flattened, without duplicates, at least two members.
// Build unions with NewUnion.
type Union struct{ Types []Type }

func (t *Union) String() string {
	if len(t.Types) == 2 {
		for i, m := range t.Types {
			if m == Nil {
				return optionalString(t.Types[1-i])
			}
		}
	}
	// nil is written last (`int | string | nil`), as `T?` puts it after T
	parts := make([]string, 0, len(t.Types))
	hasNil := false
	for _, m := range t.Types {
		if m == Nil {
			hasNil = true
			continue
		}
		parts = append(parts, paren(m))
	}
	if hasNil {
		parts = append(parts, "nil")
	}
	return strings.Join(parts, " | ")
}

func optionalString(t Type) string {
	return paren(t) + "?"
}

func paren(t Type) string {
	switch t.(type) {
	case *Func, *Union, *Intersection:
		return "(" + t.String() + ")"
	}
	return t.String()
}

// Intersection is A & B & …: a value of every member type.
type Intersection struct{ Types []Type }

func (t *Intersection) String() string {
	parts := make([]string, len(t.Types))
	for i, m := range t.Types {
		parts[i] = paren(m)
	}
	return strings.Join(parts, " & ")
}

// Param is one parameter of a Func.
type Param struct {
	Name     string // "" in a written fn(A, B) -> R type
	Type     Type   // Any when unannotated
	Optional bool   // has a default value
	Rest     bool   // `...name`
}

// Func is a callable's type. A written `fn(A, B) -> R` has unnamed
// parameters; a declaration's signature names them.
type Func struct {
	TypeParams []*TypeParam
	Params     []Param
	Return     Type // Any when unannotated
	Throws     Type // nil when there is no throws clause
}

func (t *Func) String() string {
	var sb strings.Builder
	sb.WriteString("fn(")
	for i, p := range t.Params {
		if i > 0 {
			sb.WriteString(", ")
		}
		if p.Rest {
			sb.WriteString("...")
		}
		sb.WriteString(p.Type.String())
	}
	sb.WriteString(") -> ")
	sb.WriteString(t.Return.String())
	return sb.String()
}

// Arity returns how many arguments a call needs at least and may pass at
// most (max is -1 with a rest parameter).
func (t *Func) Arity() (min, max int) {
	for _, p := range t.Params {
		if p.Rest {
			return min, -1
		}
		if !p.Optional {
			min++
		}
		max++
	}
	return min, max
}

// Named refers to a declared struct, enum, interface or type alias.
type Named struct {
	Decl *Decl
	Args []Type
}

func (t *Named) String() string { return t.Decl.Name + argsString(t.Args) }

func argsString(args []Type) string {
	if len(args) == 0 {
		return ""
	}
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	return "<" + strings.Join(parts, ", ") + ">"
}

// TypeParam is a generic parameter (`T`, `in T`, `out T`) with the
// interface bounds of its `where` clause.
type TypeParam struct {
	Name     string
	Variance string // "", "in" or "out"
	Bounds   []string
	// Interfaces holds, for each of Bounds, the interface it names in
	// the declaring file (nil when it names none there): the bounds of
	// an imported function name its module's interfaces.
	Interfaces []*Decl
	// BoundArgs holds, for each of Bounds, the type arguments a generic
	// interface bound gives (`where C: Container<T>`: [T]), nil for a
	// bare name; nil when no bound has any.
	BoundArgs [][]Type

	boundSyntax [][]syntax.TypeExpr // BoundArgs as written, until resolved
}

// BoundText is the i-th bound as written: `Container<T>` for a generic
// interface with type arguments, else its name.
func (t *TypeParam) BoundText(i int) string {
	if i >= len(t.BoundArgs) || t.BoundArgs[i] == nil {
		return t.Bounds[i]
	}
	args := make([]string, len(t.BoundArgs[i]))
	for j, a := range t.BoundArgs[i] {
		args[j] = a.String()
	}
	return t.Bounds[i] + "<" + strings.Join(args, ", ") + ">"
}

func (t *TypeParam) String() string { return t.Name }

// Handle is a Harness capability handle type: `Harness` (the root) or
// `Harness` + capability name in CamelCase (`HarnessFs`).
type Handle struct{ Name string }

func (t *Handle) String() string { return t.Name }

// IsRoot reports whether this is the root `Harness` handle.
func (t *Handle) IsRoot() bool { return t.Name == "Harness" }

// Unresolved is a type name that matched no declaration. It is treated
// like any.
type Unresolved struct {
	Name string
	Args []Type
}

func (t *Unresolved) String() string { return t.Name + argsString(t.Args) }

func (*Basic) isType()        {}
func (*Literal) isType()      {}
func (*List) isType()         {}
func (*Tuple) isType()        {}
func (*Dict) isType()         {}
func (*Set) isType()          {}
func (*Iter) isType()         {}
func (*Result) isType()       {}
func (*Shape) isType()        {}
func (*Union) isType()        {}
func (*Intersection) isType() {}
func (*Func) isType()         {}
func (*Named) isType()        {}
func (*TypeParam) isType()    {}
func (*Handle) isType()       {}
func (*Unresolved) isType()   {}

// ---- constructors and helpers ----

// NewUnion builds the union of ts: nested unions are flattened, duplicates
// and never removed; a union containing any is any. It returns never for no
// members and the member itself for one.
func NewUnion(ts ...Type) Type {
	var out []Type
	var add func(t Type)
	add = func(t Type) {
		switch t := t.(type) {
		case nil:
			return
		case *Union:
			for _, m := range t.Types {
				add(m)
			}
			return
		}
		if t == Never {
			return
		}
		for _, o := range out {
			if Identical(o, t) {
				return
			}
		}
		out = append(out, t)
	}
	for _, t := range ts {
		add(t)
	}
	for _, t := range out {
		if t == Any {
			return Any
		}
	}
	switch len(out) {
	case 0:
		return Never
	case 1:
		return out[0]
	}
	return &Union{Types: out}
}

// Optional is T? (T | nil).
func Optional(t Type) Type { return NewUnion(t, Nil) }

// NewIntersection builds A & B & …, flattening nested intersections.
func NewIntersection(ts ...Type) Type {
	var out []Type
	for _, t := range ts {
		if in, ok := t.(*Intersection); ok {
			out = append(out, in.Types...)
		} else {
			out = append(out, t)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return &Intersection{Types: out}
}

// Members returns a union's members, or t itself as a single member.
func Members(t Type) []Type {
	if u, ok := t.(*Union); ok {
		return u.Types
	}
	return []Type{t}
}

// RemoveNil returns t without its nil member (never when t is nil). An
// alias is seen through when its body can be nil (`type M = User?`
// narrows to User); otherwise it is kept, name and all.
func RemoveNil(t Type) Type {
	if n, ok := t.(*Named); ok && n.Decl.Kind == AliasDecl {
		if under := Underlying(t); under == Nil || hasNilMember(under) {
			return RemoveNil(under)
		}
		return t
	}
	u, ok := t.(*Union)
	if !ok {
		if t == Nil {
			return Never
		}
		return t
	}
	var keep []Type
	for _, m := range u.Types {
		if m != Nil {
			keep = append(keep, RemoveNil(m)) // a member may be a nilable alias
		}
	}
	return NewUnion(keep...)
}

// hasNilMember reports whether t is a union with a nil member.
func hasNilMember(t Type) bool {
	for _, m := range Members(t) {
		if m == Nil {
			return true
		}
	}
	return false
}

// IsDynamic reports whether t is checked at no point: any, unknown, an
// unresolved name or a type parameter.
func IsDynamic(t Type) bool {
	switch t := t.(type) {
	case *Basic:
		return t.Kind == KAny || t.Kind == KUnknown
	case *Unresolved, *TypeParam:
		return true
	case *Named:
		if t.Decl.Kind == AliasDecl {
			return IsDynamic(Underlying(t))
		}
	}
	return false
}

// ContainsDynamic reports whether t or one of its union/intersection
// members is dynamic.
func ContainsDynamic(t Type) bool {
	t = Underlying(t)
	switch t := t.(type) {
	case *Union:
		for _, m := range t.Types {
			if ContainsDynamic(m) {
				return true
			}
		}
		return false
	case *Intersection:
		for _, m := range t.Types {
			if ContainsDynamic(m) {
				return true
			}
		}
		return false
	}
	return IsDynamic(t)
}

// Widen replaces literal types by their base types (also inside unions,
// shape fields and list elements).
func Widen(t Type) Type {
	switch t := t.(type) {
	case *Literal:
		return t.Base()
	case *Union:
		ms := make([]Type, len(t.Types))
		for i, m := range t.Types {
			ms[i] = Widen(m)
		}
		return NewUnion(ms...)
	case *Shape:
		s := &Shape{Fields: make([]Field, len(t.Fields)), Open: t.Open, Tail: t.Tail, Row: t.Row, RowName: t.RowName}
		for i, f := range t.Fields {
			f.Type = Widen(f.Type)
			s.Fields[i] = f
		}
		return s
	case *List:
		return &List{Elem: Widen(t.Elem)}
	case *Tuple:
		elems := make([]Type, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = Widen(e)
		}
		return &Tuple{Elems: elems}
	}
	return t
}

// KindName is the name `type_of` gives a value of type t: "int", "list",
// "dict" (shapes too), "struct", "enum", "closure", "Harness…"; "" when t
// does not determine it (any, unions of different kinds, …).
func KindName(t Type) string {
	switch t := Underlying(t).(type) {
	case *Basic:
		switch t.Kind {
		case KAny, KUnknown, KNever:
			return ""
		}
		return t.String()
	case *Literal:
		return t.Base().String()
	case *List, *Tuple:
		return "list"
	case *Dict, *Shape:
		return "dict"
	case *Set:
		return "set"
	case *Iter:
		return [...]string{"iter", "generator", "stream"}[t.Kind]
	case *Result:
		return "enum"
	case *Func:
		return "closure"
	case *Handle:
		return t.Name
	case *Named:
		switch t.Decl.Kind {
		case StructDecl:
			return "struct"
		case EnumDecl:
			return "enum"
		}
	case *Union:
		k := ""
		for _, m := range t.Types {
			mk := KindName(m)
			if mk == "" || (k != "" && mk != k) {
				return ""
			}
			k = mk
		}
		return k
	}
	return ""
}

// Identical reports whether a and b are the same type.
func Identical(a, b Type) bool {
	if a == b {
		return true
	}
	switch a := a.(type) {
	case *Basic:
		b, ok := b.(*Basic)
		return ok && a.Kind == b.Kind
	case *Literal:
		b, ok := b.(*Literal)
		return ok && a.Value == b.Value
	case *List:
		b, ok := b.(*List)
		return ok && Identical(a.Elem, b.Elem)
	case *Dict:
		b, ok := b.(*Dict)
		return ok && Identical(a.Key, b.Key) && Identical(a.Value, b.Value)
	case *Set:
		b, ok := b.(*Set)
		return ok && Identical(a.Elem, b.Elem)
	case *Iter:
		b, ok := b.(*Iter)
		return ok && a.Kind == b.Kind && Identical(a.Elem, b.Elem)
	case *Result:
		b, ok := b.(*Result)
		return ok && Identical(a.Ok, b.Ok) && Identical(a.Err, b.Err)
	case *Shape:
		b, ok := b.(*Shape)
		if !ok || len(a.Fields) != len(b.Fields) {
			return false
		}
		for i, f := range a.Fields {
			g := b.Fields[i]
			if f.Name != g.Name || f.Optional != g.Optional || !Identical(f.Type, g.Type) {
				return false
			}
		}
		return true
	case *Union:
		b, ok := b.(*Union)
		return ok && sameMembers(a.Types, b.Types)
	case *Intersection:
		b, ok := b.(*Intersection)
		return ok && sameMembers(a.Types, b.Types)
	case *Func:
		b, ok := b.(*Func)
		if !ok || len(a.Params) != len(b.Params) || !Identical(a.Return, b.Return) {
			return false
		}
		for i, p := range a.Params {
			if p.Rest != b.Params[i].Rest || !Identical(p.Type, b.Params[i].Type) {
				return false
			}
		}
		return true
	case *Tuple:
		b, ok := b.(*Tuple)
		return ok && identicalList(a.Elems, b.Elems)
	case *Named:
		b, ok := b.(*Named)
		return ok && a.Decl == b.Decl && identicalList(a.Args, b.Args)
	case *Handle:
		b, ok := b.(*Handle)
		return ok && a.Name == b.Name
	case *Unresolved:
		b, ok := b.(*Unresolved)
		return ok && a.Name == b.Name && identicalList(a.Args, b.Args)
	}
	return false
}

func identicalList(a, b []Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Identical(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameMembers(a, b []Type) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if Identical(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Subst replaces type parameters by the types m maps them to.
func Subst(t Type, m map[*TypeParam]Type) Type {
	if len(m) == 0 || t == nil {
		return t
	}
	switch t := t.(type) {
	case *TypeParam:
		if r, ok := m[t]; ok {
			return r
		}
		return t
	case *List:
		return &List{Elem: Subst(t.Elem, m)}
	case *Tuple:
		return &Tuple{Elems: substList(t.Elems, m)}
	case *Dict:
		return &Dict{Key: Subst(t.Key, m), Value: Subst(t.Value, m)}
	case *Set:
		return &Set{Elem: Subst(t.Elem, m)}
	case *Iter:
		return &Iter{Kind: t.Kind, Elem: Subst(t.Elem, m)}
	case *Result:
		return &Result{Ok: Subst(t.Ok, m), Err: Subst(t.Err, m)}
	case *Shape:
		fs := make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = Subst(f.Type, m)
			fs[i] = f
		}
		sh := &Shape{Fields: fs, Open: t.Open, Row: t.Row, RowName: t.RowName}
		if t.Tail != nil {
			sh.Tail = Subst(t.Tail, m)
		}
		if rest, ok := m[t.Row].(*Shape); ok && t.Row != nil {
			// the row's fields join the listed ones: the caller's record
			for _, f := range rest.Fields {
				if _, listed := sh.Field(f.Name); !listed {
					sh.Fields = append(sh.Fields, f)
				}
			}
			sh.Open, sh.Row, sh.RowName = rest.Open, nil, rest.RowName
		}
		return sh
	case *Union:
		ms := make([]Type, len(t.Types))
		for i, x := range t.Types {
			ms[i] = Subst(x, m)
		}
		return NewUnion(ms...)
	case *Intersection:
		ms := make([]Type, len(t.Types))
		for i, x := range t.Types {
			ms[i] = Subst(x, m)
		}
		return NewIntersection(ms...)
	case *Func:
		ps := make([]Param, len(t.Params))
		for i, p := range t.Params {
			p.Type = Subst(p.Type, m)
			ps[i] = p
		}
		f := &Func{TypeParams: t.TypeParams, Params: ps, Return: Subst(t.Return, m)}
		if t.Throws != nil {
			f.Throws = Subst(t.Throws, m)
		}
		return f
	case *Named:
		if len(t.Args) == 0 {
			return t
		}
		return &Named{Decl: t.Decl, Args: substList(t.Args, m)}
	case *Unresolved:
		if len(t.Args) == 0 {
			return t
		}
		return &Unresolved{Name: t.Name, Args: substList(t.Args, m)}
	}
	return t
}

func substList(ts []Type, m map[*TypeParam]Type) []Type {
	out := make([]Type, len(ts))
	for i, t := range ts {
		out[i] = Subst(t, m)
	}
	return out
}
