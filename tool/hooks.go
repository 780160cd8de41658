package tool

import (
	"fmt"
	"path"
	"sync"
	"unicode/utf8"

	"github.com/harnlang/harn/vm"
)

// Tool hooks (register_tool_hook, clear_tool_hooks; docs/spec/builtins.md §5
// names them only, so the config keys pattern, deny and max_output are
// upstream's as far as we know, unverified; pre and post are this
// implementation's form of upstream's pre/post tool actions). They live
// in the VM whose script registered them and apply to every call Invoke
// makes on it: a hook applies to the tools whose name matches its glob
// pattern. Before the call, in registration order, deny refuses it with
// a reason and a pre closure may refuse it or rewrite its arguments;
// after a successful call, post closures may replace the result, and
// max_output caps the length of a string result, marking the cut
// (docs/tools.md, Tool hooks).

// Hook is one registered tool hook.
type Hook struct {
	Pattern   string   // path.Match glob over tool names
	Deny      string   // reason; empty when the hook does not deny
	MaxOutput int      // characters; 0 when the hook does not cap
	Pre       vm.Value // fn(name, args); invalid when absent
	Post      vm.Value // fn(name, result); invalid when absent
}

type hooks struct {
	mu   sync.Mutex
	list []Hook
}

type hooksKey struct{}

func hooksOf(v *vm.VM) *hooks {
	return v.Local(hooksKey{}, func() any { return &hooks{} }).(*hooks)
}

// AddHook registers h in v, after the hooks already there.
func AddHook(v *vm.VM, h Hook) {
	hs := hooksOf(v)
	hs.mu.Lock()
	hs.list = append(hs.list, h)
	hs.mu.Unlock()
}

// ClearHooks removes every hook of v.
func ClearHooks(v *vm.VM) {
	hs := hooksOf(v)
	hs.mu.Lock()
	hs.list = nil
	hs.mu.Unlock()
}

// HookFor applies the hooks of v to a call of the tool name: the deny
// reason of the first matching hook that denies, and the smallest
// max_output of the matching hooks (0 when none caps it).
func HookFor(v *vm.VM, name string) (deny string, denied bool, maxOutput int) {
	hs := hooksOf(v)
	hs.mu.Lock()
	defer hs.mu.Unlock()
	for _, h := range hs.list {
		if ok, _ := path.Match(h.Pattern, name); !ok {
			continue
		}
		if h.Deny != "" && !denied {
			deny, denied = h.Deny, true
		}
		if h.MaxOutput > 0 && (maxOutput == 0 || h.MaxOutput < maxOutput) {
			maxOutput = h.MaxOutput
		}
	}
	return deny, denied, maxOutput
}

// matching returns the hooks of v whose pattern matches name, in
// registration order.
func matching(v *vm.VM, name string) []Hook {
	hs := hooksOf(v)
	hs.mu.Lock()
	defer hs.mu.Unlock()
	var out []Hook
	for _, h := range hs.list {
		if ok, _ := path.Match(h.Pattern, name); ok {
			out = append(out, h)
		}
	}
	return out
}

// applyHooks is the hook step of Invoke for a call of the tool name with
// args that run makes: a denying hook or pre closure refuses the call
// without running it, a pre closure may hand run other arguments, and on
// success post closures rework the result. The cap is left to the
// caller (applyCap): a successful outcome's pendingCap is the smallest
// cap of these hooks and of the one run left pending (a call run made
// within the same tool call, PreparedTool.InvokeWithin; 0 when none caps).
func applyHooks(th *vm.Thread, name string, args any, run func(args any) *Outcome) *Outcome {
	hooks := matching(th.VM(), name)
	maxOutput := 0
	for _, h := range hooks {
		if h.Deny != "" {
			return &Outcome{Kind: RuntimeFailure, Tool: name, Summary: deniedSummary(h.Deny)}
		}
		if h.Pre.IsValid() {
			next, refusal := runPre(th, h.Pre, name, args)
			if refusal != nil {
				refusal.Tool = name
				return refusal
			}
			args = next
		}
		maxOutput = smallerCap(maxOutput, h.MaxOutput)
	}
	out := run(args)
	if out.Kind != Success {
		return out
	}
	for _, h := range hooks {
		if h.Post.IsValid() {
			if failed := runPost(th, h.Post, name, out); failed != nil {
				return failed
			}
		}
	}
	out.pendingCap = smallerCap(out.pendingCap, maxOutput)
	return out
}

// applyCap applies the cap a successful call's hooks left pending, once,
// and records it in Cap for a text rendering of a result that is not a
// string.
func applyCap(out *Outcome) *Outcome {
	if out.Kind == Success {
		capOutput(out, out.pendingCap)
		out.Cap = out.pendingCap
	}
	out.pendingCap = 0
	return out
}

// smallerCap is the tighter of two caps, 0 meaning none.
func smallerCap(a, b int) int {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// hookArgs are the arguments of a pre or post closure: the tool name and
// the payload (the arguments, the result), or the payload alone for a
// closure that declares one parameter (`post: { r -> … }`), which would
// otherwise receive the name where it expects the value.
func hookArgs(fn vm.Value, name string, payload vm.Value) []vm.Value {
	if c, ok := fn.Object().(*vm.Closure); ok && len(c.Proto.Params) == 1 && !c.Proto.Params[0].Rest {
		return []vm.Value{payload}
	}
	return []vm.Value{vm.Str(name), payload}
}

// runPre calls a pre closure with the tool name and the arguments. nil
// or true lets the call go on unchanged, a dict replaces the arguments
// (checked against the input schema like the model's), a string refuses
// the call with that reason and false refuses it without one; a throw or
// any other answer fails the call.
func runPre(th *vm.Thread, fn vm.Value, name string, args any) (any, *Outcome) {
	v, err := th.CallPlain(fn, hookArgs(fn, name, FromJSON(toArgs(args))))
	if err != nil {
		return nil, &Outcome{Kind: RuntimeFailure, Summary: "pre hook failed: " + hookErrorText(err), Err: vm.AsError(err)}
	}
	if v.IsNil() {
		return args, nil
	}
	if b, ok := v.AsBool(); ok {
		if bool(b) {
			return args, nil
		}
		return nil, &Outcome{Kind: RuntimeFailure, Summary: deniedSummary("refused by a pre hook")}
	}
	if s, ok := v.AsString(); ok {
		reason := s.Go()
		if reason == "" {
			reason = "refused by a pre hook"
		}
		return nil, &Outcome{Kind: RuntimeFailure, Summary: deniedSummary(reason)}
	}
	if _, ok := v.AsDict(); ok {
		j, err := ToJSONArgs(v)
		if err != nil {
			return nil, &Outcome{Kind: RuntimeFailure, Summary: "pre hook returned arguments that are not portable JSON"}
		}
		return j, nil
	}
	return nil, &Outcome{Kind: RuntimeFailure, Summary: fmt.Sprintf("pre hook returned %s; expected nil, a bool, a refusal reason string or an argument dict", v.Type())}
}

// runPost calls a post closure with the tool name and the result of a
// successful call; nil keeps the result, anything else replaces it and
// must be portable JSON. It returns the failure when the hook throws or
// answers a non-portable value.
func runPost(th *vm.Thread, fn vm.Value, name string, out *Outcome) *Outcome {
	v, err := th.CallPlain(fn, hookArgs(fn, name, out.Value))
	if err != nil {
		return &Outcome{Kind: RuntimeFailure, Tool: name, Summary: "post hook failed: " + hookErrorText(err), Err: vm.AsError(err)}
	}
	if v.IsNil() {
		return nil
	}
	j, err := ToJSON(v)
	if err != nil {
		return &Outcome{Kind: RuntimeFailure, Tool: name, Summary: "post hook returned a result that is not portable JSON"}
	}
	out.Result, out.Value = j, v
	return nil
}

// hookErrorText describes a hook's failure without the value it threw
// (docs/spec/registry.md §6: summaries never carry thrown values); a
// script calling the tool itself still catches that value (Outcome.Err).
func hookErrorText(err error) string {
	if e := vm.AsError(err); e != nil && e.Kind == vm.KindThrown {
		return "it threw a value"
	}
	return err.Error()
}

// deniedSummary is the failure summary of a call a hook refused.
func deniedSummary(reason string) string { return "denied by tool hook: " + reason }

// capOutput cuts a successful string result longer than max characters
// to its first max and marks the cut as upstream does:
// "<first max>... [truncated, N chars total]".
func capOutput(o *Outcome, max int) {
	s, ok := o.Result.(string)
	if !ok {
		return
	}
	if capped := CapText(s, max); capped != s {
		o.Result = capped
		o.Value = vm.Str(capped)
	}
}

// CapRendered cuts text, a rendering (JSON) of a successful result that
// is not a string, to the call's Cap, as a string result is already cut;
// the agent loop uses it for the tool message a model reads.
func (o *Outcome) CapRendered(text string) string {
	if _, isString := o.Result.(string); isString {
		return text
	}
	return CapText(text, o.Cap)
}

// CapText is s cut to its first max characters with upstream's mark,
// "<first max>... [truncated, N chars total]", or s itself when it is not
// longer (or max is 0).
func CapText(s string, max int) string {
	if max <= 0 {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return fmt.Sprintf("%s... [truncated, %d chars total]", s[:i], utf8.RuneCountInString(s))
		}
		n++
	}
	return s
}
