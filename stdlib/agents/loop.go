// Package agents is the agent area of the standard library
// (docs/agents.md; docs/spec/builtins.md §5 names the builtins only):
// agent_loop, the tool-calling loop over llm_call; agent values
// (agent, agent_config, agent_name) and sub_agent_run; the run records
// of agent_trace and agent_trace_summary; agent_inject_feedback.
//
// The loop calls the model with the conversation and the tools, runs
// each tool call the reply asks for through the tool registry's
// invocation path (tool.PreparedTool.Invoke: input validation, hooks,
// output and error schemas), appends the results as tool messages and
// calls again, until the model answers without tool calls (in persistent
// mode: with the done sentinel, or after max_nudges nudges) or max_turns
// is reached. A daemon run idles instead of finishing, until
// agent_inject_feedback wakes it or nothing can (loop.idle). A reply without native calls may carry its calls as
// <tool_call> text blocks (tool_format). Conversations are the plain message lists of
// stdlib/transcripts.
package agents

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harnlang/harn/stdlib/agents/transcriptsink"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/llm"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/stdlib/tools"
	"github.com/harnlang/harn/stdlib/transcripts"
	"github.com/harnlang/harn/vm"
)

const (
	defaultMaxTurns = 10
	maxDepth        = 8 // nested sub-agent runs
)

// loopOptions are agent_loop's own option keys; every llm_call option
// is accepted too and passed on to each model call.
var loopOptions = []string{"max_turns", "max_iterations", "on_tool_call", "on_turn", "tool_errors", "agent", "name", "transcript", "compact", "session",
	"persistent", "done_sentinel", "max_nudges", "nudge", "tool_format", "stop_after_successful_tools",
	"tool_retries", "llm_retries", "context_callback", "daemon", "tool_search", "session_id", "tool_backoff_ms", "llm_backoff_ms", "auto_compact", "token_budget", "require_successful_tools", "approval_policy",
	"policy", "loop_detect_warn", "loop_detect_block", "loop_detect_skip", "post_turn_callback", "exit_when_verified", "turn_policy"}

// The persistent mode's defaults (upstream's option names): a reply
// without tool calls ends the run only when it says the sentinel;
// otherwise the nudge is sent, at most maxNudges times in a row.
const (
	defaultSentinel  = "##DONE##"
	defaultMaxNudges = 3
)

// defaultNudge is the user message of a persistent run whose model
// stopped without the sentinel.
func defaultNudge(sentinel string) string {
	return "You have not finished: continue with the task, calling tools as needed, and write " + sentinel + " when it is complete."
}

// loop is one agent_loop run after its arguments are read.
type loop struct {
	fn          string
	name        string
	system      vm.Value
	llmOpts     *vm.Dict // the llm_call options of every model call, without messages and tools
	tools       *toolset
	maxTurns    int
	onToolCall  vm.Value
	onTurn      vm.Value
	throwTools  bool
	messages    []vm.Value // the conversation so far (system prompt apart)
	tr          *vm.Dict   // the transcript the conversation came from, if any
	depth       int
	prompt      string
	compact     vm.Value // transcript_compact options applied before a call over compactAt tokens, or nil
	compactAt   int64
	autoCompact bool     // options.auto_compact: transcript_auto_compact with compact's options (l.compact, or none) over compactAt
	sessionV    vm.Value // options.session as given, claimed when the run starts
	session     string   // options.session: the agent session the run continues and stores back into
	promptMsg   vm.Value // the user message of the prompt argument, or invalid
	sink        transcriptsink.Sink
	streamID    string          // the transcript stream the run's messages go to (sink set)
	persistent  bool            // options.persistent: finish only on the sentinel
	sentinel    string          // options.done_sentinel
	maxNudges   int             // options.max_nudges
	nudge       string          // options.nudge
	toolFormat  string          // options.tool_format: "" (native calls, else text blocks), "native" or "text"
	stopAfter   []string        // options.stop_after_successful_tools
	required    []string        // options.require_successful_tools: tools each called successfully before the run may finish
	tokenBudget int64           // options.token_budget: the most input and output tokens of the run's model calls (0: none)
	toolRetries int             // options.tool_retries: more attempts of a tool call whose handler failed
	llmRetries  int             // options.llm_retries: more attempts of a model call that failed
	toolBackoff int             // options.tool_backoff_ms: the wait before a tool call's first retry, doubled before each next one
	llmBackoff  int             // options.llm_backoff_ms: the same for model calls
	contextFn   vm.Value        // options.context_callback, or nil
	daemon      bool            // options.daemon: idle for feedback instead of finishing
	approval    *approvalPolicy // options.approval_policy, or nil
	guards      guards          // policy, loop_detect_*, post_turn_callback, exit_when_verified, turn_policy (guards.go)
	loopStop    bool            // a call reached loop_detect_skip: the run ends after this turn
}

// readLoop reads agent_loop(prompt, system?, options?) with agent a (nil
// when none) supplying defaults the options override.
func readLoop(th *vm.Thread, fn string, promptV, systemV, optsV vm.Value, a *vm.Dict, depth int) (*loop, error) {
	if d, ok := systemV.AsDict(); ok {
		if isAgent(d) {
			if a != nil {
				return nil, vm.Throwf("%s: two agents given", fn)
			}
			a, systemV = d, vm.Nil
		} else if !optsV.IsValid() || optsV.IsNil() {
			systemV, optsV = vm.Nil, vm.Of(d)
		} else {
			return nil, vm.Throwf("%s: system must be a string or an agent, got dict", fn)
		}
	}
	opts := vm.NewDict()
	if optsV.IsValid() && !optsV.IsNil() {
		d, ok := optsV.AsDict()
		if !ok {
			return nil, lib.BadOptions(fn, optsV)
		}
		opts = d
	}
	if av := get(opts, "agent"); !av.IsNil() {
		d, ok := av.AsDict()
		if !ok || !isAgent(d) {
			return nil, vm.Throwf("%s: options.agent must be an agent (made by agent(…)), got %s", fn, av.Type())
		}
		if a != nil {
			return nil, vm.Throwf("%s: two agents given", fn)
		}
		a = d
	}
	known := append(llm.OptionKeys(), loopOptions...)
	if err := lib.CheckOptions(fn, opts, known); err != nil {
		return nil, err
	}
	// the agent's settings, then the call's options over them
	merged := vm.NewDict()
	if a != nil {
		if ao, ok := get(a, "options").AsDict(); ok {
			merged = merged.Merge(ao)
		}
		for _, k := range agentKeys {
			if k == "options" || k == "name" || k == "description" {
				continue
			}
			if v := get(a, k); !v.IsNil() {
				merged = merged.Set(k, v)
			}
		}
	}
	// max_iterations is upstream's name for max_turns: one call gives one
	// of them, and either overrides the agent's
	turns, iterations := !get(opts, "max_turns").IsNil(), !get(opts, "max_iterations").IsNil()
	if turns && iterations {
		return nil, vm.Throwf("%s: give max_turns or max_iterations (its alias), not both", fn)
	}
	if turns || iterations {
		merged = merged.Delete("max_turns").Delete("max_iterations")
	}
	merged = merged.Merge(opts)
	l := &loop{fn: fn, name: "agent", system: vm.Nil, llmOpts: vm.NewDict(), maxTurns: defaultMaxTurns, depth: depth, sessionV: vm.Nil}
	if a != nil {
		l.name = vm.ToDisplay(get(a, "name"))
	}
	if n := get(merged, "name"); !n.IsNil() {
		if s, ok := n.AsString(); !ok || s.Go() == "" {
			return nil, vm.Throwf("%s: name must be a non-empty string, got %s", fn, lib.Shown(n))
		}
		l.name = vm.ToDisplay(n)
	}
	switch {
	case systemV.IsValid() && !systemV.IsNil():
		if _, ok := systemV.AsString(); !ok {
			return nil, vm.Throwf("%s: system must be a string, got %s", fn, systemV.Type())
		}
		l.system = systemV
	case !get(merged, "system").IsNil():
		l.system = vm.Str(vm.ToDisplay(get(merged, "system")))
	}
	for _, k := range []string{"max_turns", "max_iterations"} {
		if v := get(merged, k); !v.IsNil() {
			n, ok := v.AsInt()
			if !ok || n < 1 {
				return nil, vm.Throwf("%s: %s must be a positive int, got %s", fn, k, lib.Shown(v))
			}
			l.maxTurns = int(n)
		}
	}
	for _, k := range []string{"on_tool_call", "on_turn"} {
		v := get(merged, k)
		if !v.IsNil() && !vm.IsCallable(v) {
			return nil, vm.Throwf("%s: %s must be a function, got %s", fn, k, v.Type())
		}
	}
	l.onToolCall, l.onTurn = get(merged, "on_tool_call"), get(merged, "on_turn")
	if v := get(merged, "tool_errors"); !v.IsNil() {
		switch vm.ToDisplay(v) {
		case "report":
		case "throw":
			l.throwTools = true
		default:
			return nil, vm.Throwf("%s: tool_errors must be \"report\" or \"throw\", got %s", fn, lib.Shown(v))
		}
	}
	l.compact = vm.Nil
	if v := get(merged, "compact"); !v.IsNil() {
		d, ok := v.AsDict()
		n, isInt := get(d, "max_tokens").AsInt()
		if !ok || !isInt || n <= 0 {
			return nil, vm.Throwf("%s: compact must be transcript_compact options with a positive max_tokens, got %s", fn, lib.Display(v))
		}
		l.compact, l.compactAt = v, int64(n)
	}
	if err := l.readAutoCompact(th, fn, merged); err != nil {
		return nil, err
	}
	if err := l.readPersistence(fn, merged); err != nil {
		return nil, err
	}
	if err := l.readRetries(fn, merged); err != nil {
		return nil, err
	}
	if err := l.readGuards(fn, merged); err != nil {
		return nil, err
	}
	var err error
	if l.approval, err = readApproval(fn, get(merged, "approval_policy")); err != nil {
		return nil, err
	}
	if l.tools, err = newToolset(th, fn, get(merged, "tools"), depth); err != nil {
		return nil, err
	}
	if cfg, on, err := readSearch(fn, get(merged, "tool_search")); err != nil {
		return nil, err
	} else if on {
		if err := l.tools.enableSearch(th, fn, cfg); err != nil {
			return nil, err
		}
	}
	if err := l.checkToolNames(fn); err != nil {
		return nil, err
	}
	for _, k := range []string{"messages", "transcript"} {
		v := get(merged, k)
		if v.IsNil() {
			continue
		}
		if l.messages != nil || l.tr != nil {
			return nil, vm.Throwf("%s: give the conversation once, as messages or as transcript", fn)
		}
		ms, err := transcripts.MessagesAt(fn, fn+": options."+k, v)
		if err != nil {
			return nil, err
		}
		_, l.tr, _ = transcripts.Split(fn, v)
		if err := transcripts.Writable(fn, v); err != nil {
			return nil, err
		}
		l.messages = append([]vm.Value{}, ms...)
	}
	// session_id is upstream's name for session
	for _, k := range []string{"session", "session_id"} {
		v := get(merged, k)
		if v.IsNil() {
			continue
		}
		if l.messages != nil || l.tr != nil || !l.sessionV.IsNil() {
			return nil, vm.Throwf("%s: give the conversation once: session, messages or transcript", fn)
		}
		if id, ok := v.AsString(); !ok || id.Go() == "" {
			return nil, vm.Throwf("%s: options.%s must be a session id (a non-empty string), got %s", fn, k, lib.Shown(v))
		}
		l.sessionV = v
	}
	if promptV.IsValid() && !promptV.IsNil() {
		s, ok := promptV.AsString()
		if !ok {
			return nil, vm.Throwf("%s: prompt must be a string, got %s", fn, promptV.Type())
		}
		l.prompt = s.Go()
		l.promptMsg = transcripts.NewMessage("user", s.Go())
		l.messages = append(l.messages, l.promptMsg)
	} else {
		for i := len(l.messages) - 1; i >= 0; i-- {
			if transcripts.Role(l.messages[i]) == "user" {
				l.prompt = transcripts.Text(l.messages[i])
				break
			}
		}
	}
	if len(l.messages) == 0 && l.sessionV.IsNil() {
		return nil, vm.Throwf("%s: nothing to send: give a prompt or options.messages", fn)
	}
	for _, k := range llm.OptionKeys() {
		if k == "messages" || k == "tools" || k == "system" {
			continue
		}
		if v := get(merged, k); !v.IsNil() {
			l.llmOpts = l.llmOpts.Set(k, v)
		}
	}
	if err := l.claimSession(th); err != nil {
		return nil, err
	}
	return l, nil
}

// readAutoCompact reads upstream's auto_compact option: true for
// transcript_auto_compact's defaults (8000 tokens), or a dict of its
// options; the compact option is the other way to compact.
func (l *loop) readAutoCompact(th *vm.Thread, fn string, merged *vm.Dict) error {
	v := get(merged, "auto_compact")
	if v.IsNil() {
		return nil
	}
	if b, ok := v.AsBool(); ok {
		if !bool(b) {
			return nil
		}
		v = vm.Of(vm.NewDict())
	}
	d, ok := v.AsDict()
	if !ok {
		return vm.Throwf("%s: auto_compact must be a bool or transcript_auto_compact options, got %s", fn, lib.Shown(v))
	}
	if !l.compact.IsNil() {
		return vm.Throwf("%s: give compact or auto_compact, not both", fn)
	}
	// its options are checked now, on an empty conversation
	if _, err := transcripts.AutoCompact(th, fn+": auto_compact", vm.Of(vm.NewList(nil)), v); err != nil {
		return err
	}
	n := int64(transcripts.AutoCompactTokens)
	if i, ok := get(d, "max_tokens").AsInt(); ok {
		n = int64(i)
	}
	l.compact, l.compactAt, l.autoCompact = v, n, true
	return nil
}

// readPersistence reads upstream's persistent, done_sentinel, max_nudges,
// nudge, stop_after_successful_tools, require_successful_tools,
// token_budget and tool_format options.
func (l *loop) readPersistence(fn string, merged *vm.Dict) error {
	l.sentinel, l.maxNudges = defaultSentinel, defaultMaxNudges
	if err := readBool(fn, "persistent", get(merged, "persistent"), &l.persistent); err != nil {
		return err
	}
	if v := get(merged, "done_sentinel"); !v.IsNil() {
		s, ok := v.AsString()
		if !ok || s.Go() == "" {
			return vm.Throwf("%s: done_sentinel must be a non-empty string, got %s", fn, lib.Shown(v))
		}
		l.sentinel = s.Go()
	}
	if err := readCount(fn, merged, "max_nudges", &l.maxNudges); err != nil {
		return err
	}
	l.nudge = defaultNudge(l.sentinel)
	if v := get(merged, "nudge"); !v.IsNil() {
		s, ok := v.AsString()
		if !ok || s.Go() == "" {
			return vm.Throwf("%s: nudge must be a non-empty string, got %s", fn, lib.Shown(v))
		}
		l.nudge = s.Go()
	}
	if v := get(merged, "stop_after_successful_tools"); !v.IsNil() {
		names, err := toolNames(fn, "stop_after_successful_tools", v)
		if err != nil {
			return err
		}
		l.stopAfter = names
	}
	if v := get(merged, "require_successful_tools"); !v.IsNil() {
		names, err := toolNames(fn, "require_successful_tools", v)
		if err != nil {
			return err
		}
		l.required = names
	}
	if v := get(merged, "token_budget"); !v.IsNil() {
		n, ok := v.AsInt()
		if !ok || n < 1 {
			return vm.Throwf("%s: token_budget must be a positive int, got %s", fn, lib.Shown(v))
		}
		l.tokenBudget = int64(n)
	}
	if v := get(merged, "tool_format"); !v.IsNil() {
		switch f := vm.ToDisplay(v); f {
		case "native", "text":
			l.toolFormat = f
		default:
			return vm.Throwf("%s: tool_format must be \"native\" or \"text\", got %s", fn, lib.Shown(v))
		}
	}
	return nil
}

// readRetries reads upstream's tool_retries, llm_retries, their
// tool_backoff_ms and llm_backoff_ms, context_callback and daemon options.
func (l *loop) readRetries(fn string, merged *vm.Dict) error {
	if err := readCount(fn, merged, "tool_retries", &l.toolRetries); err != nil {
		return err
	}
	if err := readCount(fn, merged, "llm_retries", &l.llmRetries); err != nil {
		return err
	}
	if err := readCount(fn, merged, "tool_backoff_ms", &l.toolBackoff); err != nil {
		return err
	}
	if err := readCount(fn, merged, "llm_backoff_ms", &l.llmBackoff); err != nil {
		return err
	}
	if err := readCallback(fn, merged, "context_callback", &l.contextFn); err != nil {
		return err
	}
	return readBool(fn, "daemon", get(merged, "daemon"), &l.daemon)
}

// readCount sets *n to option k of merged, an int >= 0, when it is given.
func readCount(fn string, merged *vm.Dict, k string, n *int) error {
	v := get(merged, k)
	if v.IsNil() {
		return nil
	}
	i, ok := v.AsInt()
	if !ok || i < 0 {
		return vm.Throwf("%s: %s must be an int >= 0, got %s", fn, k, lib.Shown(v))
	}
	*n = int(i)
	return nil
}

// readBool reads a bool option v (nil leaves b as it is); what names it
// in the error.
func readBool(fn, what string, v vm.Value, b *bool) error {
	if v.IsNil() {
		return nil
	}
	x, ok := v.AsBool()
	if !ok {
		return vm.Throwf("%s: %s must be a bool, got %s", fn, what, lib.Shown(v))
	}
	*b = bool(x)
	return nil
}

// readCallback reads a function option k (nil when absent).
func readCallback(fn string, merged *vm.Dict, k string, f *vm.Value) error {
	*f = get(merged, k)
	if !f.IsNil() && !vm.IsCallable(*f) {
		return vm.Throwf("%s: %s must be a function, got %s", fn, k, f.Type())
	}
	return nil
}

// run drives the loop and returns agent_loop's result dict.
func (l *loop) run(th *vm.Thread) (vm.Value, error) {
	st := stateOf(th)
	r := st.begin(th, l)
	defer st.end(r)
	defer l.releaseSession(th)
	parent := vm.Nil
	if r.parent != 0 {
		parent = vm.IntOf(r.parent)
	}
	l.streamTo(th)
	if l.promptMsg.IsValid() {
		l.stream(r, l.promptMsg)
	}
	if err := st.emit(th, r, "run_start", "parent", parent, "prompt", vm.Str(l.prompt)); err != nil {
		st.record(r, lib.DictOf("turns", vm.IntOf(0), "stop_reason", vm.Str("error"), "text", vm.Str("")), err)
		return vm.Value{}, err
	}
	started := htime.VMNow(th).UnixMilli()
	var inTok, outTok int64
	var history []vm.Value
	text, stop, model := "", "", vm.Nil
	turns, compactions, nudges := 0, 0, 0
	finish := func(err error) (vm.Value, error) {
		usage := lib.DictOf("input_tokens", vm.IntOf(inTok), "output_tokens", vm.IntOf(outTok), "total_tokens", vm.IntOf(inTok+outTok))
		// options.transcript's (same id), else a new one, so that
		// {transcript: r.transcript} continues the conversation
		var trV vm.Value
		if l.tr != nil {
			trV = transcripts.Rebuild(l.tr, l.messages)
		} else {
			trV = vm.Of(transcripts.New("", l.messages, vm.Nil, vm.Nil))
		}
		res := lib.DictOf("text", vm.Str(text), "messages", vm.Of(vm.NewList(l.messages)), "turns", lib.IntOf(turns),
			"tool_calls", vm.Of(vm.NewList(history)), "usage", vm.Of(usage), "stop_reason", vm.Str(stop),
			"agent", vm.Str(l.name), "model", model, "transcript", trV, "compactions", lib.IntOf(compactions),
			"status", vm.Str(loopStatus(stop)), "iterations", lib.IntOf(turns), "tools_used", toolsUsed(history),
			"duration_ms", vm.IntOf(htime.VMNow(th).UnixMilli()-started))
		if l.session != "" {
			res = res.Set("session", vm.Str(l.session))
		}
		errV := vm.Nil
		if err != nil {
			errV = errorValue(err)
		}
		if e := st.emit(th, r, "run_end", "stop_reason", vm.Str(stop), "turns", lib.IntOf(turns), "text", vm.Str(text), "error", errV); e != nil && err == nil {
			err = e
		}
		st.record(r, res, err)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(res), nil
	}
	for {
		for _, fb := range st.drain(r) {
			kind := vm.Nil
			if fb.kind != "" {
				kind = vm.Str(fb.kind)
			}
			l.add(r, transcripts.NewMessage("user", fb.text, "feedback", vm.True, "feedback_kind", kind))
		}
		var err error
		if compactions, err = l.maybeCompact(th, compactions); err != nil {
			stop = "error"
			return finish(err)
		}
		turns++
		system := l.system
		if l.tools.has() && l.toolFormat == "text" {
			system = l.textSystem()
		}
		sent, system, err := l.context(th, turns, system)
		if err != nil {
			stop = "error"
			return finish(err)
		}
		opts := l.llmOpts.Set("messages", sent)
		if l.tools.has() && l.toolFormat != "text" {
			opts = opts.Set("tools", l.tools.offered())
		}
		resp, err := l.callModel(th, system, opts)
		if err != nil {
			stop = "error"
			return finish(err)
		}
		rd, _ := resp.AsDict()
		if u, ok := get(rd, "usage").AsDict(); ok {
			n, _ := get(u, "input_tokens").AsInt()
			m, _ := get(u, "output_tokens").AsInt()
			inTok += int64(n)
			outTok += int64(m)
		}
		model = get(rd, "model")
		text = vm.ToDisplay(get(rd, "text"))
		l.add(r, get(rd, "message"))
		var calls []vm.Value
		if cl, ok := get(rd, "tool_calls").AsList(); ok {
			calls = cl.Items()
		}
		textCalls := false
		if l.toolFormat != "native" && len(calls) == 0 && l.tools.has() {
			calls = l.textToolCalls(text, len(history))
			textCalls = len(calls) > 0
		}
		var turnCalls []vm.Value
		for _, c := range calls {
			rec, msg, err := l.toolCall(th, c, turns)
			if rec.IsValid() {
				history = append(history, rec)
				turnCalls = append(turnCalls, rec)
				if e := st.emit(th, r, "tool_call", "turn", lib.IntOf(turns), "call", rec); e != nil && err == nil {
					err = e
				}
			}
			if msg.IsValid() && textCalls {
				msg = textResultMessage(msg)
			}
			if msg.IsValid() {
				l.add(r, msg)
			}
			if err != nil {
				stop = "tool_error"
				return finish(err)
			}
		}
		if err := st.emit(th, r, "turn", "turn", lib.IntOf(turns), "text", vm.Str(text), "tool_calls", vm.Of(vm.NewList(turnCalls)),
			"stop_reason", get(rd, "stop_reason")); err != nil {
			stop = "error"
			return finish(err)
		}
		if vm.IsCallable(l.onTurn) {
			info := lib.DictOf("turn", lib.IntOf(turns), "text", vm.Str(text), "tool_calls", vm.Of(vm.NewList(turnCalls)),
				"stop_reason", get(rd, "stop_reason"), "usage", get(rd, "usage"), "agent", vm.Str(l.name))
			v, err := th.Call(l.onTurn, vm.Of(info))
			if err != nil {
				stop = "error"
				return finish(err)
			}
			if b, ok := v.AsBool(); ok && !bool(b) {
				stop = "stopped"
				return finish(nil)
			}
		}
		injected := false
		if vm.IsCallable(l.guards.postTurn) {
			msg, halt, err := l.postTurn(th, turns, text, turnCalls, get(rd, "stop_reason"), get(rd, "usage"))
			if err != nil {
				stop = "error"
				return finish(err)
			}
			if msg != "" {
				l.add(r, transcripts.NewMessage("user", msg))
				injected = true
			}
			if halt {
				stop = "stopped"
				return finish(nil)
			}
		}
		if len(calls) > 0 {
			nudges = 0
		}
		if l.finishedByTool(turnCalls) {
			stop = "stop_after_tool"
			return finish(nil)
		}
		if l.loopStop {
			stop = "loop_detected"
			return finish(nil)
		}
		if l.guards.verified && len(turnCalls) > 0 && len(l.missingRequired(history)) == 0 {
			stop = "verified"
			return finish(nil)
		}
		if len(calls) == 0 && !injected && !st.pending(r) {
			if nudge := l.nudgeFor(history, text); nudge != "" {
				if nudges >= l.maxNudges {
					stop = "stuck"
					return finish(nil)
				}
				nudges++
				l.add(r, transcripts.NewMessage("user", nudge))
			} else if l.daemon {
				woke, err := l.idle(th, st, r, turns)
				if err != nil {
					stop = "error"
					return finish(err)
				}
				if !woke {
					stop = "idle"
					return finish(nil)
				}
				continue
			} else {
				stop = vm.ToDisplay(get(rd, "stop_reason"))
				return finish(nil)
			}
		}
		if l.tokenBudget > 0 && inTok+outTok >= l.tokenBudget {
			stop = "token_budget"
			return finish(nil)
		}
		if turns >= l.maxTurns {
			stop = "max_turns"
			return finish(nil)
		}
	}
}

// idle is a daemon run's wait after the model finished turn: until
// agent_inject_feedback (from another task, or a callback) queues a
// message for the run, which then goes on. It reports false, the run
// ending idle, when no turn is left to answer the feedback, or when
// nothing can ever send it: every other task of the program waits too,
// or has ended (the deadlock the scheduler detects). The idle event goes
// to the subscribers first.
func (l *loop) idle(th *vm.Thread, st *state, r *runState, turn int) (bool, error) {
	if turn >= l.maxTurns {
		return false, nil
	}
	if err := st.emit(th, r, "idle", "turn", lib.IntOf(turn)); err != nil {
		return false, err
	}
	for !st.pending(r) {
		woke, err := th.WaitOnThreads(r.wake, -1)
		if e, ok := err.(*vm.Error); ok && e.Kind == vm.KindCategorized && e.Category == "deadlock" {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if !woke {
			return false, nil
		}
	}
	return true, nil
}

// context is what a model call of turn sends: the conversation and the
// system prompt, or what context_callback returns instead for this call
// (the conversation itself is kept whole).
func (l *loop) context(th *vm.Thread, turn int, system vm.Value) (vm.Value, vm.Value, error) {
	msgs := vm.Of(vm.NewList(l.messages))
	if l.contextFn.IsNil() { // readRetries checked it is nil or a function
		return msgs, system, nil
	}
	info := lib.DictOf("messages", msgs, "system", system, "turn", lib.IntOf(turn), "agent", vm.Str(l.name))
	v, err := th.Call(l.contextFn, vm.Of(info))
	if err != nil || v.IsNil() {
		return msgs, system, err
	}
	if _, ok := v.AsList(); ok {
		return v, system, nil
	}
	d, ok := v.AsDict()
	if !ok || d.Has("_type") {
		return vm.Value{}, vm.Value{}, vm.Throwf("%s: context_callback must return nil, a list of messages or a dict {messages?, system?}, got %s", l.fn, v.Type())
	}
	for _, k := range d.Keys() {
		if k != "messages" && k != "system" {
			return vm.Value{}, vm.Value{}, vm.Throwf("%s: context_callback returned a dict with key %q (known: messages, system)", l.fn, k)
		}
	}
	if m := get(d, "messages"); !m.IsNil() {
		if _, ok := m.AsList(); !ok {
			return vm.Value{}, vm.Value{}, vm.Throwf("%s: context_callback's messages must be a list, got %s", l.fn, m.Type())
		}
		msgs = m
	}
	if d.Has("system") {
		system = get(d, "system")
	}
	return msgs, system, nil
}

// callModel is one model call, made again up to llm_retries times when
// it fails as a model call fails (a provider, network or mocked error:
// a thrown {category, message}); a mistake in the options is not retried.
func (l *loop) callModel(th *vm.Thread, system vm.Value, opts *vm.Dict) (vm.Value, error) {
	for attempt := 0; ; attempt++ {
		resp, err := llm.Call(th, l.fn, vm.Nil, system, vm.Of(opts))
		if err == nil || attempt >= l.llmRetries || !isCallFailure(err) {
			return resp, err
		}
		if err := backoff(th, l.llmBackoff, attempt); err != nil {
			return vm.Value{}, err
		}
	}
}

// backoff waits before retry number attempt+1: base milliseconds, doubled
// for each earlier retry (at most 2^10 times the base). It sleeps as
// sleep does, so under mock_time it advances the mocked clock instead.
func backoff(th *vm.Thread, base, attempt int) error {
	if base <= 0 {
		return nil
	}
	return htime.Sleep(th, time.Duration(base)*time.Millisecond<<min(attempt, 10))
}

// isCallFailure reports whether err is a failed model call's
// {category, message} (not an exit, a cancellation or a usage error).
func isCallFailure(err error) bool {
	e, ok := err.(*vm.Error)
	if !ok || e.Kind == vm.KindExit || e.Kind == vm.KindCancelled {
		return false
	}
	d, ok := e.Caught().AsDict()
	return ok && d.Has("category") && d.Has("message")
}

// checkToolNames refuses a stop_after_successful_tools or
// require_successful_tools name that no tool of the loop has: a typo
// would otherwise never stop the run, or nudge it until it is stuck.
func (l *loop) checkToolNames(fn string) error {
	for _, opt := range []struct {
		key   string
		names []string
	}{{"stop_after_successful_tools", l.stopAfter}, {"require_successful_tools", l.required}} {
		for _, n := range opt.names {
			if _, ok := l.tools.byName[n]; !ok {
				return vm.Throwf("%s: %s: %q is not an available tool%s", fn, opt.key, n, lib.DidYouMean(n, l.tools.names))
			}
		}
	}
	return nil
}

// toolNames reads option k of fn, a list of tool names: an error names
// a value that is not a list, or the element that is not a string.
func toolNames(fn, k string, v vm.Value) ([]string, error) {
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Throwf("%s: %s must be a list of tool names, got %s", fn, k, lib.Shown(v))
	}
	out := make([]string, 0, l.Len())
	for i, it := range l.Items() {
		s, ok := it.AsString()
		if !ok {
			return nil, vm.Throwf("%s: %s[%d] must be a tool name (a string), got %s", fn, k, i, lib.Shown(it))
		}
		out = append(out, s.Go())
	}
	return out, nil
}

// finishedByTool reports whether a call of the turn succeeded on a tool
// named by stop_after_successful_tools.
func (l *loop) finishedByTool(turnCalls []vm.Value) bool {
	for _, rec := range turnCalls {
		d, _ := rec.AsDict()
		if ok, _ := get(d, "ok").AsBool(); bool(ok) && slices.Contains(l.stopAfter, vm.ToDisplay(get(d, "name"))) {
			return true
		}
	}
	return false
}

// missingRequired is the require_successful_tools names that no call of
// history has run successfully yet, in the option's order.
func (l *loop) missingRequired(history []vm.Value) []string {
	var missing []string
	for _, name := range l.required {
		done := false
		for _, rec := range history {
			d, _ := rec.AsDict()
			if ok, _ := get(d, "ok").AsBool(); bool(ok) && vm.ToDisplay(get(d, "name")) == name {
				done = true
				break
			}
		}
		if !done {
			missing = append(missing, name)
		}
	}
	return missing
}

// requiredNudge is the user message sent when the model finished before
// calling the require_successful_tools tools named by missing.
func requiredNudge(missing []string) string {
	return "You have not finished: call " + strings.Join(missing, ", ") + " successfully before you give your final answer."
}

// nudgeFor is the user message that sends a reply without tool calls
// back to work: the require_successful_tools not yet run successfully,
// else a persistent run's nudge when text lacks the sentinel; "" when
// the run may finish.
func (l *loop) nudgeFor(history []vm.Value, text string) string {
	if missing := l.missingRequired(history); len(missing) > 0 {
		return requiredNudge(missing)
	}
	if nudge := l.turnPolicyNudge(text); nudge != "" {
		return nudge
	}
	if l.persistent && !strings.Contains(text, l.sentinel) {
		return l.nudge
	}
	return ""
}

// loopStatus is upstream's status of a finished run, kept beside
// stop_reason for programs written against upstream: "done" when the
// model finished (or on_turn stopped the loop), "budget_exhausted" when
// max_turns or token_budget ran out first, "stuck" when a persistent run
// (or one with require_successful_tools) used up its
// nudges, "idle" when a daemon run idled with nothing left to wake it
// (a run stop_after_successful_tools ended is "done").
func loopStatus(stop string) string {
	switch stop {
	case "max_turns", "token_budget":
		return "budget_exhausted"
	case "stuck", "loop_detected":
		return "stuck"
	case "idle":
		return "idle"
	}
	return "done"
}

// textSystem is the system prompt of a tool_format "text" run: the
// given one, then tool_prompt's text for the offered tools.
func (l *loop) textSystem() vm.Value {
	p := l.tools.prompt()
	if l.system.IsNil() {
		return vm.Str(p)
	}
	return vm.Str(vm.ToDisplay(l.system) + "\n\n" + p)
}

// textResultMessage is the tool message of a text-format call as the
// model reads it: a user message holding tool_format_result's envelope.
func textResultMessage(msg vm.Value) vm.Value {
	d, _ := msg.AsDict()
	return transcripts.NewMessage("user", tools.FormatResult(vm.ToDisplay(get(d, "name")), transcripts.Text(msg)))
}

// textToolCalls are the <tool_call> blocks of a reply's text (read when
// the reply has no native calls, unless tool_format is "native"). Without
// tool_format "text" only blocks naming an offered tool count, so a model
// that calls natively and writes such a block as an example is not taken
// at its word. A call without its own id is numbered after the run's
// earlier calls: text_call_1, ….
func (l *loop) textToolCalls(text string, before int) []vm.Value {
	var calls []vm.Value
	for _, c := range tools.ParseCalls(text) {
		d, _ := c.AsDict()
		if !l.tools.isOffered(vm.ToDisplay(get(d, "name"))) && l.toolFormat != "text" {
			continue
		}
		if !d.Has("id") {
			d = d.Set("id", vm.Str(fmt.Sprintf("text_call_%d", before+len(calls)+1)))
		}
		calls = append(calls, vm.Of(d))
	}
	return calls
}

// toolsUsed is upstream's tools_used: the names of the tools the run
// called, each once, in the order of their first call.
func toolsUsed(history []vm.Value) vm.Value {
	seen := map[string]bool{}
	var names []string
	for _, rec := range history {
		d, _ := rec.AsDict()
		name := vm.ToDisplay(get(d, "name"))
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return vm.Of(lib.StrList(names))
}

// maybeCompact compacts the conversation before a model call when the
// compact option is set and the conversation's estimated tokens exceed
// its max_tokens; it returns the number of compactions so far.
func (l *loop) maybeCompact(th *vm.Thread, n int) (int, error) {
	if l.compact.IsNil() || llm.EstimateTokens(vm.Of(vm.NewList(l.messages))) <= l.compactAt {
		return n, nil
	}
	compact, what := transcripts.Compact, ": compact"
	if l.autoCompact {
		compact, what = transcripts.AutoCompact, ": auto_compact"
	}
	v, err := compact(th, l.fn+what, vm.Of(vm.NewList(l.messages)), l.compact)
	if err != nil {
		return n, err
	}
	items, _, _ := transcripts.Split(l.fn, v)
	if len(items) != len(l.messages) || l.autoCompact {
		n++ // auto_compact may only shorten old tool results (microcompact)
	}
	l.messages = append([]vm.Value(nil), items...)
	return n, nil
}

// toolCall runs one tool call of turn: its history record, the tool
// message answering it, and an error that ends the loop (exit,
// cancellation, a failing callback, or any tool failure with
// tool_errors: "throw").
func (l *loop) toolCall(th *vm.Thread, c vm.Value, turn int) (vm.Value, vm.Value, error) {
	cd, _ := c.AsDict()
	id, name, args := vm.ToDisplay(get(cd, "id")), vm.ToDisplay(get(cd, "name")), get(cd, "arguments")
	var o outcome
	handled, repeats := false, 0
	if l.guards.loopDetecting() {
		repeats = l.guards.repeat(name, args)
		g := l.guards
		if (g.blockAt > 0 && repeats >= g.blockAt) || (g.stopAt > 0 && repeats >= g.stopAt) {
			msg := loopBlocked(name, repeats)
			o, handled = outcome{text: msg, err: vm.Runtimef("%s", msg)}, true
			l.loopStop = l.loopStop || (g.stopAt > 0 && repeats >= g.stopAt)
		}
	}
	if !handled && vm.IsCallable(l.onToolCall) {
		info := lib.DictOf("id", vm.Str(id), "name", vm.Str(name), "arguments", args, "turn", lib.IntOf(turn), "agent", vm.Str(l.name))
		v, err := th.Call(l.onToolCall, vm.Of(info))
		if err != nil {
			return vm.Value{}, vm.Value{}, err
		}
		if b, ok := v.AsBool(); ok && !bool(b) {
			msg := fmt.Sprintf("tool call %q was refused by on_tool_call", name)
			o, handled = outcome{text: msg, err: vm.Runtimef("%s", msg)}, true
		} else if d, ok := v.AsDict(); ok {
			switch {
			case d.Has("error"):
				msg := failureText(get(d, "error"))
				o, handled = outcome{text: msg, err: vm.Throw(vm.Str(msg))}, true
			case d.Has("result"):
				res := get(d, "result")
				o, handled = outcome{value: res, text: llm.ContentText(res), ok: true}, true
			case d.Has("arguments"):
				args = get(d, "arguments")
			default:
				return vm.Value{}, vm.Value{}, vm.Throwf("%s: on_tool_call returned a dict without result, error or arguments (keys: %s)", l.fn, strings.Join(d.Keys(), ", "))
			}
		} else if !v.IsNil() && v.Kind() != vm.KBool {
			return vm.Value{}, vm.Value{}, vm.Throwf("%s: on_tool_call returned %s; expected nil, a bool, or a dict {result}, {error} or {arguments}", l.fn, lib.Shown(v))
		}
	}
	if !handled && l.tools.isOffered(name) {
		if reason := l.guards.policyRefusal(name, l.tools.defs[name]); reason != "" {
			msg := fmt.Sprintf("tool %q failed: denied by policy: %s", name, reason)
			o, handled = outcome{text: msg, err: vm.Runtimef("%s", msg)}, true
		}
	}
	if !handled && l.approval != nil && l.tools.isOffered(name) {
		reason, err := l.approval.decide(th, name, args, l.tools.defs[name])
		if err != nil {
			return vm.Value{}, vm.Value{}, err
		}
		if reason != "" {
			msg := fmt.Sprintf("tool %q failed: denied by approval policy: %s", name, reason)
			o, handled = outcome{text: msg, err: vm.Runtimef("%s", msg)}, true
		}
	}
	if !handled {
		o = l.tools.run(th, name, args)
		for try := 0; try < l.toolRetries && o.retryable; try++ {
			if err := backoff(th, l.toolBackoff, try); err != nil {
				return vm.Value{}, vm.Value{}, err
			}
			o = l.tools.run(th, name, args)
		}
	}
	content := o.text
	if !o.ok {
		content = "Error: " + o.text
	}
	if g := l.guards; g.warnAt > 0 && repeats >= g.warnAt && !(g.blockAt > 0 && repeats >= g.blockAt) && !(g.stopAt > 0 && repeats >= g.stopAt) {
		content += loopWarning(name, repeats)
	}
	rec := lib.DictOf("id", vm.Str(id), "name", vm.Str(name), "arguments", args, "turn", lib.IntOf(turn), "ok", vm.BoolOf(o.ok))
	if o.ok {
		rec = rec.Set("result", o.value).Set("error", vm.Nil)
	} else {
		rec = rec.Set("result", vm.Nil).Set("error", vm.Str(o.text))
	}
	msg := transcripts.ToolResult(id, name, content, !o.ok)
	if !o.ok && (o.fatal || l.throwTools) {
		return vm.Of(rec), msg, o.err
	}
	return vm.Of(rec), msg, nil
}
