package exports

import (
	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/lang/typeschema"
)

// schemaBuilder translates static types to Draft 2020-12 JSON Schema for
// one catalog (lang/typeschema, JSON dialect). It owns the catalog's
// components: each non-generic struct or enum declaration reached
// becomes one component, named by the declaration and disambiguated in
// reach order (Name, Name_2, …); a recursive alias or generic
// instantiation becomes a component when its inline expansion reaches
// itself.
type schemaBuilder struct {
	b *typeschema.Builder
}

func newSchemaBuilder() *schemaBuilder {
	return &schemaBuilder{b: typeschema.New(typeschema.JSON)}
}

// schema returns the JSON Schema of t (a bool or *jsonv.Object).
func (b *schemaBuilder) schema(t types.Type) (any, error) {
	s, err := b.b.Schema(t)
	if err != nil {
		return nil, err
	}
	return toJSON(s), nil
}

// components returns the components reached so far.
func (b *schemaBuilder) components() *jsonv.Object {
	return toJSON(b.b.Defs()).(*jsonv.Object)
}

// toJSON converts a typeschema document to catalog JSON values.
func toJSON(v any) any {
	switch v := v.(type) {
	case *typeschema.Object:
		o := jsonv.NewObject(v.Len())
		for i := range v.Len() {
			k, x := v.At(i)
			o.Set(k, toJSON(x))
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = toJSON(x)
		}
		return out
	case int64:
		return jsonv.Int(v)
	}
	return v
}

// ---- small schema constructors for the documents built here ----

func obj(kv ...any) *jsonv.Object {
	o := jsonv.NewObject(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
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
