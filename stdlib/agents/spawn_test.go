package agents_test

import (
	"strings"
	"testing"
)

// TestSpawnedAgentsRunConcurrently: several spawned agents, each fed
// inputs while others run, finish with their own conversations; run
// under -race this checks the shared state is locked.
func TestSpawnedAgentsRunConcurrently(t *testing.T) {
	clearEnv(t)
	out := mustRun(t, `
llm_mock({when: { req -> true }, text: "ok"})
var hs = []
for i in 1 to 4 {
  hs = hs + [spawn_agent({name: "w${i}"}, "task ${i}")]
}
for h in hs { send_input(h, "more for " + h.agent) }
for h in hs { wait_agent(h) }
println(list_agents().map({ a -> a.status + ":" + to_string(a.runs) }))
println(hs.map({ h -> agent_session_length(h.session) }))
println(agent_session_snapshot(hs[2].session).messages[2].content)
`)
	want := "[idle:2, idle:2, idle:2, idle:2]\n[4, 4, 4, 4]\nmore for w3"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
}

// TestWaitAgentTimeout: a spawned agent blocked in a tool does not make
// wait_agent hang past its timeout; close_agent cancels it.
func TestWaitAgentTimeout(t *testing.T) {
	clearEnv(t)
	out := mustRun(t, `
let ch = channel(1)
let slow = tool_def("slow", "waits", {parameters: {}, handler: { args -> receive(ch) }})
llm_mock([{tool_calls: [{name: "slow", arguments: {}}]}, "done"])
let h = spawn_agent({name: "slowpoke", tools: [slow]}, "go")
println(wait_agent(h, 20ms))
println(list_agents()[0].status)
send(ch, "released")
println(wait_agent(h).text)
`)
	if out != "nil\nrunning\ndone" {
		t.Fatalf("got:\n%s", out)
	}
	out = mustRun(t, `
let ch = channel(1)
let slow = tool_def("slow", "waits", {parameters: {}, handler: { args -> receive(ch) }})
llm_mock([{tool_calls: [{name: "slow", arguments: {}}]}, "done"])
let h = spawn_agent({name: "slowpoke", tools: [slow]}, "go")
println(wait_agent(h, 10ms))
println(close_agent(h))
println(wait_agent(h))
println(list_agents()[0].status)
`)
	if out != "nil\ntrue\nnil\nclosed" {
		t.Fatalf("close: got:\n%s", out)
	}
}

func TestSessionInUseIsRefused(t *testing.T) {
	clearEnv(t)
	_, err := run(t, `
agent_session_open("s")
let t = tool_def("poke", "p", {parameters: {}, handler: { args -> agent_session_inject("s", "sneaky") }})
llm_mock([{tool_calls: [{name: "poke", arguments: {}}]}, "done"])
agent_loop("go", {session: "s", tools: [t], tool_errors: "throw"})
`)
	if !strings.Contains(err, `agent_session_inject: session "s" is in use by a running agent loop`) {
		t.Fatalf("error %q", err)
	}
}
