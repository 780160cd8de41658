package agents

import (
	"fmt"
	"path"
	"strings"

	"github.com/harnlang/harn/stdlib/hitl"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/vm"
)

// approvalKeys are the fields of agent_loop's approval_policy option
// (upstream's tool approval policy; docs/agents.md "Approval policy").
var approvalKeys = []string{"auto_approve", "auto_deny", "require_approval", "write_path_allowlist"}

// approvalPolicy decides, before a tool call runs, whether it may run:
// each field is a list of glob patterns (path.Match syntax, as the
// register_tool_hook patterns) over tool names, or over paths for
// write_path_allowlist.
type approvalPolicy struct {
	autoApprove, autoDeny, requireApproval, writePaths []string
}

// readApproval reads options.approval_policy; nil when absent.
func readApproval(fn string, v vm.Value) (*approvalPolicy, error) {
	if v.IsNil() {
		return nil, nil
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Throwf("%s: approval_policy must be a dict {%s}, got %s", fn, strings.Join(approvalKeys, ", "), lib.Shown(v))
	}
	if err := lib.CheckKeys(fn+": approval_policy", d, approvalKeys); err != nil {
		return nil, err
	}
	p := &approvalPolicy{}
	for i, dst := range []*[]string{&p.autoApprove, &p.autoDeny, &p.requireApproval, &p.writePaths} {
		k := approvalKeys[i]
		f := get(d, k)
		if f.IsNil() {
			continue
		}
		l, ok := f.AsList()
		if !ok {
			return nil, vm.Throwf("%s: approval_policy.%s must be a list of glob patterns, got %s", fn, k, lib.Shown(f))
		}
		for j, item := range l.Items() {
			s, ok := item.AsString()
			if !ok || s.Go() == "" {
				return nil, vm.Throwf("%s: approval_policy.%s[%d] must be a non-empty glob pattern, got %s", fn, k, j, lib.Shown(item))
			}
			if _, err := path.Match(s.Go(), ""); err != nil {
				return nil, vm.Throwf("%s: approval_policy.%s[%d] is not a valid glob pattern: %q", fn, k, j, s.Go())
			}
			*dst = append(*dst, s.Go())
		}
	}
	return p, nil
}

// firstMatch is the first pattern of patterns that matches s, or "".
func firstMatch(patterns []string, s string) string {
	for _, p := range patterns {
		if ok, _ := path.Match(p, s); ok {
			return p
		}
	}
	return ""
}

// decide applies the policy to a call of the tool name with args, whose
// definition def may declare the argument names holding paths under
// policy.path_params. The order is upstream's: a deny pattern refuses the
// call, then every declared path must match write_path_allowlist (when
// it is given), then an approve pattern lets it run, then a
// require_approval pattern asks a person (request_approval, docs/hitl.md);
// a call that matches no pattern runs. It returns the refusal's reason,
// or "" when the call may run.
func (p *approvalPolicy) decide(th *vm.Thread, name string, args vm.Value, def vm.Value) (string, error) {
	if pat := firstMatch(p.autoDeny, name); pat != "" {
		return fmt.Sprintf("tool %q matches deny pattern %q", name, pat), nil
	}
	if len(p.writePaths) > 0 {
		for _, wp := range declaredPaths(def, args) {
			if firstMatch(p.writePaths, wp) == "" {
				return fmt.Sprintf("tool %q writes to %q, which is not in the write-path allowlist", name, wp), nil
			}
		}
	}
	if firstMatch(p.autoApprove, name) != "" || firstMatch(p.requireApproval, name) == "" {
		return "", nil
	}
	approved, reason, err := hitl.Approve(th, "call tool "+name, llm.ContentText(args))
	if err != nil {
		return "", err
	}
	if approved {
		return "", nil
	}
	msg := fmt.Sprintf("tool %q was not approved", name)
	if reason != "" {
		msg += ": " + reason
	}
	return msg, nil
}

// declaredPaths are the string values (or strings in list values) of the
// arguments that the definition's runtime policy names in path_params
// (the definition-level `policy` record, docs/spec/registry.md §2).
func declaredPaths(def vm.Value, args vm.Value) []string {
	dd, _ := def.AsDict()
	pol, _ := get(dd, "policy").AsDict()
	params, _ := get(pol, "path_params").AsList()
	ad, _ := args.AsDict()
	if params == nil || ad == nil {
		return nil
	}
	var out []string
	for _, p := range params.Items() {
		v := get(ad, vm.ToDisplay(p))
		if s, ok := v.AsString(); ok {
			out = append(out, s.Go())
		} else if l, ok := v.AsList(); ok {
			for _, item := range l.Items() {
				if s, ok := item.AsString(); ok {
					out = append(out, s.Go())
				}
			}
		}
	}
	return out
}
