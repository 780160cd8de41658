package tool

import (
	"fmt"
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/vm"
)

// The functions below implement the Harn-facing constructors
// (tool_registry, tool_define, tool_registry_from, tool_project). Their
// errors carry the complete message a script sees.

// NewRegistryValue builds an empty registry (tool_registry(info?,
// components?, cli?)) after validating the options.
func NewRegistryValue(info, components, cli vm.Value) (*vm.Dict, error) {
	b := vm.NewDictBuilder(5)
	b.Set("_type", vm.Str(RegistryType))
	b.Set("tools", vm.Of(vm.NewList(nil)))
	for _, o := range []struct {
		key string
		v   vm.Value
	}{{"info", info}, {"components", components}, {"cli", cli}} {
		if o.v.IsValid() && !o.v.IsNil() {
			b.Set(o.key, o.v)
		}
	}
	d := b.Build()
	// The options are checked now, alone, with the whole-registry rules
	// that concern them (component reference closure, docs/spec/registry.md
	// §1); the tools come later.
	cat := &Catalog{}
	err := normalizeOptions(d, cat)
	if err == nil {
		err = checkCatalog(cat, labelTool)
	}
	if err != nil {
		return nil, fmt.Errorf("%s", Message(err, "tool_registry: "))
	}
	return d, nil
}

// storedDefinition is a definition as the registry keeps it: the
// complete-schema spelling input_schema moves onto inputSchema, and
// execution_policy's keys are merged into annotations with the explicit
// annotations keys winning, as upstream tool_define does
// (docs/spec/registry.md §2.4), so runtime readers of annotations see
// the classification. The catalog's annotation filter drops those keys.
// def has been validated: execution_policy and annotations are records.
func storedDefinition(def *vm.Dict) *vm.Dict {
	if v, ok := field(def, "input_schema"); ok && !def.Has("inputSchema") {
		def = def.Delete("input_schema").Set("inputSchema", v)
	}
	if v, ok := field(def, "execution_policy"); ok {
		if policy, ok := v.AsDict(); ok {
			merged := policy
			if a, ok := field(def, "annotations"); ok {
				if ann, ok := a.AsDict(); ok {
					for _, k := range ann.Keys() {
						av, _ := ann.Get(k)
						merged = merged.Set(k, av)
					}
				}
			}
			def = def.Set("annotations", vm.Of(merged))
		}
	}
	return def
}

// defineEntry validates one definition and returns its stored form.
func defineEntry(def *vm.Dict, index int, cache *Cache) (*vm.Dict, error) {
	t, err := NormalizeEntry(def, index, cache)
	if err != nil {
		return nil, fmt.Errorf("%s", Message(err, ""))
	}
	stored := storedDefinition(def)
	if stored != def {
		c := *t
		c.Definition = stored
		cache.putEntry(stored, &c)
	}
	return stored, nil
}

// Define implements tool_define(registry, name, description, config):
// the entry is validated at once; an entry of the same name is removed
// and the new one appended.
func Define(args []vm.Value, cache *Cache) (*vm.Dict, error) {
	if len(args) < 4 {
		return nil, fmt.Errorf("tool_define: requires registry, name, description, and config dict")
	}
	reg, ok := args[0].AsDict()
	if !ok || !IsRegistry(vm.Of(reg)) {
		return nil, fmt.Errorf("tool_define: first argument must be a tool registry")
	}
	config, ok := args[3].AsDict()
	if !ok {
		return nil, fmt.Errorf("tool_define: config must be a dict with parameters and handler")
	}
	if IsRegistry(args[3]) {
		return nil, fmt.Errorf("tool_define: the definition is a tool registry (a `tool` declaration binds one), not a definition; take its tool with tool_ref(registry, name)")
	}
	name, ok := str(args[1])
	if !ok || blank(name) {
		return nil, fmt.Errorf("tool_define: tool registry entry field \"name\" must be a non-empty string")
	}
	def := config.Set("name", args[1])
	if !args[2].IsNil() {
		def = def.Set("description", args[2])
	}
	var kept []vm.Value
	if tv, ok := field(reg, "tools"); ok {
		if l, ok := tv.AsList(); ok {
			for _, it := range l.Items() {
				if d, ok := it.AsDict(); ok {
					if n, _ := d.Get("name"); n.IsValid() && vm.Equal(n, args[1]) {
						continue
					}
				}
				kept = append(kept, it)
			}
		}
	}
	stored, err := defineEntry(def, len(kept), cache)
	if err != nil {
		return nil, err
	}
	if reg, err = adoptComponents(reg, stored, "tool_define"); err != nil {
		return nil, err
	}
	return reg.Set("tools", vm.Of(vm.NewList(append(kept, vm.Of(stored))))), nil
}

// adoptComponents returns reg with the named schemas def carries under
// its own `components` key added to reg's components.schemas. A tool
// value made from a registry with components (tool_ref, tool_bind,
// tool_synthesize; docs/tools.md "Tool values") carries them so that it
// runs alone; adopting them lets its "#/components/schemas/…"
// references resolve in the registry it joins, so it publishes like any
// definition. A name reg already has must hold an equal schema. Values
// of another shape are left to normalization.
func adoptComponents(reg, def *vm.Dict, builtin string) (*vm.Dict, error) {
	carried := componentSchemas(def)
	if carried == nil || carried.Len() == 0 {
		return reg, nil
	}
	comps := vm.NewDict()
	if v, ok := field(reg, "components"); ok {
		d, ok := v.AsDict()
		if !ok {
			return reg, nil
		}
		comps = d
	}
	schemas := vm.NewDict()
	if v, ok := field(comps, "schemas"); ok {
		d, ok := v.AsDict()
		if !ok {
			return reg, nil
		}
		schemas = d
	}
	merged := schemas
	for _, name := range carried.Keys() {
		s, _ := carried.Get(name)
		if have, ok := schemas.Get(name); ok {
			if !vm.Equal(have, s) {
				n, _ := str(dictGet(def, "name"))
				return nil, fmt.Errorf("%s: tool %q carries component %q, which the registry defines differently", builtin, n, name)
			}
			continue
		}
		merged = merged.Set(name, s)
	}
	if merged == schemas { // every carried schema is there already
		return reg, nil
	}
	return reg.Set("components", vm.Of(comps.Set("schemas", vm.Of(merged)))), nil
}

// componentSchemas is d's components.schemas when both are dicts, else
// nil.
func componentSchemas(d *vm.Dict) *vm.Dict {
	v, ok := field(d, "components")
	if !ok {
		return nil
	}
	c, ok := v.AsDict()
	if !ok {
		return nil
	}
	sv, ok := field(c, "schemas")
	if !ok {
		return nil
	}
	s, _ := sv.AsDict()
	return s
}

// RegistryFrom implements tool_registry_from(definitions, options?).
func RegistryFrom(defs, options vm.Value, cache *Cache) (*vm.Dict, error) {
	l, ok := defs.AsList()
	if !ok {
		switch {
		case IsRegistry(defs):
			return nil, fmt.Errorf("tool_registry_from: definitions is a tool registry already (a `tool` declaration binds one); use it as it is, or take its tools with tool_ref(registry, name)")
		case defs.Type() == "dict":
			return nil, fmt.Errorf("tool_registry_from: definitions must be a list of tool definitions, got one dict; wrap it in a list: [definition]")
		}
		return nil, fmt.Errorf("tool_registry_from: definitions must be a list of tool definitions, got %s", defs.Type())
	}
	var info, comps, cli vm.Value
	if options.IsValid() && !options.IsNil() {
		od, ok := options.AsDict()
		if !ok {
			return nil, fmt.Errorf("tool_registry_from: options must be a dict, got %s", options.Type())
		}
		for _, k := range od.Keys() {
			v, _ := od.Get(k)
			switch k {
			case "info":
				info = v
			case "components":
				comps = v
			case "cli":
				cli = v
			default:
				return nil, fmt.Errorf("tool_registry_from: options contains unknown key %q%s", k, diag.DidYouMean(k, []string{"info", "components", "cli"}))
			}
		}
	}
	reg, err := NewRegistryValue(info, comps, cli)
	if err != nil {
		return nil, fmt.Errorf("%s", strings.Replace(err.Error(), "tool_registry: ", "tool_registry_from: ", 1))
	}
	seen := map[string]bool{}
	stored := make([]vm.Value, 0, l.Len())
	for i, it := range l.Items() {
		def, ok := it.AsDict()
		if !ok {
			return nil, fmt.Errorf("tool_registry_from: definitions[%d] must be a tool definition dict, got %s", i, it.Type())
		}
		if IsRegistry(it) {
			return nil, fmt.Errorf("tool_registry_from: definitions[%d] is a tool registry (a `tool` declaration binds one), not a definition; take its tool with tool_ref(registry, name)", i)
		}
		s, err := defineEntry(def, i, cache)
		if err != nil {
			return nil, err
		}
		if reg, err = adoptComponents(reg, s, "tool_registry_from"); err != nil {
			return nil, err
		}
		name, _ := s.Get("name")
		n, _ := str(name)
		if seen[n] {
			return nil, fmt.Errorf("invalid tool catalog: tool registry contains duplicate tool name %q", n)
		}
		seen[n] = true
		stored = append(stored, vm.Of(s))
	}
	out := reg.Set("tools", vm.Of(vm.NewList(stored)))
	if _, err := Normalize(vm.Of(out), cache); err != nil {
		return nil, fmt.Errorf("%s", Message(err, ""))
	}
	return out, nil
}

// ParseAudience reads an audience argument.
func ParseAudience(v vm.Value, builtin string) (Audience, error) {
	s, _ := str(v)
	a := Audience(s)
	if audienceRank(a) < 0 {
		return "", fmt.Errorf("%s: unknown audience %q; expected one of cli, mcp, catalog, dashboard, agent", builtin, display(v))
	}
	return a, nil
}

// ProjectValue implements tool_project(value, audience): the executable
// projection keeps handler closures, outer registry fields and order.
func ProjectValue(v, audience vm.Value, cache *Cache) (vm.Value, error) {
	var regValue *vm.Dict
	bare := false
	switch x := v.Object().(type) {
	case *vm.Dict:
		if !IsRegistry(v) {
			return vm.Value{}, fmt.Errorf("tool projection requires a tool registry or list of tool definitions")
		}
		regValue = x
	case *vm.List:
		bare = true
		b := vm.NewDictBuilder(2)
		b.Set("_type", vm.Str(RegistryType))
		b.Set("tools", v)
		regValue = b.Build()
		for i, it := range x.Items() {
			d, ok := it.AsDict()
			if !ok {
				return vm.Value{}, fmt.Errorf("tool_project: definitions[%d] must be a tool definition dict, got %s", i, it.Type())
			}
			var err error
			if regValue, err = adoptComponents(regValue, d, "tool_project"); err != nil {
				return vm.Value{}, err
			}
		}
	default:
		return vm.Value{}, fmt.Errorf("tool projection requires a tool registry or list of tool definitions")
	}
	a, err := ParseAudience(audience, "tool_project")
	if err != nil {
		return vm.Value{}, err
	}
	reg, err := Normalize(vm.Of(regValue), cache)
	if err != nil {
		return vm.Value{}, fmt.Errorf("%s", Message(err, ""))
	}
	var kept []vm.Value
	for _, t := range reg.Tools {
		if t.Entry.Governance.Allows(a) {
			kept = append(kept, vm.Of(t.Definition))
		}
	}
	if bare {
		return vm.Of(vm.NewList(kept)), nil
	}
	return vm.Of(regValue.Set("tools", vm.Of(vm.NewList(kept)))), nil
}

// ExpandRegistries replaces each tool registry in a tools list (the
// tools option of agent_loop, agent and llm_call) by its tools, so `tools: [weather, add]` works when both are `tool`
// declarations (each binds a one-tool registry, docs/spec/language.md
// §9.3). A registry's components travel with each of its tools. from
// gives, for each item of the result, the index of the list item it
// came from, so an error names the position the author wrote.
func ExpandRegistries(items []vm.Value) (out []vm.Value, from []int) {
	out = make([]vm.Value, 0, len(items))
	from = make([]int, 0, len(items))
	for i, it := range items {
		d, ok := it.AsDict()
		if !ok || vm.ToDisplay(dictGet(d, "_type")) != RegistryType {
			out, from = append(out, it), append(from, i)
			continue
		}
		comps := dictGet(d, "components")
		if tl, ok := dictGet(d, "tools").AsList(); ok {
			for _, t := range tl.Items() {
				if td, ok := t.AsDict(); ok && !comps.IsNil() && !td.Has("components") {
					t = vm.Of(td.Set("components", comps))
				}
				out, from = append(out, t), append(from, i)
			}
		}
	}
	return out, from
}

// dictGet is d[k], nil when absent.
func dictGet(d *vm.Dict, k string) vm.Value {
	if v, ok := d.Get(k); ok {
		return v
	}
	return vm.Nil
}
