package transcripts

// The transcript lifecycle, assets, events, summaries and renderings, and
// context assembly (docs/agents.md, "Transcript lifecycle" and "Context
// assembly"; docs/spec/builtins.md §5 names the builtins only).
//
// A transcript's lifecycle state lives in its metadata: `status` is
// "active" (also when absent), "archived" or "abandoned". An archived or
// abandoned transcript refuses new messages until transcript_resume.
// Assets are records {name, kind, …} in metadata.assets. Events are not
// stored: transcript_events derives them from the messages, so they can
// never disagree with the conversation.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	hjson "github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/vm"
)

// Statuses are the lifecycle states of a transcript.
var Statuses = []string{"active", "archived", "abandoned"}

// Status is a transcript's lifecycle status ("active" for a list).
func Status(tr *vm.Dict) string {
	if tr == nil {
		return "active"
	}
	md, _ := lib.Get(tr, "metadata").AsDict()
	if md == nil {
		return "active"
	}
	if s, ok := lib.Get(md, "status").AsString(); ok && s.Go() != "" {
		return s.Go()
	}
	return "active"
}

// writable fails when tr may not take new messages.
func writable(fn string, tr *vm.Dict) error {
	if s := Status(tr); s != "active" {
		return vm.Throwf("%s: transcript %s is %s (transcript_resume reopens it)", fn, vm.ToDisplay(lib.Get(tr, "id")), s)
	}
	return nil
}

// Writable is writable for other areas (agent_loop continuing a transcript).
func Writable(fn string, v vm.Value) error {
	_, tr, err := Split(fn, v)
	if err != nil {
		return err
	}
	return writable(fn, tr)
}

func transcriptArg(fn string, v vm.Value) ([]vm.Value, *vm.Dict, error) {
	msgs, err := Messages(fn, v)
	if err != nil {
		return nil, nil, err
	}
	_, tr, _ := Split(fn, v)
	if tr == nil {
		return nil, nil, vm.Throwf("%s: expected a transcript (a conversation list has no lifecycle; make one with transcript_from_messages), got list", fn)
	}
	return msgs, tr, nil
}

func metadataOf(tr *vm.Dict) *vm.Dict {
	md, _ := lib.Get(tr, "metadata").AsDict()
	if md == nil {
		md = vm.NewDict()
	}
	return md
}

func withStatus(tr *vm.Dict, status string, extra ...any) vm.Value {
	md := metadataOf(tr).Set("status", vm.Str(status))
	for i := 0; i+1 < len(extra); i += 2 {
		k, v := extra[i].(string), extra[i+1].(vm.Value)
		if v.IsNil() {
			md = md.Delete(k)
		} else {
			md = md.Set(k, v)
		}
	}
	return vm.Of(tr.Set("metadata", vm.Of(md)))
}

// Events derives transcript_events' records from checked messages.
func Events(msgs []vm.Value) []vm.Value {
	var out []vm.Value
	for i, m := range msgs {
		d, _ := m.AsDict()
		role := Role(m)
		ev := func(kind string, kv ...any) {
			out = append(out, vm.Of(lib.DictOf(append([]any{"index", lib.IntOf(i), "kind", vm.Str(kind), "role", vm.Str(role)}, kv...)...)))
		}
		switch {
		case role == "system" && compactedCount(m) > 0:
			ev("compaction", "compacted", lib.IntOf(compactedCount(m)), "content", vm.Str(Text(m)))
		case role == "system":
			ev("system", "content", vm.Str(Text(m)))
		case role == "user" && lib.Get(d, "feedback").Truth():
			ev("feedback", "content", vm.Str(Text(m)))
		case role == "tool":
			ev("tool_result", "tool_call_id", lib.Get(d, "tool_call_id"), "name", lib.Get(d, "name"), "is_error", vm.BoolOf(lib.Get(d, "is_error").Truth()),
				"content", vm.Str(Text(m)))
		default:
			if Text(m) != "" || len(ToolCalls(m)) == 0 {
				ev("message", "content", vm.Str(Text(m)))
			}
			for _, c := range ToolCalls(m) {
				cd, _ := c.AsDict()
				ev("tool_call", "id", lib.Get(cd, "id"), "name", lib.Get(cd, "name"), "arguments", lib.Get(cd, "arguments"))
			}
		}
	}
	return out
}

// EventKinds are the kinds transcript_events reports.
var EventKinds = []string{"message", "system", "feedback", "tool_call", "tool_result", "compaction"}

// assetKeys are the keys an asset record may have.
var assetKeys = []string{"name", "kind", "content", "path", "uri", "mime_type", "metadata"}

func readAsset(fn string, v vm.Value) (*vm.Dict, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Throwf("%s: asset must be a dict {name, kind?, content?, path?, uri?, mime_type?, metadata?}, got %s", fn, v.Type())
	}
	if err := checkKeys(fn, "asset", d, assetKeys...); err != nil {
		return nil, err
	}
	n, ok := lib.Get(d, "name").AsString()
	if !ok || n.Go() == "" {
		return nil, vm.Throwf("%s: asset name must be a non-empty string, got %s", fn, lib.Shown(lib.Get(d, "name")))
	}
	for _, k := range []string{"kind", "path", "uri", "mime_type"} {
		if x := lib.Get(d, k); !x.IsNil() {
			if _, ok := x.AsString(); !ok {
				return nil, vm.Throwf("%s: asset %s must be a string, got %s", fn, k, x.Type())
			}
		}
	}
	if lib.Get(d, "kind").IsNil() {
		d = d.Set("kind", vm.Str("file"))
	}
	if lib.Get(d, "content").IsNil() && lib.Get(d, "path").IsNil() && lib.Get(d, "uri").IsNil() {
		return nil, vm.Throwf("%s: asset %q needs content, path or uri", fn, n.Go())
	}
	return d, nil
}

func assetsOf(tr *vm.Dict) []vm.Value {
	l, ok := lib.Get(metadataOf(tr), "assets").AsList()
	if !ok {
		return nil
	}
	return l.Items()
}

// Summarize is transcript_summarize: the summary text of msgs, written
// by summarizer(msgs), by a model (llmOpts), or deterministically.
func Summarize(th *vm.Thread, fn string, msgs []vm.Value, summarizer, llmOpts vm.Value, width int) (string, error) {
	switch {
	case vm.IsCallable(summarizer):
		v, err := th.Call(summarizer, vm.Of(vm.NewList(msgs)))
		if err != nil {
			return "", err
		}
		return Content(v), nil
	case !llmOpts.IsNil():
		prompt := "Summarize this conversation in a few sentences, keeping every fact, decision and open question a later turn may need:\n\n" +
			strings.Join(SummaryLines(msgs, 1<<20), "\n")
		resp, err := llm.Call(th, fn, vm.Str(prompt), vm.Str("You write concise, factual summaries of conversations."), llmOpts)
		if err != nil {
			return "", err
		}
		rd, _ := resp.AsDict()
		return Content(lib.Get(rd, "text")), nil
	}
	st, _ := Stats(msgs).AsDict()
	br, _ := lib.Get(st, "by_role").AsDict()
	var parts []string
	for _, r := range Roles {
		if n, _ := lib.Get(br, r).AsInt(); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
	}
	head := fmtCount(len(msgs))
	if len(parts) > 0 {
		head += " (" + strings.Join(parts, ", ") + ")"
	}
	if n, _ := lib.Get(st, "tool_calls").AsInt(); n > 0 {
		head += fmt.Sprintf("; %d tool call%s", n, map[bool]string{true: "s"}[n != 1])
	}
	if len(msgs) == 0 {
		return head + ".", nil
	}
	return head + ":\n" + deterministicSummary(msgs, width, -1), nil
}

func summarizeOptions(fn string, v vm.Value, extra ...string) (*vm.Dict, vm.Value, vm.Value, int, error) {
	o := vm.NewDict()
	if v.IsValid() && !v.IsNil() {
		d, ok := v.AsDict()
		known := append([]string{"summarizer", "llm", "max_chars"}, extra...)
		if !ok {
			return nil, vm.Value{}, vm.Value{}, 0, lib.BadOptions(fn, v)
		}
		if err := lib.CheckOptions(fn, d, known); err != nil {
			return nil, vm.Value{}, vm.Value{}, 0, err
		}
		o = d
	}
	s := lib.Get(o, "summarizer")
	if !s.IsNil() && !vm.IsCallable(s) {
		return nil, vm.Value{}, vm.Value{}, 0, vm.Throwf("%s: summarizer must be a function of the messages, got %s", fn, s.Type())
	}
	l := lib.Get(o, "llm")
	if !l.IsNil() {
		if _, ok := l.AsDict(); !ok {
			return nil, vm.Value{}, vm.Value{}, 0, vm.Throwf("%s: llm must be a dict of llm_call options, got %s", fn, l.Type())
		}
	}
	w, err := positiveInt(fn, "max_chars", lib.Get(o, "max_chars"), summaryLineWidth)
	return o, s, l, int(w), err
}

// Render is transcript_render_full (full) or transcript_render_visible:
// one block per message, "Role: content".
func Render(msgs []vm.Value, full bool) string {
	var b []string
	title := func(r string) string { return strings.ToUpper(r[:1]) + r[1:] }
	for _, m := range msgs {
		d, _ := m.AsDict()
		role := Role(m)
		if !full {
			if role != "user" && role != "assistant" || (role == "assistant" && Text(m) == "") {
				continue
			}
			b = append(b, title(role)+": "+Text(m))
			continue
		}
		switch role {
		case "tool":
			head := "Tool result"
			if n := lib.Get(d, "name"); !n.IsNil() {
				head += " " + vm.ToDisplay(n)
			}
			head += " [" + vm.ToDisplay(lib.Get(d, "tool_call_id")) + "]"
			if lib.Get(d, "is_error").Truth() {
				head += " (error)"
			}
			b = append(b, head+": "+Text(m))
		default:
			head := title(role)
			if lib.Get(d, "feedback").Truth() {
				head += " (feedback)"
			}
			if n := compactedCount(m); n > 0 {
				head += fmt.Sprintf(" (summary of %d)", n)
			}
			s := head + ":"
			if Text(m) != "" {
				s += " " + Text(m)
			}
			for _, c := range ToolCalls(m) {
				cd, _ := c.AsDict()
				s += fmt.Sprintf("\n  -> %s(%s) [%s]", vm.ToDisplay(lib.Get(cd, "name")), hjson.Stringify(lib.Get(cd, "arguments")), vm.ToDisplay(lib.Get(cd, "id")))
			}
			b = append(b, s)
		}
	}
	return strings.Join(b, "\n\n")
}

// ---- context assembly ----

// contextItem is one candidate of assemble_context / select_artifacts_adaptive.
type contextItem struct {
	index    int
	value    vm.Value
	name     string
	text     string
	priority float64
	tokens   int64
}

func readItems(fn, label string, v vm.Value, scoreKeys ...string) ([]contextItem, error) {
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Throwf("%s: %s must be a list of strings or dicts {content, %s?, name?}, got %s", fn, label, scoreKeys[0], v.Type())
	}
	out := make([]contextItem, 0, l.Len())
	for i, it := range l.Items() {
		c := contextItem{index: i, value: it, name: fmt.Sprint(i)}
		if s, ok := it.AsString(); ok {
			c.text = s.Go()
		} else if d, ok := it.AsDict(); ok {
			body := lib.Get(d, "content")
			if body.IsNil() {
				body = lib.Get(d, "text")
			}
			if body.IsNil() {
				return nil, vm.Throwf("%s: %s[%d] needs content (or text)", fn, label, i)
			}
			c.text = Content(body)
			if n := lib.Get(d, "name"); !n.IsNil() {
				c.name = vm.ToDisplay(n)
			} else if n := lib.Get(d, "id"); !n.IsNil() {
				c.name = vm.ToDisplay(n)
			}
			for _, k := range scoreKeys {
				if p := lib.Get(d, k); !p.IsNil() {
					f, ok := vm.Args{p}.Num(0)
					if !ok {
						return nil, vm.Throwf("%s: %s[%d].%s must be a number, got %s", fn, label, i, k, lib.Display(p))
					}
					c.priority = f
					break
				}
			}
		} else {
			return nil, vm.Throwf("%s: %s[%d] must be a string or a dict {content, %s?, name?}, got %s", fn, label, i, scoreKeys[0], it.Type())
		}
		c.tokens = llm.EstimateTokens(vm.Str(c.text))
		out = append(out, c)
	}
	return out, nil
}

func budgetArg(fn string, v vm.Value) (int64, error) {
	n, ok := v.AsInt()
	if !ok || n < 0 {
		return 0, vm.Throwf("%s: budget must be a non-negative int (estimated tokens), got %s", fn, lib.Display(v))
	}
	return int64(n), nil
}

// cutToTokens is text cut to about n estimated tokens (4 characters
// each), marked with the number of characters left out.
func cutToTokens(text string, n int64) string {
	r := []rune(text)
	keep := int(n * 4)
	for keep > 0 {
		s := string(r[:keep]) + fmt.Sprintf("\n[… %d characters cut]", len(r)-keep)
		if llm.EstimateTokens(vm.Str(s)) <= n {
			return s
		}
		keep -= 4
	}
	return ""
}

func init() {
	lib.Def("transcript_reset", "transcript_reset(t, options?) -> dict", "t (same id, metadata and assets) with its messages dropped, the system messages kept unless options.keep_system is false; active again", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript_reset"
		msgs, tr, err := transcriptArg(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		keepSys := true
		if a.Given(1) {
			o, ok := a.Dict(1)
			if !ok {
				return vm.Value{}, lib.BadOptions(fn, a.At(1))
			}
			if err := lib.CheckOptions(fn, o, []string{"keep_system"}); err != nil {
				return vm.Value{}, err
			}
			if v := lib.Get(o, "keep_system"); !v.IsNil() {
				keepSys = v.Truth()
			}
		}
		var kept []vm.Value
		for _, m := range msgs {
			if keepSys && Role(m) == "system" && compactedCount(m) == 0 {
				kept = append(kept, m)
			}
		}
		out, _ := Rebuild(tr, kept).AsDict()
		return withStatus(out, "active", "abandon_reason", vm.Nil), nil
	})
	lib.Def("transcript_archive", "transcript_archive(t) -> dict", "t marked archived (metadata.status): finished and kept; it takes no new messages until transcript_resume", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		_, tr, err := transcriptArg("transcript_archive", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		if s := Status(tr); s == "abandoned" {
			return vm.Value{}, vm.Throwf("transcript_archive: transcript %s is abandoned (transcript_resume it first)", vm.ToDisplay(lib.Get(tr, "id")))
		}
		return withStatus(tr, "archived"), nil
	})
	lib.Def("transcript_abandon", "transcript_abandon(t, reason?) -> dict", "t marked abandoned (metadata.status, metadata.abandon_reason): given up; it takes no new messages until transcript_resume", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript_abandon"
		_, tr, err := transcriptArg(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		reason := vm.Nil
		if a.Given(1) {
			s, ok := a.Str(1)
			if !ok {
				return vm.Value{}, vm.Throwf("%s: reason must be a string, got %s", fn, a.At(1).Type())
			}
			reason = vm.Str(s)
		}
		return withStatus(tr, "abandoned", "abandon_reason", reason), nil
	})
	lib.Def("transcript_resume", "transcript_resume(t) -> dict", "an archived or abandoned transcript made active again (it takes messages); an active one unchanged", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		_, tr, err := transcriptArg("transcript_resume", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		if Status(tr) == "active" {
			return vm.Of(tr), nil
		}
		return withStatus(tr, "active", "abandon_reason", vm.Nil), nil
	})
	lib.Def("transcript_assets", "transcript_assets(t) -> list<dict>", "the assets attached to a transcript: [{name, kind, content?, path?, uri?, mime_type?, metadata?}]", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		_, tr, err := transcriptArg("transcript_assets", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(vm.NewList(slices.Clone(assetsOf(tr)))), nil
	})
	lib.Def("transcript_add_asset", "transcript_add_asset(t, asset) -> dict", "t with an asset {name, kind? (default file), content?|path?|uri?, mime_type?, metadata?} attached (one of the same name is replaced)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript_add_asset"
		_, tr, err := transcriptArg(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		if err := writable(fn, tr); err != nil {
			return vm.Value{}, err
		}
		as, err := readAsset(fn, a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		name := vm.ToDisplay(lib.Get(as, "name"))
		list := slices.DeleteFunc(slices.Clone(assetsOf(tr)), func(x vm.Value) bool {
			d, _ := x.AsDict()
			return d != nil && vm.ToDisplay(lib.Get(d, "name")) == name
		})
		list = append(list, vm.Of(as))
		return vm.Of(tr.Set("metadata", vm.Of(metadataOf(tr).Set("assets", vm.Of(vm.NewList(list)))))), nil
	})
	lib.Def("transcript_events", "transcript_events(t) -> list<dict>", "the conversation as events in order: {index, kind (message, system, feedback, tool_call, tool_result, compaction), role, …}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		msgs, err := Messages("transcript_events", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(vm.NewList(Events(msgs))), nil
	})
	lib.Def("transcript_events_by_kind", "transcript_events_by_kind(t, kind?)", "with kind (a string or list): the events of those kinds; without: a dict kind -> events", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript_events_by_kind"
		msgs, err := Messages(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		evs := Events(msgs)
		kindOf := func(e vm.Value) string { d, _ := e.AsDict(); return vm.ToDisplay(lib.Get(d, "kind")) }
		if !a.Given(1) {
			groups := map[string][]vm.Value{}
			for _, e := range evs {
				groups[kindOf(e)] = append(groups[kindOf(e)], e)
			}
			keys := make([]string, 0, len(groups))
			for k := range groups {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			d := vm.NewDict()
			for _, k := range keys {
				d = d.Set(k, vm.Of(vm.NewList(groups[k])))
			}
			return vm.Of(d), nil
		}
		want := map[string]bool{}
		add := func(v vm.Value) error {
			s, ok := v.AsString()
			if !ok || !slices.Contains(EventKinds, s.Go()) {
				return vm.Throwf("%s: unknown event kind %s (kinds: %s)", fn, lib.Display(v), strings.Join(EventKinds, ", "))
			}
			want[s.Go()] = true
			return nil
		}
		if l, ok := a.List(1); ok {
			for _, k := range l.Items() {
				if err := add(k); err != nil {
					return vm.Value{}, err
				}
			}
		} else if err := add(a.At(1)); err != nil {
			return vm.Value{}, err
		}
		var out []vm.Value
		for _, e := range evs {
			if want[kindOf(e)] {
				out = append(out, e)
			}
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("transcript_summarize", "transcript_summarize(t, options?) -> string", "a summary of the conversation: a count line and one line per message (deterministic), or written by options.summarizer(messages) or a model (options.llm)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript_summarize"
		msgs, err := Messages(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		_, s, l, w, err := summarizeOptions(fn, a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		text, err := Summarize(th, fn, msgs, s, l, w)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(text), nil
	})
	lib.Def("transcript_auto_compact", "transcript_auto_compact(t, options?)", "t kept under options.max_tokens (default 8000): old tool results are microcompacted first, then old messages summarized (transcript_compact); unchanged when it fits", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return AutoCompact(th, "transcript_auto_compact", a.At(0), a.At(1))
	})
	lib.Def("transcript_render_visible", "transcript_render_visible(t) -> string", "the conversation as a user saw it: the user and assistant texts, \"User: …\" / \"Assistant: …\" blocks", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		msgs, err := Messages("transcript_render_visible", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(Render(msgs, false)), nil
	})
	lib.Def("transcript_render_full", "transcript_render_full(t) -> string", "every message as text: system prompts, summaries, feedback, tool calls with their arguments and tool results", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		msgs, err := Messages("transcript_render_full", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(Render(msgs, true)), nil
	})
	lib.Def("assemble_context", "assemble_context(items, budget) -> dict", "fit items (strings or {content, priority?, name?}) into budget estimated tokens, highest priority first (ties in order); {text, included, dropped, tokens}, included in the original order", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "assemble_context"
		items, err := readItems(fn, "items", a.At(0), "priority")
		if err != nil {
			return vm.Value{}, err
		}
		budget, err := budgetArg(fn, a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		order := slices.Clone(items)
		sort.SliceStable(order, func(i, j int) bool { return order[i].priority > order[j].priority })
		sep := llm.EstimateTokens(vm.Str("\n\n"))
		used, in := int64(0), map[int]bool{}
		for _, c := range order {
			cost := c.tokens
			if len(in) > 0 {
				cost += sep
			}
			if used+cost <= budget {
				used += cost
				in[c.index] = true
			}
		}
		var texts []string
		var inc, drop []vm.Value
		for _, c := range items {
			if in[c.index] {
				texts = append(texts, c.text)
				inc = append(inc, c.value)
			} else {
				drop = append(drop, vm.Str(c.name))
			}
		}
		text := strings.Join(texts, "\n\n")
		return vm.Of(lib.DictOf("text", vm.Str(text), "included", vm.Of(vm.NewList(inc)), "dropped", vm.Of(vm.NewList(drop)),
			"tokens", vm.IntOf(llm.EstimateTokens(vm.Str(text))))), nil
	})
	lib.Def("select_artifacts_adaptive", "select_artifacts_adaptive(artifacts, options) -> list<dict>", "the artifacts ({name, content, score?}) that fit options.budget tokens, best first (score, else word overlap with options.query); one that does not fit whole is cut to the room left when at least options.min_tokens (default 32); [{name, content, score, tokens, truncated}]", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "select_artifacts_adaptive"
		items, err := readItems(fn, "artifacts", a.At(0), "score", "relevance")
		if err != nil {
			return vm.Value{}, err
		}
		o, ok := a.Dict(1)
		if !ok {
			return vm.Value{}, lib.BadOptions(fn, a.At(1))
		}
		if err := lib.CheckOptions(fn, o, []string{"budget", "query", "min_tokens", "max_items"}); err != nil {
			return vm.Value{}, err
		}
		if lib.Get(o, "budget").IsNil() {
			return vm.Value{}, vm.Throwf("%s: options.budget (estimated tokens) is required", fn)
		}
		budget, err := budgetArg(fn, lib.Get(o, "budget"))
		if err != nil {
			return vm.Value{}, err
		}
		minTok, err := positiveInt(fn, "min_tokens", lib.Get(o, "min_tokens"), 32)
		if err != nil {
			return vm.Value{}, err
		}
		maxItems, err := positiveInt(fn, "max_items", lib.Get(o, "max_items"), int64(len(items)+1))
		if err != nil {
			return vm.Value{}, err
		}
		if q := lib.Get(o, "query"); !q.IsNil() {
			qs, ok := q.AsString()
			if !ok {
				return vm.Value{}, vm.Throwf("%s: query must be a string, got %s", fn, q.Type())
			}
			words := wordSet(qs.Go())
			for i := range items {
				d, _ := items[i].value.AsDict()
				if d != nil && (!lib.Get(d, "score").IsNil() || !lib.Get(d, "relevance").IsNil()) {
					continue
				}
				n := 0
				for w := range wordSet(items[i].name + " " + items[i].text) {
					if words[w] {
						n++
					}
				}
				if len(words) > 0 {
					items[i].priority = float64(int(float64(n)/float64(len(words))*1000+0.5)) / 1000
				}
			}
		}
		order := slices.Clone(items)
		sort.SliceStable(order, func(i, j int) bool { return order[i].priority > order[j].priority })
		var out []vm.Value
		left := budget
		for _, c := range order {
			if int64(len(out)) >= maxItems || left <= 0 {
				break
			}
			text, cut := c.text, false
			tok := c.tokens
			if tok > left {
				if left < minTok {
					continue
				}
				text, cut = cutToTokens(c.text, left), true
				tok = llm.EstimateTokens(vm.Str(text))
				if text == "" {
					continue
				}
			}
			left -= tok
			out = append(out, vm.Of(lib.DictOf("name", vm.Str(c.name), "content", vm.Str(text), "score", vm.FloatOf(c.priority),
				"tokens", vm.IntOf(tok), "truncated", vm.BoolOf(cut))))
		}
		return vm.Of(vm.NewList(out)), nil
	})
}

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r > 127)
	}) {
		if len(w) > 2 {
			out[w] = true
		}
	}
	return out
}
