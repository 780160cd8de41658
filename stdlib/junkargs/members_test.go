package junkargs_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// Some builtins are not in the descriptor table: they are made at run
// time as the members of a value (the handlers of tool_ref and tool_bind,
// the methods of a trigger test harness) or of a host global namespace
// (stream.*). memberFactories are Harn expressions that make such values;
// the sweep calls every builtin member of each, like the table's
// builtins.
var memberFactories = map[string]string{
	"trigger_test_harness()": "trigger_test_harness()",
	"tool_ref":               `tool_ref(tool_define(tool_registry(), "t", "T", {parameters: {a: "int"}, handler: { args -> args }}), "t")`,
	"tool_bind":              `tool_bind(tool_ref(tool_define(tool_registry(), "t", "T", {parameters: {a: "int", b: "string"}, handler: { args -> args }}), "t"), {a: 1})`,
}

// memberTargets lists the builtin members of the factories' values and
// of the universe's namespace globals.
func memberTargets(t testing.TB) []target {
	var out []target
	keys := make([]string, 0, len(memberFactories))
	for k := range memberFactories {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, label := range keys {
		expr := memberFactories[label]
		src := fmt.Sprintf("let v = %s\nprintln(join(keys(v).filter({ k -> type_of(v[k]) == \"builtin\" }), \",\"))\n", expr)
		res := interp.RunProgram("members.harn", []byte(src), interp.Options{Warnings: interp.WarningsOff})
		if res.Err != nil {
			t.Fatalf("members of %s: %v", label, res.Err)
		}
		names := strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(res.Stdout)), ",", " "))
		if len(names) == 0 {
			t.Fatalf("%s has no builtin members", label)
		}
		for _, n := range names {
			out = append(out, target{name: label + "." + n, call: []string{"(" + expr + ")." + n + "(%s)"}})
		}
	}
	u := stdlib.NewUniverse(stdlib.Config{})
	namespaced := 0
	for _, g := range u.GlobalNames() {
		v, _ := u.Global(g)
		for _, n := range namespaceMembers(v) {
			out = append(out, target{name: g + "." + n, call: []string{g + "." + n + "(%s)"}})
			namespaced++
		}
	}
	if namespaced == 0 {
		t.Fatal("no namespace global has members (stream, event_log, workflow)")
	}
	return out
}

// namespaceMembers returns the member names of a namespace global.
func namespaceMembers(v vm.Value) []string {
	if d, ok := v.AsDict(); ok && d.LibraryNamespace() != "" {
		return d.Keys()
	}
	return nil
}
