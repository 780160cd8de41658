// Package typeschema maps static types (lang/types) to schema documents.
// It is the one translation behind both places Harn turns a type into a
// schema, which differ only in the dialect they write:
//
//   - Harn: the schema dicts of Harn's own validator
//     (docs/spec/builtins.md §4.7), which a type alias used as a schema
//     value compiles to (docs/spec/language.md §10.6). Shapes are open (extra
//     fields allowed, as the type says), run-time kinds keep their Harn
//     names (set, bytes, closure, duration), and types the validator cannot
//     check (enums, interfaces, Result, iterators, handles) accept anything.
//   - JSON: portable Draft 2020-12 JSON Schema, for the tool catalogs of
//     the exports surface (docs/exports.md). Shapes and structs are closed,
//     bytes and enum values take their portable forms (docs/spec/registry.md
//     §6), and a type no JSON value can carry is an error.
//
// Both expand aliases and generic instantiations in place (with their type
// arguments substituted); an expansion that reaches itself is recursive:
// it becomes a named definition and every occurrence a $ref to it
// (`#/$defs/Name` in Harn, `#/components/schemas/Name` in JSON). In JSON
// every non-generic struct and enum is such a definition too, a component
// of the catalog. Definition names follow reach order: Name, Name_2, ….
//
// A standalone JSON builder (NewStandalone, for `tool` declarations)
// writes documents with no definitions at all: every struct and enum is
// written in place, a declaration or expansion met again inside itself
// is any value ({}), and a type with no JSON form is any value too.
//
// Documents are ordered JSON values of internal/jsonv: *jsonv.Object,
// []any, string, bool and integers as json.Number. Every builder call
// makes fresh objects, so no document shares a node with another and a
// caller may add keywords to a schema it was given.
package typeschema

import (
	"fmt"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/lang/types"
)

// Dialect is the schema language a Builder writes.
type Dialect uint8

const (
	Harn Dialect = iota // Harn's validator dicts (schema_is, schema_check, …)
	JSON                // portable JSON Schema (tool catalogs)
)

// Builder translates types for one document set: the definitions it
// collects are shared by every schema it returns (the components of one
// catalog, or the $defs of one schema dict).
type Builder struct {
	dialect Dialect
	// standalone: no definitions (see NewStandalone).
	standalone bool
	defs       *jsonv.Object
	taken      map[string]bool
	byDecl     map[*types.Decl]string
	// expanding lists the aliases and generic instantiations being
	// expanded inline (innermost last); recursive lists those that turned
	// out recursive and now live in the definitions.
	expanding []*expansion
	recursive []*expansion
}

type expansion struct {
	t    types.Type
	name string // definition name, once the expansion reached itself
}

// New returns a builder writing dialect d.
func New(d Dialect) *Builder {
	return &Builder{dialect: d, defs: jsonv.NewObject(0), taken: map[string]bool{}, byDecl: map[*types.Decl]string{}}
}

// NewStandalone returns a JSON builder whose documents stand alone, for
// the schemas of a `tool` declaration (docs/tools.md "Tool
// declarations"): a tool value travels on its own into any registry, so
// its schemas cannot refer to catalog components. Structs and enums are
// expanded in place like aliases; a struct, enum or alias met again
// inside its own expansion is any value ({}); and a type with no JSON
// form (a closure, a handle, an interface) is any value, leaving the
// handler's own run-time parameter check to judge it.
func NewStandalone() *Builder {
	b := New(JSON)
	b.standalone = true
	return b
}

// Defs returns the definitions reached so far, in reach order.
func (b *Builder) Defs() *jsonv.Object { return b.defs }

// HarnSchema is the schema dict of t on its own: the Harn-dialect schema,
// carrying the definitions it refers to under "$defs".
func HarnSchema(t types.Type) (any, error) {
	b := New(Harn)
	s, err := b.Schema(t)
	if err != nil {
		return nil, err
	}
	if o, ok := s.(*jsonv.Object); ok && b.defs.Len() > 0 {
		o.Set("$defs", b.defs)
	}
	return s, nil
}

// Error is a type with no schema form. Within lists where it was found,
// outermost first: `struct Job`, `field "run"`.
type Error struct {
	Reason string
	Within []string
}

func (e *Error) Error() string {
	if len(e.Within) == 0 {
		return e.Reason
	}
	return e.Reason + " (in " + strings.Join(e.Within, ", ") + ")"
}

func (e *Error) in(where string) *Error {
	e.Within = append([]string{where}, e.Within...)
	return e
}

// Schema returns the schema of t: an *jsonv.Object, or in JSON the boolean
// schema false for never. The error, when not nil, is an *Error.
func (b *Builder) Schema(t types.Type) (any, error) {
	s, err := b.schema(t)
	if err != nil {
		return nil, err
	}
	return s, nil // not `return b.schema(t)`: a nil *Error would make a non-nil error
}

// ---- small schema constructors ----

func typed(name string) *jsonv.Object { return jsonv.Obj("type", name) }

func (b *Builder) ref(name string) *jsonv.Object { return jsonv.Obj("$ref", b.pointer(name)) }

// pointer is the JSON pointer to the definition named name.
func (b *Builder) pointer(name string) string {
	if b.dialect == JSON {
		return "#/components/schemas/" + jsonv.EscapePointer(name)
	}
	return "#/$defs/" + jsonv.EscapePointer(name)
}

// object is the schema of a shape or struct body: the fields in
// declaration order, the non-optional ones required; in JSON no other
// property is allowed.
func (b *Builder) object(props *jsonv.Object, required []string) *jsonv.Object {
	o := jsonv.Obj("type", "object", "properties", props)
	if len(required) > 0 {
		o.Set("required", jsonv.Strings(required))
	}
	if b.dialect == JSON {
		o.Set("additionalProperties", false)
	}
	return o
}

// runtimeOnly is the schema of a kind of value JSON cannot carry: harn in
// the Harn dialect, an error in JSON.
func (b *Builder) runtimeOnly(name string, harn *jsonv.Object) (any, *Error) {
	if b.dialect == Harn {
		return harn, nil
	}
	return nil, &Error{Reason: fmt.Sprintf("runtime-only Harn type %q", name)}
}

// ---- the translation ----

func (b *Builder) schema(t types.Type) (any, *Error) {
	s, err := b.translate(t)
	if err != nil && b.standalone {
		return jsonv.Obj(), nil
	}
	return s, err
}

func (b *Builder) translate(t types.Type) (any, *Error) {
	switch t := t.(type) {
	case nil:
		return jsonv.Obj(), nil
	case *types.Basic:
		return b.basic(t)
	case *types.Literal:
		return b.literals([]*types.Literal{t}), nil
	case *types.List:
		items, err := b.schema(t.Elem)
		if err != nil {
			return nil, err
		}
		return jsonv.Obj("type", "array", "items", items), nil
	case *types.Tuple:
		// a tuple is a list at run time (docs/spec/newer.md §2.3) of
		// exactly its element types, position by position (the Harn
		// dialect reads prefixItems too)
		items := make([]any, len(t.Elems))
		for i, e := range t.Elems {
			s, err := b.schema(e)
			if err != nil {
				return nil, err.in(fmt.Sprintf("tuple element %d", i))
			}
			items[i] = s
		}
		o := jsonv.Obj("type", "array")
		if len(items) > 0 {
			o.Set("prefixItems", items)
		}
		o.Set("items", false)
		o.Set("minItems", jsonv.Int(int64(len(items))))
		o.Set("maxItems", jsonv.Int(int64(len(items))))
		return o, nil
	case *types.Set:
		if b.dialect == Harn {
			return typed("set"), nil
		}
		items, err := b.schema(t.Elem)
		if err != nil {
			return nil, err
		}
		return jsonv.Obj("type", "array", "items", items, "uniqueItems", true), nil
	case *types.Dict:
		return b.dict(t)
	case *types.Shape:
		return b.fields(t.Fields, true)
	case *types.Result:
		if b.dialect == Harn {
			return jsonv.Obj(), nil
		}
		return b.tagged("Result", []types.Variant{
			{Name: "Ok", Fields: []types.Field{{Type: t.Ok}}},
			{Name: "Err", Fields: []types.Field{{Type: t.Err}}},
		}, false)
	case *types.Union:
		return b.union(t)
	case *types.Intersection:
		return b.intersection(t)
	case *types.Named:
		return b.named(t)
	case *types.TypeParam:
		// A generic function's own parameter: nothing to instantiate it
		// with, so it accepts any value (as the checker treats it).
		return jsonv.Obj(), nil
	case *types.Func:
		return b.runtimeOnly("closure", typed("closure"))
	case *types.Handle:
		return b.runtimeOnly(t.Name, jsonv.Obj())
	case *types.Iter:
		return b.runtimeOnly([...]string{"iter", "Generator", "Stream"}[t.Kind], jsonv.Obj())
	case *types.Unresolved:
		if b.dialect == Harn {
			return jsonv.Obj(), nil
		}
		return nil, &Error{Reason: fmt.Sprintf("unknown type %q", t.Name)}
	}
	return nil, &Error{Reason: fmt.Sprintf("type %s has no JSON Schema form", t)}
}

func (b *Builder) basic(t *types.Basic) (any, *Error) {
	switch t.Kind {
	case types.KAny, types.KUnknown:
		return jsonv.Obj(), nil
	case types.KNever:
		if b.dialect == Harn {
			// schema_of passes only dicts through, and the validator has
			// no dict that rejects every value.
			return jsonv.Obj(), nil
		}
		return false, nil
	case types.KNil:
		return typed("null"), nil
	case types.KInt:
		return typed("integer"), nil
	case types.KFloat:
		return typed("number"), nil
	case types.KString:
		return typed("string"), nil
	case types.KBool:
		return typed("boolean"), nil
	case types.KBytes:
		if b.dialect == Harn {
			return typed("bytes"), nil
		}
		return b.object(jsonv.Obj("$bytes_b64", jsonv.Obj("type", "string", "contentEncoding", "base64")), []string{"$bytes_b64"}), nil
	case types.KRange:
		return b.runtimeOnly(t.String(), jsonv.Obj())
	}
	return b.runtimeOnly(t.String(), typed(t.String())) // duration, closure
}

// literals is the schema of literal types: in JSON all of one base (string
// or int), as an enum of that type; in Harn one literal is a const and
// more are an enum.
func (b *Builder) literals(lits []*types.Literal) *jsonv.Object {
	vals := make([]any, len(lits))
	base := "string"
	for i, l := range lits {
		vals[i] = l.Value
		if n, ok := l.Value.(int64); ok {
			vals[i] = jsonv.Int(n)
			base = "integer"
		}
	}
	if b.dialect == Harn {
		if len(vals) == 1 {
			return jsonv.Obj("const", vals[0])
		}
		return jsonv.Obj("enum", vals)
	}
	return jsonv.Obj("type", base, "enum", vals)
}

func (b *Builder) dict(t *types.Dict) (any, *Error) {
	o := typed("object")
	if b.dialect == JSON {
		// Harn's validator checks values only: run-time keys are strings.
		switch k := types.Underlying(t.Key).(type) {
		case *types.Basic:
			if k.Kind != types.KString && k.Kind != types.KAny && k.Kind != types.KUnknown {
				return nil, &Error{Reason: fmt.Sprintf("dict key type %s has no JSON Schema form (JSON object keys are strings)", t.Key)}
			}
		default:
			if !stringLiterals(k) {
				return nil, &Error{Reason: fmt.Sprintf("dict key type %s has no JSON Schema form (JSON object keys are strings)", t.Key)}
			}
			names, err := b.schema(k)
			if err != nil {
				return nil, err
			}
			o.Set("propertyNames", names)
		}
	}
	v, err := b.schema(t.Value)
	if err != nil {
		return nil, err
	}
	o.Set("additionalProperties", v)
	return o, nil
}

// stringLiterals reports whether t is a string literal type or a union
// of them.
func stringLiterals(t types.Type) bool {
	for _, m := range types.Members(t) {
		l, ok := types.Underlying(m).(*types.Literal)
		if !ok {
			return false
		}
		if _, ok := l.Value.(string); !ok {
			return false
		}
	}
	return true
}

// fields is the object of a shape or struct body. In JSON an optional
// field accepts null too (it stays unset when hydrated); Harn's validator
// only checks the fields present.
//
// A shape is closed in JSON too, except in a standalone document, where
// it stays open as the shape type is (a `tool` declaration's body accepts
// the extra keys its parameter check lets through); a struct is always
// closed, as its instances keep only their declared fields.
func (b *Builder) fields(fs []types.Field, shape bool) (any, *Error) {
	props := jsonv.NewObject(0)
	var required []string
	for _, f := range fs {
		t := f.Type
		if !f.Optional {
			required = append(required, f.Name)
		} else if b.dialect == JSON {
			t = types.Optional(t)
		}
		s, err := b.schema(t)
		if err != nil {
			return nil, err.in(fmt.Sprintf("field %q", f.Name))
		}
		props.Set(f.Name, s)
	}
	if shape && b.standalone {
		o := jsonv.Obj("type", "object", "properties", props)
		if len(required) > 0 {
			o.Set("required", jsonv.Strings(required))
		}
		return o, nil
	}
	return b.object(props, required), nil
}

// tagged is the body of an enum (or Result): one tagged object per
// variant, {"enum", "variant", "fields"}, the portable form of an enum
// value (docs/spec/registry.md §6). Named payload fields carry their name as title.
func (b *Builder) tagged(enum string, variants []types.Variant, titles bool) (any, *Error) {
	branches := make([]any, len(variants))
	for i, v := range variants {
		fields := jsonv.Obj("type", "array")
		if len(v.Fields) > 0 {
			items := make([]any, len(v.Fields))
			for j, f := range v.Fields {
				s, err := b.schema(f.Type)
				if err != nil {
					return nil, err.in(fmt.Sprintf("variant %s.%s", enum, v.Name))
				}
				if titles && f.Name != "" {
					s = WithKey(s, "title", f.Name)
				}
				items[j] = s
			}
			fields.Set("prefixItems", items)
		}
		fields.Set("items", false)
		fields.Set("minItems", jsonv.Int(int64(len(v.Fields))))
		fields.Set("maxItems", jsonv.Int(int64(len(v.Fields))))
		props := jsonv.Obj("enum", jsonv.Obj("const", enum), "variant", jsonv.Obj("const", v.Name), "fields", fields)
		branches[i] = b.object(props, []string{"enum", "variant", "fields"})
	}
	return jsonv.Obj("oneOf", branches), nil
}

// WithKey adds an annotation keyword to a schema (in place when it is an
// object); the boolean schema false becomes the equivalent {"not": {}}
// so it can carry one.
func WithKey(s any, k string, v any) any {
	switch x := s.(type) {
	case *jsonv.Object:
		x.Set(k, v)
		return x
	case bool:
		if x {
			return jsonv.Obj(k, v)
		}
		return jsonv.Obj("not", jsonv.Obj(), k, v)
	}
	return s
}

// union is anyOf its members; literal members collapse into one enum
// (in JSON one per base, string and int) at the place of the first of
// them. A union with a dynamic member (unknown, a type parameter) accepts
// anything: {}.
func (b *Builder) union(u *types.Union) (any, *Error) {
	for _, m := range u.Types {
		switch t := types.Underlying(m).(type) {
		case *types.TypeParam:
			return jsonv.Obj(), nil
		case *types.Basic:
			if t.Kind == types.KUnknown || t.Kind == types.KAny {
				return jsonv.Obj(), nil
			}
		}
	}
	var parts []any
	lits := map[string][]*types.Literal{} // by base, "" in Harn
	at := map[string]int{}
	for _, m := range u.Types {
		if l, ok := m.(*types.Literal); ok {
			base := ""
			if b.dialect == JSON {
				base = l.Base().String()
			}
			if _, ok := at[base]; !ok {
				at[base] = len(parts)
				parts = append(parts, nil)
			}
			lits[base] = append(lits[base], l)
			continue
		}
		s, err := b.schema(m)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	for base, i := range at {
		parts[i] = b.literals(lits[base])
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	if b.standalone {
		for _, p := range parts {
			if o, ok := p.(*jsonv.Object); ok && o.Len() == 0 {
				return jsonv.Obj(), nil // a member admits any value
			}
		}
	}
	if n, ok := b.nullable(parts); ok {
		return n, nil
	}
	return jsonv.Obj("anyOf", parts), nil
}

// nullable is the compact form of `T?` in a standalone document: when
// T's schema names one `type`, null joins it there (and its `enum`), so
// `string?` is {"type": ["string", "null"]} and a wrong value reports
// what T requires rather than a bare anyOf failure.
func (b *Builder) nullable(parts []any) (any, bool) {
	if !b.standalone || len(parts) != 2 {
		return nil, false
	}
	isNull := func(x any) bool {
		o, ok := x.(*jsonv.Object)
		if !ok || o.Len() != 1 {
			return false
		}
		t, _ := o.Get("type")
		return t == any("null")
	}
	other := parts[0]
	if !isNull(parts[1]) {
		if !isNull(parts[0]) {
			return nil, false
		}
		other = parts[1]
	}
	o, ok := other.(*jsonv.Object)
	if !ok {
		return nil, false
	}
	name, ok := o.Get("type")
	if _, isString := name.(string); !ok || !isString {
		return nil, false
	}
	o.Set("type", []any{name, "null"})
	if e, ok := o.Get("enum"); ok {
		if vals, ok := e.([]any); ok {
			o.Set("enum", append(vals, nil))
		}
	}
	return o, true
}

// intersection is allOf its members; in JSON, shapes and structs merge
// into one closed object (the fields of every member) instead.
func (b *Builder) intersection(t *types.Intersection) (any, *Error) {
	if b.dialect == JSON {
		if fs, ok := MergedFields(t); ok {
			return b.fields(fs, true)
		}
	}
	parts := make([]any, len(t.Types))
	for i, m := range t.Types {
		s, err := b.schema(m)
		if err != nil {
			return nil, err
		}
		parts[i] = s
	}
	return jsonv.Obj("allOf", parts), nil
}

// MergedFields returns the fields of an intersection whose members are
// all shapes or structs; a field named twice keeps its first declaration
// and becomes the intersection of both types.
func MergedFields(t *types.Intersection) ([]types.Field, bool) {
	var out []types.Field
	at := map[string]int{}
	for _, m := range t.Types {
		var fs []types.Field
		switch u := types.Underlying(m).(type) {
		case *types.Shape:
			fs = u.Fields
		case *types.Named:
			if u.Decl.Kind != types.StructDecl {
				return nil, false
			}
			fs = types.StructFields(u)
		default:
			return nil, false
		}
		for _, f := range fs {
			if i, ok := at[f.Name]; ok {
				prev := out[i]
				if !types.Identical(prev.Type, f.Type) {
					prev.Type = types.NewIntersection(prev.Type, f.Type)
				}
				prev.Optional = prev.Optional && f.Optional
				out[i] = prev
				continue
			}
			at[f.Name] = len(out)
			out = append(out, f)
		}
	}
	return out, true
}

func (b *Builder) named(t *types.Named) (any, *Error) {
	d := t.Decl
	switch d.Kind {
	case types.InterfaceDecl:
		if b.dialect == Harn {
			return jsonv.Obj(), nil
		}
		return nil, &Error{Reason: fmt.Sprintf("interface type %q has no JSON Schema form (its values are struct instances of any type)", d.Name)}
	case types.EnumDecl:
		if b.dialect == Harn {
			return jsonv.Obj(), nil // enum values are not dicts
		}
		fallthrough
	case types.StructDecl:
		if b.dialect == JSON && len(d.TypeParams) == 0 && !b.standalone {
			name, err := b.component(d)
			if err != nil {
				return nil, err
			}
			return b.ref(name), nil
		}
	}
	return b.inline(t)
}

// component returns the definition name of a non-generic struct or enum,
// building its body on first reach.
func (b *Builder) component(d *types.Decl) (string, *Error) {
	if name, ok := b.byDecl[d]; ok {
		return name, nil
	}
	name := b.reserve(d.Name)
	b.byDecl[d] = name
	body, err := b.body(d, nil)
	if err != nil {
		return "", err // the document is not published
	}
	b.defs.Set(name, body)
	return name, nil
}

// body is the schema of a struct or enum declaration instantiated with
// args.
func (b *Builder) body(d *types.Decl, args []types.Type) (any, *Error) {
	m := d.Instance(args)
	var s any
	var err *Error
	if d.Kind == types.StructDecl {
		fs := d.Fields
		if m != nil {
			fs = make([]types.Field, len(d.Fields))
			for i, f := range d.Fields {
				f.Type = types.Subst(f.Type, m)
				fs[i] = f
			}
		}
		s, err = b.fields(fs, false)
	} else {
		vs := d.Variants
		if m != nil {
			vs = make([]types.Variant, len(d.Variants))
			for i, v := range d.Variants {
				fs := make([]types.Field, len(v.Fields))
				for j, f := range v.Fields {
					f.Type = types.Subst(f.Type, m)
					fs[j] = f
				}
				vs[i] = types.Variant{Name: v.Name, Fields: fs}
			}
		}
		s, err = b.tagged(d.Name, vs, true)
	}
	if err != nil {
		return nil, err.in(fmt.Sprintf("%s %s", d.Kind, d.Name))
	}
	return s, nil
}

// inline expands an alias or a struct (in JSON only a generic one) in
// place. When the expansion reaches the same type again it is recursive:
// the outer expansion then becomes a definition and every occurrence a
// $ref to it.
func (b *Builder) inline(t *types.Named) (any, *Error) {
	if t.Decl.Cyclic {
		// it expands to itself with no type holding it between
		return nil, &Error{Reason: fmt.Sprintf("type alias %q is cyclic", t.Decl.Name)}
	}
	for _, e := range b.recursive {
		if types.Identical(e.t, t) {
			return b.ref(e.name), nil
		}
	}
	for _, e := range b.expanding {
		if types.Identical(e.t, t) {
			if b.standalone {
				return jsonv.Obj(), nil
			}
			if e.name == "" {
				e.name = b.reserve(instanceName(t))
			}
			return b.ref(e.name), nil
		}
	}
	e := &expansion{t: t}
	b.expanding = append(b.expanding, e)
	var s any
	var err *Error
	if t.Decl.Kind == types.AliasDecl {
		if t.Decl.Target == nil {
			s = jsonv.Obj()
		} else {
			s, err = b.schema(types.Subst(t.Decl.Target, t.Decl.Instance(t.Args)))
		}
	} else {
		s, err = b.body(t.Decl, t.Args)
	}
	b.expanding = b.expanding[:len(b.expanding)-1]
	if err != nil {
		return nil, err
	}
	if e.name == "" {
		return s, nil
	}
	if o, ok := s.(*jsonv.Object); ok && o.Len() == 1 {
		if r, _ := o.Get("$ref"); r == any(b.pointer(e.name)) {
			return nil, &Error{Reason: fmt.Sprintf("type alias %q is cyclic", t.Decl.Name)}
		}
	}
	b.defs.Set(e.name, s)
	b.recursive = append(b.recursive, e)
	return b.ref(e.name), nil
}

// instanceName names the definition of a recursive alias or generic
// instantiation: the declaration name, then each type argument spelled
// with identifier characters (Tree<list<int>> → Tree_list_int).
func instanceName(t *types.Named) string {
	var sb strings.Builder
	sb.WriteString(t.Decl.Name)
	for _, a := range t.Args {
		sb.WriteByte('_')
		sb.WriteString(a.String())
	}
	var out []byte
	for _, c := range []byte(sb.String()) {
		ok := c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			c = '_'
		}
		if c == '_' && len(out) > 0 && out[len(out)-1] == '_' {
			continue
		}
		out = append(out, c)
	}
	return strings.TrimRight(string(out), "_")
}

// reserve claims a definition name in reach order: the name itself, else
// Name_2, Name_3, …
func (b *Builder) reserve(base string) string {
	name := base
	for i := 2; b.taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	b.taken[name] = true
	b.defs.Set(name, nil) // keeps reach order; the body follows
	return name
}
