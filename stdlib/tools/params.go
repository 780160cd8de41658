package tools

import (
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// paramList is the one rendering of a tool's parameters, shared by
// tool_describe ("name(p: type, …)") and tool_prompt ("- p: type"
// lines): a "name: type" per parameter, sorted by name. The parameters
// are the definition's legacy map (docs/spec/registry.md §2.1) or else
// the properties of its complete input schema (§2.2); type is the one
// the author wrote (paramType).
func paramList(def *vm.Dict) []string {
	params, ok := lib.Get(def, "parameters").AsDict()
	if !ok {
		params = schemaProperties(def)
	}
	if params == nil {
		return nil
	}
	keys := slices.Sorted(slices.Values(params.Keys()))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + ": " + paramType(lib.Get(params, k))
	}
	return out
}

// schemaProperties is the properties map of a definition's complete
// input schema (either spelling), or nil.
func schemaProperties(def *vm.Dict) *vm.Dict {
	for _, key := range []string{"inputSchema", "input_schema"} {
		if s, ok := lib.Get(def, key).AsDict(); ok {
			props, _ := lib.Get(s, "properties").AsDict()
			return props
		}
	}
	return nil
}

// paramType is the type of one parameter as written: a shorthand string
// itself; for a record (a definition record or a property schema) its
// type field, else the type of its schema field, else the name a $ref
// points at ("#/components/schemas/Widget" reads "Widget"), else any. A
// list of types (JSON Schema's ["string", "null"]) reads "string | null".
func paramType(v vm.Value) string {
	if s, ok := v.AsString(); ok {
		return s.Go()
	}
	rec, ok := v.AsDict()
	if !ok {
		return "any"
	}
	if t := schemaType(lib.Get(rec, "type")); t != "" {
		return t
	}
	if s, ok := lib.Get(rec, "schema").AsDict(); ok {
		return paramType(vm.Of(s))
	}
	if ref, ok := lib.Get(rec, "$ref").AsString(); ok && ref.Go() != "" {
		return ref.Go()[strings.LastIndexByte(ref.Go(), '/')+1:]
	}
	return "any"
}

// schemaType is a type keyword's text: a string, or a list of strings
// joined by " | "; "" for anything else.
func schemaType(v vm.Value) string {
	if s, ok := v.AsString(); ok {
		return s.Go()
	}
	l, ok := v.AsList()
	if !ok || l.Len() == 0 {
		return ""
	}
	names := make([]string, l.Len())
	for i, it := range l.Items() {
		s, ok := it.AsString()
		if !ok {
			return ""
		}
		names[i] = s.Go()
	}
	return strings.Join(names, " | ")
}
