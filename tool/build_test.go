package tool

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// TestStoredAnnotationsMergePolicy: tool_define and tool_registry_from
// store execution_policy's keys in annotations, explicit annotation keys
// winning (docs/spec/registry.md §2.4), without changing the catalog.
func TestStoredAnnotationsMergePolicy(t *testing.T) {
	defs := jv(t, `[
	  {"name":"a","execution_policy":{"kind":"read","side_effect_level":"none"}},
	  {"name":"b","execution_policy":{"kind":"read","side_effect_level":"none"},"annotations":{"kind":"edit","readOnlyHint":true}},
	  {"name":"c","annotations":{"inline_result":true}}
	]`).Object().(*vm.List)
	items := make([]vm.Value, defs.Len())
	for i, d := range defs.Items() {
		items[i] = withHandler(d)
	}
	reg, err := RegistryFrom(vm.Of(vm.NewList(items)), vm.Nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := reg.Get("tools")
	want := []string{
		`{kind: read, side_effect_level: none}`,
		`{kind: edit, readOnlyHint: true, side_effect_level: none}`,
		`{inline_result: true}`,
	}
	for i, it := range tools.Object().(*vm.List).Items() {
		ann, _ := it.Object().(*vm.Dict).Get("annotations")
		if got := vm.ToDisplay(ann); got != want[i] {
			t.Errorf("tool %d annotations = %s, want %s", i, got, want[i])
		}
	}
	r, err := Normalize(vm.Of(reg), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := string(r.CatalogFor(AudienceCatalog).Marshal())
	for _, frag := range []string{`"annotations":{"readOnlyHint":true}`, `"policy":{"kind":"read","side_effect_level":"none"}`} {
		if !contains(got, frag) {
			t.Errorf("catalog %s lacks %s", got, frag)
		}
	}
}

// TestDefineAdoptsCarriedComponents: a definition carrying components
// (a tool value made from a registry with components) joins a registry
// with them, so its references resolve there; an equal schema of the
// same name is shared, a different one refused (docs/tools.md "Tool
// values").
func TestDefineAdoptsCarriedComponents(t *testing.T) {
	def := withHandler(jv(t, `{"name":"norm","inputSchema":{"type":"object","properties":{"p":{"$ref":"#/components/schemas/Pt"}}},
	  "components":{"schemas":{"Pt":{"type":"object"}}}}`))
	empty, err := NewRegistryValue(vm.Nil, vm.Nil, vm.Nil)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := Define([]vm.Value{vm.Of(empty), vm.Str("norm"), vm.Nil, def}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := vm.ToDisplay(dictGet(reg, "components")); got != `{schemas: {Pt: {type: object}}}` {
		t.Errorf("components = %s", got)
	}
	if _, err := Normalize(vm.Of(reg), nil); err != nil {
		t.Errorf("normalize: %v", err)
	}
	from, err := RegistryFrom(vm.Of(vm.NewList([]vm.Value{def})), jv(t, `{"components":{"schemas":{"Pt":{"type":"object"}}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := vm.ToDisplay(dictGet(from, "components")); got != `{schemas: {Pt: {type: object}}}` {
		t.Errorf("shared components = %s", got)
	}
	other, err := NewRegistryValue(vm.Nil, jv(t, `{"schemas":{"Pt":{"type":"string"}}}`), vm.Nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Define([]vm.Value{vm.Of(other), vm.Str("norm"), vm.Nil, def}, nil)
	wantError(t, err, `tool_define: tool "norm" carries component "Pt", which the registry defines differently`)
}

// TestDefineRefusesRegistryAsDefinition: a registry (what a `tool`
// declaration binds) given where the definition goes is refused with a
// hint, as tool_registry_from refuses it.
func TestDefineRefusesRegistryAsDefinition(t *testing.T) {
	inner, err := NewRegistryValue(vm.Nil, vm.Nil, vm.Nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Define([]vm.Value{vm.Of(inner), vm.Nil, vm.Nil, vm.Of(inner)}, nil)
	wantError(t, err, "tool_define: the definition is a tool registry (a `tool` declaration binds one), not a definition; take its tool with tool_ref(registry, name)")
}
