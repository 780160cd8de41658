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
	p := prepared(t, defs...)
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

// A tool whose handler DelegateHandler made runs the delegate, not the
// handler, when Invoke calls it: the hooks of its name run once. A
// delegate that runs another tool within the call (InvokeWithin) leaves
// that tool's cap to the call, which applies the smallest cap once.
func TestInvokeRunsDelegateOnce(t *testing.T) {
	var direct, delegated int
	text := vm.Str("abcdefghijkl")
	innerDef := vm.Of(jv(t, `{"name":"inner"}`).Object().(*vm.Dict).Set("handler",
		vm.Of(vm.NewBuiltin("h", "h(a)", "", func(*vm.Thread, vm.Args) (vm.Value, error) { return text, nil }))))
	p := prepared(t, innerDef)
	inner, _ := p.Tool("inner")
	outerDef := func(within bool) vm.Value {
		h := DelegateHandler("d", "d(a)", "", func(*vm.Thread, vm.Args) (vm.Value, error) {
			direct++
			return vm.Nil, nil
		}, func(th *vm.Thread, args any) *Outcome {
			delegated++
			if within {
				return inner.InvokeWithin(th, args)
			}
			return inner.InvokeWithoutHooks(th, args)
		})
		return vm.Of(jv(t, `{"name":"outer"}`).Object().(*vm.Dict).Set("handler", h))
	}
	th := newThread()
	var pres []string
	AddHook(th.VM(), Hook{Pattern: "*", Pre: vm.Of(vm.NewBuiltin("pre", "pre(n, a)", "", func(_ *vm.Thread, a vm.Args) (vm.Value, error) {
		pres = append(pres, a.Text(0))
		return vm.Nil, nil
	}))})
	AddHook(th.VM(), Hook{Pattern: "inner", MaxOutput: 3})
	AddHook(th.VM(), Hook{Pattern: "outer", MaxOutput: 6})

	outer, _ := prepared(t, outerDef(false)).Tool("outer")
	o := outer.Invoke(th, parseArgs(t, `{}`))
	if want := "abcdef... [truncated, 12 chars total]"; o.Kind != Success || o.Result != any(want) || o.Tool != "outer" {
		t.Errorf("delegate without hooks: got %d %v %q, want %q", o.Kind, o.Result, o.Tool, want)
	}
	if direct != 0 || delegated != 1 || len(pres) != 1 || pres[0] != "outer" {
		t.Errorf("delegate without hooks: direct %d, delegated %d, pre hooks %q", direct, delegated, pres)
	}

	pres = nil
	outer, _ = prepared(t, outerDef(true)).Tool("outer")
	o = outer.Invoke(th, parseArgs(t, `{}`))
	if want := "abc... [truncated, 12 chars total]"; o.Kind != Success || o.Result != any(want) {
		t.Errorf("delegate within the call: got %d %v, want %q (one cut, the smallest cap)", o.Kind, o.Result, want)
	}
	if len(pres) != 2 || pres[0] != "outer" || pres[1] != "inner" {
		t.Errorf("delegate within the call: pre hooks %q, want [outer inner]", pres)
	}
}
