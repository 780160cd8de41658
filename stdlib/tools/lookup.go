package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Registry queries of the Tier 3 tools names (docs/spec/builtins.md §5): counting,
// finding, listing, selecting and removing the definitions of a
// ToolRegistry value. They read and rebuild the registry dict only; the
// contract's checks run when the result is published or projected.

func init() {
	lib.Def("tool_count", "tool_count(registry) -> int", "the number of tools in the registry", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		_, tools, err := builtinTools("tool_count", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return lib.IntOf(len(tools)), nil
	})
	lib.Def("tool_find", "tool_find(registry, name)", "the definition of the tool named name, or nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		_, tools, err := builtinTools("tool_find", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		name, ok := a.Str(1)
		if !ok {
			return vm.Value{}, vm.Typef("tool_find: name must be a string, got %s", a.At(1).Type())
		}
		for _, t := range tools {
			if toolName(t) == name {
				return vm.Of(t), nil
			}
		}
		return vm.Nil, nil
	})
	lib.Def("tool_list", "tool_list(registry) -> list<dict>", "the {name, description, parameters} of each tool in registry order (parameters only when the definition has them; never the handler)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		_, tools, err := builtinTools("tool_list", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		out := make([]vm.Value, len(tools))
		for i, t := range tools {
			out[i] = vm.Of(toolSummary(t))
		}
		return vm.Of(lib.List(out)), nil
	})
	lib.Def("tool_describe", "tool_describe(registry, name?)", `without a name, an "Available tools:" text with one "- name(params): description" line per tool, sorted by name; with one, "name: description" of that tool (just the name when it has no description), or nil`, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		_, tools, err := builtinTools("tool_describe", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		if a.Len() < 2 {
			return vm.Str(describeAll(tools)), nil
		}
		name, ok := a.Str(1)
		if !ok {
			return vm.Value{}, vm.Typef("tool_describe: name must be a string, got %s", a.At(1).Type())
		}
		for _, t := range tools {
			if toolName(t) == name {
				desc := toolDescription(t)
				if desc == "" {
					return vm.Str(toolName(t)), nil
				}
				return vm.Str(toolName(t) + ": " + desc), nil
			}
		}
		return vm.Nil, nil
	})
	lib.Def("tool_remove", "tool_remove(registry, name)", "the registry without the tool named name", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		name, ok := a.Str(1)
		if !ok {
			return vm.Value{}, vm.Typef("tool_remove: name must be a string, got %s", a.At(1).Type())
		}
		return filterTools("tool_remove", a.At(0), func(n string) bool { return n != name })
	})
	lib.Def("tool_select", "tool_select(registry, names)", "the registry with only the named tools, in registry order", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		want := map[string]bool{}
		l, ok := a.List(1)
		if !ok {
			return vm.Value{}, vm.Typef("tool_select: names must be a list, got %s", a.At(1).Type())
		}
		for i, n := range l.Items() {
			s, isStr := n.AsString()
			if !isStr {
				return vm.Value{}, vm.Typef("tool_select: names[%d] must be a string, got %s", i, n.Type())
			}
			want[s.Go()] = true
		}
		return filterTools("tool_select", a.At(0), func(name string) bool { return want[name] })
	})
}

// registryTools checks that v is a registry (docs/spec/registry.md §1) and returns
// it with its definitions.
func registryTools(v vm.Value) (*vm.Dict, []*vm.Dict, error) {
	d, ok := v.AsDict()
	if ok {
		if t, has := d.Get("_type"); has && vm.ToDisplay(t) == "tool_registry" {
			var out []*vm.Dict
			if l, ok := lib.Get(d, "tools").AsList(); ok {
				for _, it := range l.Items() {
					if def, ok := it.AsDict(); ok {
						out = append(out, def)
					}
				}
			}
			return d, out, nil
		}
	}
	return nil, nil, vm.Throwf("%s", notRegistry)
}

// builtinTools is registryTools for the builtin fn, whose name starts
// the error.
func builtinTools(fn string, v vm.Value) (*vm.Dict, []*vm.Dict, error) {
	reg, tools, err := registryTools(v)
	if err != nil {
		return nil, nil, vm.Throwf("%s: %s", fn, notRegistry)
	}
	return reg, tools, nil
}

// notRegistry is the message of docs/spec/registry.md §1 for a value that is not a registry.
const notRegistry = "expected a tool registry created with tool_registry()"

func toolName(def *vm.Dict) string { return vm.ToDisplay(lib.Get(def, "name")) }

func filterTools(fn string, v vm.Value, keep func(name string) bool) (vm.Value, error) {
	reg, tools, err := builtinTools(fn, v)
	if err != nil {
		return vm.Value{}, err
	}
	var out []vm.Value
	for _, t := range tools {
		if keep(toolName(t)) {
			out = append(out, vm.Of(t))
		}
	}
	return vm.Of(reg.Set("tools", vm.Of(lib.List(out)))), nil
}

// toolSummary is the tool_list entry of a definition: its name,
// description and legacy parameters map, without the handler.
func toolSummary(def *vm.Dict) *vm.Dict {
	out := vm.NewDict()
	for _, k := range []string{"name", "description", "parameters"} {
		if v, ok := def.Get(k); ok {
			out = out.Set(k, v)
		}
	}
	return out
}

func toolDescription(def *vm.Dict) string {
	desc, _ := def.Get("description")
	if !desc.IsValid() || desc.IsNil() {
		return ""
	}
	return vm.ToDisplay(desc)
}

// describeAll is the one-argument tool_describe: a line per tool,
// sorted by name, with its parameters as paramList renders them and its
// description (no ": " when it has none, as the one-tool form).
func describeAll(tools []*vm.Dict) string {
	if len(tools) == 0 {
		return "Available tools:\n(none)"
	}
	lines := make([]string, 0, len(tools))
	for _, t := range tools {
		line := fmt.Sprintf("- %s(%s)", toolName(t), strings.Join(paramList(t), ", "))
		if desc := toolDescription(t); desc != "" {
			line += ": " + desc
		}
		lines = append(lines, line)
	}
	slices.Sort(lines)
	return "Available tools:\n" + strings.Join(lines, "\n")
}
