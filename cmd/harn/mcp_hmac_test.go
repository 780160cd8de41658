//go:build !harnlite

package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMcpServeHMAC: `harn mcp serve` with HARN_ORCHESTRATOR_HMAC_SECRET
// accepts requests signed as `harn serve mcp --hmac-secret` accepts them
// (docs/orchestrator-auth.md), on the MCP endpoint and on an unsigned
// webhook binding, which needs the MCP credentials; a signature over
// another body, an old timestamp or no credential is 401.
func TestMcpServeHMAC(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "harn.toml")
	os.WriteFile(config, []byte("[package]\nname = \"hooks\"\n\n[[triggers]]\nid = \"push\"\nkind = \"webhook\"\nhandler = \"on_push\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("fn on_push(e) { return e.payload }\n"), 0o644)
	p := startHarn(t, []string{"HARN_ORCHESTRATOR_HMAC_SECRET=s3cret", "HARN_ORCHESTRATOR_API_KEYS="}, "mcp", "serve", "--config", config, "--state-dir", filepath.Join(dir, "state"), "--transport", "http", "--bind", "127.0.0.1:0")
	endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP HTTP listener ready on (http://\S+)$`))[1]
	base := strings.TrimSuffix(endpoint, "/mcp")
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"harn.trigger.list","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"hmac","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	post := func(path, body string, header map[string]string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "harn.trigger.list")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	now := time.Now()
	if code, body := post("/mcp", call, signedHeader("s3cret", now, call)); code != 200 || !strings.Contains(body, `"trigger_id":"push"`) {
		t.Errorf("signed call: %d %s", code, body)
	}
	for name, h := range map[string]map[string]string{
		"unsigned":      nil,
		"expired":       signedHeader("s3cret", now.Add(-time.Hour), call),
		"other body":    signedHeader("s3cret", now, strings.Replace(call, `"id":1`, `"id":2`, 1)),
		"other secret":  signedHeader("nope", now, call),
		"secret bearer": {"Authorization": "Bearer s3cret"},
	} {
		if code, body := post("/mcp", call, h); code != 401 || body != "auth failed\n" {
			t.Errorf("%s call: %d %q, want 401 auth failed", name, code, body)
		}
	}
	delivery := `{"ref":"refs/heads/main"}`
	if code, body := post("/hooks/push", delivery, signedHeader("s3cret", now, delivery)); code != 202 {
		t.Errorf("signed delivery: %d %s", code, body)
	}
	if code, body := post("/hooks/push", `{"ref":"refs/heads/evil"}`, signedHeader("s3cret", now, delivery)); code != 401 {
		t.Errorf("delivery under another body's signature: %d %s", code, body)
	}
	if !strings.Contains(p.errText(), "auth hmac") {
		t.Errorf("start-up line does not name the hmac auth mode:\n%s", p.errText())
	}
}
