package transcripts

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	hjson "github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/vm"
)

// ExportFormat is the `format` of transcript_export's JSON document.
const ExportFormat = "harn.transcript/1"

// NewID is a fresh transcript id: "tr_" and 12 random hex digits.
func NewID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "tr_" + hex.EncodeToString(b[:])
}

// New is a transcript dict holding msgs.
func New(id string, msgs []vm.Value, metadata vm.Value, parent vm.Value) *vm.Dict {
	if id == "" {
		id = NewID()
	}
	if !metadata.IsValid() || metadata.IsNil() {
		metadata = vm.Of(vm.NewDict())
	}
	if !parent.IsValid() {
		parent = vm.Nil
	}
	return lib.DictOf("_type", vm.Str(Type), "id", vm.Str(id), "messages", vm.Of(vm.NewList(msgs)),
		"metadata", metadata, "parent", parent)
}

// appendTo appends checked messages to a conversation or transcript.
func appendTo(fn string, conv vm.Value, ms ...vm.Value) (vm.Value, error) {
	items, tr, err := Split(fn, conv)
	if err != nil {
		return vm.Value{}, err
	}
	if err := writable(fn, tr); err != nil {
		return vm.Value{}, err
	}
	out := make([]vm.Value, 0, len(items)+len(ms))
	out = append(out, items...)
	for _, m := range ms {
		d, err := Message(fn, m)
		if err != nil {
			return vm.Value{}, err
		}
		out = append(out, vm.Of(d))
	}
	return Rebuild(tr, out), nil
}

// transcriptOptions reads {id?, metadata?} and checks their types.
func transcriptOptions(fn string, d *vm.Dict) (string, vm.Value, error) {
	id := ""
	if v := lib.Get(d, "id"); !v.IsNil() {
		s, ok := v.AsString()
		if !ok || s.Go() == "" {
			return "", vm.Value{}, vm.Throwf("%s: id must be a non-empty string, got %s", fn, lib.Shown(v))
		}
		id = s.Go()
	}
	md := lib.Get(d, "metadata")
	if !md.IsNil() {
		if _, ok := md.AsDict(); !ok {
			return "", vm.Value{}, vm.Throwf("%s: metadata must be a dict, got %s", fn, md.Type())
		}
	}
	return id, md, nil
}

func checkKeys(fn, what string, d *vm.Dict, known ...string) error {
	for _, k := range d.Keys() {
		if !slices.Contains(known, k) {
			return vm.Throwf("%s: unknown %s key %q%s (known: %s)", fn, what, k, lib.DidYouMean(k, known), strings.Join(known, ", "))
		}
	}
	return nil
}

func init() {
	lib.Def("conversation", "conversation(system?) -> list<dict>", "a new conversation: a list of message dicts, starting with the system message when given", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if !a.Given(0) {
			return vm.Of(vm.NewList(nil)), nil
		}
		s, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Throwf("conversation: system must be a string, got %s", a.At(0).Type())
		}
		return vm.Of(vm.NewList([]vm.Value{NewMessage("system", s)})), nil
	})
	lib.Def("add_message", "add_message(conv, role, content, extra?) / add_message(conv, message)", "conv (a conversation or transcript) with one message appended; extra adds tool_calls, tool_call_id, name", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if d, ok := a.Dict(1); ok && !a.Has(2) {
			return appendTo("add_message", a.At(0), vm.Of(d))
		}
		m := lib.DictOf("role", a.At(1), "content", a.At(2))
		if a.Given(3) {
			ex, ok := a.Dict(3)
			if !ok {
				return vm.Value{}, vm.Throwf("add_message: extra must be a dict {tool_calls?, tool_call_id?, name?}, got %s", a.At(3).Type())
			}
			m = ex.Merge(m)
		}
		return appendTo("add_message", a.At(0), vm.Of(m))
	})
	lib.Def("add_user", "add_user(conv, content)", "conv with a user message appended", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return appendTo("add_user", a.At(0), NewMessage("user", Content(a.At(1))))
	})
	lib.Def("add_system", "add_system(conv, content)", "conv with a system message appended", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return appendTo("add_system", a.At(0), NewMessage("system", Content(a.At(1))))
	})
	lib.Def("add_assistant", "add_assistant(conv, content, tool_calls?)", "conv with an assistant message appended; content may be an llm_call response (its message is appended)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if d, ok := a.Dict(1); ok {
			if m, ok := lib.Get(d, "message").AsDict(); ok && vm.ToDisplay(lib.Get(m, "role")) == "assistant" {
				return appendTo("add_assistant", a.At(0), vm.Of(m))
			}
		}
		tc := a.At(2)
		if a.Given(2) {
			if _, ok := tc.AsList(); !ok {
				return vm.Value{}, vm.Throwf("add_assistant: tool_calls must be a list, got %s", tc.Type())
			}
		}
		return appendTo("add_assistant", a.At(0), NewMessage("assistant", Content(a.At(1)), "tool_calls", tc))
	})
	lib.Def("add_tool_result", "add_tool_result(conv, tool_call_id, content, options?)", "conv with a tool message answering tool_call_id appended; options {name?, is_error?}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		id, ok := a.Str(1)
		if !ok || id == "" {
			return vm.Value{}, vm.Throwf("add_tool_result: tool_call_id must be a non-empty string, got %s", lib.Shown(a.At(1)))
		}
		name, isErr := "", false
		if a.Given(3) {
			o, ok := a.Dict(3)
			if !ok {
				return vm.Value{}, lib.BadOptions("add_tool_result", a.At(3))
			}
			if err := lib.CheckOptions("add_tool_result", o, []string{"name", "is_error"}); err != nil {
				return vm.Value{}, err
			}
			if n := lib.Get(o, "name"); !n.IsNil() {
				name = vm.ToDisplay(n)
			}
			isErr = lib.Get(o, "is_error").Truth()
		}
		return appendTo("add_tool_result", a.At(0), ToolResult(id, name, Content(a.At(2)), isErr))
	})

	lib.Def("transcript", "transcript(messages?) -> dict / transcript({id?, system?, messages?, metadata?}) -> dict", "a new transcript: {_type: \"transcript\", id, messages, metadata, parent}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript"
		if !a.Given(0) {
			return vm.Of(New("", nil, vm.Nil, vm.Nil)), nil
		}
		if _, ok := a.List(0); ok {
			msgs, err := Messages(fn, a.At(0))
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(New("", msgs, vm.Nil, vm.Nil)), nil
		}
		o, ok := a.Dict(0)
		if !ok || vm.ToDisplay(lib.Get(o, "_type")) == Type {
			return vm.Value{}, vm.Throwf("%s: expected a list of messages or an options dict {id?, system?, messages?, metadata?}, got %s", fn, a.At(0).Type())
		}
		if err := lib.CheckOptions(fn, o, []string{"id", "system", "messages", "metadata"}); err != nil {
			return vm.Value{}, err
		}
		id, md, err := transcriptOptions(fn, o)
		if err != nil {
			return vm.Value{}, err
		}
		var msgs []vm.Value
		if s := lib.Get(o, "system"); !s.IsNil() {
			msgs = append(msgs, NewMessage("system", Content(s)))
		}
		if mv := lib.Get(o, "messages"); !mv.IsNil() {
			ms, err := Messages(fn, mv)
			if err != nil {
				return vm.Value{}, err
			}
			msgs = append(msgs, ms...)
		}
		return vm.Of(New(id, msgs, md, vm.Nil)), nil
	})
	lib.Def("transcript_from_messages", "transcript_from_messages(messages, options?) -> dict", "a new transcript holding the messages (a list, or another transcript's); options {id?, metadata?}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript_from_messages"
		msgs, err := Messages(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		id, md := "", vm.Nil
		if a.Given(1) {
			o, ok := a.Dict(1)
			if !ok {
				return vm.Value{}, lib.BadOptions(fn, a.At(1))
			}
			if err := lib.CheckOptions(fn, o, []string{"id", "metadata"}); err != nil {
				return vm.Value{}, err
			}
			if id, md, err = transcriptOptions(fn, o); err != nil {
				return vm.Value{}, err
			}
		}
		return vm.Of(New(id, msgs, md, vm.Nil)), nil
	})
	lib.Def("transcript_messages", "transcript_messages(t) -> list", "the messages of a transcript (a conversation is its own list)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		items, _, err := Split("transcript_messages", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(vm.NewList(items)), nil
	})
	lib.Def("transcript_id", "transcript_id(t) -> string", "the id of a transcript", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		_, tr, err := Split("transcript_id", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		if tr == nil {
			return vm.Value{}, vm.Throwf("transcript_id: a conversation list has no id; make a transcript with transcript_from_messages")
		}
		return lib.Get(tr, "id"), nil
	})
	lib.Def("transcript_stats", "transcript_stats(t) -> dict", "{messages, by_role, tool_calls, tool_results, tool_errors, characters, tokens} of a conversation or transcript", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		msgs, err := Messages("transcript_stats", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return Stats(msgs), nil
	})
	lib.Def("transcript_summary", "transcript_summary(t, options?) -> string", "a text digest, one line per message (\"role: content\", cut at options.max_chars, default 80)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript_summary"
		msgs, err := Messages(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		width := int64(80)
		if a.Given(1) {
			o, ok := a.Dict(1)
			if !ok {
				return vm.Value{}, lib.BadOptions(fn, a.At(1))
			}
			if err := lib.CheckOptions(fn, o, []string{"max_chars"}); err != nil {
				return vm.Value{}, err
			}
			if width, err = positiveInt(fn, "max_chars", lib.Get(o, "max_chars"), width); err != nil {
				return vm.Value{}, err
			}
		}
		return vm.Str(strings.Join(SummaryLines(msgs, int(width)), "\n")), nil
	})
	lib.Def("transcript_export", "transcript_export(t) -> string", "the transcript as JSON text ({format, id, parent, metadata, messages}); transcript_import reads it back", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript_export"
		msgs, err := Messages(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		_, tr, _ := Split(fn, a.At(0))
		if tr == nil {
			tr = New("", msgs, vm.Nil, vm.Nil)
		}
		doc := lib.DictOf("format", vm.Str(ExportFormat), "id", lib.Get(tr, "id"), "parent", lib.Get(tr, "parent"),
			"metadata", lib.Get(tr, "metadata"), "messages", vm.Of(vm.NewList(msgs)))
		return vm.Str(hjson.Stringify(vm.Of(doc))), nil
	})
	lib.Def("transcript_import", "transcript_import(json) -> dict", "the transcript a transcript_export text (or its parsed dict) describes, checked", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return importTranscript(a.At(0))
	})
	lib.Def("transcript_fork", "transcript_fork(t, options?) -> dict", "a copy of the transcript with a new id and parent set to t's id; options {at?: keep the first N messages, id?, metadata?}", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		const fn = "transcript_fork"
		msgs, err := Messages(fn, a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		_, tr, _ := Split(fn, a.At(0))
		parent, md := vm.Nil, vm.Nil
		if tr != nil {
			parent, md = lib.Get(tr, "id"), lib.Get(tr, "metadata")
		}
		id := ""
		if a.Given(1) {
			o, ok := a.Dict(1)
			if !ok {
				return vm.Value{}, lib.BadOptions(fn, a.At(1))
			}
			if err := lib.CheckOptions(fn, o, []string{"at", "id", "metadata"}); err != nil {
				return vm.Value{}, err
			}
			var nmd vm.Value
			if id, nmd, err = transcriptOptions(fn, o); err != nil {
				return vm.Value{}, err
			}
			if !nmd.IsNil() {
				md = nmd
			}
			if at := lib.Get(o, "at"); !at.IsNil() {
				n, ok := at.AsInt()
				if !ok || n < 0 || int(n) > len(msgs) {
					return vm.Value{}, vm.Throwf("%s: at must be an int from 0 to %d (the number of messages), got %s", fn, len(msgs), lib.Display(at))
				}
				msgs = msgs[:n]
			}
		}
		return vm.Of(New(id, append([]vm.Value(nil), msgs...), md, parent)), nil
	})
	lib.Def("transcript_compact", "transcript_compact(t, options?)", "t with its oldest messages replaced by one summary message, to fit options.max_tokens or keep options.keep_last (default 6); summarizer/llm options write the summary", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return compact(th, "transcript_compact", a.At(0), a.At(1))
	})
	lib.Def("microcompact", "microcompact(t, options?)", "t with the tool results before the last options.keep_last (default 3) cut to options.max_chars (default 200) characters", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return microcompact("microcompact", a.At(0), a.At(1))
	})
}

func positiveInt(fn, key string, v vm.Value, def int64) (int64, error) {
	if v.IsNil() {
		return def, nil
	}
	n, ok := v.AsInt()
	if !ok || n <= 0 {
		return 0, vm.Throwf("%s: %s must be a positive int, got %s", fn, key, lib.Display(v))
	}
	return int64(n), nil
}

func nonNegInt(fn, key string, v vm.Value, def int64) (int64, error) {
	if v.IsNil() {
		return def, nil
	}
	n, ok := v.AsInt()
	if !ok || n < 0 {
		return 0, vm.Throwf("%s: %s must be a non-negative int, got %s", fn, key, lib.Display(v))
	}
	return int64(n), nil
}

// Stats is transcript_stats' dict of checked messages.
func Stats(msgs []vm.Value) vm.Value {
	byRole := map[string]int{}
	calls, results, errs, chars := 0, 0, 0, 0
	for _, m := range msgs {
		r := Role(m)
		byRole[r]++
		calls += len(ToolCalls(m))
		if r == "tool" {
			results++
			d, _ := m.AsDict()
			if lib.Get(d, "is_error").Truth() {
				errs++
			}
		}
		chars += lib.RuneCount(Text(m))
	}
	rd := vm.NewDict()
	for _, r := range Roles {
		rd = rd.Set(r, lib.IntOf(byRole[r]))
	}
	return vm.Of(lib.DictOf("messages", lib.IntOf(len(msgs)), "by_role", vm.Of(rd), "tool_calls", lib.IntOf(calls),
		"tool_results", lib.IntOf(results), "tool_errors", lib.IntOf(errs), "characters", lib.IntOf(chars),
		"tokens", vm.IntOf(llm.EstimateTokens(vm.Of(vm.NewList(msgs))))))
}

// SummaryLines is one "role: content" line per message, the content on
// one line and cut to width characters ("…" marks a cut); an assistant
// turn's tool calls are listed as "[calls name, name]".
func SummaryLines(msgs []vm.Value, width int) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		text := strings.Join(strings.Fields(Text(m)), " ")
		if calls := ToolCalls(m); len(calls) > 0 {
			names := make([]string, len(calls))
			for i, c := range calls {
				cd, _ := c.AsDict()
				names[i] = vm.ToDisplay(lib.Get(cd, "name"))
			}
			tag := "[calls " + strings.Join(names, ", ") + "]"
			if text == "" {
				text = tag
			} else {
				text += " " + tag
			}
		}
		if r := []rune(text); len(r) > width {
			text = string(r[:max(width-1, 0)]) + "…"
		}
		role := Role(m)
		if role == "tool" {
			d, _ := m.AsDict()
			if n := lib.Get(d, "name"); !n.IsNil() {
				role = "tool " + vm.ToDisplay(n)
			}
		}
		out = append(out, role+": "+text)
	}
	return out
}

func importTranscript(v vm.Value) (vm.Value, error) {
	const fn = "transcript_import"
	if s, ok := v.AsString(); ok {
		p, err := hjson.Parse(s.Go())
		if err != nil {
			return vm.Value{}, vm.Throwf("%s: not JSON: %s", fn, err.Error())
		}
		v = p
	}
	d, ok := v.AsDict()
	if !ok {
		return vm.Value{}, vm.Throwf("%s: expected transcript_export's JSON text (an object), got %s", fn, v.Type())
	}
	if f := lib.Get(d, "format"); vm.ToDisplay(f) != ExportFormat && vm.ToDisplay(lib.Get(d, "_type")) != Type {
		return vm.Value{}, vm.Throwf("%s: not a transcript export: format must be %q, got %s", fn, ExportFormat, lib.Display(f))
	}
	mv := lib.Get(d, "messages")
	if _, ok := mv.AsList(); !ok {
		return vm.Value{}, vm.Throwf("%s: messages must be a list, got %s", fn, mv.Type())
	}
	msgs, err := Messages(fn, mv)
	if err != nil {
		return vm.Value{}, err
	}
	id := vm.ToDisplay(lib.Get(d, "id"))
	if lib.Get(d, "id").IsNil() || id == "" {
		id = NewID()
	}
	md := lib.Get(d, "metadata")
	if _, ok := md.AsDict(); !ok && !md.IsNil() {
		return vm.Value{}, vm.Throwf("%s: metadata must be an object, got %s", fn, md.Type())
	}
	return vm.Of(New(id, msgs, md, lib.Get(d, "parent"))), nil
}

// fmtCount is "1 message" / "N messages".
func fmtCount(n int) string {
	if n == 1 {
		return "1 message"
	}
	return fmt.Sprintf("%d messages", n)
}
