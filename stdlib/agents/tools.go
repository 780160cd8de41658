package agents

import (
	"fmt"
	"sort"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	hjson "github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/stdlib/tools"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// toolset is the tools of one agent loop: what the model is offered
// (value, passed to llm_call's tools option) and how each name runs.
// Every tool is a tool.PreparedTool, so a call goes through
// PreparedTool.Invoke exactly as tool_ref, `harn tool run` and MCP
// calls do: input validation, the register_tool_hook hooks, the output
// and error schemas.
type toolset struct {
	value  vm.Value // nil when there are no tools
	byName map[string]*tool.PreparedTool
	names  []string
	defs   map[string]vm.Value // each tool's definition dict, for offering a part of them
	// hidden are the deferred tools (defer_loading) that tool_search has
	// not found yet: neither offered nor run. Empty without tool_search.
	hidden    map[string]bool
	searching bool // tool_search is on: the tool_search tool is offered
}

// has reports whether the loop offers tools.
func (ts *toolset) has() bool { return !ts.value.IsNil() || ts.searching }

// isOffered reports whether the model is offered the tool name now.
func (ts *toolset) isOffered(name string) bool {
	_, ok := ts.byName[name]
	return ok && !ts.hidden[name]
}

// visible are the names of the tools not hidden, in definition order.
func (ts *toolset) visible() []string {
	var names []string
	for _, n := range ts.names {
		if !ts.hidden[n] {
			names = append(names, n)
		}
	}
	return names
}

// prompt is tool_prompt's text for the offered tools (tool_format "text").
func (ts *toolset) prompt() string {
	var list []*tool.Tool
	for _, n := range ts.visible() {
		list = append(list, ts.byName[n].Tool)
	}
	return tools.Prompt(list)
}

// newToolset reads options.tools: a tool registry, or a list of tool
// values (tool_def, tool_ref, tool_bind, definition dicts) and agents.
func newToolset(th *vm.Thread, fn string, v vm.Value, depth int) (*toolset, error) {
	ts := &toolset{value: vm.Nil, byName: map[string]*tool.PreparedTool{}, defs: map[string]vm.Value{}, hidden: map[string]bool{}}
	if !v.IsValid() || v.IsNil() {
		return ts, nil
	}
	cache := tool.CacheFor(th.VM())
	add := func(pt *tool.PreparedTool, def vm.Value) error {
		if _, dup := ts.byName[pt.Name()]; dup {
			return vm.Throwf("%s: two tools are named %q", fn, pt.Name())
		}
		ts.byName[pt.Name()] = pt
		ts.names = append(ts.names, pt.Name())
		ts.defs[pt.Name()] = def
		return nil
	}
	if l, ok := v.AsList(); ok {
		defs := make([]vm.Value, 0, l.Len())
		items, from := tool.ExpandRegistries(l.Items())
		for k, it := range items {
			i := from[k]
			d, ok := it.AsDict()
			if !ok {
				return nil, vm.Throwf("%s: tools[%d] must be a tool definition or an agent, got %s", fn, i, it.Type())
			}
			switch vm.ToDisplay(get(d, "_type")) {
			case agentType:
				d = agentTool(d, depth)
			}
			d, pt, err := prepareDef(d, cache)
			if err != nil {
				return nil, vm.Throwf("%s: tools[%d]: %s", fn, i, err.Error())
			}
			if pt == nil {
				continue
			}
			if err := add(pt, vm.Of(d)); err != nil {
				return nil, err
			}
			defs = append(defs, vm.Of(d))
		}
		ts.value = vm.Of(vm.NewList(defs))
		return ts, nil
	}
	d, ok := v.AsDict()
	if !ok || vm.ToDisplay(get(d, "_type")) != tool.RegistryType {
		if hint := tool.SingleDefinitionHint(v); hint != "" {
			return nil, vm.Throwf("%s: tools must be a tool registry or a list of tools, %s", fn, hint)
		}
		return nil, vm.Throwf("%s: tools must be a tool registry or a list of tools, got %s", fn, v.Type())
	}
	reg, err := tool.Normalize(v, cache)
	if err != nil {
		return nil, vm.Throwf("%s: tools: %s", fn, tool.Message(err, ""))
	}
	p, err := tool.Prepare(reg)
	if err != nil {
		return nil, vm.Throwf("%s: tools: %s", fn, err.Error())
	}
	for _, pt := range p.Tools(tool.AudienceAgent) {
		if err := add(pt, vm.Of(pt.Tool.Definition)); err != nil {
			return nil, err
		}
	}
	ts.value = v
	return ts, nil
}

// prepareDef prepares one tool definition d (a tool without handler or
// executor is answered by the caller, on_tool_call, as llm_call offers
// such tools): the definition as offered and its prepared tool, nil when
// the tool's governance leaves out the agent audience.
func prepareDef(d *vm.Dict, cache *tool.Cache) (*vm.Dict, *tool.PreparedTool, error) {
	if !d.Has("handler") && !d.Has("executor") {
		d = d.Set("executor", vm.Str("provider_native"))
	}
	reg := lib.DictOf("_type", vm.Str(tool.RegistryType), "tools", vm.Of(vm.NewList([]vm.Value{vm.Of(d)})))
	if c := get(d, "components"); !c.IsNil() {
		reg = reg.Set("components", c)
	}
	nr, err := tool.Normalize(vm.Of(reg), cache)
	if err != nil {
		return nil, nil, fmt.Errorf("%s", tool.Message(err, ""))
	}
	p, err := tool.Prepare(nr)
	if err != nil {
		return nil, nil, err
	}
	// A tool whose governance leaves out the agent audience is not
	// offered, whatever form it comes in (docs/spec/registry.md §5; seed
	// 001: it "cannot leak its name … or execute through a forged call").
	agentTools := p.Tools(tool.AudienceAgent)
	if len(agentTools) == 0 {
		return d, nil, nil
	}
	return d, agentTools[0], nil
}

// offered is the tools option of the next model call: every tool but
// the hidden ones.
func (ts *toolset) offered() vm.Value {
	if !ts.searching {
		return ts.value
	}
	var defs []vm.Value
	for _, n := range ts.visible() {
		defs = append(defs, ts.defs[n])
	}
	return vm.Of(vm.NewList(defs))
}

// outcome is one executed tool call.
type outcome struct {
	value vm.Value // the result (ok)
	text  string   // what the model reads: the result, or the error
	ok    bool
	err   error // the failure as a script would see it (!ok)
	fatal bool  // exit or cancellation: ends the loop whatever the options
	// retryable: the handler ran and failed (tool_retries runs it again);
	// not an unknown tool, invalid arguments, a refusal or a bad result
	retryable bool
}

// run executes the tool call name(args).
func (ts *toolset) run(th *vm.Thread, name string, args vm.Value) outcome {
	pt, ok := ts.byName[name]
	if ok && ts.hidden[name] {
		msg := fmt.Sprintf("tool %q is not loaded yet: find it with %s first", name, searchToolName)
		return outcome{text: msg, err: vm.Runtimef("%s", msg)}
	}
	if !ok {
		msg := fmt.Sprintf("unknown tool %q", name)
		names := ts.visible()
		if len(names) == 0 {
			msg += " (no tools are available)"
		} else {
			sort.Strings(names)
			msg += " (available: " + strings.Join(names, ", ") + ")"
		}
		return outcome{text: msg, err: vm.Runtimef("%s", msg)}
	}
	if text, isStr := args.AsString(); isStr {
		parsed, failure := argumentsFromText(name, text.Go())
		if failure != nil {
			return *failure
		}
		args = parsed
	}
	var j any
	if args.IsValid() && !args.IsNil() {
		x, err := tool.ToJSONArgs(args)
		if err != nil {
			msg := fmt.Sprintf("tool %q input violates its declared schema: arguments are not portable JSON", name)
			return outcome{text: msg, err: vm.Runtimef("%s", msg)}
		}
		j = x
	}
	o := pt.Invoke(th, j)
	switch o.Kind {
	case tool.Success:
		return outcome{value: o.Value, text: o.CapRendered(llm.ResultText(o.Value, o.Result)), ok: true}
	case tool.ApplicationError:
		v := tool.FromJSON(o.Data)
		return outcome{text: hjson.Stringify(v), err: vm.Throw(v), retryable: true}
	case tool.InvalidInput, tool.ContractViolation:
		msg := o.Contract.Error()
		return outcome{text: msg, err: vm.Runtimef("%s", msg)}
	}
	if o.Err != nil {
		if o.Err.Kind == vm.KindExit || o.Err.Kind == vm.KindCancelled {
			return outcome{text: o.FailureText(), err: o.Err, fatal: true}
		}
		// The model reads the handler's own message; the script gets the
		// failure relabelled, as any callback's (docs/spec/language.md §8.2).
		return outcome{text: failureText(o.Err.Caught()), err: o.Err.Relabel(), retryable: true}
	}
	return outcome{text: o.FailureText(), err: vm.Runtimef("%s", o.FailureText())}
}

// failureText is what the model reads of a failure value (the value a
// catch of a failed handler would bind, an on_tool_call {error}): a string as it is, a {message} dict
// its message, another dict its JSON, anything else its display form.
func failureText(v vm.Value) string {
	if d, ok := v.AsDict(); ok {
		if m := get(d, "message"); !m.IsNil() {
			return vm.ToDisplay(m)
		}
		return hjson.Stringify(v)
	}
	return vm.ToDisplay(v)
}

// agentTool is the tool definition of an agent used as another agent's
// tool: one `prompt` parameter, the sub-agent's final text as result.
func agentTool(a *vm.Dict, depth int) *vm.Dict {
	name := vm.ToDisplay(get(a, "name"))
	h := vm.NewBuiltin("agent:"+name, name+"(args)", "the agent "+name+" as a tool", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		d, _ := args.At(0).AsDict()
		prompt := vm.Nil
		if d != nil {
			prompt = get(d, "prompt")
		}
		// a tool call must end: an agent value's daemon does not apply here
		res, err := runAgent(th, "sub_agent_run", a, prompt, vm.Of(lib.DictOf("daemon", vm.False)), depth+1)
		if err != nil {
			return vm.Value{}, err
		}
		rd, _ := res.AsDict()
		return get(rd, "text"), nil
	})
	def, _ := tool.AgentDefinition(a, vm.Of(h))
	return def
}

// get is lib.Get that also reads a nil dict as empty.
func get(d *vm.Dict, k string) vm.Value {
	if d == nil {
		return vm.Nil
	}
	return lib.Get(d, k)
}

// argumentsFromText reads arguments a model sent as JSON text, by
// hjson.ParseArguments's rule (blank text is {}); text that is not JSON
// is a failed call the model can read and retry, as invalid arguments
// are.
func argumentsFromText(name, text string) (vm.Value, *outcome) {
	parsed, err := hjson.ParseArguments(text)
	if err != nil {
		msg := fmt.Sprintf("tool %q %s", name, err.Error())
		return vm.Value{}, &outcome{text: msg, err: vm.Runtimef("%s", msg)}
	}
	return parsed, nil
}
