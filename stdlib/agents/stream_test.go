package agents_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/stdlib/agents/transcriptsink"
	"github.com/harnlang/harn/vm"
)

// TestTranscriptSink: with a sink set, a loop streams the messages it
// adds (the prompt, feedback, replies, tool results, never the history
// it continues) under the id of the transcript it continues; without
// one nothing is streamed.
func TestTranscriptSink(t *testing.T) {
	var got []string
	src := `
let add = tool_def("add", "Add", {parameters: {a: "int", b: "int"}, handler: { a -> a.a + a.b }})
llm_mock({tool_calls: [{name: "add", arguments: {a: 1, b: 2}}]})
llm_mock({text: "3"})
let tr = transcript({id: "tr_fixed", messages: [{role: "user", content: "earlier"}, {role: "assistant", content: "ok"}]})
agent_loop("add", {tools: [add], transcript: tr})
`
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{OnVM: func(v *vm.VM) {
		transcriptsink.Set(v, func(id string, msg any, agent string, run int64) {
			m := msg.(map[string]any)
			got = append(got, fmt.Sprintf("%s/%d %s %v", id, run, m["role"], m["content"]))
		})
	}})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := "tr_fixed/1 user add|tr_fixed/1 assistant |tr_fixed/1 tool 3|tr_fixed/1 assistant 3"
	if strings.Join(got, "|") != want {
		t.Fatalf("streamed\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}
