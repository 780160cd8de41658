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
	return b.b.Schema(t)
}

// components returns the components reached so far.
func (b *schemaBuilder) components() *jsonv.Object { return b.b.Defs() }

// ---- small schema constructors for the documents built here ----

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
			return jsonv.Obj(k, v)
		}
		return jsonv.Obj("not", jsonv.Obj(), k, v)
	}
	return s
}
