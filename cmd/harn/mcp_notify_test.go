package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestMcpServeStdioNotifications: on stdio, `harn mcp serve` announces a
// successful fire with notifications/resources/list_changed
// (docs/spec/acceptance.md item 247) and a prompt file added while it runs
// with notifications/prompts/list_changed, after which prompts/list
// shows the prompt (item 257).
func TestMcpServeStdioNotifications(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"harn.toml", "handlers.harn", "lib.harn", "review.harn.prompt"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(fixtureManifest), name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	p := startHarn(t, nil, "mcp", "serve", "--config", filepath.Join(dir, "harn.toml"), "--state-dir", filepath.Join(dir, "state"))
	// A server that never sends what the test waits for is killed, which
	// ends the read below.
	timer := time.AfterFunc(time.Minute, func() { p.cmd.Process.Kill() })
	defer timer.Stop()
	p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP stdio server ready$`))
	p.rpc(t, 1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "notes", "version": "1"}})
	p.stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))

	// until reads stdout until it has seen the response to id (0: none
	// expected) and a notification named method.
	until := func(id int, method string) {
		t.Helper()
		answered, notified := id == 0, false
		for !answered || !notified {
			line, err := p.stdout.ReadBytes('\n')
			if err != nil {
				t.Fatalf("waiting for %s: %v; stderr:\n%s", method, err, p.errText())
			}
			var m map[string]any
			json.Unmarshal(line, &m)
			answered = answered || m["id"] == float64(id)
			notified = notified || (m["id"] == nil && m["method"] == method)
		}
	}
	fire, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": callArgs("harn.trigger.fire", map[string]any{"trigger_id": "manual-ok", "payload": map[string]any{}})})
	p.stdin.Write(append(fire, '\n'))
	until(2, "notifications/resources/list_changed")

	os.WriteFile(filepath.Join(dir, "added.harn.prompt"), []byte("Summarise {{ topic }}\n"), 0o644)
	until(0, "notifications/prompts/list_changed")
	list := p.rpc(t, 3, "prompts/list", map[string]any{})
	found := false
	for _, x := range dig(list, "result", "prompts").([]any) {
		found = found || dig(x, "name") == "added"
	}
	if !found {
		t.Fatalf("prompts/list after adding added.harn.prompt: %v", list)
	}
	p.stdin.Close()
	if err := p.wait(); err != nil {
		t.Fatalf("exit: %v; stderr:\n%s", err, p.errText())
	}
}
