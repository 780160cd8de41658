package agents

// Handoffs (docs/agents.md, "Handoffs"): one agent passing its work to
// another. handoff builds a plain record of what the next agent needs
// (a summary, the last few messages, artifacts, the task);
// handoff_context turns it into the conversation the next agent starts
// from. Nothing runs a model unless a summarizer or llm option asks.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/transcripts"
	"github.com/harnlang/harn/vm"
)

const handoffType = "handoff"

var handoffOptions = []string{"task", "reason", "summary", "keep_last", "artifacts", "summarizer", "llm"}

// handoffSource reads handoff's from: an agent_loop result, a
// transcript or a conversation; its messages and agent name.
func handoffSource(fn string, v vm.Value) ([]vm.Value, vm.Value, error) {
	if d, ok := v.AsDict(); ok && !get(d, "messages").IsNil() && vm.ToDisplay(get(d, "_type")) != transcripts.Type {
		ms, err := transcripts.MessagesAt(fn, fn+": from.messages", get(d, "messages"))
		return ms, get(d, "agent"), err
	}
	if _, _, err := transcripts.Split(fn, v); err != nil {
		return nil, vm.Nil, vm.Throwf("%s: from must be an agent_loop result, a transcript or a conversation, got %s", fn, v.Type())
	}
	ms, err := transcripts.Messages(fn, v)
	return ms, vm.Nil, err
}

func init() {
	lib.Def("handoff", "handoff(from, to, options?) -> dict", "a handoff record {_type, from, to, task, reason, summary, messages, artifacts} passing the work of from (an agent_loop result, transcript or conversation) to agent to (an agent or a name); options {task?, reason?, summary?, keep_last? (default 4), artifacts?, summarizer?, llm?}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "handoff"
		msgs, fromName, err := handoffSource(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		var to string
		switch t := a.At(1); {
		case t.Kind() == vm.KString && vm.ToDisplay(t) != "":
			to = vm.ToDisplay(t)
		default:
			d, err := agentArg(fn, t)
			if err != nil {
				return vm.Value{}, vm.Throwf("%s: to must be an agent or an agent name, got %s", fn, t.Type())
			}
			to = vm.ToDisplay(get(d, "name"))
		}
		o := vm.NewDict()
		if a.Given(2) {
			d, ok := a.Dict(2)
			if !ok {
				return vm.Value{}, lib.BadOptions(fn, a.At(2))
			}
			if err := lib.CheckOptions(fn, d, handoffOptions); err != nil {
				return vm.Value{}, err
			}
			o = d
		}
		for _, k := range []string{"task", "reason", "summary"} {
			if v := get(o, k); !v.IsNil() {
				if _, ok := v.AsString(); !ok {
					return vm.Value{}, vm.Throwf("%s: %s must be a string, got %s", fn, k, v.Type())
				}
			}
		}
		keep := int64(4)
		if v := get(o, "keep_last"); !v.IsNil() {
			n, ok := v.AsInt()
			if !ok || n < 0 {
				return vm.Value{}, vm.Throwf("%s: keep_last must be a non-negative int, got %s", fn, lib.Shown(v))
			}
			keep = int64(n)
		}
		arts := vm.Of(vm.NewList(nil))
		if v := get(o, "artifacts"); !v.IsNil() {
			if _, ok := v.AsList(); !ok {
				return vm.Value{}, vm.Throwf("%s: artifacts must be a list, got %s", fn, v.Type())
			}
			arts = v
		}
		var body []vm.Value
		for _, m := range msgs {
			if transcripts.Role(m) != "system" {
				body = append(body, m)
			}
		}
		cut := max(len(body)-int(keep), 0)
		for cut < len(body) && transcripts.Role(body[cut]) == "tool" {
			cut++
		}
		carried, earlier := body[cut:], body[:cut]
		summary := get(o, "summary")
		if summary.IsNil() {
			s, l := get(o, "summarizer"), get(o, "llm")
			if !s.IsNil() && !vm.IsCallable(s) {
				return vm.Value{}, vm.Throwf("%s: summarizer must be a function of the messages, got %s", fn, s.Type())
			}
			if !l.IsNil() {
				if _, ok := l.AsDict(); !ok {
					return vm.Value{}, vm.Throwf("%s: llm must be a dict of llm_call options, got %s", fn, l.Type())
				}
			}
			text := ""
			if len(earlier) > 0 {
				if text, err = transcripts.Summarize(th, fn, earlier, s, l, 80); err != nil {
					return vm.Value{}, err
				}
			}
			summary = vm.Str(text)
		}
		return vm.Of(lib.DictOf("_type", vm.Str(handoffType), "from", fromName, "to", vm.Str(to), "task", get(o, "task"),
			"reason", get(o, "reason"), "summary", summary, "messages", vm.Of(vm.NewList(slices.Clone(carried))), "artifacts", arts)), nil
	})
	lib.Def("handoff_context", "handoff_context(handoff) -> list<dict>", "the conversation the receiving agent starts from: a system note (who hands over, why, the summary, the artifacts), the carried messages, and the task as the last user message", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "handoff_context"
		h, ok := a.Dict(0)
		if !ok || vm.ToDisplay(get(h, "_type")) != handoffType {
			return vm.Value{}, vm.Throwf("%s: expected a handoff (made by handoff(…)), got %s", fn, a.At(0).Type())
		}
		var b strings.Builder
		from := "another agent"
		if f := get(h, "from"); !f.IsNil() {
			from = "agent " + vm.ToDisplay(f)
		}
		fmt.Fprintf(&b, "Handoff to %s from %s.", vm.ToDisplay(get(h, "to")), from)
		if r := get(h, "reason"); !r.IsNil() {
			fmt.Fprintf(&b, "\nReason: %s", vm.ToDisplay(r))
		}
		if s := vm.ToDisplay(get(h, "summary")); s != "" {
			fmt.Fprintf(&b, "\nEarlier conversation: %s", s)
		}
		if l, ok := get(h, "artifacts").AsList(); ok && l.Len() > 0 {
			b.WriteString("\nArtifacts:")
			for _, it := range l.Items() {
				if d, ok := it.AsDict(); ok {
					name := get(d, "name")
					body := get(d, "content")
					if body.IsNil() {
						body = get(d, "path")
					}
					fmt.Fprintf(&b, "\n- %s: %s", vm.ToDisplay(name), transcripts.Content(body))
				} else {
					fmt.Fprintf(&b, "\n- %s", transcripts.Content(it))
				}
			}
		}
		out := []vm.Value{transcripts.NewMessage("system", b.String(), "handoff", vm.True)}
		carried, err := transcripts.MessagesAt(fn, fn+": handoff.messages", get(h, "messages"))
		if err != nil {
			return vm.Value{}, err
		}
		out = append(out, carried...)
		if t := get(h, "task"); !t.IsNil() {
			out = append(out, transcripts.NewMessage("user", vm.ToDisplay(t)))
		}
		return vm.Of(vm.NewList(out)), nil
	})
}
