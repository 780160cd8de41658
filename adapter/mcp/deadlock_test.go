package mcp

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// Deadlocks in handler calls (issue 13, docs/mcp.md "Deadlocks"): the
// server calls handlers one at a time, so a wait only the VM's own
// threads could end, and none will, fails with the deadlock error;
// between calls the server stands for the calls still to come.

const deadlockMsg = "Error [deadlock]: every task is waiting for another task; none can continue"

// deadlockScript serves stuck (waits on a channel nobody has), ok,
// listen (leaves a task waiting on inbox), take (waits on outbox) and
// put (sends on inbox).
const deadlockScript = `import { tool_registry_from } from "std/tools"

let inbox = channel(1)
let outbox = channel(1)

fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "stuck", handler: {args -> receive(channel())}},
    {name: "ok", handler: {args -> "fine"}},
    {name: "listen", handler: {args ->
      spawn {
        let v = receive(inbox)
        send(outbox, "got " + v)
      }
      "listening"
    }},
    {name: "take", handler: {args -> receive(outbox)}},
    {name: "put", handler: {args ->
      send(inbox, "hello")
      "sent"
    }},
  ]))
}
`

func callTool(s *session, name string) map[string]any {
	s.t.Helper()
	return s.result("tools/call", map[string]any{"name": name, "arguments": map[string]any{}})
}

func TestDeadlockedCallFailsAndLaterCallsRun(t *testing.T) {
	s := start(t, writeScript(t, deadlockScript), Options{})
	s.initialize("2025-06-18")
	res := callTool(s, "stuck")
	if res["isError"] != true || !strings.Contains(text(res), deadlockMsg) {
		t.Fatalf("stuck: %s", js(res))
	}
	if res := callTool(s, "ok"); res["isError"] != false || text(res) != "fine" {
		t.Errorf("call after the deadlock: %s", js(res))
	}
	// Again, several times: a report leaves nothing behind, neither
	// something that hides the next nor a goroutine.
	before := runtime.NumGoroutine()
	for range 3 {
		if res := callTool(s, "stuck"); !strings.Contains(text(res), deadlockMsg) {
			t.Fatalf("stuck again: %s", js(res))
		}
	}
	waitFor(t, "the goroutines of the deadlocked calls to end", func() bool { return runtime.NumGoroutine() <= before })
}

// A task a call left waiting is not a deadlock while the server is idle:
// a later call may end its wait.
func TestWaiterLeftByCallSurvivesIdleServer(t *testing.T) {
	s := start(t, writeScript(t, deadlockScript), Options{})
	s.initialize("2025-06-18")
	if res := callTool(s, "listen"); text(res) != "listening" {
		t.Fatalf("listen: %s", js(res))
	}
	time.Sleep(600 * time.Millisecond) // more than the detector's grace
	if res := callTool(s, "put"); text(res) != "sent" {
		t.Fatalf("put: %s", js(res))
	}
	if res := callTool(s, "take"); res["isError"] != false || text(res) != "got hello" {
		t.Errorf("take: %s", js(res))
	}
}

// When the running call and a task left by an earlier call both wait
// forever, the running call's wait fails first; the task survives for a
// later call.
func TestRunningCallFailsBeforeLeftWaiter(t *testing.T) {
	s := start(t, writeScript(t, deadlockScript), Options{})
	s.initialize("2025-06-18")
	callTool(s, "listen")
	if res := callTool(s, "take"); !strings.Contains(text(res), deadlockMsg) {
		t.Fatalf("take before put: %s", js(res))
	}
	callTool(s, "put")
	if res := callTool(s, "take"); text(res) != "got hello" {
		t.Errorf("take after put: %s", js(res))
	}
}

// notifications/cancelled interrupts a handler waiting on a channel (a
// wait that is no deadlock: a sleeping task may still send), and the
// next call runs at once.
func TestCancelInterruptsWaitingHandler(t *testing.T) {
	p := writeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "slow", handler: {args ->
      let ch = channel()
      spawn {
        sleep(60000)
        send(ch, 1)
      }
      receive(ch)
    }},
    {name: "ok", handler: {args -> "fine"}},
  ]))
}
`)
	s := start(t, p, Options{})
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	time.Sleep(400 * time.Millisecond)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}}`)
	began := time.Now()
	if res := callTool(s, "ok"); text(res) != "fine" {
		t.Fatalf("call after the cancellation: %s", js(res))
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("the call after the cancellation took %s", d)
	}
	s.mu.Lock()
	_, answered := s.byID["slow"]
	s.mu.Unlock()
	if answered {
		t.Error("the cancelled call was answered")
	}
}
