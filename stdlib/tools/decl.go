package tools

import (
	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/lang/types"
	"github.com/harnlang/harn/stdlib/harness"
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
	inject := injected(def)
	params := vm.NewDictBuilder(len(def.Params))
	for _, p := range def.Params[inject:] {
		params.Set(p.Name, paramDefinition(p))
	}
	config := vm.NewDictBuilder(4)
	config.Set("parameters", vm.Of(params.Build()))
	if def.Return != nil {
		if out, ok := declSchemaOf(def.Return, def.Decls, nil); ok {
			config.Set("returns", out)
		}
	}
	// `throws E` declares the tool's application error as a public
	// function's does (docs/spec/registry.md §6): by the same mapping as
	// `-> T`, so a thrown E is typed data for every adapter.
	if def.Throws != nil {
		if es, ok := declSchemaOf(def.Throws, def.Decls, nil); ok {
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
	return vm.Of(out), nil
}

// paramDefinition is the legacy `parameters` record (docs/tools.md) of one
// declared parameter, required unless it has a default or admits nil. A
// plain type is its legacy type name (`{type: "int", required: true}`); a
// type that needs more (nil allowed, a literal union, a typed list) carries
// its JSON Schema in `schema`, so that an explicit null reaches a `T?`
// parameter and a literal union is an `enum`; an annotation with no JSON
// form is unconstrained.
func paramDefinition(p compiler.ToolParam) vm.Value {
	b := vm.NewDictBuilder(2)
	if p.Rest && p.Type == nil {
		// An untyped `...xs` is an optional array, as an export's rest
		// parameter is (docs/spec/registry.md §8.4); left out, the body
		// gets an empty list. (A typed `...xs: T` of a tool body binds
		// one plain T, as a closure's does, typed as any parameter.)
		arr := vm.NewDictBuilder(2)
		arr.Set("type", vm.Str("array"))
		arr.Set("items", vm.Of(vm.NewDict()))
		b.Set("schema", vm.Of(arr.Build()))
		b.Set("required", vm.False)
		return vm.Of(b.Build())
	}
	if name := legacyName(p.Type); name != "" {
		b.Set("type", vm.Str(name))
	} else if schema, ok := jsonSchemaOf(p.Type); ok {
		b.Set("schema", schema)
	}
	b.Set("required", vm.BoolOf(!p.HasDefault && !admitsNil(p.Type)))
	return vm.Of(b.Build())
}

// admitsNil reports whether an annotation is optional: `T?`, `nil`, or a
// union with a `nil` member (`string | nil` is the type `string?`).
func admitsNil(t syntax.TypeExpr) bool {
	switch optionalForm(t).(type) {
	case *syntax.OptionalType, *syntax.NilType:
		return true
	}
	return false
}

// optionalForm rewrites a union with `nil` members as the optional type of
// its other members (`A | nil | B` is `(A | B)?`, `nil | nil` is `nil`), so
// both spellings of an optional type derive one schema. Any other
// annotation is returned as it is.
func optionalForm(t syntax.TypeExpr) syntax.TypeExpr {
	u, ok := t.(*syntax.UnionType)
	if !ok {
		return t
	}
	var rest []syntax.TypeExpr
	for _, m := range u.Types {
		if _, isNil := m.(*syntax.NilType); !isNil {
			rest = append(rest, m)
		}
	}
	switch {
	case len(rest) == len(u.Types):
		return t
	case len(rest) == 0:
		return &syntax.NilType{At: u.At}
	case len(rest) == 1:
		return &syntax.OptionalType{At: u.At, Elem: rest[0]}
	default:
		return &syntax.OptionalType{At: u.At, Elem: &syntax.UnionType{At: u.At, Types: rest}}
	}
}

// legacyName is the legacy type name of a plain annotation, "" for any
// other.
func legacyName(t syntax.TypeExpr) string {
	switch t := t.(type) {
	case *syntax.ListType:
		if named, ok := t.Elem.(*syntax.NamedType); ok && named.Name == "any" {
			return "list"
		}
	case *syntax.ShapeType:
		if len(t.Fields) == 0 {
			return "dict"
		}
	case *syntax.NamedType:
		switch t.Name {
		case "int", "float", "bool", "string", "dict":
			if len(t.Args) == 0 {
				return t.Name
			}
		case "list":
			if len(t.Args) == 0 {
				return "list"
			}
		}
	}
	return ""
}

// jsonSchemaOf is the JSON Schema of an annotation as a Harn dict, when
// the annotation has one: the primitive types, `T?` (T or null), literal
// types and unions of them (`enum`), lists, dicts and shapes (an object
// with `properties`, its non-optional fields `required`; open, as the
// shape type is). Anything else (struct names, aliases, generics) reports
// false and stays unconstrained; the handler's own parameter checks
// still apply.
func jsonSchemaOf(t syntax.TypeExpr) (vm.Value, bool) {
	schema := func(kv ...any) vm.Value {
		b := vm.NewDictBuilder(len(kv) / 2)
		for i := 0; i < len(kv); i += 2 {
			b.Set(kv[i].(string), kv[i+1].(vm.Value))
		}
		return vm.Of(b.Build())
	}
	switch t := optionalForm(t).(type) {
	case *syntax.NilType:
		return schema("type", vm.Str("null")), true
	case *syntax.OptionalType:
		inner, ok := jsonSchemaOf(t.Elem)
		if !ok {
			return vm.Value{}, false
		}
		d, _ := inner.AsDict()
		if typ, ok := d.Get("type"); ok {
			if name, ok := typ.AsString(); ok {
				out := d.Set("type", vm.Of(vm.NewList([]vm.Value{vm.Str(name.Go()), vm.Str("null")})))
				if enum, ok := d.Get("enum"); ok {
					l, _ := enum.AsList()
					out = out.Set("enum", vm.Of(vm.NewList(append(l.Items(), vm.Nil))))
				}
				return vm.Of(out), true
			}
		}
		if any, ok := d.Get("anyOf"); ok && d.Len() == 1 {
			// (A | B)? is one anyOf with null among the members
			l, _ := any.AsList()
			return schema("anyOf", vm.Of(vm.NewList(append(append([]vm.Value(nil), l.Items()...), schema("type", vm.Str("null")))))), true
		}
		return schema("anyOf", vm.Of(vm.NewList([]vm.Value{inner, schema("type", vm.Str("null"))}))), true
	case *syntax.LiteralType:
		return jsonSchemaOf(&syntax.UnionType{At: t.At, Types: []syntax.TypeExpr{t}})
	case *syntax.UnionType:
		if enum, ok := literalEnum(t, schema); ok {
			return enum, true
		}
		// Any other union admits a value of any member: anyOf, as the
		// exports surface maps it (docs/spec/registry.md §8.4), when
		// every member has a JSON form.
		var members []vm.Value
		for _, m := range t.Types {
			ms, ok := jsonSchemaOf(m)
			if !ok {
				return vm.Value{}, false
			}
			members = append(members, ms)
		}
		return schema("anyOf", vm.Of(vm.NewList(members))), true
	case *syntax.InterType:
		// `A & B` is allOf (docs/spec/newer.md §2.22); a member with no
		// JSON form constrains nothing.
		var members []vm.Value
		for _, m := range t.Types {
			ms, ok := jsonSchemaOf(m)
			if !ok {
				ms = vm.Of(vm.NewDict())
			}
			members = append(members, ms)
		}
		return schema("allOf", vm.Of(vm.NewList(members))), true
	case *syntax.ListType:
		items, ok := jsonSchemaOf(t.Elem)
		if !ok {
			return schema("type", vm.Str("array")), true
		}
		return schema("type", vm.Str("array"), "items", items), true
	case *syntax.ShapeType:
		if len(t.Fields) == 0 {
			return schema("type", vm.Str("object")), true
		}
		props := vm.NewDictBuilder(len(t.Fields))
		var required []vm.Value
		for _, f := range t.Fields {
			fs, ok := jsonSchemaOf(f.Type)
			if !ok {
				fs = vm.Of(vm.NewDict()) // no JSON form: any value
			}
			props.Set(f.Name, fs)
			// A field written `name: T?` is a required key whose value may
			// be null (docs/spec/newer.md §2.22, shape → schema), as the
			// handler's own parameter check requires the key.
			if !f.Optional {
				required = append(required, vm.Str(f.Name))
			}
		}
		if len(required) == 0 {
			return schema("type", vm.Str("object"), "properties", vm.Of(props.Build())), true
		}
		return schema("type", vm.Str("object"), "properties", vm.Of(props.Build()), "required", vm.Of(vm.NewList(required))), true
	case *syntax.NamedType:
		switch t.Name {
		case "int":
			return schema("type", vm.Str("integer")), true
		case "float", "number":
			return schema("type", vm.Str("number")), true
		case "bool":
			return schema("type", vm.Str("boolean")), true
		case "string":
			return schema("type", vm.Str("string")), true
		case "dict":
			// dict<string, V>: every value is a V, as the handler's
			// parameter check requires (the exports mapping of
			// docs/spec/registry.md §8.4).
			if k, isNamed := dictKey(t); isNamed && k == "string" {
				if values, ok := jsonSchemaOf(t.Args[1]); ok {
					return schema("type", vm.Str("object"), "additionalProperties", values), true
				}
			}
			return schema("type", vm.Str("object")), true
		case "list":
			if len(t.Args) == 1 {
				return jsonSchemaOf(&syntax.ListType{At: t.At, Elem: t.Args[0]})
			}
			return schema("type", vm.Str("array")), true
		}
	}
	return vm.Value{}, false
}

// dictKey is the name of a `dict<K, V>` annotation's key type.
func dictKey(t *syntax.NamedType) (string, bool) {
	if len(t.Args) != 2 {
		return "", false
	}
	k, ok := t.Args[0].(*syntax.NamedType)
	if !ok {
		return "", false
	}
	return k.Name, true
}

// literalEnum is the enum schema of a union of literals of one kind
// (`"x" | "y"`, `1 | 2`), false for any other union.
func literalEnum(t *syntax.UnionType, schema func(kv ...any) vm.Value) (vm.Value, bool) {
	var values []vm.Value
	kind := ""
	for _, m := range t.Types {
		lit, ok := m.(*syntax.LiteralType)
		if !ok {
			return vm.Value{}, false
		}
		k := "integer"
		v := vm.Value{}
		switch x := lit.Value.(type) {
		case string:
			k, v = "string", vm.Str(x)
		case int64:
			v = vm.IntOf(x)
		default:
			return vm.Value{}, false
		}
		if kind != "" && kind != k {
			return vm.Value{}, false
		}
		kind = k
		values = append(values, v)
	}
	return schema("type", vm.Str(kind), "enum", vm.Of(vm.NewList(values))), true
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
			out = append(out, given)
		} else if p.Rest && p.Type == nil {
			out = append(out, vm.Of(vm.NewList(nil)))
		} else if p.HasDefault {
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

// declSchemaOf is the JSON Schema of a result or `throws` type:
// jsonSchemaOf's mapping, plus the file's structs and enums (decls),
// whose values reach the contract as the objects of their set fields and
// as {enum, variant, fields} objects (docs/spec/registry.md §6), described
// as the exports surface describes them, inline (§8.4). A declaration met
// again inside itself is any value ({}).
func declSchemaOf(t syntax.TypeExpr, decls map[string]syntax.Node, seen map[string]bool) (vm.Value, bool) {
	if len(decls) == 0 {
		return jsonSchemaOf(t)
	}
	sub := func(t syntax.TypeExpr) vm.Value {
		s, ok := declSchemaOf(t, decls, seen)
		if !ok {
			return vm.Of(vm.NewDict())
		}
		return s
	}
	switch t := t.(type) {
	case *syntax.NamedType:
		d := decls[t.Name]
		if d == nil || len(t.Args) > 0 {
			if t.Name == "list" && len(t.Args) == 1 {
				return declSchemaOf(&syntax.ListType{At: t.At, Elem: t.Args[0]}, decls, seen)
			}
			return jsonSchemaOf(t)
		}
		if seen[t.Name] {
			return vm.Of(vm.NewDict()), true
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[t.Name] = true
		defer delete(seen, t.Name)
		switch d := d.(type) {
		case *syntax.EnumDecl:
			return enumSchema(d, sub), true
		case *syntax.StructDecl:
			props := vm.NewDictBuilder(len(d.Fields))
			var required []vm.Value
			for _, f := range d.Fields {
				fs := sub(f.Type)
				if f.Optional {
					fs = obj("anyOf", vm.Of(vm.NewList([]vm.Value{fs, obj("type", vm.Str("null"))})))
				} else {
					required = append(required, vm.Str(f.Name))
				}
				props.Set(f.Name, fs)
			}
			if len(required) == 0 {
				return obj("type", vm.Str("object"), "properties", vm.Of(props.Build())), true
			}
			return obj("type", vm.Str("object"), "properties", vm.Of(props.Build()), "required", vm.Of(vm.NewList(required))), true
		}
	case *syntax.OptionalType:
		if !mentions(t, decls) {
			return jsonSchemaOf(t)
		}
		return obj("anyOf", vm.Of(vm.NewList([]vm.Value{sub(t.Elem), obj("type", vm.Str("null"))}))), true
	case *syntax.ListType:
		if !mentions(t, decls) {
			return jsonSchemaOf(t)
		}
		return obj("type", vm.Str("array"), "items", sub(t.Elem)), true
	case *syntax.UnionType:
		if !mentions(t, decls) {
			return jsonSchemaOf(t)
		}
		var members []vm.Value
		for _, m := range t.Types {
			members = append(members, sub(m))
		}
		return obj("anyOf", vm.Of(vm.NewList(members))), true
	}
	return jsonSchemaOf(t)
}

// mentions reports whether t names one of decls.
func mentions(t syntax.TypeExpr, decls map[string]syntax.Node) bool {
	switch t := t.(type) {
	case *syntax.NamedType:
		if decls[t.Name] != nil && len(t.Args) == 0 {
			return true
		}
		for _, a := range t.Args {
			if mentions(a, decls) {
				return true
			}
		}
	case *syntax.OptionalType:
		return mentions(t.Elem, decls)
	case *syntax.ListType:
		return mentions(t.Elem, decls)
	case *syntax.UnionType:
		for _, m := range t.Types {
			if mentions(m, decls) {
				return true
			}
		}
	}
	return false
}

// enumSchema is the oneOf of an enum's variants, each the object
// {enum, variant, fields} with its payload as prefixItems titled by the
// field names (docs/spec/registry.md §8.4, component body of an enum).
func enumSchema(d *syntax.EnumDecl, sub func(syntax.TypeExpr) vm.Value) vm.Value {
	branches := make([]vm.Value, 0, len(d.Variants))
	for _, v := range d.Variants {
		items := make([]vm.Value, 0, len(v.Params))
		for _, p := range v.Params {
			fd, _ := sub(p.Type).AsDict()
			items = append(items, vm.Of(fd.Set("title", vm.Str(p.Name))))
		}
		n := vm.IntOf(int64(len(items)))
		fields := obj("type", vm.Str("array"), "items", vm.False, "minItems", n, "maxItems", n)
		if len(items) > 0 {
			fields = obj("type", vm.Str("array"), "prefixItems", vm.Of(vm.NewList(items)), "items", vm.False, "minItems", n, "maxItems", n)
		}
		props := obj("enum", obj("const", vm.Str(d.Name)), "variant", obj("const", vm.Str(v.Name)), "fields", fields)
		branches = append(branches, obj("type", vm.Str("object"), "properties", props,
			"required", vm.Of(vm.NewList([]vm.Value{vm.Str("enum"), vm.Str("variant"), vm.Str("fields")})),
			"additionalProperties", vm.False))
	}
	return obj("oneOf", vm.Of(vm.NewList(branches)))
}

// obj is a dict of the key/value pairs kv, in order.
func obj(kv ...any) vm.Value {
	b := vm.NewDictBuilder(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		b.Set(kv[i].(string), kv[i+1].(vm.Value))
	}
	return vm.Of(b.Build())
}
