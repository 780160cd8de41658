package hitl

import (
	"fmt"
	"io"
	"slices"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func init() {
	lib.Def("escalate_to", "escalate_to(target, message, options?) -> dict",
		"record an escalation of message to target (a person, team or queue) and note it on stderr → {id, kind, target, message, priority, data, status, created_at}; options: priority (low, normal, high, urgent), data",
		builtinEscalateTo)
	lib.Def("hitl_pending", "hitl_pending(kind?) -> list<dict>",
		`the outstanding human-in-the-loop requests, oldest first: questions and approvals waiting for an answer, recorded escalations and pending waitpoints; kind ("ask", "approval", "dual_control", "escalation", "waitpoint") keeps one kind`,
		builtinHitlPending)
}

var priorities = []string{"low", "normal", "high", "urgent"}

func builtinEscalateTo(th *vm.Thread, args vm.Args) (vm.Value, error) {
	const name = "escalate_to"
	target, err := nonEmptyString(name, "target", args.At(0))
	if err != nil {
		return vm.Value{}, err
	}
	if !args.Given(1) {
		return vm.Value{}, vm.Throwf("escalate_to: message is required")
	}
	message := args.Text(1)
	d, err := options(name, args, 2, "priority", "data")
	if err != nil {
		return vm.Value{}, err
	}
	priority := "normal"
	if v, ok := opt(d, "priority"); ok {
		p, isStr := v.AsString()
		if !isStr || !slices.Contains(priorities, p.Go()) {
			return vm.Value{}, vm.Throwf("escalate_to: priority must be one of low, normal, high, urgent, got %s", lib.Display(v))
		}
		priority = p.Go()
	}
	data := vm.Nil
	if v, ok := opt(d, "data"); ok {
		data = v
	}
	s := stateOf(th)
	id := s.newID("escalation")
	rec := vm.Of(lib.DictOf(
		"id", vm.Str(id),
		"kind", vm.Str("escalation"),
		"target", vm.Str(target),
		"message", vm.Str(message),
		"priority", vm.Str(priority),
		"data", data,
		"status", vm.Str("open"),
		"created_at", vm.IntOf(nowMs(th)),
	))
	s.mu.Lock()
	s.escalations = append(s.escalations, rec)
	s.mu.Unlock()
	if w := th.VM().Stderr; w != nil {
		io.WriteString(w, fmt.Sprintf("[harn] escalation %s to %s (%s): %s\n", id, target, priority, message))
	}
	return rec, nil
}

var kinds = []string{"ask", "approval", "dual_control", "escalation", "waitpoint"}

func builtinHitlPending(th *vm.Thread, args vm.Args) (vm.Value, error) {
	kind := ""
	if args.Given(0) {
		k, ok := args.Str(0)
		if !ok || !slices.Contains(kinds, k) {
			return vm.Value{}, vm.Throwf("hitl_pending: kind must be one of ask, approval, dual_control, escalation, waitpoint, got %s", lib.Display(args.At(0)))
		}
		kind = k
	}
	return vm.Of(lib.List(stateOf(th).pending(kind))), nil
}

// pending lists the outstanding entries of one kind ("" for all): the
// requests in flight, then the escalations, then the pending waitpoints,
// each in creation order.
func (s *state) pending(kind string) []vm.Value {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []vm.Value
	for _, r := range s.requests {
		if kind == "" || kind == r.kind {
			out = append(out, vm.Of(r.info()))
		}
	}
	if kind == "" || kind == "escalation" {
		out = append(out, s.escalations...)
	}
	if kind == "" || kind == "waitpoint" {
		for _, w := range s.waitpoints {
			if e := w.pendingEntry(); e != nil {
				out = append(out, vm.Of(e))
			}
		}
	}
	return out
}
