package resolve

import (
	"slices"

	"github.com/harnlang/harn/lang/syntax"
)

// A type alias named where a schema value is expected stands for its
// schema, built at compile time (docs/spec/language.md §10.6): the schema
// argument of the schema builtins and of llm_call_structured (docs/llm.md)
// and an `output_schema:` option. Such a
// name has no run-time value, so it is not a variable reference; the
// resolver records it in Info.SchemaTypes instead.

// schemaArgs gives the indexes of each schema builtin's schema arguments.
// Beyond the builtins docs/spec/language.md §10.6 names, the schema
// transformers and converters (docs/json-schema.md) take an alias too:
// `schema_partial(User)` is `schema_partial(schema_of(User))`.
var schemaArgs = map[string][]int{
	"schema_of":     {0},
	"schema_is":     {1},
	"is_type":       {1},
	"schema_check":  {1},
	"schema_parse":  {1},
	"schema_expect": {1},
	"schema_report": {1},
	"json_validate": {1},

	"schema_extend":            {0, 1},
	"schema_partial":           {0},
	"schema_pick":              {0},
	"schema_omit":              {0},
	"schema_to_json_schema":    {0},
	"schema_to_openapi_schema": {0},

	"llm_call_structured":        {1},
	"llm_call_structured_result": {1},
	"llm_call_structured_safe":   {1},
}

// schemaAlias returns e when it is a bare name of a type alias that no
// variable shadows: a non-generic top-level alias of the file, or one
// its imports bring (Options.ImportedAliases).
func (r *resolver) schemaAlias(e syntax.Expr) *syntax.Ident {
	id, ok := e.(*syntax.Ident)
	if !ok {
		return nil
	}
	if t := r.aliases[id.Name]; t != nil {
		if len(t.TypeParams) > 0 {
			return nil
		}
		if s := r.lookup(id.Name).Scope; s != Undefined && s != Import {
			return nil
		}
		return id
	}
	if !slices.Contains(r.opts.ImportedAliases, id.Name) {
		return nil
	}
	if ref := r.lookup(id.Name); ref.Scope != Global || ref.Binding.Kind != KImport {
		return nil
	}
	return id
}

// callArgs resolves a call's arguments once its callee is recorded.
func (r *resolver) callArgs(e *syntax.CallExpr) {
	at, ok := schemaArgs[e.Fn.Name]
	if ref := r.info.Refs[e.Fn]; !ok || ref == nil || ref.Scope != Universal {
		r.exprs(e.Args)
		return
	}
	for j, a := range e.Args {
		if slices.Contains(at, j) && r.schemaType(a) {
			continue
		}
		r.expr(a)
	}
}

// schemaType records e when it names a type alias; it reports whether it
// did.
func (r *resolver) schemaType(e syntax.Expr) bool {
	id := r.schemaAlias(e)
	if id == nil {
		return false
	}
	if r.info.SchemaTypes == nil {
		r.info.SchemaTypes = map[*syntax.Ident]string{}
	}
	r.info.SchemaTypes[id] = id.Name
	return true
}
