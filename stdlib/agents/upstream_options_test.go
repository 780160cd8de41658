package agents_test

import (
	"strings"
	"testing"
)

// TestDaemonRunIdlesUntilNothingCanWakeIt: an idle daemon run waits for
// feedback while another task may still send some, and ends idle once
// nothing can (the scheduler's deadlock detection), rather than hanging.
func TestDaemonRunIdlesUntilNothingCanWakeIt(t *testing.T) {
	out := mustRun(t, `
llm_mock("one")
llm_mock("two")
llm_mock("three")
let t = spawn {
  agent_loop("watch", nil, {daemon: true, name: "d"})
}
for i in 1 to 2 {
  sleep(5)
  agent_inject_feedback("d", "event " + to_string(i))
}
let r = await(t)
println([r.status, r.stop_reason, r.turns, r.text])
`)
	if out != "[idle, idle, 3, three]" {
		t.Fatalf("got %q", out)
	}
}

// TestDaemonRunWokenByCallbackFeedback: feedback queued before the run
// would idle (by on_turn) is answered at once, without a wait.
func TestDaemonRunWokenByCallbackFeedback(t *testing.T) {
	out := mustRun(t, `
llm_mock("draft")
llm_mock("final")
var asked = false
let r = agent_loop("write", nil, {daemon: true, name: "w", on_turn: { info ->
  if !asked {
    asked = true
    agent_inject_feedback("w", "again")
  }
}})
println([r.status, r.turns, r.text])
`)
	if out != "[idle, 2, final]" {
		t.Fatalf("got %q", out)
	}
}

// TestDaemonRunCancelledWhileIdle: cancelling the task of an idle daemon
// run ends the wait with the cancellation, not an idle result.
func TestDaemonRunCancelledWhileIdle(t *testing.T) {
	out, err := run(t, `
llm_mock("idle")
let t = spawn {
  agent_loop("watch", nil, {daemon: true})
  println("not reached")
}
sleep(20)
cancel(t)
println(await(t))
`)
	if err != "" || strings.Contains(out, "not reached") || out != "nil" {
		t.Fatalf("got %q, %q", out, err)
	}
}

// TestBackoffDoublesAndIsCancellable: the retry backoff doubles per retry
// and, being a sleep, ends with the task's cancellation.
func TestBackoffDoublesAndIsCancellable(t *testing.T) {
	out := mustRun(t, `
mock_time(0)
llm_mock({error: {category: "overloaded", message: "busy"}})
llm_mock({error: {category: "overloaded", message: "busy"}})
llm_mock({error: {category: "overloaded", message: "busy"}})
llm_mock("ok")
let r = agent_loop("go", nil, {llm_retries: 3, llm_backoff_ms: 10})
println([r.text, now_ms()])
`)
	if out != "[ok, 70]" {
		t.Fatalf("got %q", out)
	}
	out = mustRun(t, `
llm_mock({error: {category: "overloaded", message: "busy"}})
llm_mock("ok")
let t = spawn {
  agent_loop("go", nil, {llm_retries: 1, llm_backoff_ms: 60000})
  println("not reached")
}
sleep(20)
cancel(t)
println(await(t))
`)
	if out != "nil" {
		t.Fatalf("got %q", out)
	}
}

// TestAutoCompactShortensOldToolResultsFirst: auto_compact microcompacts
// before it summarizes, so a conversation that fits once its old tool
// results are shortened keeps every message.
func TestAutoCompactShortensOldToolResultsFirst(t *testing.T) {
	out := mustRun(t, `
import { tool_registry_from } from "std/tools"
let tools = tool_registry_from([{name: "dump", description: "Big.", parameters: {}, handler: { args -> "y".repeat(3000) }}])
for i in 1 to 5 { llm_mock({tool_calls: [{name: "dump", arguments: {}}]}) }
llm_mock("done")
let r = agent_loop("go", nil, {tools: tools, auto_compact: {max_tokens: 2500}})
println([r.compactions > 0, len(r.messages), r.messages[0].content, len(r.messages.filter({ m -> m.elided != nil })) > 0])
`)
	if out != "[true, 12, go, true]" {
		t.Fatalf("got %q", out)
	}
}

// TestRequiredToolsBeforeSentinel: with persistent and
// require_successful_tools, the missing tools are asked for first; the
// sentinel alone does not end the run.
func TestRequiredToolsBeforeSentinel(t *testing.T) {
	out := mustRun(t, `
import { tool_registry_from } from "std/tools"
let tools = tool_registry_from([{name: "check", description: "Check.", parameters: {}, handler: { args -> "ok" }}])
llm_mock("##DONE##")
llm_mock({tool_calls: [{name: "check", arguments: {}}]})
llm_mock("checked")
llm_mock("checked ##DONE##")
let r = agent_loop("go", nil, {tools: tools, persistent: true, require_successful_tools: ["check"]})
println([r.status, r.turns])
println(r.messages.filter({ m -> m.role == "user" }).map({ m -> m.content.split(":")[0] }))
`)
	if out != "[done, 4]\n[go, You have not finished, You have not finished]" {
		t.Fatalf("got %q", out)
	}
}

// TestTokenBudgetAgentValue: an agent carries token_budget to its runs.
func TestTokenBudgetAgentValue(t *testing.T) {
	out := mustRun(t, `
import { tool_registry_from } from "std/tools"
let tools = tool_registry_from([{name: "step", description: "Step.", parameters: {}, handler: { args -> "ok" }}])
let a = agent({name: "frugal", tools: tools, token_budget: 10})
llm_mock({tool_calls: [{name: "step", arguments: {}}], input_tokens: 8, output_tokens: 4})
let r = agent_loop("go", a)
println([r.status, r.stop_reason, r.turns])
`)
	if out != "[budget_exhausted, token_budget, 1]" {
		t.Fatalf("got %q", out)
	}
}
