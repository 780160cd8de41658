package agents

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/vm"
)

// This file holds upstream's agent_loop options that guard a run
// (docs/agents.md "Guards"): the capability ceiling policy, loop
// detection, post_turn_callback, exit_when_verified and turn_policy.
// The references name them only; what each does is this
// implementation's choice, written in docs/agents.md.

// sideEffectLevels are docs/spec/registry.md §2.4's side-effect levels,
// from the least to the most a tool may do.
var sideEffectLevels = []string{"none", "read_only", "workspace_write", "process_exec", "network", "desktop_control"}

// policyKeys are the fields of the policy option.
var policyKeys = []string{"tools", "side_effect_level"}

// turnPolicyKeys are the fields of the turn_policy option.
var turnPolicyKeys = []string{"require_action_or_yield", "max_prose_chars"}

// guards are a run's guard options.
type guards struct {
	policyTools []string // policy.tools: glob patterns a called tool must match (nil: any)
	policyLevel int      // policy.side_effect_level's index in sideEffectLevels, -1 when none
	warnAt      int      // loop_detect_warn (0: off)
	blockAt     int      // loop_detect_block (0: off)
	stopAt      int      // loop_detect_skip (0: off)
	postTurn    vm.Value // post_turn_callback, or nil
	verified    bool     // exit_when_verified
	actOrYield  bool     // turn_policy.require_action_or_yield
	maxProse    int      // turn_policy.max_prose_chars (0: none)
	lastCall    string   // the name and arguments of the run's last tool call
	repeats     int      // how many calls in a row were lastCall
}

// readGuards reads the guard options of merged.
func (l *loop) readGuards(fn string, merged *vm.Dict) error {
	g := &l.guards
	g.policyLevel = -1
	if v := get(merged, "policy"); !v.IsNil() {
		d, ok := v.AsDict()
		if !ok {
			return vm.Throwf("%s: policy must be a dict {%s}, got %s", fn, strings.Join(policyKeys, ", "), lib.Shown(v))
		}
		if err := lib.CheckKeys(fn+": policy", d, policyKeys); err != nil {
			return err
		}
		if t := get(d, "tools"); !t.IsNil() {
			list, ok := t.AsList()
			if !ok {
				return vm.Throwf("%s: policy.tools must be a list of tool names or glob patterns, got %s", fn, lib.Shown(t))
			}
			g.policyTools = []string{}
			for i, it := range list.Items() {
				s, ok := it.AsString()
				if !ok || s.Go() == "" {
					return vm.Throwf("%s: policy.tools[%d] must be a non-empty tool name or glob pattern, got %s", fn, i, lib.Shown(it))
				}
				if _, err := path.Match(s.Go(), ""); err != nil {
					return vm.Throwf("%s: policy.tools[%d] is not a valid glob pattern: %q", fn, i, s.Go())
				}
				g.policyTools = append(g.policyTools, s.Go())
			}
		}
		if lv := get(d, "side_effect_level"); !lv.IsNil() {
			s, _ := lv.AsString()
			g.policyLevel = slices.Index(sideEffectLevels, s.Go())
			if _, ok := lv.AsString(); !ok || g.policyLevel < 0 {
				return vm.Throwf("%s: policy.side_effect_level must be one of %s, got %s", fn, strings.Join(sideEffectLevels, ", "), lib.Shown(lv))
			}
		}
	}
	for _, o := range []struct {
		key string
		dst *int
	}{{"loop_detect_warn", &g.warnAt}, {"loop_detect_block", &g.blockAt}, {"loop_detect_skip", &g.stopAt}} {
		v := get(merged, o.key)
		if v.IsNil() {
			continue
		}
		n, ok := v.AsInt()
		if !ok || n == 1 || n < 0 {
			return vm.Throwf("%s: %s must be 0 (off) or an int >= 2, got %s", fn, o.key, lib.Shown(v))
		}
		*o.dst = int(n)
	}
	if err := readCallback(fn, merged, "post_turn_callback", &g.postTurn); err != nil {
		return err
	}
	if err := readBool(fn, "exit_when_verified", get(merged, "exit_when_verified"), &g.verified); err != nil {
		return err
	}
	if g.verified && len(l.required) == 0 {
		return vm.Throwf("%s: exit_when_verified needs require_successful_tools (the tools whose success verifies the work)", fn)
	}
	if v := get(merged, "turn_policy"); !v.IsNil() {
		d, ok := v.AsDict()
		if !ok {
			return vm.Throwf("%s: turn_policy must be a dict {%s}, got %s", fn, strings.Join(turnPolicyKeys, ", "), lib.Shown(v))
		}
		if err := lib.CheckKeys(fn+": turn_policy", d, turnPolicyKeys); err != nil {
			return err
		}
		if err := readBool(fn, "turn_policy.require_action_or_yield", get(d, "require_action_or_yield"), &g.actOrYield); err != nil {
			return err
		}
		if m := get(d, "max_prose_chars"); !m.IsNil() {
			n, ok := m.AsInt()
			if !ok || n < 1 {
				return vm.Throwf("%s: turn_policy.max_prose_chars must be a positive int, got %s", fn, lib.Shown(m))
			}
			g.maxProse = int(n)
		}
	}
	return nil
}

// policyRefusal is why the policy option refuses a call of the tool name
// (defined by def), or "" when it may run: a tool must match one of
// policy.tools (when given), and its declared side-effect level
// (execution_policy, else annotations) must not be above the policy's.
// A tool that declares no level is not limited by the level.
func (g *guards) policyRefusal(name string, def vm.Value) string {
	if g.policyTools != nil && firstMatch(g.policyTools, name) == "" {
		return fmt.Sprintf("tool %q is not in the policy's tools", name)
	}
	if g.policyLevel < 0 {
		return ""
	}
	level := declaredLevel(def)
	if i := slices.Index(sideEffectLevels, level); i > g.policyLevel {
		return fmt.Sprintf("tool %q has side-effect level %q, above the policy's %q", name, level, sideEffectLevels[g.policyLevel])
	}
	return ""
}

// declaredLevel is the side_effect_level a tool definition declares, in
// execution_policy or else in annotations; "" when none.
func declaredLevel(def vm.Value) string {
	d, _ := def.AsDict()
	for _, k := range []string{"execution_policy", "annotations"} {
		p, _ := get(d, k).AsDict()
		if s, ok := get(p, "side_effect_level").AsString(); ok {
			return s.Go()
		}
	}
	return ""
}

// repeat counts a call of name with args: how many calls of the run in a
// row (this one included) had this name and these arguments.
func (g *guards) repeat(name string, args vm.Value) int {
	key := name + "\x00" + llm.ContentText(args)
	if key == g.lastCall {
		g.repeats++
	} else {
		g.lastCall, g.repeats = key, 1
	}
	return g.repeats
}

// loopDetecting reports whether a loop_detect_* option is on.
func (g *guards) loopDetecting() bool { return g.warnAt > 0 || g.blockAt > 0 || g.stopAt > 0 }

// loopWarning is the note added to what the model reads of the n-th
// identical call of name in a row.
func loopWarning(name string, n int) string {
	return fmt.Sprintf("\n\n[loop detected: %s was called %d times in a row with the same arguments; try a different approach]", name, n)
}

// loopBlocked is the error result of a call loop detection refuses.
func loopBlocked(name string, n int) string {
	return fmt.Sprintf("tool %q blocked by loop detection: called %d times in a row with the same arguments", name, n)
}

// proseNudge is the user message sent back when a reply without tool
// calls is longer than turn_policy.max_prose_chars.
func proseNudge(n, limit int) string {
	return fmt.Sprintf("Your reply has %d characters, more than the %d allowed without a tool call: call a tool, or answer in at most %d characters.", n, limit, limit)
}

// turnPolicyNudge is the nudge turn_policy asks for after a reply
// without tool calls, or "".
func (l *loop) turnPolicyNudge(text string) string {
	if l.guards.maxProse > 0 {
		if n := utf8.RuneCountInString(text); n > l.guards.maxProse {
			return proseNudge(n, l.guards.maxProse)
		}
	}
	if l.guards.actOrYield && !strings.Contains(text, l.sentinel) {
		return l.nudge
	}
	return ""
}

// postTurn calls post_turn_callback after turn: it returns the user
// message to add (or "") and whether the run stops. The callback returns
// nil or false (nothing), true (stop), a string (a user message for the
// model, which goes on even when it had finished) or a dict
// {message?, stop?}.
func (l *loop) postTurn(th *vm.Thread, turn int, text string, turnCalls []vm.Value, stopReason vm.Value, usage vm.Value) (string, bool, error) {
	var names, ok []string
	for _, rec := range turnCalls {
		d, _ := rec.AsDict()
		n := vm.ToDisplay(get(d, "name"))
		names = append(names, n)
		if b, _ := get(d, "ok").AsBool(); bool(b) {
			ok = append(ok, n)
		}
	}
	info := lib.DictOf("turn", lib.IntOf(turn), "iteration", lib.IntOf(turn), "text", vm.Str(text),
		"tool_calls", vm.Of(vm.NewList(turnCalls)), "tool_names", vm.Of(lib.StrList(names)),
		"successful_tool_names", vm.Of(lib.StrList(ok)), "stop_reason", stopReason, "usage", usage, "agent", vm.Str(l.name))
	v, err := th.Call(l.guards.postTurn, vm.Of(info))
	if err != nil {
		return "", false, err
	}
	bad := func() (string, bool, error) {
		return "", false, vm.Throwf("%s: post_turn_callback returned %s; expected nil, a bool, a string or a dict {message?, stop?}", l.fn, lib.Shown(v))
	}
	switch {
	case v.IsNil():
		return "", false, nil
	case v.Kind() == vm.KBool:
		b, _ := v.AsBool()
		return "", bool(b), nil
	}
	if s, isStr := v.AsString(); isStr {
		return s.Go(), false, nil
	}
	d, isDict := v.AsDict()
	if !isDict {
		return bad()
	}
	for _, k := range d.Keys() {
		if k != "message" && k != "stop" {
			return bad()
		}
	}
	msg, stop := "", false
	if m := get(d, "message"); !m.IsNil() {
		s, isStr := m.AsString()
		if !isStr {
			return bad()
		}
		msg = s.Go()
	}
	if s := get(d, "stop"); !s.IsNil() {
		b, isBool := s.AsBool()
		if !isBool {
			return bad()
		}
		stop = bool(b)
	}
	return msg, stop, nil
}
