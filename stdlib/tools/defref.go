package tools

import (
	"fmt"
	"sort"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// The tool-value builtins of the Tier 3 tools names (docs/spec/builtins.md
// §5 names them only; the forms are this implementation's, docs/tools.md
// "Tool values"):
//
//   - tool_def(name, description, config) is one definition, validated as
//     tool_define validates it, outside any registry;
//   - tool_ref(registry, name) is a registered tool whose handler runs the
//     tool as the registry runs it (validation, hooks, classification);
//   - tool_bind(tool, bound) is a tool with some arguments fixed;
//   - tool_synth_invoke(tool, args) runs any of these (and the tools of
//     tool_synthesize, synth.go) with that validation.
//
// Every result is a definition dict, so it also goes into
// tool_registry_from, tool_define(registry, definition) and therefore
// into the catalog, the CLI and MCP.

func init() {
	lib.Def("tool_def", "tool_def(name, description, config) / tool_def(definition)", "a standalone tool definition, validated as tool_define validates an entry", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		def, err := toolDef(th, a)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(def), nil
	})
	lib.Def("tool_ref", "tool_ref(registry, name)", "the registered tool named name, whose handler runs it with the registry's validation", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return toolRef(th, a)
	})
	lib.Def("tool_bind", "tool_bind(tool, bound, name?)", "a tool (renamed name when given) with the arguments in bound fixed: they leave its input schema and are merged into every call", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return toolBind(th, a)
	})
	lib.Def("tool_synth_invoke", "tool_synth_invoke(tool, args)", "run a synthesized tool (or any tool value) on args with the registry's validation; its result", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		def, err := toolDefinition("tool_synth_invoke", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		pt, err := prepareTool(th, "tool_synth_invoke", def, defComponents(def))
		if err != nil {
			return vm.Value{}, err
		}
		return invokeTool(th, pt, a.At(1))
	})
}

// defineArgs reads tool_define's arguments: (registry, name, description,
// config), or (registry, definition) with a definition dict such as
// tool_def returns, which is the first form with the name and
// description taken from the definition.
func defineArgs(a vm.Args) []vm.Value {
	if len(a) != 2 {
		return a
	}
	d, ok := a.Dict(1)
	if !ok {
		return a
	}
	name, ok := d.Get("name")
	if !ok {
		name = vm.Nil
	}
	desc, ok := d.Get("description")
	if !ok {
		desc = vm.Nil
	}
	return []vm.Value{a.At(0), name, desc, a.At(1)}
}

func toolDef(th *vm.Thread, a vm.Args) (*vm.Dict, error) {
	args := []vm.Value(a)
	if len(a) == 1 {
		d, ok := a.Dict(0)
		if !ok {
			return nil, vm.Typef("tool_def: expected a definition dict, or name, description and config, got %s", a.At(0).Type())
		}
		args = defineArgs(vm.Args{vm.Nil, vm.Of(d)})[1:]
	} else if len(a) < 3 {
		return nil, toolErr(fmt.Errorf("tool_def: requires name, description, and config dict"))
	}
	reg, err := tool.NewRegistryValue(vm.Value{}, vm.Value{}, vm.Value{})
	if err != nil {
		return nil, toolErr(err)
	}
	out, err := tool.Define(append([]vm.Value{vm.Of(reg)}, args[:3]...), toolCache(th))
	if err != nil {
		return nil, toolErr(fmt.Errorf("%s", renamePrefix(err.Error(), "tool_def")))
	}
	noteSites(th, out)
	_, tools, err := registryTools(vm.Of(out))
	if err != nil || len(tools) != 1 {
		return nil, vm.Runtimef("tool_def: internal error: no definition")
	}
	return tools[0], nil
}

// renamePrefix gives a tool_define message the name of the builtin that
// raised it.
func renamePrefix(msg, fn string) string {
	if rest, ok := strings.CutPrefix(msg, "tool_define: "); ok {
		return fn + ": " + rest
	}
	return msg
}

func toolRef(th *vm.Thread, a vm.Args) (vm.Value, error) {
	regDict, _, err := registryTools(a.At(0))
	if err != nil {
		return vm.Value{}, vm.Throwf("tool_ref: %s", notRegistry)
	}
	name, ok := a.Str(1)
	if !ok {
		return vm.Value{}, vm.Typef("tool_ref: name must be a string, got %s", a.At(1).Type())
	}
	reg, err := tool.Normalize(a.At(0), toolCache(th))
	if err != nil {
		return vm.Value{}, toolErr(fmt.Errorf("%s", fnMessage("tool_ref", err)))
	}
	t, err := findTool("tool_ref", reg, name)
	if err != nil {
		return vm.Value{}, err
	}
	comps := defComponents(regDict)
	pt, err := prepareTool(th, "tool_ref", t.Definition, comps)
	if err != nil {
		return vm.Value{}, err
	}
	ref := t.Definition.Set("_type", vm.Str(kindRef))
	if comps.IsValid() {
		ref = ref.Set("components", comps)
	}
	if localHandler(t) {
		ref = ref.Set("handler", tool.DelegateHandler("tool_ref:"+name, name+"(args)", "tool_ref of tool "+name,
			func(th *vm.Thread, a vm.Args) (vm.Value, error) { return invokeTool(th, pt, a.At(0)) },
			pt.InvokeWithoutHooks))
	}
	// the reference stands for the registered tool: a registry it joins
	// locates the tool where its definition was written
	c := toolCache(th)
	c.NoteSite(ref, c.SiteFor(t.Definition))
	noteDefSite(th, ref)
	return vm.Of(ref), nil
}

// findTool looks a tool up by name in a normalized registry; an unknown
// name is an error that proposes the closest registered name.
func findTool(fn string, reg *tool.Registry, name string) (*tool.Tool, error) {
	if t := registered(reg, name); t != nil {
		return t, nil
	}
	return nil, vm.Runtimef("%s: the registry has no tool named %q%s", fn, name, unknownToolHint(name, toolNames(reg)))
}

// maxListedTools is the most tool names an unknown-tool error lists
// when no name is close.
const maxListedTools = 10

// unknownToolHint is the end of an unknown-tool error: the closest
// registered name, else the registered names (the first
// maxListedTools, then how many more there are).
func unknownToolHint(name string, names []string) string {
	if hint := lib.DidYouMean(name, names); hint != "" {
		return hint
	}
	switch {
	case len(names) == 0:
		return " (the registry has no tools)"
	case len(names) <= maxListedTools:
		return " (its tools: " + strings.Join(names, ", ") + ")"
	}
	return fmt.Sprintf(" (its tools: %s and %d more)", strings.Join(names[:maxListedTools], ", "), len(names)-maxListedTools)
}

func toolBind(th *vm.Thread, a vm.Args) (vm.Value, error) {
	def, err := toolDefinition("tool_bind", a.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	bound, ok := a.Dict(1)
	if !ok {
		return vm.Value{}, vm.Typef("tool_bind: bound arguments must be a dict, got %s", a.At(1).Type())
	}
	comps := defComponents(def)
	inner, err := prepareTool(th, "tool_bind", def, comps)
	if err != nil {
		return vm.Value{}, err
	}
	name := inner.Name()
	if !localHandler(inner.Tool) {
		return vm.Value{}, vm.Runtimef("tool_bind: tool %q has no local handler (executor %q), so its arguments cannot be bound", name, inner.Tool.Executor)
	}
	root, _ := inner.Entry().InputSchema.Object()
	props, _ := jsonv.Member[*jsonv.Object](root, "properties")
	var already *vm.Dict // the arguments an earlier tool_bind fixed
	if prev, ok := def.Get("bound"); ok && vm.ToDisplay(lib.Get(def, "_type")) == kindBound {
		already, _ = prev.AsDict()
	}
	for _, k := range bound.Keys() {
		if already != nil && already.Has(k) && (props == nil || !props.Has(k)) {
			return vm.Value{}, vm.Runtimef("tool_bind: argument %q of tool %q is already bound by tool_bind", k, name)
		}
		if props == nil || !props.Has(k) {
			var known []string
			if props != nil {
				known = props.Keys()
			}
			return vm.Value{}, vm.Runtimef("tool_bind: tool %q has no parameter %q%s", name, k, lib.DidYouMean(k, known))
		}
		v, _ := bound.Get(k)
		if err := checkArgument(th, root, comps, name, k, v); err != nil {
			return vm.Value{}, vm.Runtimef("tool_bind: bound argument %q of tool %q %s", k, name, err.Error())
		}
	}
	rename := ""
	if a.Given(2) {
		nv := a.At(2)
		n, ok := nv.AsString()
		if !ok {
			return vm.Value{}, vm.Typef("tool_bind: name must be a non-empty string, got %s", nv.Type())
		}
		if n.Go() == "" {
			return vm.Value{}, vm.Runtimef(`tool_bind: name must be a non-empty string, got ""`)
		}
		rename = n.Go()
	}
	out := boundDefinition(def, root, bound, rename)
	merged := bound
	if already != nil {
		merged = already.Merge(bound)
	}
	out = out.Set("_type", vm.Str(kindBound)).Set("bound", vm.Of(merged))
	// The bound tool's handler runs it as adapters do: its own call (its
	// hooks, its input schema), whose Delegate calls the original tool on
	// the arguments with the bound ones added. Renamed, the bound tool is
	// a tool of its own name, and the hooks of the original's name apply
	// too, within the same call (docs/tools.md, Tool hooks).
	renamed := rename != "" && rename != name
	var self *tool.PreparedTool
	run := func(th *vm.Thread, args any) *tool.Outcome {
		j, err := withBound(inner, bound, args)
		if err != nil {
			return &tool.Outcome{Kind: tool.RuntimeFailure, Summary: err.Error(), Err: vm.AsError(err)}
		}
		if renamed {
			return inner.InvokeWithin(th, j)
		}
		return inner.InvokeWithoutHooks(th, j)
	}
	out = out.Set("handler", tool.DelegateHandler("tool_bind:"+name, name+"(args)", "tool_bind of tool "+name,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			if given, ok := a.At(0).AsDict(); ok {
				if err := checkNotBound(inner, bound, given); err != nil {
					return vm.Value{}, err // before the schema, which may refuse the key less clearly
				}
			}
			return invokeTool(th, self, a.At(0))
		}, run))
	self, err = prepareTool(th, "tool_bind", out, comps)
	if err != nil {
		return vm.Value{}, err
	}
	noteDefSite(th, out)
	return vm.Of(out), nil
}

// withBound is the JSON arguments of a call of a bound tool with its
// bound arguments added, for the tool it binds; giving one of them is an
// error. Arguments that are not an object pass unchanged, for the
// tool's schema to report.
func withBound(inner *tool.PreparedTool, bound *vm.Dict, args any) (any, error) {
	given, ok := tool.FromJSON(args).AsDict()
	if !ok {
		return args, nil
	}
	if err := checkNotBound(inner, bound, given); err != nil {
		return nil, err
	}
	return jsonArgs(inner, vm.Of(given.Merge(bound)))
}

// checkNotBound refuses given arguments that name a bound one.
func checkNotBound(inner *tool.PreparedTool, bound, given *vm.Dict) error {
	for _, k := range bound.Keys() {
		if given.Has(k) {
			return vm.Runtimef("tool %q argument %q is bound by tool_bind and cannot be given", inner.Name(), k)
		}
	}
	return nil
}

// boundDefinition is def with the bound properties taken out of its
// input schema (now a complete `inputSchema`) and out of its
// `cli.arguments`, the remaining positionals renumbered densely. A
// non-empty rename names the result; an explicit `cli.command` then ends
// in the new name and the aliases go, so that the result can be
// published next to the original (docs/tools.md, tool_bind).
func boundDefinition(def *vm.Dict, root *jsonv.Object, bound *vm.Dict, rename string) *vm.Dict {
	schema := root.Copy()
	if props, ok := jsonv.Member[*jsonv.Object](root, "properties"); ok {
		kept := props.Copy()
		for _, k := range bound.Keys() {
			kept = kept.Without(k)
		}
		schema.Set("properties", kept)
	}
	if req, ok := jsonv.Member[[]any](root, "required"); ok {
		var kept []any
		for _, r := range req {
			if s, ok := r.(string); !ok || !bound.Has(s) {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			schema = schema.Without("required")
		} else {
			schema.Set("required", kept)
		}
	}
	out := def
	// A synthesized tool's own keys describe the tool being bound, not
	// the bound one (whose handler is not the steps').
	for _, k := range []string{"parameters", "input_schema", "inputSchema", "steps", "result", "hash"} {
		out = out.Delete(k)
	}
	out = out.Set("inputSchema", tool.FromJSON(schema))
	if rename != "" {
		out = out.Set("name", vm.Str(rename))
	}
	cv, ok := def.Get("cli")
	if !ok {
		return out
	}
	cli, ok := cv.AsDict()
	if !ok {
		return out
	}
	if av, ok := cli.Get("arguments"); ok {
		if args, ok := av.AsDict(); ok {
			for _, k := range bound.Keys() {
				args = args.Delete(k)
			}
			cli = cli.Set("arguments", vm.Of(densePositions(args)))
		}
	}
	if rename != "" {
		if pv, ok := cli.Get("command"); ok {
			if path, ok := pv.AsList(); ok && path.Len() > 0 {
				words := append([]vm.Value(nil), path.Items()...)
				words[len(words)-1] = vm.Str(rename)
				cli = cli.Set("command", vm.Of(vm.NewList(words)))
			}
		}
		cli = cli.Delete("aliases")
	}
	return out.Set("cli", vm.Of(cli))
}

// densePositions is CLI arguments with the `position`s renumbered 0, 1,
// … in their order, as the catalog requires after bound positionals
// leave.
func densePositions(args *vm.Dict) *vm.Dict {
	type positional struct {
		key string
		pos int64
	}
	var ps []positional
	for _, k := range args.Keys() {
		spec, ok := lib.Get(args, k).AsDict()
		if !ok {
			continue
		}
		if p, ok := spec.Get("position"); ok {
			if n, ok := p.AsInt(); ok {
				ps = append(ps, positional{k, int64(n)})
			}
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].pos < ps[j].pos })
	for i, p := range ps {
		if p.pos == int64(i) {
			continue
		}
		spec, _ := lib.Get(args, p.key).AsDict()
		args = args.Set(p.key, vm.Of(spec.Set("position", vm.IntOf(int64(i)))))
	}
	return args
}

// rootKeywords are the keywords of an input schema an argument check
// keeps besides the one property: what a property schema's references
// may point into.
var rootKeywords = []string{"$schema", "$id", "$defs", "definitions"}

// checkArgument validates one argument value against its property schema
// in the tool's input schema root (with the components the tool carries).
// The error text continues "argument "k" of tool "X" …".
func checkArgument(th *vm.Thread, root *jsonv.Object, comps vm.Value, toolName, key string, v vm.Value) error {
	j, err := tool.ToJSON(v)
	if err != nil {
		return fmt.Errorf("has no portable JSON form")
	}
	props, _ := jsonv.Member[*jsonv.Object](root, "properties")
	ps, _ := props.Get(key)
	doc := jsonv.NewObject(6)
	for _, k := range rootKeywords {
		if x, ok := root.Get(k); ok {
			doc.Set(k, x)
		}
	}
	doc.Set("type", "object")
	doc.Set("properties", jsonv.Obj(key, ps))
	b := vm.NewDictBuilder(3)
	b.Set("name", vm.Str(toolName))
	b.Set("inputSchema", tool.FromJSON(doc))
	b.Set("executor", vm.Str("provider_native"))
	reg, err := tool.Normalize(vm.Of(standaloneRegistry(b.Build(), comps)), nil)
	if err != nil {
		return fmt.Errorf("cannot be checked: %s", tool.Message(err, ""))
	}
	p, err := tool.Prepare(reg)
	if err != nil {
		return fmt.Errorf("cannot be checked: %s", err.Error())
	}
	pt, _ := p.Tool(toolName)
	if err := pt.ValidateInput(jsonv.Obj(key, j)); err != nil {
		if ce, ok := err.(*tool.ContractError); ok {
			return fmt.Errorf("violates its schema: %s", ce.Details)
		}
		return err
	}
	return nil
}

// sortedNames is the sorted key set of a string set.
func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
