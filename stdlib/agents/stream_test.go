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

// TestTranscriptStreamOfMadeUpSession: a session named by the script
// streams under its name; one whose id was made up (session_1, made up
// afresh by every process) streams under a fresh transcript id, so two
// runs of an orchestrator never write into one agent.transcript topic.
func TestTranscriptStreamOfMadeUpSession(t *testing.T) {
	src := `
llm_mock({text: "a"})
llm_mock({text: "b"})
llm_mock({text: "c"})
let s = agent_session_open()
agent_loop("hi", {session: s})
agent_session_open("named")
agent_loop("hi", {session: "named"})
let h = spawn_agent({name: "w"}, "go")
wait_agent(h)
`
	streams := func() []string {
		var ids []string
		r := interp.RunProgram("test.harn", []byte(src), interp.Options{OnVM: func(v *vm.VM) {
			transcriptsink.Set(v, func(id string, msg any, agent string, run int64) {
				if len(ids) == 0 || ids[len(ids)-1] != id {
					ids = append(ids, id)
				}
			})
		}})
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		return ids
	}
	first, second := streams(), streams()
	if len(first) != 3 || len(second) != 3 {
		t.Fatalf("streams %v and %v, want three each", first, second)
	}
	if !strings.HasPrefix(first[0], "tr_") || first[0] == second[0] {
		t.Errorf("made-up session streamed as %q then %q: want fresh transcript ids", first[0], second[0])
	}
	if !strings.HasPrefix(first[2], "tr_") || first[2] == second[2] {
		t.Errorf("spawned agent (session agent_1) streamed as %q then %q: want fresh transcript ids", first[2], second[2])
	}
	if first[1] != "named" || second[1] != "named" {
		t.Errorf("named session streamed as %q and %q", first[1], second[1])
	}
}
