//go:build !harnlite

package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// deadlockProject writes a project whose "stuck" handler waits for what
// no task can ever do, retried twice, beside an "ok" one; it returns the
// manifest path.
func deadlockProject(t *testing.T) string {
	t.Helper()
	dir := writeFiles(t, map[string]string{
		"harn.toml": `[[triggers]]
id = "stuck"
kind = "manual"
handler = "stuck"
retry = { max = 2, backoff = "linear", base = "1ms" }

[[triggers]]
id = "stuck_once"
kind = "manual"
handler = "stuck"
retry = { max = 1 }

[[triggers]]
id = "ok"
kind = "manual"
handler = "echo"
`,
		"lib.harn": "fn stuck(e) {\n  return receive(channel())\n}\n\nfn echo(e) { return e.payload }\n",
	})
	return filepath.Join(dir, "harn.toml")
}

const deadlockErr = "Error [deadlock]: every task is waiting for another task; none can continue (lib.harn:2)"

// `harn orchestrator fire` of a deadlocked handler reports the failed
// attempt with the deadlock error (exit 1) instead of hanging, and the
// event is dead-lettered. The trigger has no retry: fire stops acting as
// a worker once the first attempt is recorded, so a retry would be left
// to a server (docs/orchestrator.md), and whether this process ran it
// first would depend on timing (CI run46 failure).
func TestOrchestratorFireDeadlockedHandler(t *testing.T) {
	manifest := deadlockProject(t)
	state := filepath.Join(filepath.Dir(manifest), "state")
	serveOnce(t, manifest, state)
	project := []string{"--config", manifest, "--state-dir", state}
	out, errText, code := runHarnBounded(t, append([]string{"orchestrator", "fire", "stuck_once"}, project...)...)
	if code != 1 || !strings.Contains(out, "status:  dlq") || !strings.Contains(out, "error:   "+deadlockErr) {
		t.Fatalf("fire stuck: exit %d\n%s%s", code, out, errText)
	}
	out, errText, code = runHarnBounded(t, append([]string{"orchestrator", "dlq", "list"}, project...)...)
	if code != 0 || !regexp.MustCompile(`  stuck_once  trigger_evt_\S+  handler_panic \(1 attempt\): `+regexp.QuoteMeta(deadlockErr)).MatchString(out) {
		t.Fatalf("dlq list: exit %d\n%s%s", code, out, errText)
	}
}

// Over `harn mcp serve`, an inline harn.trigger.fire of a deadlocked
// handler answers with the failed attempt while another trigger fired
// meanwhile completes, and the server goes on serving.
func TestMcpServeDeadlockedHandler(t *testing.T) {
	manifest := deadlockProject(t)
	p := startHarn(t, nil, "mcp", "serve", "--config", manifest, "--state-dir", t.TempDir())
	p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP stdio server ready$`))
	p.rpc(t, 1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}})
	p.stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))

	// Both calls at once: the server runs tool calls concurrently.
	for id, trigger := range map[int]string{2: "stuck", 3: "ok"} {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": callArgs("harn.trigger.fire", map[string]any{"trigger_id": trigger, "payload": map[string]any{"n": id}})})
		p.stdin.Write(append(b, '\n'))
	}
	// Without deadlock detection the stuck call never answers: end the
	// server then, so the read below fails instead of hanging.
	hang := time.AfterFunc(time.Minute, func() { p.cmd.Process.Kill() })
	defer hang.Stop()
	got := map[float64]map[string]any{}
	var order []float64
	for len(got) < 2 {
		line, err := p.stdout.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%v; stderr:\n%s", err, p.errText())
		}
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			if id, ok := m["id"].(float64); ok {
				got[id] = m
				order = append(order, id)
			}
		}
	}
	if order[0] != 3 || dig(got[3], "result", "structuredContent", "status") != "succeeded" {
		t.Fatalf("ok did not complete first: %v", got)
	}
	if dig(got[2], "result", "structuredContent", "status") != "failed" || dig(got[2], "result", "structuredContent", "error") != deadlockErr {
		t.Fatalf("stuck %v", got[2])
	}
	var entries []any
	for deadline, id := time.Now().Add(30*time.Second), 4; len(entries) == 0 && time.Now().Before(deadline); id++ {
		time.Sleep(50 * time.Millisecond)
		dlq := p.rpc(t, id, "tools/call", callArgs("harn.orchestrator.dlq.list", map[string]any{}))
		entries, _ = dig(dlq, "result", "structuredContent", "entries").([]any)
	}
	if len(entries) != 1 || dig(entries[0], "error") != deadlockErr || len(dig(entries[0], "retry_history").([]any)) != 2 {
		t.Fatalf("dlq %v", entries)
	}
}
