package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harnlang/harn/mcp/protocol"
)

// Acceptance 184-195, 199, 283-285: the session-free HTTP transport.

func httpServer(t *testing.T, opts Options, h HTTPOptions) *httptest.Server {
	sf := loadSurface(t, testdata("kitchen.harn"), io.Discard)
	srv := NewServer(sf, opts)
	ts := httptest.NewServer(srv.HTTPHandler(h))
	t.Cleanup(ts.Close)
	return ts
}

type httpReply struct {
	status int
	header http.Header
	body   string
	msg    map[string]any
}

func post(t *testing.T, ts *httptest.Server, body string, headers map[string]string) httpReply {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if v == "-" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := httpReply{status: resp.StatusCode, header: resp.Header, body: string(b)}
	json.Unmarshal(b, &r.msg)
	return r
}

func rpcBody(id int, method string, params map[string]any) string {
	return js(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": with2026(params, nil)})
}

func routing(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func TestHTTPDiscover(t *testing.T) {
	ts := httpServer(t, Options{}, HTTPOptions{})
	r := post(t, ts, rpcBody(1, "server/discover", nil), routing("server/discover", ""))
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") || path(r.msg, "result", "resultType") != "complete" {
		t.Errorf("discover %d %s", r.status, r.body)
	}
	if r.header.Get("Mcp-Session-Id") != "" || r.header.Get("MCP-Protocol-Version") != "2026-07-28" {
		t.Errorf("headers %v", r.header)
	}
	r = post(t, ts, rpcBody(2, "tools/call", map[string]any{"name": "count"}), routing("tools/call", "count"))
	if r.status != 200 || path(r.msg, "result", "structuredContent") != float64(3) {
		t.Errorf("call %d %s", r.status, r.body)
	}
}

func TestHTTPRoutingHeaders(t *testing.T) {
	ts := httpServer(t, Options{}, HTTPOptions{})
	r := post(t, ts, rpcBody(1, "tools/call", map[string]any{"name": "count"}), routing("tools/list", ""))
	if r.status != 400 || path(r.msg, "error", "code") != float64(-32020) || path(r.msg, "error", "data", "headerValue") != "tools/list" || path(r.msg, "error", "data", "bodyMethod") != "tools/call" {
		t.Errorf("method mismatch %d %s", r.status, r.body)
	}
	r = post(t, ts, rpcBody(1, "tools/call", map[string]any{"name": "count"}), routing("tools/call", ""))
	if path(r.msg, "error", "message") != "Mcp-Name header is required for this request" {
		t.Errorf("missing name %s", r.body)
	}
	r = post(t, ts, rpcBody(1, "tools/call", map[string]any{"name": "count"}), routing("tools/call", "other"))
	if path(r.msg, "error", "data", "bodyName") != "count" {
		t.Errorf("name mismatch %s", r.body)
	}
	r = post(t, ts, rpcBody(1, "tools/list", nil), map[string]string{"Mcp-Method": "tools/list"})
	if r.status != 400 || path(r.msg, "error", "message") != "MCP-Protocol-Version header is required" {
		t.Errorf("missing version %d %s", r.status, r.body)
	}
	r = post(t, ts, rpcBody(1, "tools/list", nil), map[string]string{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"})
	if r.status != 400 || path(r.msg, "error", "code") != float64(-32022) {
		t.Errorf("bad version %d %s", r.status, r.body)
	}
	// 190: other errors answer 200.
	r = post(t, ts, rpcBody(1, "nope/nope", nil), routing("nope/nope", ""))
	if r.status != 200 || path(r.msg, "error", "code") != float64(-32601) {
		t.Errorf("method not found %d %s", r.status, r.body)
	}
}

// An HTTP request is always in the 2026-07-28 profile
// (docs/spec/mcp-projection.md §12, docs/spec/orchestrator.md §8 step 5):
// without _meta it is -32602 naming the three fields, HTTP 400, never
// "server not initialized" (HTTP refuses initialize); ping included.
func TestHTTPRequestWithoutMeta(t *testing.T) {
	ts := httpServer(t, Options{}, HTTPOptions{})
	const malformed = `{"code":-32602,"message":"request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientInfo, io.modelcontextprotocol/clientCapabilities"}`
	for _, tc := range []struct{ method, name, body string }{
		{"tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}`},
		{"ping", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"tools/call", "count", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count"}}`},
	} {
		r := post(t, ts, tc.body, routing(tc.method, tc.name))
		if r.status != 400 {
			t.Errorf("%s: status %d %s", tc.body, r.status, r.body)
		}
		jsonEq(t, tc.body, r.msg["error"], malformed)
	}
	r := post(t, ts, rpcBody(2, "ping", nil), routing("ping", ""))
	if r.status != 200 {
		t.Errorf("ping: status %d", r.status)
	}
	jsonEq(t, "ping", r.msg["result"], `{"resultType":"complete"}`)
}

func TestHTTPFraming(t *testing.T) {
	ts := httpServer(t, Options{}, HTTPOptions{})
	r := post(t, ts, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, routing("notifications/initialized", ""))
	if r.status != 202 || r.body != "" {
		t.Errorf("notification %d %q", r.status, r.body)
	}
	r = post(t, ts, `{not json`, nil)
	if r.status != 400 || path(r.msg, "error", "code") != float64(-32700) {
		t.Errorf("parse error %d %s", r.status, r.body)
	}
	r = post(t, ts, rpcBody(1, "tools/list", nil), map[string]string{"Accept": "text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") || !strings.Contains(r.body, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":") {
		t.Errorf("sse %q", r.body)
	}
	r = post(t, ts, rpcBody(1, "tools/list", nil), routing("tools/list", ""))
	if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Errorf("both accepted: %v", r.header)
	}
	r = post(t, ts, rpcBody(1, "tools/list", nil), map[string]string{"Origin": "https://evil.example", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
	if r.status != 403 {
		t.Errorf("origin %d", r.status)
	}
	resp, _ := http.Get(ts.URL + "/mcp")
	if resp.StatusCode != 405 {
		t.Errorf("GET /mcp %d", resp.StatusCode)
	}
	resp, _ = http.Get(ts.URL + "/.well-known/mcp.json")
	if resp.StatusCode != 404 {
		t.Errorf("mcp.json %d", resp.StatusCode)
	}
	r = post(t, ts, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	if r.status != 400 || path(r.msg, "error", "code") != float64(-32022) {
		t.Errorf("initialize %d %s", r.status, r.body)
	}
	jsonEq(t, "supported", path(r.msg, "error", "data", "supported"), `["2026-07-28"]`)
}

func TestHTTPAPIKeyAndCard(t *testing.T) {
	card := mustParse(`{"name":"kitchen-card"}`)
	ts := httpServer(t, Options{Card: card}, HTTPOptions{APIKeys: []string{"k1"}})
	r := post(t, ts, rpcBody(1, "tools/list", nil), routing("tools/list", ""))
	if r.status != 401 || r.body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"unauthorized"}}` {
		t.Errorf("no key %d %s", r.status, r.body)
	}
	h := routing("tools/list", "")
	h["X-API-Key"] = "k1"
	if r = post(t, ts, rpcBody(1, "tools/list", nil), h); r.status != 200 {
		t.Errorf("x-api-key %d %s", r.status, r.body)
	}
	delete(h, "X-API-Key")
	h["Authorization"] = "Bearer k1"
	if r = post(t, ts, rpcBody(1, "tools/list", nil), h); r.status != 200 {
		t.Errorf("bearer %d %s", r.status, r.body)
	}
	resp, err := http.Get(ts.URL + "/.well-known/mcp-card")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("card %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if string(b) != `{"name":"kitchen-card"}` {
		t.Errorf("card %s", b)
	}
}

// Each --api-key is a principal of its own, so tasks and cancellations
// of one key's holder are out of another's reach.
func TestAPIKeysArePrincipals(t *testing.T) {
	c := credentials{keys: protocol.NewAPIKeys([]string{"k1", "k2"})}
	who := func(key string) string {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("X-API-Key", key)
		id, ok := c.Authenticate(httptest.NewRecorder(), r, "")
		if !ok {
			t.Fatalf("key %s refused", key)
		}
		return id
	}
	if a, b := who("k1"), who("k2"); a != "api-key#1" || b != "api-key#2" {
		t.Errorf("principals %q and %q", a, b)
	}
}
