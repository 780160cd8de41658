package tools

import (
	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/lang/typeschema"
	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/hydrate"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// `tool name(params) -> T { description "…" body }` (docs/language.md,
// "Closures and tool declarations") binds name to a tool registry holding
// that one tool. The compiler hands this hook the declaration and the
// closure compiled from its body; the registry is built exactly as
// tool_registry() |> tool_define(name, description, config) would build it,
// so validation, the catalog and every adapter treat the two forms alike.
func init() {
	lib.Def("__tool_decl", "__tool_decl(decl, body)", "runtime hook of a `tool` declaration", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		op, _ := a.At(0).Object().(*vm.Opaque)
		if op == nil {
			return vm.Value{}, vm.Runtimef("__tool_decl: not a tool declaration")
		}
		def, ok := op.X.(*compiler.ToolDef)
		if !ok {
			return vm.Value{}, vm.Runtimef("__tool_decl: not a tool declaration")
		}
		return declareTool(th, def, a.At(1))
	})
}

func declareTool(th *vm.Thread, def *compiler.ToolDef, body vm.Value) (vm.Value, error) {
	reg, err := tool.NewRegistryValue(vm.Value{}, vm.Value{}, vm.Value{})
	if err != nil {
		return vm.Value{}, toolErr(err)
	}
	// One mapping from types to JSON Schema, lang/typeschema's (the
	// exports surface's, docs/exports.md), in its standalone form: a tool
	// value travels alone into other registries, so structs and enums are
	// written in place rather than as catalog components.
	b := typeschema.NewStandalone()
	inject := injected(def)
	params := vm.NewDictBuilder(len(def.Params))
	for i, p := range def.Params[inject:] {
		params.Set(p.Name, paramDefinition(b, p, def.Sig.Params[inject+i].Type))
	}
	config := vm.NewDictBuilder(4)
	config.Set("parameters", vm.Of(params.Build()))
	// no `-> T` is any, which declares no output
	if out, ok := declared(b, def.Sig.Return); ok {
		config.Set("returns", out)
	}
	// `throws E` declares the tool's application error as a public
	// function's does (docs/spec/registry.md §6): by the same mapping as
	// `-> T`, so a thrown E is typed data for every adapter.
	if def.Sig.Throws != nil {
		if es, ok := declared(b, def.Sig.Throws); ok {
			config.Set("error_schema", es)
		}
	}
	config.Set("handler", vm.Of(vm.NewBuiltin(def.Name, def.Name+"(args)", "handler of tool "+def.Name, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		args, err := positional(def, inject, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		for i := 0; i < inject; i++ {
			root, ok := th.VM().Universe.Global("harness")
			if !ok {
				return vm.Value{}, vm.Runtimef("tool declaration: no harness to inject")
			}
			h, err := harness.Injected(root, def.Params[i].Type.(*syntax.NamedType).Name)
			if err != nil {
				return vm.Value{}, err
			}
			args[i] = h
		}
		return th.CallPlain(body, args)
	})))
	var desc vm.Value = vm.Nil
	if def.Description != "" {
		desc = vm.Str(def.Description)
	}
	out, err := tool.Define([]vm.Value{vm.Of(reg), vm.Str(def.Name), desc, vm.Of(config.Build())}, toolCache(th))
	if err != nil {
		return vm.Value{}, toolErr(err)
	}
	noteSites(th, out)
	return vm.Of(out), nil
}

// declared is the JSON Schema of a declared result or `throws` type, as
// a Harn value; false when the type has no JSON form or admits any value
// (`-> any`), so the tool declares none.
func declared(b *typeschema.Builder, t types.Type) (vm.Value, bool) {
	s, ok := jsonSchema(b, t)
	if !ok {
		return vm.Value{}, false
	}
	return tool.FromJSON(s), true
}

// jsonSchema is declared's schema as a JSON document, to which a caller
// may still add keywords.
func jsonSchema(b *typeschema.Builder, t types.Type) (any, bool) {
	s, err := b.Schema(t)
	if err != nil {
		return nil, false
	}
	if o, ok := s.(*jsonv.Object); ok && o.Len() == 0 {
		return nil, false
	}
	return s, true
}

// paramDefinition is the legacy `parameters` record (docs/tools.md) of one
// declared parameter of type t, required unless it has a default or its
// type admits nil. A plain type is its legacy type name (`{type: "int",
// required: true}`); any other carries its JSON Schema in `schema`
// (and its written name in `type`, for tool_describe), by
// lang/typeschema's mapping: `T?` admits null, a literal union is an
// `enum`, a struct is the object of its fields, an enum the oneOf of its
// `{enum, variant, fields}` objects, an alias its expansion. A type with
// no JSON form (or `any`) is unconstrained.
func paramDefinition(b *typeschema.Builder, p compiler.ToolParam, t types.Type) vm.Value {
	d := vm.NewDictBuilder(2)
	if p.Rest && p.Type == nil {
		// An untyped `...xs` is an optional array, as an export's rest
		// parameter is (docs/spec/registry.md §8.4); left out, the body
		// gets an empty list. (A typed `...xs: T` of a tool body binds
		// one plain T, as a closure's does, typed as any parameter.)
		arr := vm.NewDictBuilder(2)
		arr.Set("type", vm.Str("array"))
		arr.Set("items", vm.Of(vm.NewDict()))
		d.Set("schema", vm.Of(arr.Build()))
		d.Set("required", vm.False)
		return vm.Of(d.Build())
	}
	// A literal default is published as the property's `default`, as an
	// export's is (docs/exports.md); one computed at call time is not.
	def, hasDef := any(nil), false
	if p.Default != nil {
		def, hasDef = typeschema.Default(p.Default)
	}
	if name := legacyName(t); name != "" {
		d.Set("type", vm.Str(name))
		if hasDef {
			d.Set("default", tool.FromJSON(def))
		}
	} else if schema, ok := jsonSchema(b, t); ok {
		if hasDef {
			schema = typeschema.WithKey(schema, "default", def)
		}
		d.Set("schema", tool.FromJSON(schema))
		if p.Type != nil {
			// the type as the declaration writes it (`Point`, `Color`,
			// `int?`, `list<int>`), which tool_describe and tool_prompt
			// show (docs/tools.md): a record with a schema takes its
			// schema as is
			d.Set("type", vm.Str(compiler.TypeText(p.Type)))
		}
	} else if hasDef {
		// no JSON form: the record is the property schema itself
		d.Set("default", tool.FromJSON(def))
	}
	d.Set("required", vm.BoolOf(!p.HasDefault() && !admitsNil(t)))
	return vm.Of(d.Build())
}

// admitsNil reports whether a type admits nil: `T?`, `nil`, or a union
// with a `nil` member (`string | nil` is the type `string?`).
func admitsNil(t types.Type) bool {
	for _, m := range types.Members(types.Underlying(t)) {
		if types.Underlying(m) == types.Nil {
			return true
		}
	}
	return false
}

// legacyName is the legacy type name of a plain type ("int", "list",
// "dict", …), "" for any other.
func legacyName(t types.Type) string {
	switch t := types.Underlying(t).(type) {
	case *types.Basic:
		switch t {
		case types.Int:
			return "int"
		case types.Float:
			return "float"
		case types.Bool:
			return "bool"
		case types.String:
			return "string"
		}
	case *types.List:
		if t.Elem == types.Any {
			return "list"
		}
	case *types.Dict:
		if t.Value == types.Any && (t.Key == types.Any || t.Key == types.String) {
			return "dict"
		}
	case *types.Shape:
		if len(t.Fields) == 0 && !t.Open {
			return "dict"
		}
	}
	return ""
}

// positional turns the validated argument object into the body's
// positional arguments: each parameter up to the last one given. One left
// out before a given one is nil, or, when it has a default, an empty slot,
// which the body's prologue fills by evaluating the default (ARGC_GT).
func positional(def *compiler.ToolDef, inject int, v vm.Value) ([]vm.Value, error) {
	obj, _ := v.AsDict()
	if obj == nil {
		if v.IsValid() && !v.IsNil() {
			return nil, vm.Typef("tool %s: arguments must be a dict, got %s", def.Name, v.Type())
		}
		obj = vm.NewDict()
	}
	last := inject - 1
	for i, p := range def.Params[inject:] {
		if obj.Has(p.Name) {
			last = inject + i
		}
	}
	if n := len(def.Params); n > inject && def.Params[n-1].Rest && def.Params[n-1].Type == nil {
		last = n - 1 // an untyped rest left out is an empty list, not nil
	}
	out := make([]vm.Value, inject, last+1)
	for i := inject; i <= last; i++ {
		p := def.Params[i]
		if given, ok := obj.Get(p.Name); ok {
			if p.Rest && p.Type == nil {
				out = append(out, given)
			} else {
				// a struct argument arrives as the object of its
				// fields, an enum one as {enum, variant, fields}: the
				// body gets the values its parameter types describe
				// (docs/exports.md, hydration)
				out = append(out, hydrate.Value(def.Sig.Params[i].Type, given))
			}
		} else if p.Rest && p.Type == nil {
			out = append(out, vm.Of(vm.NewList(nil)))
		} else if p.HasDefault() {
			out = append(out, vm.Value{})
		} else {
			out = append(out, vm.Nil)
		}
	}
	return out, nil
}

// injected is the number of leading host-injected authority parameters
// of a tool declaration: typed `Harness` or one of its capability handle
// types (`HarnessFs`, …). As for an export (docs/spec/registry.md §8.4)
// they are not public: they never appear in the input schema, and each
// call receives the script's own harness (or that capability of it).
func injected(def *compiler.ToolDef) int {
	n := 0
	for _, p := range def.Params {
		t, ok := p.Type.(*syntax.NamedType)
		if !ok || len(t.Args) > 0 || !types.IsHandleName(t.Name) {
			break
		}
		n++
	}
	return n
}
