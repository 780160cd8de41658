// Package transcripts is the conversation area of the standard library
// (docs/agents.md; docs/spec/builtins.md §5 names the builtins only):
// conversations as plain lists of message dicts, transcripts as dicts
// that carry such a list with an id, and the builtins that build,
// inspect, export, fork and compact them.
//
// A message is `{role, content, tool_calls?, tool_call_id?, name?, …}`
// with role system, user, assistant or tool: the shape llm_call's
// `messages` option reads (docs/llm.md), so a conversation goes to a
// model as it is and a transcript through transcript_messages.
package transcripts

import (
	"fmt"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/llm"
	"github.com/harnlang/harn/vm"
)

// Type is the `_type` of a transcript dict.
const Type = "transcript"

// Roles are the message roles, in the order messages name them.
var Roles = []string{"system", "user", "assistant", "tool"}

func validRole(r string) bool {
	for _, x := range Roles {
		if x == r {
			return true
		}
	}
	return false
}

// Content is a message content as stored: the text a model reads of the
// value (llm.ContentText: a string as it is, nil as "", any other value
// as its portable JSON).
func Content(v vm.Value) string { return llm.ContentText(v) }

// Message checks one message dict and returns it with its role in lower
// case and its content as text. where prefixes errors ("FN: messages[2]").
func Message(where string, v vm.Value) (*vm.Dict, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Throwf("%s must be a message dict {role, content}, got %s", where, v.Type())
	}
	rv := lib.Get(d, "role")
	role := strings.ToLower(vm.ToDisplay(rv))
	if !validRole(role) {
		return nil, vm.Throwf("%s: role must be system, user, assistant or tool, got %s", where, lib.Display(rv))
	}
	d = d.Set("role", vm.Str(role))
	d = d.Set("content", vm.Str(Content(lib.Get(d, "content"))))
	if role == "tool" && lib.Get(d, "tool_call_id").IsNil() {
		return nil, vm.Throwf("%s: a tool message needs a tool_call_id", where)
	}
	if tc := lib.Get(d, "tool_calls"); !tc.IsNil() {
		l, ok := tc.AsList()
		if !ok {
			return nil, vm.Throwf("%s: tool_calls must be a list, got %s", where, tc.Type())
		}
		for i, c := range l.Items() {
			cd, ok := c.AsDict()
			if !ok {
				return nil, vm.Throwf("%s: tool_calls[%d] must be a dict {id, name, arguments}, got %s", where, i, c.Type())
			}
			if lib.Get(cd, "name").IsNil() {
				return nil, vm.Throwf("%s: tool_calls[%d] has no name", where, i)
			}
		}
	}
	return d, nil
}

// Split reads a conversation (a list of messages) or a transcript dict:
// its messages and, for a transcript, the dict itself.
func Split(fn string, v vm.Value) ([]vm.Value, *vm.Dict, error) {
	if l, ok := v.AsList(); ok {
		return l.Items(), nil, nil
	}
	if d, ok := v.AsDict(); ok && vm.ToDisplay(lib.Get(d, "_type")) == Type {
		l, ok := lib.Get(d, "messages").AsList()
		if !ok {
			return nil, nil, vm.Throwf("%s: the transcript's messages must be a list, got %s", fn, lib.Get(d, "messages").Type())
		}
		return l.Items(), d, nil
	}
	return nil, nil, vm.Throwf("%s: expected a conversation (a list of messages) or a transcript, got %s", fn, v.Type())
}

// Rebuild is the value of the same kind Split read: the list of messages,
// or the transcript with msgs as its messages.
func Rebuild(tr *vm.Dict, msgs []vm.Value) vm.Value {
	l := vm.Of(vm.NewList(msgs))
	if tr == nil {
		return l
	}
	return vm.Of(tr.Set("messages", l))
}

// Messages reads a conversation or transcript and checks every message.
func Messages(fn string, v vm.Value) ([]vm.Value, error) {
	return MessagesAt(fn, fn+": messages", v)
}

// MessagesAt is Messages with errors about message i prefixed
// "where[i]" (e.g. "agent_loop: options.messages").
func MessagesAt(fn, where string, v vm.Value) ([]vm.Value, error) {
	items, _, err := Split(fn, v)
	if err != nil {
		return nil, err
	}
	out := make([]vm.Value, len(items))
	for i, it := range items {
		m, err := Message(fmt.Sprintf("%s[%d]", where, i), it)
		if err != nil {
			return nil, err
		}
		out[i] = vm.Of(m)
	}
	return out, nil
}

// Role is the role of a checked message.
func Role(m vm.Value) string {
	d, _ := m.AsDict()
	if d == nil {
		return ""
	}
	return vm.ToDisplay(lib.Get(d, "role"))
}

// Text is the content of a checked message.
func Text(m vm.Value) string {
	d, _ := m.AsDict()
	if d == nil {
		return ""
	}
	return Content(lib.Get(d, "content"))
}

// ToolCalls is the tool_calls list of a message (nil when none).
func ToolCalls(m vm.Value) []vm.Value {
	d, _ := m.AsDict()
	if d == nil {
		return nil
	}
	l, ok := lib.Get(d, "tool_calls").AsList()
	if !ok {
		return nil
	}
	return l.Items()
}

// NewMessage is {role, content} plus the non-nil extra keys.
func NewMessage(role, content string, extra ...any) vm.Value {
	d := lib.DictOf("role", vm.Str(role), "content", vm.Str(content))
	for i := 0; i+1 < len(extra); i += 2 {
		v := extra[i+1].(vm.Value)
		if v.IsValid() && !v.IsNil() {
			d = d.Set(extra[i].(string), v)
		}
	}
	return vm.Of(d)
}

// ToolResult is the message answering tool call id: {role: "tool",
// tool_call_id, name, content, is_error?}.
func ToolResult(id, name, content string, isError bool) vm.Value {
	d := lib.DictOf("role", vm.Str("tool"), "tool_call_id", vm.Str(id), "content", vm.Str(content))
	if name != "" {
		d = d.Set("name", vm.Str(name))
	}
	if isError {
		d = d.Set("is_error", vm.True)
	}
	return vm.Of(d)
}
