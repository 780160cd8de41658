package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Cancellation over the session-free HTTP transport, through the real
// binary (docs/mcp.md, Cancellation): a notifications/cancelled POST
// interrupts the tools/call another POST of the same client runs, and so
// does the client closing the connection of that POST.

// cancelMeta is the 2026-07-28 _meta of every request of these tests.
var cancelMeta = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
	"io.modelcontextprotocol/clientInfo": map[string]any{"name": "t", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}

// stallScript serves stall (writes its marker, then sleeps 60 s) and ok.
func stallScript(t *testing.T) (path, marker string) {
	dir := t.TempDir()
	marker = filepath.Join(dir, "stall")
	src := fmt.Sprintf(`import { tool_registry_from } from "std/tools"
fn stall(args) {
  write_file(%q, "yes")
  sleep(60000)
  return {slept: 60000}
}
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "stall", description: "Sleep 60 s.", handler: stall},
    {name: "ok", description: "Answer at once.", handler: {args -> "fine"}},
  ], {info: {name: "stally", version: "1.0.0"}}))
}
`, marker)
	path = filepath.Join(dir, "server.harn")
	os.WriteFile(path, []byte(src), 0o644)
	return path, marker
}

// mcpHTTPRequest is a 2026-07-28 POST of one JSON-RPC message to
// endpoint, with key (if any) as X-API-Key.
func mcpHTTPRequest(endpoint, key string, msg map[string]any) *http.Request {
	b, _ := json.Marshal(msg)
	req, _ := http.NewRequest("POST", endpoint, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	method, _ := msg["method"].(string)
	req.Header.Set("Mcp-Method", method)
	if params, ok := msg["params"].(map[string]any); ok && method == "tools/call" {
		req.Header.Set("Mcp-Name", params["name"].(string))
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	return req
}

func toolCall(id any, name string, args map[string]any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args, "_meta": cancelMeta}}
}

func cancelledNote(id any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": id, "_meta": cancelMeta}}
}

// postJSONRPC sends req and returns the status and body.
func postJSONRPC(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", req.Header.Get("Mcp-Method"), err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// answeredSoon fails unless a tools/call of name is answered within 10 s
// (the serving VM is free again).
func answeredSoon(t *testing.T, endpoint, key, name string, args map[string]any, want string) {
	t.Helper()
	began := time.Now()
	status, body := postJSONRPC(t, mcpHTTPRequest(endpoint, key, toolCall(99, name, args)))
	if status != 200 || !strings.Contains(body, want) {
		t.Errorf("%s after the cancellation: %d %s", name, status, body)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("%s after the cancellation took %s", name, d)
	}
}

// startStall POSTs the stall call in the background and waits for its
// handler to run; the POST's status and body arrive on the channel.
func startStall(t *testing.T, p *harnProc, req *http.Request, marker string) <-chan [2]any {
	out := make(chan [2]any, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- [2]any{0, err.Error()}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out <- [2]any{resp.StatusCode, string(b)}
	}()
	waitForMarker(t, p, marker)
	return out
}

func TestServeMCPHTTPCancelledNotification(t *testing.T) {
	path, marker := stallScript(t)
	p := startHarn(t, nil, "serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", "--api-key", "k1,k2", path)
	endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] serve mcp: listening on (http://\S+)$`))[1]
	out := startStall(t, p, mcpHTTPRequest(endpoint, "k1", toolCall(1, "stall", nil)), marker)
	// Another key's holder cannot cancel it.
	if status, body := postJSONRPC(t, mcpHTTPRequest(endpoint, "k2", cancelledNote(1))); status != 202 || body != "" {
		t.Fatalf("cancel with another key: %d %q", status, body)
	}
	select {
	case r := <-out:
		t.Fatalf("a cancellation with another key ended the call: %v", r)
	case <-time.After(300 * time.Millisecond):
	}
	began := time.Now()
	if status, body := postJSONRPC(t, mcpHTTPRequest(endpoint, "k1", cancelledNote(1))); status != 202 || body != "" {
		t.Fatalf("cancel: %d %q", status, body)
	}
	select {
	case r := <-out:
		if r[0] != 204 || r[1] != "" {
			t.Errorf("cancelled call: %v, want 204 and no body", r)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the cancelled call's POST did not end; stderr:\n%s", p.errText())
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("the cancelled call ended %s after the cancellation", d)
	}
	answeredSoon(t, endpoint, "k1", "ok", nil, "fine")
}

// rawPost writes req on a TCP connection of its own and returns the
// connection without reading the answer.
func rawPost(t *testing.T, req *http.Request) net.Conn {
	t.Helper()
	u, _ := url.Parse(req.URL.String())
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	return conn
}

func TestServeMCPHTTPDisconnectCancels(t *testing.T) {
	path, marker := stallScript(t)
	p := startHarn(t, nil, "serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", path)
	endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] serve mcp: listening on (http://\S+)$`))[1]
	conn := rawPost(t, mcpHTTPRequest(endpoint, "", toolCall(1, "stall", nil)))
	waitForMarker(t, p, marker)
	conn.Close()
	answeredSoon(t, endpoint, "", "ok", nil, "fine")
}

// slowTriggerProject is an orchestrator project whose manual trigger's
// handler writes its marker, then sleeps 60 s.
func slowTriggerProject(t *testing.T) (config, marker string) {
	dir := t.TempDir()
	config, marker = filepath.Join(dir, "harn.toml"), filepath.Join(dir, "started")
	os.WriteFile(config, []byte("[package]\nname = \"cancel\"\n\n[[triggers]]\nid = \"slow\"\nkind = \"manual\"\nhandler = \"on_slow\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte(fmt.Sprintf("fn on_slow(event) {\n  write_file(%q, \"yes\")\n  sleep(60000)\n  return {ok: true}\n}\n", marker)), 0o644)
	return config, marker
}

// `harn mcp serve` over HTTP: notifications/cancelled for an inline
// harn.trigger.fire ends its POST at once, and the server keeps serving.
func TestMcpServeHTTPCancelledNotification(t *testing.T) {
	config, marker := slowTriggerProject(t)
	p := startHarn(t, nil, "mcp", "serve", "--config", config, "--state-dir", filepath.Join(filepath.Dir(config), "state"), "--transport", "http", "--bind", "127.0.0.1:0")
	endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP HTTP listener ready on (http://\S+)$`))[1]
	fire := toolCall("fire-1", "harn.trigger.fire", map[string]any{"trigger_id": "slow", "payload": map[string]any{}})
	out := startStall(t, p, mcpHTTPRequest(endpoint, "", fire), marker)
	began := time.Now()
	if status, body := postJSONRPC(t, mcpHTTPRequest(endpoint, "", cancelledNote("fire-1"))); status != 202 || body != "" {
		t.Fatalf("cancel: %d %q", status, body)
	}
	select {
	case r := <-out:
		if r[0] != 204 || r[1] != "" {
			t.Errorf("cancelled fire: %v, want 204 and no body", r)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the cancelled fire's POST did not end; stderr:\n%s", p.errText())
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("the cancelled fire ended %s after the cancellation", d)
	}
	status, body := postJSONRPC(t, mcpHTTPRequest(endpoint, "", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": map[string]any{"_meta": cancelMeta}}))
	if status != 200 || !strings.Contains(body, "harn.trigger.fire") {
		t.Errorf("tools/list after the cancellation: %d %s", status, body)
	}
}

// `harn mcp serve` over HTTP: a client closing the connection of an
// inline harn.trigger.fire cancels it too.
func TestMcpServeHTTPDisconnectCancels(t *testing.T) {
	config, marker := slowTriggerProject(t)
	p := startHarn(t, nil, "mcp", "serve", "--config", config, "--state-dir", filepath.Join(filepath.Dir(config), "state"), "--transport", "http", "--bind", "127.0.0.1:0")
	endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP HTTP listener ready on (http://\S+)$`))[1]
	conn := rawPost(t, mcpHTTPRequest(endpoint, "", toolCall(1, "harn.trigger.fire", map[string]any{"trigger_id": "slow", "payload": map[string]any{}})))
	waitForMarker(t, p, marker)
	began := time.Now()
	conn.Close()
	// The call is recorded failed (docs/spec/orchestrator.md §12 has no
	// other status) once its handler is interrupted, not 60 s later.
	p.waitLine(t, regexp.MustCompile(`tool=harn\.trigger\.fire status=failed`))
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("the fire ended %s after the client went away", d)
	}
}
