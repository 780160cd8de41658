package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/sqlite"
	"github.com/harnlang/harn/orchestrator"
)

// TestCrashKeepsAnsweredFires kills `harn mcp serve` with SIGKILL while
// clients fire a trigger and scan for secrets over HTTP, then checks
// the SQLite log: every fire that was answered with an event id has its
// event and its delivery, and every fire answered "succeeded" has its
// outcome — what the call records written behind the answers (action
// graph, scan audit) may lose, an answered fire never does
// (docs/orchestrator.md, Failure semantics).
func TestCrashKeepsAnsweredFires(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a server")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "harn.toml"), []byte("[[triggers]]\nid = \"go\"\nkind = \"manual\"\nhandler = \"on_go\"\nretry = { max = 0 }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("fn on_go(event) { return {ok: true} }\n"), 0o644)
	state := filepath.Join(dir, "state")
	env := []string{"HARN_ORCHESTRATOR_API_KEYS=", "HARN_EVENT_LOG_URL=", "HARN_EVENT_LOG_BACKEND=sqlite", "HARN_EVENT_LOG_DIR="}
	p := startHarn(t, env, "mcp", "serve", "--config", filepath.Join(dir, "harn.toml"), "--state-dir", state, "--transport", "http", "--bind", "127.0.0.1:0")
	endpoint := p.waitLine(t, regexp.MustCompile(`ready on (http://\S+)$`))[1]

	client := &http.Client{Timeout: 10 * time.Second}
	call := func(id int, tool, args string) (map[string]any, bool) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"crash","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`, id, tool, args)
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", tool)
		resp, err := client.Do(req)
		if err != nil {
			return nil, false // the server died
		}
		defer resp.Body.Close()
		var m map[string]any
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&m) != nil {
			return nil, false
		}
		return m, true
	}

	var mu sync.Mutex
	answered := map[string]string{} // event id -> status
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				if w%2 == 1 { // scans between the fires: their records ride behind the answers
					if _, ok := call(i, "harn.secret_scan", `{"content":"token = \"ghp_1234567890abcdefghijklmnopqrstuvwxyzAB\""}`); !ok {
						return
					}
				}
				m, ok := call(i, "harn.trigger.fire", `{"trigger_id":"go","payload":{}}`)
				if !ok {
					return
				}
				h, _ := dig(m, "result", "structuredContent").(map[string]any)
				if id, _ := h["event_id"].(string); id != "" {
					mu.Lock()
					answered[id], _ = h["status"].(string)
					mu.Unlock()
				}
			}
		}()
	}
	// Kill once some fires were answered.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(answered)
		mu.Unlock()
		if n >= 40 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d fires answered in 30s; stderr:\n%s", n, p.errText())
		}
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	wg.Wait()
	p.wait()

	ctx := context.Background()
	log, err := sqlite.Open(ctx, filepath.Join(state, "events.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	events, _ := log.Read(ctx, orchestrator.TopicEvents, 0, 0)
	outbox, _ := log.Read(ctx, orchestrator.TopicOutbox, 0, 0)
	recorded, outcomes := map[string]bool{}, map[string]bool{}
	for _, r := range events {
		var e struct {
			Event struct {
				ID string `json:"id"`
			} `json:"event"`
		}
		json.Unmarshal(r.Payload, &e)
		recorded[e.Event.ID] = true
	}
	for _, r := range outbox {
		outcomes[r.Headers["event_id"]] = true
	}
	succeeded := 0
	for id, status := range answered {
		if !recorded[id] {
			t.Errorf("fire %s was answered (%s) but its event is not on %s", id, status, orchestrator.TopicEvents)
		}
		if _, err := log.Inbox().Get(ctx, id); err != nil {
			t.Errorf("fire %s was answered (%s) but its delivery is gone: %v", id, status, err)
		}
		if status == "succeeded" {
			succeeded++
			if !outcomes[id] {
				t.Errorf("fire %s was answered succeeded but has no outcome", id)
			}
			if d, err := log.Inbox().Get(ctx, id); err == nil && d.State != eventlog.Done {
				t.Errorf("fire %s was answered succeeded but its delivery is %s", id, d.State)
			}
		}
	}
	t.Logf("%d fires answered before the kill (%d succeeded), %d events recorded", len(answered), succeeded, len(events))
}
