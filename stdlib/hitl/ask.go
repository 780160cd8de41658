package hitl

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("ask_user", "ask_user(question, options?)",
		"ask a question and read the answer from stdin (mock_stdin while active); options: choices (list, or the list itself as options), default, timeout",
		builtinAskUser)
	lib.Def("request_approval", "request_approval(action, options?) -> dict",
		"ask for approval of action → {approved, by, reason}; HARN_AUTO_APPROVE decides without input; options: approver, detail, default, timeout",
		builtinRequestApproval)
	lib.Def("dual_control", "dual_control(action, approvers, options?) -> dict",
		"ask each of the distinct approvers in turn until required (default all) approve → {approved, by, reason, required, responses}; options: required, detail, default, timeout",
		builtinDualControl)
}

// ---- ask_user ----

func builtinAskUser(th *vm.Thread, args vm.Args) (vm.Value, error) {
	const name = "ask_user"
	if !args.Given(0) {
		return vm.Value{}, vm.Throwf("ask_user: question is required")
	}
	question := args.Text(0)
	var choices []vm.Value
	opts := vm.NewDict()
	if l, ok := args.List(1); ok {
		choices = l.Items()
		if len(choices) == 0 {
			return vm.Value{}, vm.Throwf("ask_user: choices must be a non-empty list, got []")
		}
	} else {
		d, err := options(name, args, 1, "choices", "default", "timeout")
		if err != nil {
			return vm.Value{}, err
		}
		opts = d
		if c, ok := opt(d, "choices"); ok {
			l, isList := c.AsList()
			if !isList || l.Len() == 0 {
				return vm.Value{}, vm.Throwf("ask_user: choices must be a non-empty list, got %s", lib.Display(c))
			}
			choices = l.Items()
		}
	}
	def, hasDef := opt(opts, "default")
	if hasDef && choices != nil {
		if _, ok := matchChoice(choices, vm.ToDisplay(def)); !ok {
			return vm.Value{}, vm.Throwf("ask_user: default %s is not one of the choices (%s)", lib.Display(def), choiceList(choices, ", "))
		}
	}
	tv, _ := opts.Get("timeout")
	timeout, err := timeoutValue(name, "timeout", tv)
	if err != nil {
		return vm.Value{}, err
	}

	prompt := question
	if choices != nil {
		prompt += " [" + choiceList(choices, "/") + "]"
	}
	if hasDef {
		prompt += " (default " + vm.ToDisplay(def) + ")"
	}
	prompt += " "

	s := stateOf(th)
	req := &request{id: s.newID("ask"), kind: "ask"}
	created := nowMs(th)
	req.info = func() *vm.Dict {
		c := vm.Nil
		if choices != nil {
			c = vm.Of(vm.NewList(append([]vm.Value(nil), choices...)))
		}
		return lib.DictOf("id", vm.Str(req.id), "kind", vm.Str("ask"), "question", vm.Str(question), "choices", c, "created_at", vm.IntOf(created))
	}
	s.addRequest(req)
	defer s.removeRequest(req)

	for {
		line, how, err := readAnswer(th, prompt, timeout)
		if err != nil {
			return vm.Value{}, err
		}
		switch how {
		case timedOut:
			if hasDef {
				return def, nil
			}
			return vm.Value{}, vm.Categorized("timeout", fmt.Sprintf("ask_user: no answer to %q within %s", question, durationText(timeout)))
		case endOfInput:
			if hasDef {
				return def, nil
			}
			return vm.Value{}, vm.Throwf("ask_user: no answer to %q: standard input has no more lines (%s)", question, noAnswerHint)
		}
		if line == "" && hasDef {
			return def, nil
		}
		if choices == nil {
			return vm.Str(line), nil
		}
		if c, ok := matchChoice(choices, line); ok {
			return c, nil
		}
		if !interactive(th) {
			return vm.Value{}, vm.Throwf("ask_user: %q is not one of the choices (%s)", line, choiceList(choices, ", "))
		}
		say(th, "Please answer one of: "+choiceList(choices, ", "))
	}
}

// matchChoice finds the choice an answer names: its display form exactly,
// then ignoring case, then its 1-based number.
func matchChoice(choices []vm.Value, answer string) (vm.Value, bool) {
	for _, c := range choices {
		if vm.ToDisplay(c) == answer {
			return c, true
		}
	}
	for _, c := range choices {
		if strings.EqualFold(vm.ToDisplay(c), answer) {
			return c, true
		}
	}
	if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(choices) {
		return choices[n-1], true
	}
	return vm.Value{}, false
}

func choiceList(choices []vm.Value, sep string) string {
	parts := make([]string, len(choices))
	for i, c := range choices {
		parts[i] = vm.ToDisplay(c)
	}
	return strings.Join(parts, sep)
}

// ---- approvals ----

// approvalOpts are the options request_approval and dual_control share.
type approvalOpts struct {
	detail  string
	def     bool
	hasDef  bool
	timeout time.Duration
}

func readApprovalOpts(name string, d *vm.Dict) (approvalOpts, error) {
	var o approvalOpts
	if v, ok := opt(d, "detail"); ok {
		o.detail = vm.ToDisplay(v)
	}
	if v, ok := opt(d, "default"); ok {
		b, isBool := v.AsBool()
		if !isBool {
			return o, vm.Throwf("%s: default must be a bool (the decision when no answer comes), got %s", name, v.Type())
		}
		o.def, o.hasDef = bool(b), true
	}
	tv, _ := d.Get("timeout")
	t, err := timeoutValue(name, "timeout", tv)
	o.timeout = t
	return o, err
}

// response is one approver's decision.
type response struct {
	by       string
	approved bool
	reason   vm.Value // string or nil
}

func (r response) value() vm.Value {
	return vm.Of(lib.DictOf("approved", vm.BoolOf(r.approved), "by", vm.Str(r.by), "reason", r.reason))
}

// askApproval gets approver's decision on action: HARN_AUTO_APPROVE, else
// an answer read from stdin, else the default.
func askApproval(th *vm.Thread, name, action, approver string, o approvalOpts, named bool) (response, error) {
	if approve, set, err := autoApprove(name); err != nil {
		return response{}, err
	} else if set {
		word := "denied"
		if approve {
			word = "approved"
		}
		by := approver
		if !named {
			by = "HARN_AUTO_APPROVE"
		}
		return response{by: by, approved: approve, reason: vm.Str(word + " by HARN_AUTO_APPROVE")}, nil
	}
	prompt := ""
	if o.detail != "" {
		prompt = o.detail + "\n"
	}
	prompt += "Approve " + action
	if named {
		prompt += " (approver " + approver + ")"
	}
	if o.hasDef && o.def {
		prompt += "? [Y/n] "
	} else {
		prompt += "? [y/N] "
	}
	for {
		line, how, err := readAnswer(th, prompt, o.timeout)
		if err != nil {
			return response{}, err
		}
		from := ""
		if named {
			from = fmt.Sprintf(" from %q", approver)
		}
		switch how {
		case timedOut:
			if o.hasDef {
				return response{by: approver, approved: o.def, reason: vm.Str("no answer within " + durationText(o.timeout) + "; default applied")}, nil
			}
			return response{}, vm.Categorized("timeout", fmt.Sprintf("%s: no answer%s for %q within %s", name, from, action, durationText(o.timeout)))
		case endOfInput:
			if o.hasDef {
				return response{by: approver, approved: o.def, reason: vm.Str("no answer; default applied")}, nil
			}
			return response{}, vm.Throwf("%s: no answer%s for %q: standard input has no more lines (set HARN_AUTO_APPROVE, %s)", name, from, action, noAnswerHint)
		}
		if line == "" {
			return response{by: approver, approved: o.hasDef && o.def, reason: vm.Nil}, nil
		}
		approved, reason, ok := parseApproval(line)
		if ok {
			r := vm.Nil
			if reason != "" {
				r = vm.Str(reason)
			}
			return response{by: approver, approved: approved, reason: r}, nil
		}
		if !interactive(th) {
			return response{}, vm.Throwf("%s: cannot read %q as an approval (answer yes or no, optionally followed by a reason)", name, line)
		}
		say(th, "Please answer yes or no (optionally followed by a reason).")
	}
}

func builtinRequestApproval(th *vm.Thread, args vm.Args) (vm.Value, error) {
	const name = "request_approval"
	action, err := nonEmptyString(name, "action", args.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	d, err := options(name, args, 1, "approver", "detail", "default", "timeout")
	if err != nil {
		return vm.Value{}, err
	}
	o, err := readApprovalOpts(name, d)
	if err != nil {
		return vm.Value{}, err
	}
	approver := "user"
	if v, ok := opt(d, "approver"); ok {
		if approver, err = nonEmptyString(name, "approver", v); err != nil {
			return vm.Value{}, err
		}
	}
	s := stateOf(th)
	req := &request{id: s.newID("approval"), kind: "approval"}
	created := nowMs(th)
	req.info = func() *vm.Dict {
		return lib.DictOf("id", vm.Str(req.id), "kind", vm.Str("approval"), "action", vm.Str(action), "approver", vm.Str(approver), "created_at", vm.IntOf(created))
	}
	s.addRequest(req)
	defer s.removeRequest(req)
	r, err := askApproval(th, name, action, approver, o, false)
	if err != nil {
		return vm.Value{}, err
	}
	return r.value(), nil
}

func builtinDualControl(th *vm.Thread, args vm.Args) (vm.Value, error) {
	const name = "dual_control"
	action, err := nonEmptyString(name, "action", args.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	l, ok := args.List(1)
	if !ok || l.Len() == 0 {
		return vm.Value{}, vm.Throwf("dual_control: approvers must be a non-empty list of names, got %s", lib.Display(args.At(1)))
	}
	var approvers []string
	for _, it := range l.Items() {
		a, err := nonEmptyString(name, "each approver", it)
		if err != nil {
			return vm.Value{}, err
		}
		if slices.Contains(approvers, a) {
			return vm.Value{}, vm.Throwf("dual_control: approver %q is listed twice (approvals must come from distinct approvers)", a)
		}
		approvers = append(approvers, a)
	}
	d, err := options(name, args, 2, "required", "detail", "default", "timeout")
	if err != nil {
		return vm.Value{}, err
	}
	o, err := readApprovalOpts(name, d)
	if err != nil {
		return vm.Value{}, err
	}
	required := len(approvers)
	if v, ok := opt(d, "required"); ok {
		n, isInt := v.AsInt()
		if !isInt || n < 1 || int(n) > len(approvers) {
			return vm.Value{}, vm.Throwf("dual_control: required must be an int from 1 to %d (the number of approvers), got %s", len(approvers), lib.Display(v))
		}
		required = int(n)
	}

	s := stateOf(th)
	req := &request{id: s.newID("dual_control"), kind: "dual_control"}
	created := nowMs(th)
	var mu = &s.mu
	waitingFor := ""
	req.info = func() *vm.Dict {
		w := vm.Nil
		if waitingFor != "" {
			w = vm.Str(waitingFor)
		}
		return lib.DictOf("id", vm.Str(req.id), "kind", vm.Str("dual_control"), "action", vm.Str(action),
			"approvers", lib.StrList(approvers), "required", lib.IntOf(required), "waiting_for", w, "created_at", vm.IntOf(created))
	}
	s.addRequest(req)
	defer s.removeRequest(req)

	var responses []vm.Value
	var by []string
	for i, a := range approvers {
		if len(by) >= required || len(by)+len(approvers)-i < required {
			break
		}
		mu.Lock()
		waitingFor = a
		mu.Unlock()
		r, err := askApproval(th, name, action, a, o, true)
		if err != nil {
			return vm.Value{}, err
		}
		responses = append(responses, r.value())
		if r.approved {
			by = append(by, a)
		}
	}
	return vm.Of(lib.DictOf(
		"approved", vm.BoolOf(len(by) >= required),
		"by", lib.StrList(by),
		"reason", vm.Str(fmt.Sprintf("%d of %d required approvals", len(by), required)),
		"required", lib.IntOf(required),
		"responses", lib.List(responses),
	)), nil
}

// Approve asks a person to approve action as request_approval does
// (HARN_AUTO_APPROVE, else a line of standard input or mock_stdin), with
// detail shown above the prompt; no answer is a denial. It serves
// agent_loop's approval_policy (docs/agents.md). reason is the reason the
// answer gave, or "".
func Approve(th *vm.Thread, action, detail string) (approved bool, reason string, err error) {
	s := stateOf(th)
	req := &request{id: s.newID("approval"), kind: "approval"}
	created := nowMs(th)
	req.info = func() *vm.Dict {
		return lib.DictOf("id", vm.Str(req.id), "kind", vm.Str("approval"), "action", vm.Str(action), "approver", vm.Str("user"), "created_at", vm.IntOf(created))
	}
	s.addRequest(req)
	defer s.removeRequest(req)
	r, err := askApproval(th, "agent_loop: approval_policy", action, "user", approvalOpts{detail: detail, hasDef: true, timeout: -1}, false)
	if err != nil {
		return false, "", err
	}
	if !r.reason.IsNil() {
		reason = vm.ToDisplay(r.reason)
	}
	return r.approved, reason, nil
}
