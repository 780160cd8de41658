package tool

import (
	"fmt"
	"path"
	"regexp"
	"sync"
	"unicode/utf8"

	"github.com/harnlang/harn/vm"
)

// Tool hooks (register_tool_hook, clear_tool_hooks; docs/spec/builtins.md §5
// names them only, so the config keys pattern, deny and max_output are
// upstream's as far as we know, unverified). They live in the VM whose
// script registered them and apply to every call Invoke makes on it: a
// hook applies to the tools whose name matches its glob pattern; deny
// refuses the call with a reason before anything runs, and max_output
// caps the length of a string result, marking the cut.

// Hook is one registered tool hook.
type Hook struct {
	Pattern   string // path.Match glob over tool names
	Deny      string // reason; empty when the hook does not deny
	MaxOutput int    // characters; 0 when the hook does not cap
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

// ApplyHooks is the hook step of Invoke for a call of the tool name that
// run makes: a denying hook refuses the call without running it, and a
// cap shortens a string result. A tool value whose handler runs another
// tool under a name of its own (tool_bind with a name) calls it too, so
// that the hooks of both names apply.
func ApplyHooks(th *vm.Thread, name string, run func() *Outcome) *Outcome {
	reason, denied, maxOutput := HookFor(th.VM(), name)
	if denied {
		return &Outcome{Kind: RuntimeFailure, Tool: name, Summary: deniedSummary(reason)}
	}
	out := run()
	if out.Kind == Success {
		capOutput(out, maxOutput)
	}
	return out
}

// deniedSummary is the failure summary of a call a hook refused.
func deniedSummary(reason string) string { return "denied by tool hook: " + reason }

// capOutput cuts a successful string result longer than max characters
// to its first max and marks the cut as upstream does:
// "<first max>... [truncated, N chars total]".
func capOutput(o *Outcome, max int) {
	s, ok := o.Result.(string)
	if !ok || max <= 0 || alreadyCapped(s, max) {
		return
	}
	n := 0
	for i := range s {
		if n == max {
			capped := fmt.Sprintf("%s... [truncated, %d chars total]", s[:i], utf8.RuneCountInString(s))
			o.Result = capped
			o.Value = vm.Str(capped)
			return
		}
		n++
	}
}

// truncatedRE matches a result capOutput has cut.
var truncatedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)\A(.*)\.\.\. \[truncated, \d+ chars total\]\z`)
})

// alreadyCapped reports whether s is a result a cap of at most max
// characters already cut, so that the hooks of a tool value calling
// another tool (both names hooked, or the same hooks met twice) do not
// cut the marker itself.
func alreadyCapped(s string, max int) bool {
	m := truncatedRE().FindStringSubmatch(s)
	return m != nil && utf8.RuneCountInString(m[1]) <= max
}
