package agents

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// agentType is the `_type` of an agent value.
const agentType = tool.AgentType

// agentKeys are the keys agent(config) accepts, in display order.
var agentKeys = []string{"name", "description", "system", "model", "provider", "tools", "max_turns", "tool_errors",
	"on_tool_call", "on_turn", "persistent", "done_sentinel", "max_nudges", "nudge", "tool_format", "stop_after_successful_tools",
	"require_successful_tools", "token_budget", "daemon", "tool_retries", "llm_retries", "tool_backoff_ms", "llm_backoff_ms", "context_callback", "tool_search", "approval_policy",
	"policy", "loop_detect_warn", "loop_detect_block", "loop_detect_skip", "post_turn_callback", "exit_when_verified", "turn_policy", "options"}

func isAgent(d *vm.Dict) bool { return vm.ToDisplay(get(d, "_type")) == agentType }

func agentArg(fn string, v vm.Value) (*vm.Dict, error) {
	d, ok := v.AsDict()
	if !ok || !isAgent(d) {
		return nil, vm.Throwf("%s: expected an agent (made by agent(…)), got %s", fn, v.Type())
	}
	return d, nil
}

// newAgent checks agent(config) and returns the agent dict.
func newAgent(th *vm.Thread, cfg *vm.Dict) (*vm.Dict, error) {
	const fn = "agent"
	for _, k := range cfg.Keys() {
		if k != "_type" && !slices.Contains(agentKeys, k) {
			return nil, vm.Throwf("%s: unknown config key %q%s (known: %s)", fn, k, lib.DidYouMean(k, agentKeys), strings.Join(agentKeys, ", "))
		}
	}
	n := get(cfg, "name")
	name, ok := n.AsString()
	if !ok || name.Go() == "" {
		return nil, vm.Throwf("%s: name must be a non-empty string, got %s", fn, lib.Shown(n))
	}
	for _, k := range []string{"description", "system", "model", "provider"} {
		if v := get(cfg, k); !v.IsNil() {
			if _, ok := v.AsString(); !ok {
				return nil, vm.Throwf("%s: %s must be a string, got %s", fn, k, v.Type())
			}
		}
	}
	if v := get(cfg, "options"); !v.IsNil() {
		o, ok := v.AsDict()
		if !ok {
			return nil, vm.Throwf("%s: options must be a dict of llm_call options, got %s", fn, v.Type())
		}
		for _, k := range o.Keys() {
			switch {
			case k == "messages" || k == "tools" || k == "system":
				return nil, vm.Throwf("%s: options.%s: give %s as the agent's own key, not in options", fn, k, k)
			case !slices.Contains(llm.OptionKeys(), k):
				return nil, vm.Throwf("%s: options.%s is not an llm_call option%s", fn, k, lib.DidYouMean(k, llm.OptionKeys()))
			}
		}
	}
	// the rest is checked as agent_loop checks it, so a mistake shows now
	probe := cfg.Set("_type", vm.Str(agentType))
	if _, err := readLoop(th, fn, vm.Str("probe"), vm.Nil, vm.Nil, probe, 0); err != nil {
		return nil, err
	}
	out := lib.DictOf("_type", vm.Str(agentType))
	for _, k := range agentKeys {
		if v := get(cfg, k); !v.IsNil() {
			out = out.Set(k, v)
		}
	}
	return out, nil
}

// runAgent runs agent a on prompt (sub_agent_run, an agent used as a
// tool) at nesting depth.
func runAgent(th *vm.Thread, fn string, a *vm.Dict, prompt, opts vm.Value, depth int) (vm.Value, error) {
	if depth > maxDepth {
		return vm.Value{}, vm.Throwf("%s: agents nested more than %d deep (an agent calling itself?)", fn, maxDepth)
	}
	if !opts.IsValid() {
		opts = vm.Nil
	}
	l, err := readLoop(th, fn, prompt, vm.Nil, opts, a, depth)
	if err != nil {
		return vm.Value{}, err
	}
	return l.run(th)
}

func init() {
	lib.Def("agent_loop", "agent_loop(prompt, system?, options?) -> dict", "run the tool-calling loop: call the model, run the tools it asks for, repeat until it answers; {text, messages, turns, tool_calls, usage, stop_reason, …}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		depth := stateOf(th).depth(th)
		if depth > maxDepth {
			return vm.Value{}, vm.Throwf("agent_loop: agents nested more than %d deep (a tool starting the loop that runs it?)", maxDepth)
		}
		l, err := readLoop(th, "agent_loop", a.At(0), a.At(1), a.At(2), nil, depth)
		if err != nil {
			return vm.Value{}, err
		}
		return l.run(th)
	})
	lib.Def("agent", "agent(config) -> dict", "an agent value {name, system?, model?, tools?, max_turns?, options?, …} for agent_loop(prompt, agent) and sub_agent_run", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		cfg, ok := a.Dict(0)
		if !ok {
			return vm.Value{}, vm.Throwf("agent: expected a config dict {name, system?, model?, tools?, …}, got %s", a.At(0).Type())
		}
		d, err := newAgent(th, cfg)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(d), nil
	})
	lib.Def("agent_config", "agent_config(agent) -> dict", "the config an agent was made from (agent(agent_config(a)) is the same agent)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d, err := agentArg("agent_config", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(d.Delete("_type")), nil
	})
	lib.Def("agent_name", "agent_name(agent) -> string", "the name of an agent", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d, err := agentArg("agent_name", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return get(d, "name"), nil
	})
	lib.Def("sub_agent_run", "sub_agent_run(agent, prompt, options?) -> dict", "run an agent on its own fresh conversation, as a child of the running loop; agent_loop's result", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		d, err := agentArg("sub_agent_run", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		if _, ok := a.Str(1); !ok {
			return vm.Value{}, vm.Throwf("sub_agent_run: prompt must be a string, got %s", a.At(1).Type())
		}
		return runAgent(th, "sub_agent_run", d, a.At(1), a.At(2), stateOf(th).depth(th))
	})
	lib.Def("agent_trace", "agent_trace(limit?) -> list<dict>", "the records of the last agent runs, oldest first (at most limit): {id, agent, parent, prompt, turns, stop_reason, text, tool_calls, usage, error}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		n := -1
		if a.Given(0) {
			k, ok := a.Int(0)
			if !ok || k < 0 {
				return vm.Value{}, vm.Throwf("agent_trace: limit must be a non-negative int, got %s", lib.Shown(a.At(0)))
			}
			n = int(k)
		}
		return stateOf(th).trace(n), nil
	})
	lib.Def("agent_trace_summary", "agent_trace_summary() -> dict", "totals over the recorded agent runs: {runs, turns, tool_calls, tool_errors, input_tokens, output_tokens, total_tokens, by_tool, by_agent, stop_reasons}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return stateOf(th).summary(), nil
	})
	lib.Def("agent_subscribe", "agent_subscribe(callback, kinds?)", "call callback(event) for every agent run's events (run_start, tool_call, turn, idle, run_end; or only kinds); returns a function that unsubscribes", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "agent_subscribe"
		cb, ok := a.Callable(0)
		if !ok {
			return vm.Value{}, vm.Throwf("%s: callback must be a function of the event, got %s", fn, a.At(0).Type())
		}
		sub := &subscriber{fn: cb}
		if a.Given(1) {
			l, ok := a.List(1)
			if !ok {
				return vm.Value{}, vm.Throwf("%s: kinds must be a list of event kinds (%s), got %s", fn, strings.Join(eventKinds, ", "), a.At(1).Type())
			}
			sub.kinds = map[string]bool{}
			for _, k := range l.Items() {
				name := vm.ToDisplay(k)
				if !slices.Contains(eventKinds, name) {
					return vm.Value{}, vm.Throwf("%s: unknown event kind %s (kinds: %s)", fn, lib.Display(k), strings.Join(eventKinds, ", "))
				}
				sub.kinds[name] = true
			}
		}
		st := stateOf(th)
		st.mu.Lock()
		st.subs = append(st.subs, sub)
		st.mu.Unlock()
		return vm.Of(vm.NewBuiltin("agent_unsubscribe", "agent_unsubscribe()", "stop the agent_subscribe callback; true if it was subscribed",
			func(th *vm.Thread, a vm.Args) (vm.Value, error) { return vm.BoolOf(st.unsubscribe(sub)), nil })), nil
	})
	lib.Def("agent_inject_feedback", "agent_inject_feedback(text) / agent_inject_feedback(agent, text) / agent_inject_feedback(target, kind, text)", "queue a user message for the running agent loop (the innermost one of this task, or of the named agent or session; upstream's three-argument form also labels the message with kind); it is sent before the next model call", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "agent_inject_feedback"
		target, kind, textV := "", "", a.At(0)
		if a.Has(1) {
			switch x := a.At(0); {
			case x.Kind() == vm.KString:
				target = vm.ToDisplay(x)
			default:
				d, err := agentArg(fn, x)
				if err != nil {
					return vm.Value{}, vm.Throwf("%s: the first of two arguments must be an agent or an agent name, got %s", fn, x.Type())
				}
				target = vm.ToDisplay(get(d, "name"))
			}
			textV = a.At(1)
		}
		if a.Has(2) {
			k, ok := a.At(1).AsString()
			if !ok || k.Go() == "" {
				return vm.Value{}, vm.Throwf("%s: kind must be a non-empty string, got %s", fn, lib.Shown(a.At(1)))
			}
			kind, textV = k.Go(), a.At(2)
		}
		s, ok := textV.AsString()
		if !ok || s.Go() == "" {
			return vm.Value{}, vm.Throwf("%s: feedback must be a non-empty string, got %s", fn, lib.Shown(textV))
		}
		if !stateOf(th).inject(th, target, feedback{text: s.Go(), kind: kind}) {
			if target != "" {
				return vm.Value{}, vm.Throwf("%s: no agent loop of agent %q is running", fn, target)
			}
			return vm.Value{}, vm.Throwf("%s: no agent loop is running (call it from a tool handler or an on_turn or on_tool_call callback)", fn)
		}
		return vm.Nil, nil
	})
}

// ---- run state: the running loops and the recorded runs ----

// maxRecords is how many finished runs agent_trace keeps.
const maxRecords = 100

// feedback is one message agent_inject_feedback queued: its text and
// the kind upstream's three-argument form labels it with ("" for none).
type feedback struct {
	text, kind string
}

type runState struct {
	id       int64
	th       *vm.Thread
	name     string
	parent   int64
	prompt   string
	depth    int
	session  string // the agent session the run continues, if any (a feedback target too)
	feedback []feedback
	// wake is signalled when feedback arrives, for a daemon run idling
	// (loop.idle); it has room for the one signal it carries.
	wake chan struct{}
}

type state struct {
	mu      sync.Mutex
	nextID  int64
	active  []*runState
	records []vm.Value
	subs    []*subscriber
}

// subscriber is one agent_subscribe callback; kinds nil means every event.
type subscriber struct {
	fn    vm.Value
	kinds map[string]bool
}

// eventKinds are the events agent_subscribe delivers, in run order.
var eventKinds = []string{"run_start", "tool_call", "turn", "idle", "run_end"}

// emit delivers one event of run r to the subscribers, in subscription
// order, on the loop's thread; the first failing callback's error is
// returned (it ends the loop).
func (s *state) emit(th *vm.Thread, r *runState, kind string, kv ...any) error {
	s.mu.Lock()
	subs := append([]*subscriber(nil), s.subs...)
	s.mu.Unlock()
	if len(subs) == 0 {
		return nil
	}
	ev := lib.DictOf(append([]any{"kind", vm.Str(kind), "run", vm.IntOf(r.id), "agent", vm.Str(r.name)}, kv...)...)
	for _, sub := range subs {
		if sub.kinds != nil && !sub.kinds[kind] {
			continue
		}
		if _, err := th.Call(sub.fn, vm.Of(ev)); err != nil {
			return err
		}
	}
	return nil
}

func (s *state) unsubscribe(sub *subscriber) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.subs {
		if x == sub {
			s.subs = append(s.subs[:i], s.subs[i+1:]...)
			return true
		}
	}
	return false
}

// errorValue is a run's failure as its record and run_end event show it:
// the text a catch would bind.
func errorValue(err error) vm.Value {
	if e, ok := err.(*vm.Error); ok {
		return vm.Str(vm.ToDisplay(e.Caught()))
	}
	return vm.Str(err.Error())
}

type stateKey struct{}

func stateOf(th *vm.Thread) *state { return stateOfVM(th.VM()) }

func stateOfVM(v *vm.VM) *state {
	return v.Local(stateKey{}, func() any { return &state{} }).(*state)
}

// innermost is the last active run of th (nil when none); the caller
// holds mu.
func (s *state) innermost(th *vm.Thread) *runState {
	for i := len(s.active) - 1; i >= 0; i-- {
		if s.active[i].th == th {
			return s.active[i]
		}
	}
	return nil
}

// depth is the nesting depth of a loop started now on th.
func (s *state) depth(th *vm.Thread) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.innermost(th); r != nil {
		return r.depth + 1
	}
	return 0
}

func (s *state) begin(th *vm.Thread, l *loop) *runState {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	r := &runState{id: s.nextID, th: th, name: l.name, prompt: l.prompt, depth: l.depth, session: l.session, wake: make(chan struct{}, 1)}
	if p := s.innermost(th); p != nil {
		r.parent = p.id
	}
	s.active = append(s.active, r)
	return r
}

func (s *state) end(r *runState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.active {
		if x == r {
			s.active = append(s.active[:i], s.active[i+1:]...)
			break
		}
	}
}

// record keeps the finished run's record.
func (s *state) record(r *runState, res *vm.Dict, err error) {
	parent := vm.Nil
	if r.parent != 0 {
		parent = vm.IntOf(r.parent)
	}
	errV := vm.Nil
	if err != nil {
		errV = errorValue(err)
	}
	rec := lib.DictOf("id", vm.IntOf(r.id), "agent", vm.Str(r.name), "parent", parent, "prompt", vm.Str(r.prompt),
		"turns", get(res, "turns"), "stop_reason", get(res, "stop_reason"), "text", get(res, "text"),
		"tool_calls", get(res, "tool_calls"), "usage", get(res, "usage"), "error", errV)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, vm.Of(rec))
	if len(s.records) > maxRecords {
		s.records = s.records[len(s.records)-maxRecords:]
	}
}

func (s *state) inject(th *vm.Thread, target string, fb feedback) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var r *runState
	if target == "" {
		r = s.innermost(th)
		if r == nil && len(s.active) > 0 {
			r = s.active[len(s.active)-1]
		}
	} else {
		for i := len(s.active) - 1; i >= 0; i-- {
			if s.active[i].name == target || s.active[i].session == target {
				r = s.active[i]
				break
			}
		}
	}
	if r == nil {
		return false
	}
	r.feedback = append(r.feedback, fb)
	if len(r.wake) == 0 {
		th.VM().Wake(r.wake)
	}
	return true
}

func (s *state) drain(r *runState) []feedback {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := r.feedback
	r.feedback = nil
	return out
}

func (s *state) pending(r *runState) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(r.feedback) > 0
}

func (s *state) trace(n int) vm.Value {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := s.records
	if n >= 0 && n < len(recs) {
		recs = recs[len(recs)-n:]
	}
	return vm.Of(vm.NewList(append([]vm.Value(nil), recs...)))
}

func (s *state) summary() vm.Value {
	s.mu.Lock()
	recs := append([]vm.Value(nil), s.records...)
	s.mu.Unlock()
	var turns, calls, errs, in, out int64
	byTool, byAgent, stops := map[string]int64{}, map[string]int64{}, map[string]int64{}
	for _, rv := range recs {
		r, _ := rv.AsDict()
		t, _ := get(r, "turns").AsInt()
		turns += int64(t)
		byAgent[vm.ToDisplay(get(r, "agent"))]++
		stops[vm.ToDisplay(get(r, "stop_reason"))]++
		if u, ok := get(r, "usage").AsDict(); ok {
			i, _ := get(u, "input_tokens").AsInt()
			o, _ := get(u, "output_tokens").AsInt()
			in += int64(i)
			out += int64(o)
		}
		if l, ok := get(r, "tool_calls").AsList(); ok {
			for _, c := range l.Items() {
				cd, _ := c.AsDict()
				calls++
				byTool[vm.ToDisplay(get(cd, "name"))]++
				if !get(cd, "ok").Truth() {
					errs++
				}
			}
		}
	}
	counts := func(m map[string]int64) vm.Value {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := vm.NewDict()
		for _, k := range keys {
			d = d.Set(k, vm.IntOf(m[k]))
		}
		return vm.Of(d)
	}
	return vm.Of(lib.DictOf("runs", lib.IntOf(len(recs)), "turns", vm.IntOf(turns), "tool_calls", vm.IntOf(calls),
		"tool_errors", vm.IntOf(errs), "input_tokens", vm.IntOf(in), "output_tokens", vm.IntOf(out),
		"total_tokens", vm.IntOf(in+out), "by_tool", counts(byTool), "by_agent", counts(byAgent), "stop_reasons", counts(stops)))
}
