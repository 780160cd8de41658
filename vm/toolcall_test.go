package vm_test

import (
	"strings"
	"testing"

	"github.com/harnlang/harn/compiler"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

// TestToolCalledDirectly: calling a `tool` declaration's name, which binds
// a tool registry (docs/spec/language.md §9.3), fails at run time saying
// how to call the handler, not "Undefined builtin".
func TestToolCalledDirectly(t *testing.T) {
	src := "tool greet(name: string) -> string {\n  description \"Greets\"\n  \"hi \" + name\n}\nprintln(greet(\"x\"))\n"
	f, err := syntax.Parse("t.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	u := stdlib.NewUniverse(stdlib.Config{})
	prog, err := compiler.Compile(f, resolve.File(f, resolve.Options{Universe: u}))
	if err != nil {
		t.Fatal(err)
	}
	machine := vm.New(u)
	machine.Stdout = &strings.Builder{}
	_, err = machine.NewThread().RunModule(machine.NewModule(prog))
	want := "`greet` is a tool declaration, which binds a tool registry, not a function: call its handler with `tool_find(greet, \"greet\").handler({…})`"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}
