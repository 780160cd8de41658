package transcripts

import (
	"fmt"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/vm"
)

// Compaction (docs/agents.md, "Compaction"). transcript_compact replaces
// the oldest messages with one system message summarizing them; system
// messages are never dropped, and the cut never separates tool results
// from the assistant turn that asked for them (it moves earlier to keep
// that turn). Without a summarizer the summary is deterministic: one
// line per dropped message (SummaryLines), at most maxSummaryLines of
// them. An earlier summary (a system message with `compacted`) is not
// kept like other system messages: a second compaction folds it into the
// new summary. microcompact only shortens old tool results.

const (
	defaultKeepLast  = 6
	maxSummaryLines  = 20
	summaryLineWidth = 80
)

var compactOptions = []string{"max_tokens", "keep_last", "summarizer", "llm", "summary_chars"}

// Compact is transcript_compact(tv, opts) for other areas (agent_loop's
// compact option); fn names the caller in errors.
func Compact(th *vm.Thread, fn string, tv, opts vm.Value) (vm.Value, error) {
	return compact(th, fn, tv, opts)
}

// compactArgs reads the transcript and options of a compaction: its
// messages, the transcript dict (nil for a bare message list) and the
// options (empty when absent or nil), which may hold only known keys;
// shape lists them in the message for options that are not a dict.
func compactArgs(fn string, tv, optsV vm.Value, shape string, known ...string) ([]vm.Value, *vm.Dict, *vm.Dict, error) {
	msgs, err := Messages(fn, tv)
	if err != nil {
		return nil, nil, nil, err
	}
	_, tr, _ := Split(fn, tv)
	if !optsV.IsValid() || optsV.IsNil() {
		return msgs, tr, vm.NewDict(), nil
	}
	o, ok := optsV.AsDict()
	if !ok {
		return nil, nil, nil, lib.BadOptions(fn, optsV)
	}
	if err := lib.CheckOptions(fn, o, known); err != nil {
		return nil, nil, nil, err
	}
	return msgs, tr, o, nil
}

func compact(th *vm.Thread, fn string, tv, optsV vm.Value) (vm.Value, error) {
	msgs, tr, o, err := compactArgs(fn, tv, optsV, strings.Join(compactOptions, ", "), compactOptions...)
	if err != nil {
		return vm.Value{}, err
	}
	budget, err := positiveInt(fn, "max_tokens", lib.Get(o, "max_tokens"), 0)
	if err != nil {
		return vm.Value{}, err
	}
	keep, err := nonNegInt(fn, "keep_last", lib.Get(o, "keep_last"), defaultKeepLast)
	if err != nil {
		return vm.Value{}, err
	}
	width, err := positiveInt(fn, "summary_chars", lib.Get(o, "summary_chars"), summaryLineWidth)
	if err != nil {
		return vm.Value{}, err
	}
	summarizer := lib.Get(o, "summarizer")
	if !summarizer.IsNil() && !vm.IsCallable(summarizer) {
		return vm.Value{}, vm.Throwf("%s: summarizer must be a function of the dropped messages, got %s", fn, summarizer.Type())
	}
	llmOpts := lib.Get(o, "llm")
	if !llmOpts.IsNil() {
		if _, ok := llmOpts.AsDict(); !ok {
			return vm.Value{}, vm.Throwf("%s: llm must be a dict of llm_call options, got %s", fn, llmOpts.Type())
		}
	}

	var body []int // indices of the droppable (non-system) messages
	var systems []vm.Value
	for i, m := range msgs {
		if Role(m) == "system" && compactedCount(m) == 0 {
			systems = append(systems, m)
		} else {
			body = append(body, i)
		}
	}
	tokens := func(ms []vm.Value) int64 { return llm.EstimateTokens(vm.Of(vm.NewList(ms))) }
	unchanged := Rebuild(tr, msgs)
	maxDrop := len(body) - int(keep)
	if maxDrop <= 0 || (budget > 0 && tokens(msgs) <= budget) {
		return unchanged, nil
	}
	pick := func(idx []int) []vm.Value {
		out := make([]vm.Value, len(idx))
		for i, j := range idx {
			out[i] = msgs[j]
		}
		return out
	}
	k := maxDrop
	room := int64(-1) // tokens the deterministic summary may take; -1: no budget
	if budget > 0 {
		sysTok := tokens(systems)
		for c := 1; c <= maxDrop; c++ {
			left := budget - sysTok - tokens(pick(body[c:])) - llm.EstimateTokens(vm.Str(summaryHeader(c)))
			if left >= minSummaryTokens || c == maxDrop {
				k, room = c, left
				break
			}
		}
	}
	for k > 0 && k < len(body) && Role(msgs[body[k]]) == "tool" {
		k--
		if room >= 0 {
			room -= llm.EstimateTokens(msgs[body[k]])
		}
	}
	if k == 0 {
		return unchanged, nil
	}
	dropped := pick(body[:k])
	var text string
	switch {
	case !summarizer.IsNil():
		v, err := th.Call(summarizer, vm.Of(vm.NewList(dropped)))
		if err != nil {
			return vm.Value{}, err
		}
		text = Content(v)
	case !llmOpts.IsNil():
		prompt := "Summarize this conversation so far in a few sentences, keeping every fact, decision and open question a later turn may need:\n\n" +
			strings.Join(SummaryLines(dropped, 1<<20), "\n")
		resp, err := llm.Call(th, fn, vm.Str(prompt), vm.Str("You write concise, factual summaries of conversations."), llmOpts)
		if err != nil {
			return vm.Value{}, err
		}
		rd, _ := resp.AsDict()
		text = Content(lib.Get(rd, "text"))
	default:
		text = deterministicSummary(dropped, int(width), room)
	}
	represented := 0 // original messages the summary stands for (an earlier summary counts its own)
	for _, m := range dropped {
		represented += max(compactedCount(m), 1)
	}
	summary := lib.DictOf("role", vm.Str("system"), "content", vm.Str(summaryHeader(represented)+text),
		"compacted", lib.IntOf(represented))
	drop := map[int]bool{}
	for _, j := range body[:k] {
		drop[j] = true
	}
	out := make([]vm.Value, 0, len(msgs)-k+1)
	placed := false
	for i, m := range msgs {
		if drop[i] {
			if !placed {
				out = append(out, vm.Of(summary))
				placed = true
			}
			continue
		}
		out = append(out, m)
	}
	return Rebuild(tr, out), nil
}

// compactedCount is the `compacted` count of an earlier summary message
// (0 for any other message): a later compaction may drop and re-summarize it.
func compactedCount(m vm.Value) int {
	d, _ := m.AsDict()
	if d == nil {
		return 0
	}
	n, _ := lib.Get(d, "compacted").AsInt()
	return int(n)
}

func summaryHeader(n int) string {
	return fmt.Sprintf("Summary of %s compacted earlier:\n", fmtCount(n))
}

// minSummaryTokens is the least room a budgeted compaction leaves for the
// summary's lines (the "(N earlier lines omitted)" note).
const minSummaryTokens = 8

// deterministicSummary is the summary of dropped messages without a
// summarizer: their SummaryLines, the last maxSummaryLines of them, and
// with a token budget (room >= 0) only the last lines that fit in it.
func deterministicSummary(ms []vm.Value, width int, room int64) string {
	lines := SummaryLines(ms, width)
	keep := min(len(lines), maxSummaryLines)
	render := func(keep int) string {
		out := lines[len(lines)-keep:]
		if n := len(lines) - keep; n > 0 {
			out = append([]string{fmt.Sprintf("(%d earlier lines omitted)", n)}, out...)
		}
		return strings.Join(out, "\n")
	}
	for room >= 0 && keep > 0 && llm.EstimateTokens(vm.Str(render(keep))) > room {
		keep--
	}
	return render(keep)
}

func microcompact(fn string, tv, optsV vm.Value) (vm.Value, error) {
	msgs, tr, o, err := compactArgs(fn, tv, optsV, "keep_last?, max_chars?", "keep_last", "max_chars")
	if err != nil {
		return vm.Value{}, err
	}
	keep, err := nonNegInt(fn, "keep_last", lib.Get(o, "keep_last"), 3)
	if err != nil {
		return vm.Value{}, err
	}
	limit, err := positiveInt(fn, "max_chars", lib.Get(o, "max_chars"), 200)
	if err != nil {
		return vm.Value{}, err
	}
	var tools []int
	for i, m := range msgs {
		if Role(m) == "tool" {
			tools = append(tools, i)
		}
	}
	out := append([]vm.Value(nil), msgs...)
	for _, i := range tools[:max(len(tools)-int(keep), 0)] {
		r := []rune(Text(msgs[i]))
		if int64(len(r)) <= limit {
			continue
		}
		n := int64(len(r)) - limit
		d, _ := msgs[i].AsDict()
		d = d.Set("content", vm.Str(string(r[:limit])+fmt.Sprintf("\n[… %d characters elided by microcompact]", n)))
		out[i] = vm.Of(d.Set("elided", vm.IntOf(n)))
	}
	return Rebuild(tr, out), nil
}

// AutoCompactTokens is transcript_auto_compact's default max_tokens.
const AutoCompactTokens = 8000

// AutoCompact is transcript_auto_compact: tv (a transcript or a list of
// messages) kept under opts.max_tokens (default AutoCompactTokens)
// estimated tokens, by microcompact first and only then by compact with
// the same budget; tv itself when it fits. opts is nil or a dict of
// compact's options. fn names the caller in errors.
func AutoCompact(th *vm.Thread, fn string, tv, opts vm.Value) (vm.Value, error) {
	msgs, err := Messages(fn, tv)
	if err != nil {
		return vm.Value{}, err
	}
	o := vm.NewDict()
	if !opts.IsNil() {
		d, ok := opts.AsDict()
		if !ok {
			return vm.Value{}, lib.BadOptions(fn, opts)
		}
		if err := lib.CheckOptions(fn, d, compactOptions); err != nil {
			return vm.Value{}, err
		}
		o = d
	}
	budget, err := positiveInt(fn, "max_tokens", lib.Get(o, "max_tokens"), AutoCompactTokens)
	if err != nil {
		return vm.Value{}, err
	}
	if llm.EstimateTokens(vm.Of(vm.NewList(msgs))) <= budget {
		return tv, nil
	}
	mc, err := microcompact(fn, tv, vm.Nil)
	if err != nil {
		return vm.Value{}, err
	}
	ms, _, _ := Split(fn, mc)
	if llm.EstimateTokens(vm.Of(vm.NewList(ms))) <= budget {
		return mc, nil
	}
	return compact(th, fn, mc, vm.Of(o.Set("max_tokens", vm.IntOf(budget))))
}
