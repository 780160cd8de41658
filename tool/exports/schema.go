package exports

import (
	"fmt"
	"strings"

	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/tool/jsonv"
)

// schemaBuilder translates static types to Draft 2020-12 JSON Schema for
// one catalog. It owns the catalog's components: each non-generic struct
// or enum declaration reached becomes one component, named by the
// declaration and disambiguated in reach order (Name, Name_2, …); a
// recursive alias or generic instantiation becomes a component when its
// inline expansion reaches itself.
type schemaBuilder struct {
	comps  *jsonv.Object
	taken  map[string]bool
	byDecl map[*types.Decl]string
	// expanding lists the aliases and generic instantiations being
	// expanded inline (innermost last); recursive lists those that turned
	// out recursive and now live in components.
	expanding []*expansion
	recursive []*expansion
}

type expansion struct {
	t    types.Type
	name string // component name, once the expansion reached itself
}

func newSchemaBuilder() *schemaBuilder {
	return &schemaBuilder{comps: jsonv.NewObject(0), taken: map[string]bool{}, byDecl: map[*types.Decl]string{}}
}

// typeError is a type with no JSON Schema form. within lists where it
// was found, outermost first: `struct Job`, `field "run"`.
type typeError struct {
	reason string
	within []string
}

func (e *typeError) Error() string {
	if len(e.within) == 0 {
		return e.reason
	}
	return e.reason + " (in " + strings.Join(e.within, ", ") + ")"
}

func (e *typeError) in(where string) *typeError {
	e.within = append([]string{where}, e.within...)
	return e
}

func runtimeOnly(name string) *typeError {
	return &typeError{reason: fmt.Sprintf("runtime-only Harn type %q", name)}
}

// ---- small schema constructors (every call makes a fresh object, so no
// document shares a node with another) ----

func obj(kv ...any) *jsonv.Object {
	o := jsonv.NewObject(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

func typed(name string) *jsonv.Object { return obj("type", name) }

func nullSchema() *jsonv.Object { return typed("null") }

func ref(name string) *jsonv.Object {
	return obj("$ref", "#/components/schemas/"+pointerEscape(name))
}

func pointerEscape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// closedObject is the schema of a shape or struct body: the fields in
// declaration order, the non-optional ones required, no other property.
func closedObject(props *jsonv.Object, required []string) *jsonv.Object {
	o := obj("type", "object", "properties", props)
	if len(required) > 0 {
		o.Set("required", strs(required))
	}
	o.Set("additionalProperties", false)
	return o
}

// bytesSchema is the portable form of bytes (docs/spec/registry.md §6).
func bytesSchema() *jsonv.Object {
	return closedObject(obj("$bytes_b64", obj("type", "string", "contentEncoding", "base64")), []string{"$bytes_b64"})
}

// ---- the translation ----

// schema returns the JSON Schema of t (a bool or *jsonv.Object).
func (b *schemaBuilder) schema(t types.Type) (any, *typeError) {
	switch t := t.(type) {
	case nil:
		return obj(), nil
	case *types.Basic:
		return basicSchema(t)
	case *types.Literal:
		return literalEnum([]*types.Literal{t}), nil
	case *types.List:
		items, err := b.schema(t.Elem)
		if err != nil {
			return nil, err
		}
		return obj("type", "array", "items", items), nil
	case *types.Set:
		items, err := b.schema(t.Elem)
		if err != nil {
			return nil, err
		}
		return obj("type", "array", "items", items, "uniqueItems", true), nil
	case *types.Dict:
		return b.dict(t)
	case *types.Shape:
		return b.fields(t.Fields)
	case *types.Result:
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
		return obj(), nil
	case *types.Func:
		return nil, runtimeOnly("closure")
	case *types.Handle:
		return nil, runtimeOnly(t.Name)
	case *types.Iter:
		return nil, runtimeOnly([...]string{"iter", "Generator", "Stream"}[t.Kind])
	case *types.Unresolved:
		return nil, &typeError{reason: fmt.Sprintf("unknown type %q", t.Name)}
	}
	return nil, &typeError{reason: fmt.Sprintf("type %s has no JSON Schema form", t)}
}

func basicSchema(t *types.Basic) (any, *typeError) {
	switch t.Kind {
	case types.KAny, types.KUnknown:
		return obj(), nil
	case types.KNever:
		return false, nil
	case types.KNil:
		return nullSchema(), nil
	case types.KInt:
		return typed("integer"), nil
	case types.KFloat:
		return typed("number"), nil
	case types.KString:
		return typed("string"), nil
	case types.KBool:
		return typed("boolean"), nil
	case types.KBytes:
		return bytesSchema(), nil
	}
	return nil, runtimeOnly(t.String()) // duration, range, closure
}

// literalEnum is the schema of string or int literal types of one base.
func literalEnum(lits []*types.Literal) *jsonv.Object {
	vals := make([]any, len(lits))
	base := "string"
	for i, l := range lits {
		switch v := l.Value.(type) {
		case string:
			vals[i] = v
		case int64:
			base = "integer"
			vals[i] = jsonv.Int(v)
		}
	}
	return obj("type", base, "enum", vals)
}

func (b *schemaBuilder) dict(t *types.Dict) (any, *typeError) {
	o := typed("object")
	switch k := types.Underlying(t.Key).(type) {
	case *types.Basic:
		if k.Kind != types.KString && k.Kind != types.KAny && k.Kind != types.KUnknown {
			return nil, &typeError{reason: fmt.Sprintf("dict key type %s has no JSON Schema form (JSON object keys are strings)", t.Key)}
		}
	default:
		if !stringLiterals(k) {
			return nil, &typeError{reason: fmt.Sprintf("dict key type %s has no JSON Schema form (JSON object keys are strings)", t.Key)}
		}
		names, err := b.schema(k)
		if err != nil {
			return nil, err
		}
		o.Set("propertyNames", names)
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

// fields is the closed object of a shape or struct body. An optional
// field accepts null too (it stays unset when hydrated).
func (b *schemaBuilder) fields(fs []types.Field) (any, *typeError) {
	props := jsonv.NewObject(len(fs))
	var required []string
	for _, f := range fs {
		t := f.Type
		if f.Optional {
			t = types.Optional(t)
		} else {
			required = append(required, f.Name)
		}
		s, err := b.schema(t)
		if err != nil {
			return nil, err.in(fmt.Sprintf("field %q", f.Name))
		}
		props.Set(f.Name, s)
	}
	return closedObject(props, required), nil
}

// tagged is the body of an enum (or Result): one tagged object per
// variant, {"enum", "variant", "fields"}, the portable form of an enum
// value (docs/spec/registry.md §6). Named payload fields carry their name as title.
func (b *schemaBuilder) tagged(enum string, variants []types.Variant, titles bool) (any, *typeError) {
	branches := make([]any, len(variants))
	for i, v := range variants {
		fields := obj("type", "array")
		if len(v.Fields) > 0 {
			items := make([]any, len(v.Fields))
			for j, f := range v.Fields {
				s, err := b.schema(f.Type)
				if err != nil {
					return nil, err.in(fmt.Sprintf("variant %s.%s", enum, v.Name))
				}
				if titles && f.Name != "" {
					s = withKey(s, "title", f.Name)
				}
				items[j] = s
			}
			fields.Set("prefixItems", items)
		}
		fields.Set("items", false)
		fields.Set("minItems", jsonv.Int(int64(len(v.Fields))))
		fields.Set("maxItems", jsonv.Int(int64(len(v.Fields))))
		props := obj("enum", obj("const", enum), "variant", obj("const", v.Name), "fields", fields)
		branches[i] = closedObject(props, []string{"enum", "variant", "fields"})
	}
	return obj("oneOf", branches), nil
}

// withKey adds an annotation keyword to a schema; the boolean schema
// false becomes the equivalent {"not": {}} so it can carry one.
func withKey(s any, k string, v any) any {
	switch x := s.(type) {
	case *jsonv.Object:
		x.Set(k, v)
		return x
	case bool:
		if x {
			return obj(k, v)
		}
		return obj("not", obj(), k, v)
	}
	return s
}

// union is anyOf its members; string (int) literal members collapse into
// one enum at the place of the first of them. A union with a dynamic
// member (unknown, a type parameter) accepts anything: {}.
func (b *schemaBuilder) union(u *types.Union) (any, *typeError) {
	for _, m := range u.Types {
		switch t := types.Underlying(m).(type) {
		case *types.TypeParam:
			return obj(), nil
		case *types.Basic:
			if t.Kind == types.KUnknown || t.Kind == types.KAny {
				return obj(), nil
			}
		}
	}
	var parts []any
	var strLits, intLits []*types.Literal
	strAt, intAt := -1, -1
	for _, m := range u.Types {
		if l, ok := m.(*types.Literal); ok {
			if _, isStr := l.Value.(string); isStr {
				if strAt < 0 {
					strAt = len(parts)
					parts = append(parts, nil)
				}
				strLits = append(strLits, l)
			} else {
				if intAt < 0 {
					intAt = len(parts)
					parts = append(parts, nil)
				}
				intLits = append(intLits, l)
			}
			continue
		}
		s, err := b.schema(m)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	if strAt >= 0 {
		parts[strAt] = literalEnum(strLits)
	}
	if intAt >= 0 {
		parts[intAt] = literalEnum(intLits)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return obj("anyOf", parts), nil
}

// intersection merges shapes and structs into one closed object (the
// fields of every member); other intersections are allOf their members.
func (b *schemaBuilder) intersection(t *types.Intersection) (any, *typeError) {
	if fs, ok := mergedFields(t); ok {
		return b.fields(fs)
	}
	parts := make([]any, len(t.Types))
	for i, m := range t.Types {
		s, err := b.schema(m)
		if err != nil {
			return nil, err
		}
		parts[i] = s
	}
	return obj("allOf", parts), nil
}

// mergedFields returns the fields of an intersection whose members are
// all shapes or structs; a field named twice keeps its first declaration
// and becomes the intersection of both types.
func mergedFields(t *types.Intersection) ([]types.Field, bool) {
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

func (b *schemaBuilder) named(t *types.Named) (any, *typeError) {
	d := t.Decl
	switch d.Kind {
	case types.InterfaceDecl:
		return nil, &typeError{reason: fmt.Sprintf("interface type %q has no JSON Schema form (its values are struct instances of any type)", d.Name)}
	case types.StructDecl, types.EnumDecl:
		if len(d.TypeParams) == 0 {
			name, err := b.component(d)
			if err != nil {
				return nil, err
			}
			return ref(name), nil
		}
	}
	return b.inline(t)
}

// component returns the component name of a non-generic struct or enum,
// building its body on first reach.
func (b *schemaBuilder) component(d *types.Decl) (string, *typeError) {
	if name, ok := b.byDecl[d]; ok {
		return name, nil
	}
	name := b.reserve(d.Name)
	b.byDecl[d] = name
	body, err := b.body(d, nil)
	if err != nil {
		return "", err // the catalog is not published
	}
	b.comps.Set(name, body)
	return name, nil
}

// body is the schema of a struct or enum declaration instantiated with
// args.
func (b *schemaBuilder) body(d *types.Decl, args []types.Type) (any, *typeError) {
	m := d.Instance(args)
	var s any
	var err *typeError
	if d.Kind == types.StructDecl {
		fs := d.Fields
		if m != nil {
			fs = make([]types.Field, len(d.Fields))
			for i, f := range d.Fields {
				f.Type = types.Subst(f.Type, m)
				fs[i] = f
			}
		}
		s, err = b.fields(fs)
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

// inline expands an alias or a generic struct/enum instantiation in
// place. When the expansion reaches the same type again it is recursive:
// the outer expansion then becomes a component and every occurrence a
// $ref to it.
func (b *schemaBuilder) inline(t *types.Named) (any, *typeError) {
	for _, e := range b.recursive {
		if types.Identical(e.t, t) {
			return ref(e.name), nil
		}
	}
	for _, e := range b.expanding {
		if types.Identical(e.t, t) {
			if e.name == "" {
				e.name = b.reserve(instanceName(t))
			}
			return ref(e.name), nil
		}
	}
	e := &expansion{t: t}
	b.expanding = append(b.expanding, e)
	var s any
	var err *typeError
	if t.Decl.Kind == types.AliasDecl {
		if t.Decl.Target == nil {
			s = obj()
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
		if r, _ := o.Get("$ref"); r == any("#/components/schemas/"+pointerEscape(e.name)) {
			return nil, &typeError{reason: fmt.Sprintf("type alias %q is cyclic", t.Decl.Name)}
		}
	}
	b.comps.Set(e.name, s)
	b.recursive = append(b.recursive, e)
	return ref(e.name), nil
}

// instanceName names the component of a recursive alias or generic
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

// reserve claims a component name in reach order: the name itself, else
// Name_2, Name_3, …
func (b *schemaBuilder) reserve(base string) string {
	name := base
	for i := 2; b.taken[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	b.taken[name] = true
	b.comps.Set(name, nil) // keeps reach order; the body follows
	return name
}
