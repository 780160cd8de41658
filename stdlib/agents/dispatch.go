package agents

import (
	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// harness.tools.dispatch_agent_call and dispatch_agent_batch
// (docs/spec/language.md §5.4, "host tools"): a tool call as a model would
// make it, run against tools exactly as agent_loop runs one (the agent
// audience only, input and output schemas, hooks), without a model. The
// record is agent_loop's tool_calls entry plus `content`, the text the
// model would read (docs/agents.md "Dispatching calls yourself").
func init() {
	harness.AddMethods("tools", []harness.CapabilityMethod{
		dispatchMethod("dispatch_agent_call", "call: dict", "dict",
			"run one tool call {name, arguments?, id?} against tools (a registry or a list) as agent_loop would: {id, name, arguments, ok, result, error, content}",
			func(th *vm.Thread, fn string, ts *toolset, calls vm.Value, throw bool) (vm.Value, error) {
				return dispatchOne(th, fn, ts, calls, 0, throw)
			}),
		dispatchMethod("dispatch_agent_batch", "calls: list", "list",
			"dispatch_agent_call for each call in order: the list of records",
			func(th *vm.Thread, fn string, ts *toolset, calls vm.Value, throw bool) (vm.Value, error) {
				l, ok := calls.AsList()
				if !ok {
					return vm.Value{}, vm.Typef("%s: calls must be a list, got %s", fn, calls.Type())
				}
				out := make([]vm.Value, 0, l.Len())
				for i, c := range l.Items() {
					rec, err := dispatchOne(th, fn, ts, c, i, throw)
					if err != nil {
						return vm.Value{}, err
					}
					out = append(out, rec)
				}
				return vm.Of(vm.NewList(out)), nil
			}),
	})
}

// dispatchMethod is a harness.tools dispatch method: its tools and
// options read by dispatchSetup, its first argument handed to run. The
// signature marks tools optional, as docs/spec/language.md §5.4 does, so
// the checker accepts one argument; without a host tool registry to
// default to, dispatchSetup refuses a missing tools at run time.
func dispatchMethod(name, first, result, doc string, run func(th *vm.Thread, fn string, ts *toolset, arg vm.Value, throw bool) (vm.Value, error)) harness.CapabilityMethod {
	doc += " (tools is required at run time: there is no host tool registry to default to)"
	return harness.CapabilityMethod{Name: name, Sig: "harness.tools." + name + "(" + first + ", tools?, options?: dict) -> " + result, Doc: doc,
		Fn: func(th *vm.Thread, _ vm.Value, a vm.Args) (vm.Value, error) {
			ts, throw, err := dispatchSetup(th, name, a)
			if err != nil {
				return vm.Value{}, err
			}
			return run(th, name, ts, a.At(0), throw)
		}}
}

// dispatchSetup reads the tools and options of a dispatch: options
// {tool_errors: "return" (the default) | "throw"}.
func dispatchSetup(th *vm.Thread, fn string, a vm.Args) (*toolset, bool, error) {
	if !a.Given(1) {
		return nil, false, vm.Typef("%s: tools must be a tool registry or a list of tools, got nil", fn)
	}
	ts, err := newToolset(th, fn, a.At(1), 0)
	if err != nil {
		return nil, false, err
	}
	throw := false
	if a.Given(2) {
		o, ok := a.At(2).AsDict()
		if !ok {
			return nil, false, lib.BadOptions(fn, a.At(2))
		}
		if err := lib.CheckOptions(fn, o, []string{"tool_errors"}); err != nil {
			return nil, false, err
		}
		// "report" is agent_loop's name for the default; "return" is
		// kept as an alias.
		switch mode := get(o, "tool_errors"); vm.ToDisplay(mode) {
		case "nil", "report", "return":
		case "throw":
			throw = true
		default:
			return nil, false, vm.Throwf("%s: tool_errors must be \"report\" or \"throw\", got %s", fn, lib.Shown(mode))
		}
	}
	return ts, throw, nil
}

// dispatchOne runs call (the i-th) and returns its record; with throw, a
// failed call raises its failure as agent_loop's tool_errors: "throw" does.
func dispatchOne(th *vm.Thread, fn string, ts *toolset, call vm.Value, i int, throw bool) (vm.Value, error) {
	d, ok := call.AsDict()
	if !ok {
		return vm.Value{}, vm.Typef("%s: a call must be a dict {name, arguments?, id?}, got %s", fn, call.Type())
	}
	name, ok := get(d, "name").AsString()
	if !ok {
		return vm.Value{}, vm.Throwf("%s: call %d has no name", fn, i)
	}
	args := get(d, "arguments")
	if args.IsNil() {
		args = get(d, "input")
	}
	if text, isStr := args.AsString(); isStr {
		// JSON text as a provider sends it; broken text stays as it is,
		// and the call fails as the loop's would (toolset.run)
		if parsed, failure := argumentsFromText(name.Go(), text.Go()); failure == nil {
			args = parsed
		}
	}
	if args.IsNil() {
		args = vm.Of(vm.NewDict())
	}
	o := ts.run(th, name.Go(), args)
	if !o.ok && (throw || o.fatal) {
		return vm.Value{}, o.err
	}
	content := o.text
	if !o.ok {
		content = "Error: " + o.text
	}
	rec := lib.DictOf("id", get(d, "id"), "name", vm.Str(name.Go()), "arguments", args, "ok", vm.BoolOf(o.ok))
	if o.ok {
		rec = rec.Set("result", o.value).Set("error", vm.Nil)
	} else {
		rec = rec.Set("result", vm.Nil).Set("error", vm.Str(o.text))
	}
	return vm.Of(rec.Set("content", vm.Str(content))), nil
}
