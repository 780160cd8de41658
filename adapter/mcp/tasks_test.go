package mcp

import (
	"strings"
	"testing"
	"time"
)

// Acceptance 166-172, 279-281: the tasks extension.

func TestTaskLifecycle(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	created := s.result("tools/call", with2026(map[string]any{"name": "slow", "arguments": map[string]any{"ms": 50}}, tasksCaps))
	if created["resultType"] != "task" || created["status"] != "working" || created["ttlMs"] != float64(600000) || created["pollIntervalMs"] != float64(250) {
		t.Fatalf("created %s", js(created))
	}
	id, _ := created["taskId"].(string)
	if len(id) != 36 || id[14] != '7' {
		t.Errorf("task id %q is not a UUIDv7", id)
	}
	var got map[string]any
	waitFor(t, "task completion", func() bool {
		got = s.result("tasks/get", with2026(map[string]any{"taskId": id}, tasksCaps))
		return got["status"] == "completed"
	})
	inline := s.result("tools/call", with2026(map[string]any{"name": "slow", "arguments": map[string]any{"ms": 50}}, nil))
	jsonEq(t, "task result", got["result"], js(inline))
	if got["resultType"] != "complete" || got["statusMessage"] != "The task completed successfully." {
		t.Errorf("tasks/get %s", js(got))
	}
	// 170: another identity cannot see it.
	meta := with2026(map[string]any{"taskId": id}, tasksCaps)
	meta["_meta"].(map[string]any)["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "other", "version": "1"}
	jsonEq(t, "other identity", s.rpcErr("tasks/get", meta), `{"code":-32602,"message":"Failed to retrieve task: task not found"}`)
	jsonEq(t, "missing id", s.rpcErr("tasks/get", with2026(nil, tasksCaps)), `{"code":-32602,"message":"Failed to retrieve task: missing taskId"}`)
}

func TestTaskDeclaredErrorCompletes(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	created := s.result("tools/call", with2026(map[string]any{"name": "task_app_error"}, tasksCaps))
	var got map[string]any
	waitFor(t, "task", func() bool {
		got = s.result("tasks/get", with2026(map[string]any{"taskId": created["taskId"]}, tasksCaps))
		return got["status"] != "working"
	})
	if got["status"] != "completed" || path(got, "result", "isError") != true ||
		path(got, "result", "_meta", "com.harnlang/toolContract", "applicationError", "tool") != "task_app_error" ||
		got["statusMessage"] != "The task produced a tool result." {
		t.Errorf("task %s", js(got))
	}
}

func TestTaskContractViolationCompletes(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	created := s.result("tools/call", with2026(map[string]any{"name": "bad_output"}, tasksCaps))
	var got map[string]any
	waitFor(t, "task", func() bool {
		got = s.result("tasks/get", with2026(map[string]any{"taskId": created["taskId"]}, tasksCaps))
		return got["status"] != "working"
	})
	res, _ := got["result"].(map[string]any)
	if got["status"] != "completed" || res["isError"] != true || res["structuredContent"] != nil || res["_meta"] != nil ||
		!strings.Contains(text(res), "output violates its declared schema") {
		t.Errorf("task %s", js(got))
	}
}

func TestTaskCancel(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	created := s.result("tools/call", with2026(map[string]any{"name": "slow", "arguments": map[string]any{"ms": 5000}}, tasksCaps))
	id := created["taskId"]
	begin := time.Now()
	jsonEq(t, "cancel", s.result("tasks/cancel", with2026(map[string]any{"taskId": id}, tasksCaps)), `{"resultType":"complete"}`)
	got := s.result("tasks/get", with2026(map[string]any{"taskId": id}, tasksCaps))
	if got["status"] != "cancelled" || got["statusMessage"] != "The task was cancelled by request." || got["result"] != nil {
		t.Errorf("after cancel %s", js(got))
	}
	jsonEq(t, "second cancel", s.rpcErr("tasks/cancel", with2026(map[string]any{"taskId": id}, tasksCaps)),
		`{"code":-32602,"message":"Cannot cancel task: already in terminal status 'cancelled'"}`)
	// The handler stops; a later call runs promptly and the task stays cancelled.
	s.result("tools/call", with2026(map[string]any{"name": "count"}, nil))
	if time.Since(begin) > 3*time.Second {
		t.Error("the cancelled handler kept running")
	}
	if got := s.result("tasks/get", with2026(map[string]any{"taskId": id}, tasksCaps)); got["status"] != "cancelled" {
		t.Errorf("completion overwrote cancel: %s", js(got))
	}
	jsonEq(t, "unknown", s.rpcErr("tasks/cancel", with2026(map[string]any{"taskId": "nope"}, tasksCaps)), `{"code":-32602,"message":"Cannot cancel task: task not found"}`)
	jsonEq(t, "missing", s.rpcErr("tasks/cancel", with2026(nil, tasksCaps)), `{"code":-32602,"message":"Cannot cancel task: missing taskId"}`)
}

func TestTaskUpdateAlwaysFails(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	created := s.result("tools/call", with2026(map[string]any{"name": "slow", "arguments": map[string]any{"ms": 1}}, tasksCaps))
	id := created["taskId"]
	jsonEq(t, "empty", s.rpcErr("tasks/update", with2026(map[string]any{"taskId": id}, tasksCaps)), `{"code":-32602,"message":"tasks/update requires at least one input response"}`)
	jsonEq(t, "responses", s.rpcErr("tasks/update", with2026(map[string]any{"taskId": id, "inputResponses": map[string]any{"harn-input-0": map[string]any{}}}, tasksCaps)),
		`{"code":-32602,"message":"Task has no outstanding input requests"}`)
}

func TestTaskRequiredAndInvalid(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	// 169: required without the capability.
	e := s.rpcErr("tools/call", with2026(map[string]any{"name": "must_task"}, nil))
	jsonEq(t, "required", e, `{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}`)
	// 279: invalid arguments with the opt-in: -32602 and no task.
	e = s.rpcErr("tools/call", with2026(map[string]any{"name": "slow", "arguments": map[string]any{"ms": "x"}}, tasksCaps))
	if e["code"] != float64(-32602) {
		t.Errorf("invalid task call %s", js(e))
	}
	if n := s.srv.proto.TaskCount(); n != 0 {
		t.Errorf("%d tasks created", n)
	}
}

func TestReleasedClientsNeverGetTasks(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-11-25")
	// 281: optional answers inline, required -32021, tasks/get -32021,
	// even when the request carries the opt-in metadata.
	res := s.result("tools/call", with2026(map[string]any{"name": "slow", "arguments": map[string]any{"ms": 1}}, tasksCaps))
	if res["taskId"] != nil || res["isError"] != false {
		t.Errorf("released optional %s", js(res))
	}
	if e := s.rpcErr("tools/call", map[string]any{"name": "must_task"}); e["code"] != float64(-32021) {
		t.Errorf("released required %s", js(e))
	}
	if e := s.rpcErr("tasks/get", map[string]any{"taskId": "x"}); e["code"] != float64(-32021) {
		t.Errorf("released tasks/get %s", js(e))
	}
}

func TestTaskCannotCarryInput(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	caps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}, "extensions": tasksCaps["extensions"]}
	created := s.result("tools/call", with2026(map[string]any{"name": "deploy_task"}, caps))
	var got map[string]any
	waitFor(t, "task", func() bool {
		got = s.result("tasks/get", with2026(map[string]any{"taskId": created["taskId"]}, caps))
		return got["status"] != "working"
	})
	jsonEq(t, "failed", map[string]any{"status": got["status"], "error": got["error"]},
		`{"status":"failed","error":{"code":-32603,"message":"Tool execution failed: Tool requested client input, which a task cannot carry"}}`)
}

func TestCancelledRequestIsNotAnswered(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	s.initialize("2025-06-18")
	begin := time.Now()
	s.send(`{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow","arguments":{"ms":5000}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"user"}}`)
	// The next call runs as soon as the cancelled handler stopped.
	if text(s.result("tools/call", map[string]any{"name": "count"})) != "3" || time.Since(begin) > 3*time.Second {
		t.Error("the cancelled handler kept running")
	}
	s.result("ping", nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, answered := s.byID["slow-1"]; answered {
		t.Error("a cancelled request was answered")
	}
}
