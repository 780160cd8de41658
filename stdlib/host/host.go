package host

import (
	"sort"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/vm"
)

// Handler answers a host capability or tool: args is the value the script
// passed (an empty dict when it passed none). A returned *vm.Error reaches
// the script as it is; any other error becomes a thrown
// `host_call: "NAME" failed: …`.
type Handler func(th *vm.Thread, args vm.Value) (vm.Value, error)

// Tool is a host tool: a capability with a description and a JSON Schema
// of its arguments, listed by host_tool_list and called by host_tool_call.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any // JSON Schema of the args; nil: any
	Handler     Handler
}

// Provide registers h as the host capability name of v, replacing an
// earlier one of that name. Call it before the program runs (from
// interp.Options.OnVM); it is safe to call while tasks run.
func Provide(v *vm.VM, name string, h Handler) {
	s := stateOfVM(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caps[name] = h
}

// ProvideTool registers t as a host tool of v, replacing an earlier one of
// that name.
func ProvideTool(v *vm.VM, t Tool) {
	s := stateOfVM(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools[t.Name] = t
}

// Withdraw removes the capability and the tool called name from v.
func Withdraw(v *vm.VM, name string) {
	s := stateOfVM(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.caps, name)
	delete(s.tools, name)
}

// JSONHandler adapts a function over plain Go JSON values (map[string]any,
// []any, string, float64/int64, bool, nil) to a Handler: the script's
// argument is converted with the library's value↔JSON mapping, and so is
// the result.
func JSONHandler(f func(args any) (any, error)) Handler {
	return func(th *vm.Thread, args vm.Value) (vm.Value, error) {
		a, err := jsonschema.ToAny(args)
		if err != nil {
			return vm.Value{}, err
		}
		r, err := f(a)
		if err != nil {
			return vm.Value{}, err
		}
		return jsonschema.FromAny(r), nil
	}
}

// mock is one host_mock entry: a fixed response, or a function of the args.
type mock struct {
	response    vm.Value
	fn          vm.Value // callable, or invalid
	tool        bool
	description string
	parameters  vm.Value
	// Set by upstream's host_mock(capability, operation, response): the
	// two names its call records carry, and the params a call must
	// contain (equal values) for this mock to answer it (nil: any call).
	capability, operation string
	params                *vm.Dict
}

// answers reports whether the mock answers a call with args.
func (m *mock) answers(args vm.Value) bool {
	if m.params == nil {
		return true
	}
	d, ok := args.AsDict()
	if !ok {
		return false
	}
	for _, k := range m.params.Keys() {
		want, _ := m.params.Get(k)
		got, ok := d.Get(k)
		if !ok || !vm.Equal(got, want) {
			return false
		}
	}
	return true
}

// record is the host_mock_calls entry of a call the mock answered:
// upstream's {capability, operation, params} for a mock set in its
// operation form, else {name, args, kind}.
func (m *mock) record(name string, args vm.Value) vm.Value {
	if m.operation != "" {
		return vm.Of(lib.DictOf("capability", vm.Str(m.capability), "operation", vm.Str(m.operation), "params", args))
	}
	kind := "call"
	if m.tool {
		kind = "tool"
	}
	return vm.Of(lib.DictOf("name", vm.Str(name), "args", args, "kind", vm.Str(kind)))
}

type scope struct {
	// caps holds every capability mock of a name, oldest first: the
	// latest one that answers a call answers it.
	caps  map[string][]*mock
	tools map[string]*mock
	calls []vm.Value
}

func newScope() *scope { return &scope{caps: map[string][]*mock{}, tools: map[string]*mock{}} }

// state is the host bridge of one VM: the handlers the host registered and
// the mock scopes.
type state struct {
	mu     sync.Mutex
	caps   map[string]Handler
	tools  map[string]Tool
	scopes []*scope
}

type stateKey struct{}

func stateOfVM(v *vm.VM) *state {
	return v.Local(stateKey{}, func() any {
		return &state{caps: map[string]Handler{}, tools: map[string]Tool{}, scopes: []*scope{newScope()}}
	}).(*state)
}

func stateOf(th *vm.Thread) *state { return stateOfVM(th.VM()) }

func (s *state) top() *scope { return s.scopes[len(s.scopes)-1] }

// capabilityNames are the names host_call answers now, sorted.
func (s *state) capabilityNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for n := range s.caps {
		seen[n] = true
	}
	for n := range s.top().caps {
		seen[n] = true
	}
	return sortedKeys(seen)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// call runs the capability (tool=false) or tool name: the current scope's
// mock first, then the host's handler. found is false when neither exists.
func (s *state) call(th *vm.Thread, builtin, name string, args vm.Value, tool bool) (v vm.Value, found bool, err error) {
	s.mu.Lock()
	sc := s.top()
	var m *mock
	var h Handler
	if tool {
		m = sc.tools[name]
		if t, ok := s.tools[name]; ok {
			h = t.Handler
		}
	} else {
		ms := sc.caps[name]
		for i := len(ms) - 1; i >= 0 && m == nil; i-- {
			if ms[i].answers(args) {
				m = ms[i]
			}
		}
		h = s.caps[name]
	}
	if m != nil {
		sc.calls = append(sc.calls, m.record(name, args))
	}
	s.mu.Unlock()
	if m != nil {
		if m.fn.IsValid() {
			r, err := th.Call(m.fn, args)
			return r, true, err
		}
		return m.response, true, nil
	}
	if h == nil {
		return vm.Value{}, false, nil
	}
	r, err := runHandler(th, builtin, name, h, args)
	return r, true, err
}

// runHandler calls a host's Go handler, turning its errors and panics into
// catchable failures.
func runHandler(th *vm.Thread, builtin, name string, h Handler, args vm.Value) (v vm.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = vm.Value{}, vm.Throwf("%s: %q failed: the host's handler panicked: %v", builtin, name, r)
		}
	}()
	r, err := h(th, args)
	if err != nil {
		if e, ok := err.(*vm.Error); ok {
			return vm.Value{}, e
		}
		return vm.Value{}, vm.Throwf("%s: %q failed: %v", builtin, name, err)
	}
	if !r.IsValid() {
		r = vm.Nil
	}
	return r, nil
}
