package tools

import (
	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/syntax"
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
	params := vm.NewDictBuilder(len(def.Params))
	for _, p := range def.Params {
		params.Set(p.Name, paramDefinition(p))
	}
	config := vm.NewDictBuilder(2)
	config.Set("parameters", vm.Of(params.Build()))
	config.Set("handler", vm.Of(vm.NewBuiltin(def.Name, def.Name+"(args)", "handler of tool "+def.Name, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		args, err := positional(def, a.At(0))
		if err != nil {
			return vm.Value{}, err
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
// declared parameter: its annotation as a type name, required unless it
// has a default or admits nil.
func paramDefinition(p compiler.ToolParam) vm.Value {
	b := vm.NewDictBuilder(2)
	typ, optional := shorthand(p.Type)
	if typ != "" {
		b.Set("type", vm.Str(typ))
	}
	b.Set("required", vm.BoolOf(!p.HasDefault && !optional))
	return vm.Of(b.Build())
}

// shorthand maps a parameter annotation to a legacy type name ("" for an
// unconstrained parameter) and reports whether the annotation admits nil.
func shorthand(t syntax.TypeExpr) (name string, optional bool) {
	switch t := t.(type) {
	case nil:
		return "", false
	case *syntax.OptionalType:
		name, _ = shorthand(t.Elem)
		return name, true
	case *syntax.NilType:
		return "null", true
	case *syntax.ListType:
		return "list", false
	case *syntax.ShapeType:
		return "dict", false
	case *syntax.LiteralType:
		if _, ok := t.Value.(string); ok {
			return "string", false
		}
		return "int", false
	case *syntax.NamedType:
		switch t.Name {
		case "int", "float", "bool", "string", "list", "dict":
			return t.Name, false
		}
	}
	return "", false
}

// positional turns the validated argument object into the body's
// positional arguments: each parameter up to the last one given; one left
// out before a given one gets its literal default, else nil.
func positional(def *compiler.ToolDef, v vm.Value) ([]vm.Value, error) {
	obj, _ := v.AsDict()
	if obj == nil {
		if v.IsValid() && !v.IsNil() {
			return nil, vm.Typef("tool %s: arguments must be a dict, got %s", def.Name, v.Type())
		}
		obj = vm.NewDict()
	}
	last := -1
	for i, p := range def.Params {
		if obj.Has(p.Name) {
			last = i
		}
	}
	out := make([]vm.Value, 0, last+1)
	for i := 0; i <= last; i++ {
		p := def.Params[i]
		if given, ok := obj.Get(p.Name); ok {
			out = append(out, given)
			continue
		}
		out = append(out, literalDefault(def.Decl, i))
	}
	return out, nil
}

func literalDefault(decl *syntax.ToolDecl, i int) vm.Value {
	if decl == nil || i >= len(decl.Params) {
		return vm.Nil
	}
	switch d := decl.Params[i].Default.(type) {
	case *syntax.IntLit:
		return vm.IntOf(d.Value)
	case *syntax.FloatLit:
		return vm.FloatOf(d.Value)
	case *syntax.StringLit:
		return vm.Str(d.Value)
	case *syntax.BoolLit:
		return vm.BoolOf(d.Value)
	}
	return vm.Nil
}
