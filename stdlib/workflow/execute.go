package workflow

// Running a graph (docs/workflow.md, "Execution").

import (
	"sync"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Default bounds of workflow_execute.
const (
	defaultMaxSteps     = 1000
	defaultMaxContinues = 100
)

// run is one workflow_execute in progress on a thread; continue_as_new
// leaves its new input here.
type run struct {
	pending *vm.Value
	h       *handle // what workflow.* calls see of the run
}

type runsKey struct{}

// runs are the executions in progress, innermost last, per thread.
type runs struct {
	mu sync.Mutex
	by map[*vm.Thread][]*run
}

func runsOf(th *vm.Thread) *runs {
	return th.VM().Local(runsKey{}, func() any { return &runs{by: map[*vm.Thread][]*run{}} }).(*runs)
}

func (rs *runs) push(th *vm.Thread, r *run) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.by[th] = append(rs.by[th], r)
}

func (rs *runs) pop(th *vm.Thread) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	s := rs.by[th]
	if len(s) <= 1 {
		delete(rs.by, th)
		return
	}
	rs.by[th] = s[:len(s)-1]
}

func (rs *runs) current(th *vm.Thread) *run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	s := rs.by[th]
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

type execOptions struct {
	maxSteps, maxContinues int64
	id                     string // "" makes one up
}

func parseOptions(fn string, v vm.Value) (execOptions, error) {
	o := execOptions{maxSteps: defaultMaxSteps, maxContinues: defaultMaxContinues}
	if v.IsNil() {
		return o, nil
	}
	d, ok := v.AsDict()
	if !ok {
		return o, lib.BadOptions(fn, v)
	}
	if err := lib.CheckOptions(fn, d, []string{"id", "max_steps", "max_continues"}); err != nil {
		return o, err
	}
	for _, k := range d.Keys() {
		fv := lib.Get(d, k)
		n, ok := fv.AsInt()
		switch k {
		case "id":
			id, isStr := str(fv)
			if !isStr || id == "" {
				return o, vm.Runtimef("%s: id must be a non-empty string, got %s", fn, lib.Shown(fv))
			}
			o.id = id
		case "max_steps":
			if !ok || n < 1 {
				return o, vm.Runtimef("%s: max_steps must be a positive int, got %s", fn, vm.ToDisplay(fv))
			}
			o.maxSteps = int64(n)
		case "max_continues":
			if !ok || n < 0 {
				return o, vm.Runtimef("%s: max_continues must be a non-negative int, got %s", fn, vm.ToDisplay(fv))
			}
			o.maxContinues = int64(n)
		}
	}
	return o, nil
}

// initialState is the state a run starts from: a dict input itself, any
// other input as {input}.
func initialState(input vm.Value) *vm.Dict {
	if d, ok := input.AsDict(); ok {
		return d
	}
	return vm.NewDict().Set("input", input)
}

// execute runs g from its entry (docs/workflow.md, "Execution").
func execute(th *vm.Thread, g *graph, input vm.Value, o execOptions) (res vm.Value, err error) {
	const fn = "workflow_execute"
	for _, p := range g.problems() {
		if sev, _ := str(lib.Get(p.Dict(), "severity")); sev == "error" {
			msg, _ := str(lib.Get(p.Dict(), "message"))
			return vm.Value{}, vm.Runtimef("%s: the workflow is not valid: %s (workflow_validate lists every problem)", fn, msg)
		}
	}
	dir := directoryOf(th)
	h, err := dir.open(fn, o.id)
	if err != nil {
		return vm.Value{}, err
	}
	defer func() { h.finish(dir, err) }()
	rs := runsOf(th)
	r := &run{h: h}
	rs.push(th, r)
	defer rs.pop(th)

	var trace []vm.Value
	state := initialState(input)
	output := vm.Nil
	continues := int64(0)
	steps := int64(0)
	cur := g.entry
	for cur != "" {
		steps++
		if steps > o.maxSteps {
			return vm.Value{}, vm.Runtimef("%s: the run exceeded max_steps (%d) at node %q; does a guarded cycle never exit?", fn, o.maxSteps, cur)
		}
		if err := h.enter(th, cur, steps, continues); err != nil {
			return vm.Value{}, err
		}
		n := g.node(cur)
		start := time.Now()
		out, next, err := runNode(th, g, n, state)
		ms := time.Since(start).Milliseconds()
		if r.pending != nil {
			// continue_as_new: end this run, start again from the entry.
			in := *r.pending
			r.pending = nil
			trace = append(trace, traceEntry(g, cur, "continued", ms, vm.Nil, false))
			continues++
			if continues > o.maxContinues {
				return vm.Value{}, vm.Runtimef("%s: continue_as_new was called more than max_continues (%d) times", fn, o.maxContinues)
			}
			state, output, steps, cur = initialState(in), vm.Nil, 0, g.entry
			continue
		}
		if err != nil {
			return vm.Value{}, err
		}
		state = next
		if nodeKind(n) != "branch" {
			output = out
		}
		trace = append(trace, traceEntry(g, cur, "ok", ms, out, nodeKind(n) != "branch"))
		cur, err = route(th, n, g, state)
		if err != nil {
			return vm.Value{}, err
		}
	}
	b := vm.NewDictBuilder(5)
	b.Set("output", output)
	b.Set("trace", vm.Of(vm.NewList(trace)))
	b.Set("state", vm.Of(state))
	b.Set("steps", vm.IntOf(steps))
	b.Set("continues", vm.IntOf(continues))
	return vm.Of(b.Build()), nil
}

func traceEntry(g *graph, id, status string, ms int64, out vm.Value, hasOutput bool) vm.Value {
	b := vm.NewDictBuilder(4)
	b.Set("node", vm.Str(id))
	b.Set("status", vm.Str(status))
	b.Set("ms", vm.IntOf(ms))
	if hasOutput && g.visible(id) {
		b.Set("output", out)
	}
	return vm.Of(b.Build())
}

// route picks the next node: the first outgoing edge, in declaration
// order, without a when or whose when(state) is truthy. A branch node
// with no matching edge is an error; any other node ends the run.
func route(th *vm.Thread, n *vm.Dict, g *graph, state *vm.Dict) (string, error) {
	id := nodeID(n)
	for _, e := range g.outgoing(id) {
		w := lib.Get(e, "when")
		if w.IsNil() {
			return edgeTo(e), nil
		}
		ok, err := th.Call(w, vm.Of(state))
		if err != nil {
			return "", err
		}
		if ok.Truth() {
			return edgeTo(e), nil
		}
	}
	if nodeKind(n) == "branch" {
		return "", vm.Runtimef("workflow_execute: branch node %q: no outgoing edge matches the state", id)
	}
	return "", nil
}

// merge applies a node's output to the state: a dict is merged in, nil
// changes nothing, anything else is stored under the node's id.
func merge(state *vm.Dict, id string, out vm.Value) *vm.Dict {
	if d, ok := out.AsDict(); ok {
		return state.Merge(d)
	}
	if out.IsNil() {
		return state
	}
	return state.Set(id, out)
}

// runNode runs one node: its output and the state after it.
func runNode(th *vm.Thread, g *graph, n *vm.Dict, state *vm.Dict) (vm.Value, *vm.Dict, error) {
	id := nodeID(n)
	var out vm.Value
	var err error
	switch nodeKind(n) {
	case "task":
		out, err = th.Call(lib.Get(n, "fn"), vm.Of(state))
	case "branch":
		if f := lib.Get(n, "fn"); !f.IsNil() {
			out, err = th.Call(f, vm.Of(state))
		}
	case "llm":
		out, err = runLLM(th, g, n, state)
	case "tool":
		out, err = runTool(th, n, state)
	}
	if err != nil {
		return vm.Nil, state, err
	}
	if !out.IsValid() {
		out = vm.Nil
	}
	return out, merge(state, id, out), nil
}

// valueOf is v, or v(state) when v is a function.
func valueOf(th *vm.Thread, v vm.Value, state *vm.Dict) (vm.Value, error) {
	if vm.IsCallable(v) {
		return th.Call(v, vm.Of(state))
	}
	return v, nil
}

func builtin(th *vm.Thread, name string) (vm.Value, error) {
	b := th.VM().Universe.Builtin(name)
	if b == nil {
		return vm.Value{}, vm.Runtimef("workflow_execute: %s is not available in this build", name)
	}
	return vm.Of(b), nil
}

// modelFields are the model policy fields an llm node passes to llm_call.
var modelFields = []string{"provider", "model", "temperature", "max_tokens"}

// runLLM calls llm_call(prompt, system, options): options are the model
// policy's fields overridden by the node's own options. The output is the
// reply's text.
func runLLM(th *vm.Thread, g *graph, n *vm.Dict, state *vm.Dict) (vm.Value, error) {
	id := nodeID(n)
	prompt, err := valueOf(th, lib.Get(n, "prompt"), state)
	if err != nil {
		return vm.Value{}, err
	}
	if _, ok := str(prompt); !ok {
		return vm.Value{}, vm.Typef("workflow_execute: llm node %q: prompt must give a string, got %s", id, prompt.Type())
	}
	system, err := valueOf(th, lib.Get(n, "system"), state)
	if err != nil {
		return vm.Value{}, err
	}
	opts := vm.NewDict()
	if mp, ok := lib.Get(g.policies, "model").AsDict(); ok {
		for _, k := range modelFields {
			if given(mp, k) {
				opts = opts.Set(k, lib.Get(mp, k))
			}
		}
	}
	if no, ok := lib.Get(n, "options").AsDict(); ok {
		opts = opts.Merge(no)
	}
	call, err := builtin(th, "llm_call")
	if err != nil {
		return vm.Value{}, err
	}
	res, err := th.Call(call, prompt, system, vm.Of(opts))
	if err != nil {
		return vm.Value{}, err
	}
	if d, ok := res.AsDict(); ok {
		return lib.Get(d, "text"), nil
	}
	return res, nil
}

// runTool invokes a tool node's tool with its args (the state when the
// node gives none): a function is called, a tool value (tool_def,
// tool_ref) runs its handler, a name with registry is looked up with
// tool_ref first.
func runTool(th *vm.Thread, n *vm.Dict, state *vm.Dict) (vm.Value, error) {
	id := nodeID(n)
	args := vm.Of(state)
	if av := lib.Get(n, "args"); !av.IsNil() {
		var err error
		if args, err = valueOf(th, av, state); err != nil {
			return vm.Value{}, err
		}
	}
	t := lib.Get(n, "tool")
	if _, ok := str(t); ok {
		ref, err := builtin(th, "tool_ref")
		if err != nil {
			return vm.Value{}, err
		}
		if t, err = th.Call(ref, lib.Get(n, "registry"), t); err != nil {
			return vm.Value{}, err
		}
	}
	if vm.IsCallable(t) {
		return th.Call(t, args)
	}
	d, _ := t.AsDict()
	h := lib.Get(orEmpty(d), "handler")
	if !vm.IsCallable(h) {
		return vm.Value{}, vm.Runtimef("workflow_execute: tool node %q: the tool has no handler to run", id)
	}
	return th.Call(h, args)
}
