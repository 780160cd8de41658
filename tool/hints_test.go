package tool

import (
	"slices"
	"testing"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/vm"
)

// TestSingleDefinition: a dict naming a tool with a handler, an executor
// or an input schema reads as one definition; registries, typed values
// and other dicts do not.
func TestSingleDefinition(t *testing.T) {
	for _, c := range []struct {
		json string
		name string
	}{
		{`{"name":"add","parameters":{}}`, "add"},
		{`{"name":"run","executor":"host_bridge"}`, "run"},
		{`{"name":"s","inputSchema":{"type":"object"}}`, "s"},
		{`{"name":"bare"}`, ""},
		{`{"add":"x"}`, ""},
		{`{"_type":"tool_ref","name":"r","parameters":{}}`, "r"},
		{`{"_type":"tool_registry","name":"r","tools":[],"parameters":{}}`, ""},
		{`[{"name":"add","parameters":{}}]`, ""},
	} {
		name, ok := SingleDefinition(jv(t, c.json))
		if name != c.name || ok != (c.name != "") {
			t.Errorf("SingleDefinition(%s) = %q, %v; want %q", c.json, name, ok, c.name)
		}
	}
	if h := SingleDefinitionHint(withHandler(jv(t, `{"name":"add"}`))); h != `got the single tool definition "add"; wrap it in a list: tools: [def]` {
		t.Errorf("hint = %q", h)
	}
}

// TestExpandRegistriesOrigins: each expanded tool records the index of
// the list item it came from, so errors name the author's position.
func TestExpandRegistriesOrigins(t *testing.T) {
	reg := registry(t, `[{"name":"a"},{"name":"b"}]`, "")
	items := []vm.Value{reg, vm.IntOf(5), withHandler(jv(t, `{"name":"c"}`))}
	out, from := ExpandRegistries(items)
	if len(out) != 4 || !slices.Equal(from, []int{0, 0, 1, 2}) {
		t.Fatalf("got %d items from %v", len(out), from)
	}
}

// TestHookArgsByArity: a one-parameter pre/post closure gets the payload
// alone; any other callable gets the tool name first.
func TestHookArgsByArity(t *testing.T) {
	one := oneParamClosure(t)
	if got := hookArgs(one, "t", vm.IntOf(7)); len(got) != 1 || vm.ToDisplay(got[0]) != "7" {
		t.Errorf("one-parameter closure got %v", got)
	}
	if got := hookArgs(vm.Of(echoHandler), "t", vm.IntOf(7)); len(got) != 2 || vm.ToDisplay(got[0]) != "t" {
		t.Errorf("builtin got %v", got)
	}
}

// oneParamClosure is a closure value declaring one parameter (never
// called: hookArgs reads only its prototype).
func oneParamClosure(t *testing.T) vm.Value {
	t.Helper()
	return vm.Of(&vm.Closure{Proto: &compiler.Func{Name: "post", Params: []compiler.Param{{Name: "result"}}}})
}
