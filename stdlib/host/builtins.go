package host

import (
	"slices"
	"sort"
	"strings"

	"github.com/harnlang/harn/stdlib/harness"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("host_capabilities", "host_capabilities()",
		"the names of the capabilities host_call answers now (the host's and the current scope's mocks), sorted",
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return vm.Of(lib.StrList(stateOf(th).capabilityNames())), nil
		})
	lib.Def("host_has", "host_has(name, operation?)", "whether host_call(name, …) would be answered (by the host or a mock), or, for a capability such as \"workspace\", whether any of its operations (\"workspace.read_file\") would be; upstream's host_has(capability, operation) asks for \"capability.operation\", as its host_mock(capability, operation, response) names it",
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			name, ok := args.Str(0)
			if !ok {
				return vm.False, nil
			}
			whole := args.Given(1)
			if whole {
				op, ok := args.Str(1)
				if !ok {
					return vm.False, nil
				}
				name += "." + op
			}
			for _, n := range stateOf(th).capabilityNames() {
				if n == name || !whole && strings.HasPrefix(n, name+".") {
					return vm.True, nil
				}
			}
			return vm.False, nil
		})
	lib.Def("host_call", "host_call(name, args?)",
		`call the host capability name with args (default {}); a mock of the current scope answers first; without either a catchable "host_call: no host provides \"NAME\""`,
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return callBuiltin(th, args, "host_call", false)
		})
	lib.Def("host_tool_list", "host_tool_list()",
		"the host's tools and the current scope's tool mocks: [{name, description, parameters}] sorted by name",
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return stateOf(th).toolList()
		})
	lib.Def("host_tool_call", "host_tool_call(name, args?)",
		`call the host tool name with args (default {}); a tool mock of the current scope answers first; without either a catchable "host_tool_call: no host tool \"NAME\""`,
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			return callBuiltin(th, args, "host_tool_call", true)
		})
	lib.Def("host_mock", "host_mock(name, response_or_fn, options?, params?)",
		"answer host_call(name) in the current scope with response, or with fn(args) when it is a function; options: tool (mock a host tool instead, for host_tool_call and host_tool_list), description, parameters. Upstream's host_mock(capability, operation, response, params?) mocks \"capability.operation\"; its response may be {result} or {error} (thrown), with params the call's args must hold",
		builtinHostMock)
	lib.Def("host_mock_calls", "host_mock_calls()", "the calls the current scope's mocks answered: {name, args, kind} with kind \"call\" or \"tool\", or {capability, operation, params} for an operation-form mock",
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			s := stateOf(th)
			s.mu.Lock()
			defer s.mu.Unlock()
			return vm.Of(lib.List(append([]vm.Value(nil), s.top().calls...))), nil
		})
	lib.Def("host_mock_clear", "host_mock_clear()", "remove the current scope's mocks and recorded calls",
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			s := stateOf(th)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.scopes[len(s.scopes)-1] = newScope()
			return vm.Nil, nil
		})
	lib.Def("host_mock_push_scope", "host_mock_push_scope()", "start an empty host mock scope over the current one",
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			s := stateOf(th)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.scopes = append(s.scopes, newScope())
			return vm.Nil, nil
		})
	lib.Def("host_mock_pop_scope", "host_mock_pop_scope()", "drop the innermost host mock scope; the outer scope's mocks and calls are back",
		func(th *vm.Thread, args vm.Args) (vm.Value, error) {
			s := stateOf(th)
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.scopes) == 1 {
				return vm.Value{}, vm.Throwf("host_mock_pop_scope: no mock scope to pop (host_mock_push_scope was not called)")
			}
			s.scopes[len(s.scopes)-1] = nil
			s.scopes = s.scopes[:len(s.scopes)-1]
			return vm.Nil, nil
		})
}

// nameArg reads the capability or tool name argument.
func nameArg(builtin string, args vm.Args) (string, error) {
	v := args.At(0)
	s, ok := v.AsString()
	if !ok {
		return "", vm.Throwf("%s: name must be a non-empty string, got %s", builtin, v.Type())
	}
	if s.Go() == "" {
		return "", vm.Throwf("%s: name must be a non-empty string", builtin)
	}
	return s.Go(), nil
}

func callBuiltin(th *vm.Thread, args vm.Args, builtin string, tool bool) (vm.Value, error) {
	name, err := nameArg(builtin, args)
	if err != nil {
		return vm.Value{}, err
	}
	a := vm.Of(vm.NewDict())
	if args.Given(1) {
		a = args.At(1)
	}
	r, found, err := stateOf(th).call(th, builtin, name, a, tool)
	if err != nil {
		return vm.Value{}, err
	}
	if !found {
		if tool {
			return vm.Value{}, vm.Throwf("host_tool_call: no host tool %q (mock one with host_mock(name, response, {tool: true}))", name)
		}
		return vm.Value{}, vm.Throwf("host_call: no host provides %q (mock it with host_mock(name, response))", name)
	}
	return r, nil
}

var mockOptions = []string{"tool", "description", "parameters"}

// operationForm reports whether a host_mock call is upstream's
// host_mock(capability, operation, response), mocking
// "capability.operation": a string second argument and a third that is
// not an options dict (a dict of mockOptions keys keeps the
// host_mock(name, response, options) reading). It returns the operation.
func operationForm(args vm.Args) (string, bool) {
	op, ok := args.Str(1)
	if !ok || op == "" || !args.Given(2) {
		return "", false
	}
	if d, ok := args.At(2).AsDict(); ok {
		if d.Len() == 0 {
			return "", false
		}
		for _, k := range d.Keys() {
			if !slices.Contains(mockOptions, k) {
				return op, true
			}
		}
		return "", false
	}
	return op, true
}

// resultOrError reports whether an operation-form response is upstream's
// {result} / {error} record, optionally with the params a call must
// match, rather than a plain dict answer.
func resultOrError(d *vm.Dict) bool {
	if !d.Has("result") && !d.Has("error") {
		return false
	}
	for _, k := range d.Keys() {
		if k != "result" && k != "error" && k != "params" {
			return false
		}
	}
	return true
}

// paramsFilter reads the params a call must contain for an
// operation-form mock to answer it.
func paramsFilter(v vm.Value) (*vm.Dict, error) {
	if v.IsNil() {
		return nil, nil
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Throwf("host_mock: params must be a dict, got %s", v.Type())
	}
	return d, nil
}

func builtinHostMock(th *vm.Thread, args vm.Args) (vm.Value, error) {
	name, err := nameArg("host_mock", args)
	if err != nil {
		return vm.Value{}, err
	}
	if !args.Has(1) {
		return vm.Value{}, vm.Throwf("host_mock: a response (or a function of the args) is required")
	}
	m := &mock{response: args.At(1), parameters: vm.Nil}
	if args.Given(3) {
		if m.params, err = paramsFilter(args.At(3)); err != nil {
			return vm.Value{}, err
		}
	}
	op, opForm := operationForm(args)
	if opForm {
		// host_mock(capability, operation, response, params?): upstream's form
		m.capability, m.operation = name, op
		name, m.response = name+"."+op, args.At(2)
		if d, ok := m.response.AsDict(); ok && resultOrError(d) {
			if d.Has("params") {
				if m.params, err = paramsFilter(lib.Get(d, "params")); err != nil {
					return vm.Value{}, err
				}
			}
			m.response = lib.Get(d, "result")
			if e, failing := d.Get("error"); failing {
				m.fn = vm.Of(vm.NewBuiltin("host_mock:error", "error(args)", "a mocked host failure", func(*vm.Thread, vm.Args) (vm.Value, error) {
					return vm.Value{}, vm.Throw(e)
				}))
			}
		}
	}
	if vm.IsCallable(m.response) {
		m.fn = m.response
	}
	if args.Given(2) && !opForm {
		d, ok := args.Dict(2)
		if !ok {
			return vm.Value{}, lib.BadOptions("host_mock", args.At(2))
		}
		if err := lib.CheckOptions("host_mock", d, mockOptions); err != nil {
			return vm.Value{}, err
		}
		if v, ok := d.Get("tool"); ok {
			m.tool = v.Truth()
		}
		if v, ok := d.Get("description"); ok && !v.IsNil() {
			m.description = vm.ToDisplay(v)
		}
		if v, ok := d.Get("parameters"); ok && !v.IsNil() {
			if _, isDict := v.AsDict(); !isDict {
				return vm.Value{}, vm.Throwf("host_mock: parameters must be a dict (a JSON Schema), got %s", v.Type())
			}
			m.parameters = v
		}
		if !m.tool && (m.description != "" || !m.parameters.IsNil()) {
			return vm.Value{}, vm.Throwf("host_mock: description and parameters describe a tool; add tool: true")
		}
	}
	if m.tool && m.params != nil {
		return vm.Value{}, vm.Throwf("host_mock: params select the calls of a capability mock; a tool mock (tool: true) answers every call")
	}
	s := stateOf(th)
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.tool {
		s.top().tools[name] = m
	} else {
		s.top().caps[name] = append(s.top().caps[name], m)
	}
	return vm.Nil, nil
}

// toolList lists the host's tools and the current scope's tool mocks (a
// mock hides the host's tool of its name), sorted by name.
func (s *state) toolList() (vm.Value, error) {
	s.mu.Lock()
	type entry struct {
		name, desc string
		params     vm.Value
	}
	byName := map[string]entry{}
	for n, t := range s.tools {
		p := vm.Nil
		if t.Parameters != nil {
			p = jsonschema.FromAny(t.Parameters)
		}
		byName[n] = entry{n, t.Description, p}
	}
	for n, m := range s.top().tools {
		byName[n] = entry{n, m.description, m.parameters}
	}
	s.mu.Unlock()
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]vm.Value, len(names))
	for i, n := range names {
		e := byName[n]
		out[i] = vm.Of(lib.DictOf("name", vm.Str(e.name), "description", vm.Str(e.desc), "parameters", e.params))
	}
	return vm.Of(lib.List(out)), nil
}

// harness.tools.list_registered and invoke (docs/spec/language.md §5.4,
// "host tools") are host_tool_list and host_tool_call.
func init() {
	harness.AddMethods("tools", []harness.CapabilityMethod{
		{Name: "list_registered", Sig: "harness.tools.list_registered() -> list",
			Doc: "host_tool_list(): the host's tools and the current scope's tool mocks",
			Fn:  func(th *vm.Thread, _ vm.Value, a vm.Args) (vm.Value, error) { return stateOf(th).toolList() }},
		{Name: "invoke", Sig: "harness.tools.invoke(name: string, args?: dict)",
			Doc: "host_tool_call(name, args): call a host tool",
			Fn: func(th *vm.Thread, _ vm.Value, a vm.Args) (vm.Value, error) {
				return callBuiltin(th, a, "host_tool_call", true)
			}},
	})
}

// A tool whose executor is "host_bridge" runs as host_call(capability,
// args) would, mocks included (docs/spec/registry.md §2, `host_capability`).
func init() {
	tool.SetHostBridge(func(th *vm.Thread, capability string, args vm.Value) (vm.Value, bool, error) {
		return stateOf(th).call(th, "host_call", capability, args, false)
	})
}
