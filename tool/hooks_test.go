package tool

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// The VM's tool hooks apply to Invoke: a denying hook refuses the call
// before the handler runs, a cap cuts a string result to max_output
// characters, and other tools and results are untouched.
func TestInvokeAppliesHooks(t *testing.T) {
	var calls []string
	returning := func(name string, v vm.Value) vm.Value {
		return vm.Of(vm.NewBuiltin("h", "h(a)", "", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			calls = append(calls, name)
			return v, nil
		}))
	}
	text := vm.Str("héllo wörld")
	defs := []vm.Value{
		vm.Of(jv(t, `{"name":"exec_shell"}`).Object().(*vm.Dict).Set("handler", returning("exec_shell", text))),
		vm.Of(jv(t, `{"name":"read_file"}`).Object().(*vm.Dict).Set("handler", returning("read_file", text))),
		vm.Of(jv(t, `{"name":"read_meta"}`).Object().(*vm.Dict).Set("handler", returning("read_meta", jv(t, `{"size": 12345678}`)))),
		vm.Of(jv(t, `{"name":"search"}`).Object().(*vm.Dict).Set("handler", returning("search", text))),
	}
	b := vm.NewDictBuilder(2)
	b.Set("_type", vm.Str(RegistryType))
	b.Set("tools", vm.Of(vm.NewList(defs)))
	reg, err := Normalize(vm.Of(b.Build()), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(reg)
	if err != nil {
		t.Fatal(err)
	}
	th := newThread()
	AddHook(th.VM(), Hook{Pattern: "exec*", Deny: "shell access is disabled"})
	AddHook(th.VM(), Hook{Pattern: "*", MaxOutput: 8})
	AddHook(th.VM(), Hook{Pattern: "read_*", MaxOutput: 5})
	invoke := func(name string) *Outcome {
		pt, _ := p.Tool(name)
		return pt.Invoke(th, parseArgs(t, `{}`))
	}

	o := invoke("exec_shell")
	if o.Kind != RuntimeFailure || o.FailureText() != `tool "exec_shell" failed: denied by tool hook: shell access is disabled` {
		t.Errorf("exec_shell: got %d %q", o.Kind, o.FailureText())
	}
	if len(calls) != 0 {
		t.Errorf("a denied call ran its handler: %q", calls)
	}
	for _, c := range []struct{ name, want string }{
		{"read_file", "héllo... [truncated, 11 chars total]"}, // the smallest matching cap, in characters
		{"search", "héllo wö... [truncated, 11 chars total]"},
	} {
		o := invoke(c.name)
		if o.Kind != Success || o.Result != any(c.want) || vm.ToDisplay(o.Value) != c.want {
			t.Errorf("%s: got %d %v %s, want %q", c.name, o.Kind, o.Result, vm.ToDisplay(o.Value), c.want)
		}
	}
	if o := invoke("read_meta"); o.Kind != Success || vm.ToDisplay(o.Value) != "{size: 12345678}" {
		t.Errorf("read_meta: a non-string result changed: %d %s", o.Kind, vm.ToDisplay(o.Value))
	}

	ClearHooks(th.VM())
	calls = nil
	if o := invoke("exec_shell"); o.Kind != Success || o.Result != any("héllo wörld") || len(calls) != 1 {
		t.Errorf("after ClearHooks: got %d %v (calls %q)", o.Kind, o.Result, calls)
	}
}
