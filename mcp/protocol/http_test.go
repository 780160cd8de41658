package protocol

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAuth stands in for mcp/auth: "Bearer good" is alice, "Bearer
// weak" lacks a scope (403), anything else is 401.
type fakeAuth struct {
	oauth bool
	mu    sync.Mutex
	seen  []string // endpoints passed to Authenticate
}

func (a *fakeAuth) Authenticate(w http.ResponseWriter, r *http.Request, endpoint string) (string, bool) {
	a.mu.Lock()
	a.seen = append(a.seen, endpoint)
	a.mu.Unlock()
	switch r.Header.Get("Authorization") {
	case "Bearer good":
		return "alice", true
	case "Bearer weak":
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope"`)
		w.WriteHeader(http.StatusForbidden)
		return "", false
	}
	w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.ResourceMetadataURL(endpoint)+`"`)
	w.WriteHeader(http.StatusUnauthorized)
	io.WriteString(w, "auth failed")
	return "", false
}

func (a *fakeAuth) ServeMetadata(w http.ResponseWriter, r *http.Request, endpoint string) {
	if !a.oauth {
		http.NotFound(w, r)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"resource": endpoint})
}

func (a *fakeAuth) ResourceMetadataURL(endpoint string) string {
	if !a.oauth {
		return ""
	}
	return ResourceMetadataURL(endpoint)
}

func (a *fakeAuth) endpoints() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

type reply struct {
	status int
	header http.Header
	body   string
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("body is not JSON (%d): %q", r.status, r.body)
	}
	return m
}

// do serves one request through h.
func do(h http.Handler, method, path string, header map[string]string, body string) reply {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return reply{rec.Code, rec.Header(), rec.Body.String()}
}

// rpc is a well-formed 2026-07-28 POST of method with params.
func rpc(h http.Handler, id any, method, name string, params map[string]any, extra map[string]string) reply {
	body := map[string]any{"jsonrpc": "2.0", "method": method, "params": modern(params, tasksCaps)}
	if id != nil {
		body["id"] = id
	}
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": Version20260728, "Mcp-Method": method}
	if name != "" {
		hdr["Mcp-Name"] = name
	}
	for k, v := range extra {
		hdr[k] = v
	}
	return do(h, http.MethodPost, "/mcp", hdr, js(body))
}

func TestHTTPPost(t *testing.T) {
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{})
	r := rpc(h, 1, "tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" || r.header.Get("MCP-Protocol-Version") != Version20260728 || r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("post %d %v %s", r.status, r.header, r.body)
	}
	jsonEq(t, "answer", r.json(t), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],"isError":false,"resultType":"complete"}}`)
	// Error codes map to HTTP statuses.
	r = rpc(h, 2, "tools/call", "nope", map[string]any{"name": "nope"}, nil)
	if r.status != 400 || r.json(t)["error"].(map[string]any)["code"] != float64(-32602) {
		t.Errorf("invalid params %d %s", r.status, r.body)
	}
	r = rpc(h, 3, "resources/read", "fake://nope", map[string]any{"uri": "fake://nope"}, nil)
	if r.status != 200 || r.json(t)["error"].(map[string]any)["code"] != float64(-32002) {
		t.Errorf("not found %d %s", r.status, r.body)
	}
	// Notifications and stray responses: 202, empty body.
	if r = rpc(h, nil, "notifications/cancelled", "", map[string]any{"requestId": 9}, nil); r.status != 202 || r.body != "" {
		t.Errorf("notification %d %q", r.status, r.body)
	}
	// initialize is refused before the header checks.
	r = do(h, http.MethodPost, "/mcp", nil, `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	jsonEq(t, "initialize", r.json(t), `{"jsonrpc":"2.0","id":4,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-06-18"}}}`)
	if r.status != 400 {
		t.Errorf("initialize status %d", r.status)
	}
	// The -32700 object is the one stdio answers (docs/spec/mcp-projection.md §2).
	r = do(h, http.MethodPost, "/mcp", nil, `{"jsonrpc":`)
	if r.status != 400 || r.body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` {
		t.Errorf("parse error %d %s", r.status, r.body)
	}
	// -32600 is not one of the 400 codes: HTTP 200
	// (docs/spec/orchestrator.md §8 step 6).
	r = do(h, http.MethodPost, "/mcp", nil, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if r.status != 200 || r.body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are not supported; send one JSON-RPC message at a time"}}` {
		t.Errorf("batch %d %q", r.status, r.body)
	}
	r = do(h, http.MethodPost, "/mcp", nil, `{"jsonrpc":"1.0","id":7,"method":"ping"}`)
	if r.status != 200 || r.body != `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}` {
		t.Errorf("bad jsonrpc %d %q", r.status, r.body)
	}
	// HTTP serves 2026-07-28 alone: a batch sent as 2025-03-26 (the
	// version with batches) is refused for its version.
	r = do(h, http.MethodPost, "/mcp", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if r.status != 400 || r.body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-03-26"}}}` {
		t.Errorf("2025-03-26 batch %d %q", r.status, r.body)
	}
	// A body that is not UTF-8 is not JSON text.
	r = do(h, http.MethodPost, "/mcp", nil, "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}")
	if r.status != 400 || r.body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` {
		t.Errorf("invalid UTF-8 %d %q", r.status, r.body)
	}
	// Other methods and paths.
	if r = do(h, http.MethodGet, "/mcp", nil, ""); r.status != 405 || r.header.Get("Allow") != "POST" {
		t.Errorf("GET /mcp %d %v", r.status, r.header)
	}
	if r = do(h, http.MethodDelete, "/mcp", nil, ""); r.status != 405 {
		t.Errorf("DELETE /mcp %d", r.status)
	}
	for _, p := range []string{"/other", DiscoveryPath, ResourceMetadataPath, ResourceMetadataPath + "/mcp"} {
		if r = do(h, http.MethodGet, p, nil, ""); r.status != 404 {
			t.Errorf("GET %s without discovery or auth: %d", p, r.status)
		}
	}
}

func TestHTTPRoutingHeaders(t *testing.T) {
	f := newFake()
	f.refused = make(chan string, 16)
	h := NewServer(f, Options{}).HTTPHandler(HTTPOptions{})
	body := js(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}, nil)})
	for _, tc := range []struct {
		header map[string]string
		want   string
	}{
		{map[string]string{}, `{"code":-32020,"message":"MCP-Protocol-Version header is required"}`},
		{map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-06-18"}}`},
		{map[string]string{"MCP-Protocol-Version": Version20260728}, `{"code":-32020,"message":"Mcp-Method header is required"}`},
		{map[string]string{"MCP-Protocol-Version": Version20260728, "Mcp-Method": "tools/list"}, `{"code":-32020,"message":"Mcp-Method header does not match request body","data":{"headerValue":"tools/list","bodyMethod":"tools/call"}}`},
		{map[string]string{"MCP-Protocol-Version": Version20260728, "Mcp-Method": "tools/call"}, `{"code":-32020,"message":"Mcp-Name header is required for this request"}`},
		{map[string]string{"MCP-Protocol-Version": Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": "other"}, `{"code":-32020,"message":"Mcp-Name header does not match request body","data":{"headerValue":"other","bodyName":"echo"}}`},
	} {
		r := do(h, http.MethodPost, "/mcp", tc.header, body)
		if r.status != 400 {
			t.Errorf("%v: status %d", tc.header, r.status)
		}
		jsonEq(t, js(tc.header), r.json(t)["error"], tc.want)
		// Every refused tools/call is told to the recorder
		// (docs/spec/orchestrator.md §12).
		var e struct {
			Code    int
			Message string
		}
		json.Unmarshal([]byte(tc.want), &e)
		// The client is named by the body's clientInfo even though the
		// headers were refused.
		if got, want := <-f.refused, fmt.Sprintf("tester/1 echo %d %s", e.Code, e.Message); got != want {
			t.Errorf("recorded %q, want %q", got, want)
		}
	}
	// The version header must agree with the body's _meta.
	r := do(h, http.MethodPost, "/mcp", map[string]string{"MCP-Protocol-Version": Version20260728, "Mcp-Method": "tools/list"},
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`)
	if r.status != 400 {
		t.Errorf("version mismatch status %d", r.status)
	}
	jsonEq(t, "version mismatch", r.json(t)["error"], `{"code":-32020,"message":"MCP-Protocol-Version header does not match request body","data":{"headerValue":"2026-07-28","bodyVersion":"2099-01-01"}}`)
	// Mcp-Name is not needed for other methods.
	if r := rpc(h, 2, "tools/list", "", nil, nil); r.status != 200 {
		t.Errorf("tools/list without Mcp-Name %d %s", r.status, r.body)
	}
}

// A 2026-07-28 client sends an Mcp-Name that is not plain printable
// ASCII (a prompt "résumé", a URI "test://café", an empty name) as
// "=?base64?<Base64 of its UTF-8>?="; the official TypeScript SDK does,
// and the server compares the decoded text with the body.
func TestHTTPMcpNameBase64(t *testing.T) {
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{})
	for _, tc := range []struct{ method, header, key, value string }{
		{"resources/read", "=?base64?ZmFrZTovL2l0ZW0vw6k=?=", "uri", "fake://item/é"},
		{"tools/call", "=?base64?ZWNobw==?=", "name", "echo"},
		{"tools/call", "echo", "name", "echo"},
	} {
		r := rpc(h, 1, tc.method, tc.header, map[string]any{tc.key: tc.value, "arguments": map[string]any{"text": "x"}}, nil)
		if e, _ := r.json(t)["error"].(map[string]any); e != nil && e["code"] == float64(-32020) {
			t.Errorf("%s %q: %s", tc.method, tc.header, r.body)
		}
	}
	for _, header := range []string{
		"=?base64?b3RoZXI=?=", // "other"
		"=?base64?ZWNobw?=",   // unpadded
		"=?base64?ZWNobw==",   // no suffix
		"=?base64?/w==?=",     // not UTF-8
		"ZWNobw==",
	} {
		r := rpc(h, 1, "tools/call", header, map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}, nil)
		if r.status != 400 {
			t.Errorf("%q: status %d", header, r.status)
		}
		jsonEq(t, header, r.json(t)["error"], `{"code":-32020,"message":"Mcp-Name header does not match request body","data":{"headerValue":`+js(header)+`,"bodyName":"echo"}}`)
	}
}

// An HTTP request is always in the 2026-07-28 profile: one without
// _meta is refused as stdio refuses bad metadata, -32602 naming the
// three fields and HTTP 400, never told to initialize, which HTTP
// refuses (docs/spec/orchestrator.md §8 step 5,
// docs/spec/mcp-projection.md §3.2). ping is no exception.
func TestHTTPRequestWithoutMeta(t *testing.T) {
	f := newFake()
	f.refused = make(chan string, 4)
	h := NewServer(f, Options{}).HTTPHandler(HTTPOptions{})
	const message = "request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientInfo, io.modelcontextprotocol/clientCapabilities"
	const malformed = `{"code":-32602,"message":"` + message + `"}`
	for _, tc := range []struct{ method, name, body string }{
		{"tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
		{"tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}`},
		{"ping", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"tools/call", "echo", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`},
		{"resources/read", "fake://a", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"fake://a"}}`},
	} {
		hdr := map[string]string{"MCP-Protocol-Version": Version20260728, "Mcp-Method": tc.method, "Mcp-Name": tc.name}
		r := do(h, http.MethodPost, "/mcp", hdr, tc.body)
		if r.status != 400 {
			t.Errorf("%s: status %d %s", tc.body, r.status, r.body)
		}
		jsonEq(t, tc.body, r.json(t)["error"], malformed)
	}
	if got, want := <-f.refused, "unknown echo -32602 "+message; got != want {
		t.Errorf("recorded %q, want %q", got, want)
	}
	// With its metadata, ping is answered in the 2026 profile.
	r := rpc(h, 2, "ping", "", nil, nil)
	if r.status != 200 {
		t.Errorf("ping: status %d", r.status)
	}
	jsonEq(t, "ping", r.json(t), `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}`)
}

func TestHTTPOriginAndAuth(t *testing.T) {
	auth := &fakeAuth{oauth: true}
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{Auth: auth, AllowedOrigins: []string{"https://app.example.com"}})
	call := func(extra map[string]string) reply {
		return rpc(h, 1, "tools/call", "whoami", map[string]any{"name": "whoami"}, extra)
	}
	// DNS rebinding: a foreign Origin is refused before authentication.
	if r := call(map[string]string{"Origin": "http://evil.example", "Authorization": "Bearer good"}); r.status != 403 || r.body != "" {
		t.Errorf("foreign origin %d %q", r.status, r.body)
	}
	if n := len(auth.endpoints()); n != 0 {
		t.Errorf("authenticator ran %d times for a refused origin", n)
	}
	if r := call(map[string]string{"Origin": "http://localhost:3000", "Authorization": "Bearer good"}); r.status != 200 {
		t.Errorf("loopback origin %d %s", r.status, r.body)
	}
	if r := call(map[string]string{"Origin": "https://app.example.com", "Authorization": "Bearer good"}); r.status != 200 {
		t.Errorf("allowed origin %d %s", r.status, r.body)
	}
	// The authenticator answers failures itself; the identity reaches
	// the provider.
	r := call(map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "mcp.example.com"})
	if r.status != 401 || r.header.Get("WWW-Authenticate") != `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"` || r.body != "auth failed" {
		t.Errorf("401 %d %v %q", r.status, r.header, r.body)
	}
	if r = call(map[string]string{"Authorization": "Bearer weak"}); r.status != 403 {
		t.Errorf("403 %d", r.status)
	}
	r = call(map[string]string{"Authorization": "Bearer good"})
	jsonEq(t, "principal", r.json(t)["result"], `{"content":[{"type":"text","text":"tester/1 alice"}],"isError":false,"resultType":"complete"}`)
	// Tasks belong to the principal too: another caller with the same
	// clientInfo does not see alice's task.
	created := rpc(h, 2, "tools/call", "ask", map[string]any{"name": "ask"}, map[string]string{"Authorization": "Bearer good"}).json(t)["result"].(map[string]any)
	id, _ := created["taskId"].(string)
	if id == "" {
		t.Fatalf("no task: %s", js(created))
	}
	if r := rpc(h, 3, "tasks/get", id, map[string]any{"taskId": id}, map[string]string{"Authorization": "Bearer good"}); r.status != 200 {
		t.Errorf("owner tasks/get %d %s", r.status, r.body)
	}
	// The same server behind an authenticator that says "bob".
	base := h.(*httpHandler)
	bob := base.srv.HTTPHandler(HTTPOptions{Auth: &otherPrincipal{fakeAuth: auth}})
	jsonEq(t, "other principal", rpc(bob, 4, "tasks/get", id, map[string]any{"taskId": id}, map[string]string{"Authorization": "Bearer good"}).json(t)["error"],
		`{"code":-32602,"message":"Failed to retrieve task: task not found"}`)

	// Authentication happens before the body is read.
	body := &countingReader{r: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}
	req := httptest.NewRequest(http.MethodPost, "/mcp", body)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 401 || body.n != 0 {
		t.Errorf("unauthenticated request: status %d, %d body bytes read", rec.Code, body.n)
	}
	// A body over the limit is 413.
	small := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{MaxBody: 64})
	if r := rpc(small, 1, "tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{"text": strings.Repeat("x", 100)}}, nil); r.status != 413 {
		t.Errorf("large body %d %s", r.status, r.body)
	}
}

// TestHTTPBodyLimitOverTheWire checks the body limit through net/http,
// for a declared length (within and over it) and an unknown one
// (chunked), which only the limit itself bounds.
func TestHTTPBodyLimitOverTheWire(t *testing.T) {
	srv := httptest.NewServer(NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{MaxBody: 256}))
	defer srv.Close()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta + `}}`
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta + `,"pad":"` + strings.Repeat("x", 300) + `"}}`
	for _, c := range []struct {
		name string
		body io.Reader // a bare io.Reader is sent chunked
		want int
	}{
		{"declared, within", strings.NewReader(ping), 200},
		{"declared, over", strings.NewReader(big), 413},
		{"unknown, within", struct{ io.Reader }{strings.NewReader(ping)}, 200},
		{"unknown, over", struct{ io.Reader }{strings.NewReader(big)}, 413},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", c.body)
		req.Header.Set("MCP-Protocol-Version", Version20260728)
		req.Header.Set("Mcp-Method", "ping")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d %s", c.name, resp.StatusCode, answer)
		}
	}
}

// otherPrincipal authenticates everyone as bob.
type otherPrincipal struct{ *fakeAuth }

func (o *otherPrincipal) Authenticate(w http.ResponseWriter, r *http.Request, endpoint string) (string, bool) {
	return "bob", true
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestHTTPDiscoveryAndMetadata(t *testing.T) {
	d := &Discovery{Name: "harn-orchestrator", Title: "Harn Orchestrator MCP", Version: "0.1.0"}
	for _, tc := range []struct {
		auth   Authenticator
		header map[string]string
		want   string
	}{
		{nil, map[string]string{"Host": "127.0.0.1:8765"},
			`{"name":"harn-orchestrator","title":"Harn Orchestrator MCP","version":"0.1.0","endpoint":"http://127.0.0.1:8765/mcp","transport":"streamable-http","protocolVersions":["2026-07-28"]}`},
		{&fakeAuth{}, map[string]string{"X-Forwarded-Proto": "HTTPS, http", "X-Forwarded-Host": "MCP.example.com, proxy.internal", "Host": "127.0.0.1"},
			`{"name":"harn-orchestrator","title":"Harn Orchestrator MCP","version":"0.1.0","endpoint":"https://mcp.example.com/mcp","transport":"streamable-http","protocolVersions":["2026-07-28"]}`},
		{&fakeAuth{oauth: true}, map[string]string{"X-Forwarded-Proto": "ftp", "Host": "mcp.example.com:8443"},
			`{"name":"harn-orchestrator","title":"Harn Orchestrator MCP","version":"0.1.0","endpoint":"http://mcp.example.com:8443/mcp","transport":"streamable-http","protocolVersions":["2026-07-28"],"authorization":{"resourceMetadata":"http://mcp.example.com:8443/.well-known/oauth-protected-resource/mcp"}}`},
	} {
		h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{Discovery: d, Auth: tc.auth})
		req := httptest.NewRequest(http.MethodGet, DiscoveryPath, nil)
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		req.Host = req.Header.Get("Host")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("discovery %d %v", rec.Code, rec.Header())
		}
		var got any
		json.Unmarshal(rec.Body.Bytes(), &got)
		jsonEq(t, "discovery", got, tc.want)
	}
	// Both metadata paths reach the authenticator with the public endpoint.
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{Path: "/rpc", Auth: &fakeAuth{oauth: true}})
	for _, p := range []string{ResourceMetadataPath, ResourceMetadataPath + "/rpc"} {
		r := do(h, http.MethodGet, p, map[string]string{"X-Forwarded-Host": "m.example"}, "")
		jsonEq(t, p, r.json(t), `{"resource":"http://m.example/rpc"}`)
	}
	if r := do(h, http.MethodGet, ResourceMetadataPath+"/mcp", nil, ""); r.status != 404 {
		t.Errorf("metadata for another path %d", r.status)
	}
	if r := do(h, http.MethodPost, ResourceMetadataPath, nil, ""); r.status != 405 {
		t.Errorf("POST metadata %d", r.status)
	}
	if r := do(h, http.MethodGet, ResourceMetadataPath, nil, ""); r.status != 200 {
		t.Errorf("metadata %d", r.status)
	}
	off := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{Auth: &fakeAuth{}})
	if r := do(off, http.MethodGet, ResourceMetadataPath+"/mcp", nil, ""); r.status != 404 {
		t.Errorf("metadata with OAuth off %d", r.status)
	}
	if got := ResourceMetadataURL("https://a.example/"); got != "https://a.example/.well-known/oauth-protected-resource" {
		t.Errorf("root path metadata URL %s", got)
	}
}

func TestHTTPSSE(t *testing.T) {
	srv := httptest.NewServer(NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{}))
	defer srv.Close()
	body := js(map[string]any{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": modern(map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": 7}}, nil)})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("MCP-Protocol-Version", Version20260728)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "progress")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("SSE %d %v", resp.StatusCode, resp.Header)
	}
	var events []map[string]string
	cur := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			events = append(events, cur)
			cur = map[string]string{}
			continue
		}
		k, v, _ := strings.Cut(line, ": ")
		cur[k] = v
	}
	if len(events) != 5 || events[0]["id"] != "0" || events[0]["data"] != "" {
		t.Fatalf("events %v", events)
	}
	for i, ev := range events[1:4] {
		var m map[string]any
		json.Unmarshal([]byte(ev["data"]), &m)
		if ev["event"] != "message" || m["method"] != "notifications/progress" || m["params"].(map[string]any)["progress"] != float64(i+1) {
			t.Errorf("progress event %d: %v", i, ev)
		}
	}
	var last map[string]any
	json.Unmarshal([]byte(events[4]["data"]), &last)
	if events[4]["event"] != "message" || last["id"] != float64(5) || last["result"] == nil {
		t.Errorf("message event %v", events[4])
	}
}

// A task's create answer comes back while the task still runs, in
// either execution mode (the request's own job runs on its goroutine;
// the task's work must not).
func TestHTTPTasksAcrossRequests(t *testing.T) {
	for _, parallel := range []bool{true, false} {
		t.Run(fmt.Sprint("parallel=", parallel), func(t *testing.T) { httpTasksAcrossRequests(t, parallel) })
	}
}

func httpTasksAcrossRequests(t *testing.T, parallel bool) {
	f := newFake()
	h := NewServer(f, Options{Parallel: parallel}).HTTPHandler(HTTPOptions{})
	created := rpc(h, 1, "tools/call", "block", map[string]any{"name": "block"}, nil).json(t)["result"].(map[string]any)
	id := created["taskId"].(string)
	<-f.started
	got := rpc(h, 2, "tasks/get", id, map[string]any{"taskId": id}, nil).json(t)["result"].(map[string]any)
	if got["status"] != "working" {
		t.Errorf("tasks/get %s", js(got))
	}
	close(f.release)
	for i := 0; i < 3000; i++ {
		got = rpc(h, 3, "tasks/get", id, map[string]any{"taskId": id}, nil).json(t)["result"].(map[string]any)
		if got["status"] != "working" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	jsonEq(t, "completed", got["result"], `{"content":[{"type":"text","text":"released"}],"isError":false,"resultType":"complete"}`)
}

func TestHTTPClientGoneCancels(t *testing.T) {
	f := newFake()
	h := NewServer(f, Options{Parallel: true}).HTTPHandler(HTTPOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	body := js(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": modern(map[string]any{"name": "block"}, nil)})
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body)).WithContext(ctx)
	req.Header.Set("MCP-Protocol-Version", Version20260728)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "block")
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}()
	<-f.started
	cancel()
	if name := <-f.stopped; name != "block" {
		t.Errorf("stopped %s", name)
	}
	<-done
}

func TestNewHTTPServerLimits(t *testing.T) {
	s := NewHTTPServer(http.NotFoundHandler(), HTTPServerOptions{})
	if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 || s.MaxHeaderBytes != 64<<10 {
		t.Errorf("limits %+v", s)
	}
}

func TestHTTPUpgradesToSSEForProgress(t *testing.T) {
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{})
	params := map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "p"}}
	// Accepting both: progress turns the answer into an SSE stream.
	r := rpc(h, 1, "tools/call", "progress", params, map[string]string{"Accept": "application/json, text/event-stream"})
	if r.header.Get("Content-Type") != "text/event-stream" || !strings.HasPrefix(r.body, "id: 0\ndata: \n\n") ||
		strings.Count(r.body, `"method":"notifications/progress"`) != 3 || !strings.HasSuffix(r.body, "\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}],\"isError\":false,\"resultType\":\"complete\"}}\n\n") {
		t.Errorf("upgrade: %v\n%s", r.header, r.body)
	}
	// Accepting JSON only: progress is dropped, the answer is JSON.
	r = rpc(h, 2, "tools/call", "progress", params, map[string]string{"Accept": "application/json"})
	if r.header.Get("Content-Type") != "application/json" || r.json(t)["result"] == nil {
		t.Errorf("JSON only: %v\n%s", r.header, r.body)
	}
	// Nothing to stream: plain JSON even when SSE is accepted.
	r = rpc(h, 3, "tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}, map[string]string{"Accept": "application/json, text/event-stream"})
	if r.header.Get("Content-Type") != "application/json" {
		t.Errorf("no progress: %v\n%s", r.header, r.body)
	}
}

// Over HTTP too, an id with a lone surrogate comes back as sent and the
// answer is routed to its request (issue 17 item 11).
func TestHTTPLoneSurrogateID(t *testing.T) {
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{})
	body := js(map[string]any{"jsonrpc": "2.0", "id": "X", "method": "tools/call", "params": modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, tasksCaps)})
	body = strings.Replace(body, `"id":"X"`, `"id":"\ud800"`, 1)
	r := do(h, http.MethodPost, "/mcp", map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": "echo"}, body)
	if r.status != 200 || !strings.HasPrefix(r.body, `{"jsonrpc":"2.0","id":"\ud800","result":`) {
		t.Errorf("got %d %s", r.status, r.body)
	}
}

// A request that fails before anything was streamed is HTTP 400 with a
// JSON body (docs/spec/orchestrator.md §8 step 6), even for a client
// that accepts only text/event-stream; a 200 answer is still streamed
// to it.
func TestHTTPErrorBeforeStreamIs400(t *testing.T) {
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{})
	sseOnly := map[string]string{"Accept": "text/event-stream"}
	for _, tc := range []struct {
		what, method, name string
		params             map[string]any
		code               float64
	}{
		{"unknown tool", "tools/call", "nope", map[string]any{"name": "nope"}, -32602},
		{"invalid arguments", "tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{}}, -32602},
		{"unknown task", "tasks/get", "t1", map[string]any{"taskId": "t1"}, -32602},
	} {
		r := rpc(h, 7, tc.method, tc.name, tc.params, sseOnly)
		if r.status != 400 || r.header.Get("Content-Type") != "application/json" || r.json(t)["error"].(map[string]any)["code"] != tc.code {
			t.Errorf("%s: %d %v %q", tc.what, r.status, r.header, r.body)
		}
	}
	// Missing 2026 _meta, and tasks/get without opting in to tasks.
	for _, tc := range []struct {
		what, method, name, body string
		code                     float64
	}{
		{"no _meta", "tools/call", "echo", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo"}}`, -32602},
		{"no tasks opt-in", "tasks/get", "t1", js(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tasks/get", "params": modern(map[string]any{"taskId": "t1"}, nil)}), -32021},
	} {
		r := do(h, http.MethodPost, "/mcp", map[string]string{"Accept": "text/event-stream", "MCP-Protocol-Version": Version20260728, "Mcp-Method": tc.method, "Mcp-Name": tc.name}, tc.body)
		if r.status != 400 || r.header.Get("Content-Type") != "application/json" || r.json(t)["error"].(map[string]any)["code"] != tc.code {
			t.Errorf("%s: %d %v %q", tc.what, r.status, r.header, r.body)
		}
	}
	// Accepting both, with a progress token: still 400 JSON when the
	// refusal comes before any progress.
	r := rpc(h, 10, "tools/call", "nope", map[string]any{"name": "nope", "_meta": map[string]any{"progressToken": "p"}}, nil)
	if r.status != 400 || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("both types: %d %v %q", r.status, r.header, r.body)
	}
	// An error of status 200 (-32002) and a result are streamed.
	r = rpc(h, 11, "resources/read", "fake://nope", map[string]any{"uri": "fake://nope"}, sseOnly)
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" || !strings.HasPrefix(r.body, "id: 0\ndata: \n\nid: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":11,\"error\":{\"code\":-32002,") {
		t.Errorf("not found over SSE: %d %v %q", r.status, r.header, r.body)
	}
	r = rpc(h, 12, "tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}, sseOnly)
	if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" || !strings.Contains(r.body, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":12,\"result\":") {
		t.Errorf("result over SSE: %d %v %q", r.status, r.header, r.body)
	}
}

// TestHTTPContentTypeNotChecked: the request's Content-Type is not
// judged (docs/spec/orchestrator.md §8 lists the checks of a POST, and
// it is not one of them; docs/mcp.md): a body that parses as JSON is
// answered whatever the header says, and one that does not is -32700.
func TestHTTPContentTypeNotChecked(t *testing.T) {
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{})
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", ""} {
		r := rpc(h, 1, "ping", "", map[string]any{}, map[string]string{"Content-Type": ct})
		if r.status != 200 {
			t.Fatalf("Content-Type %q: %d %s", ct, r.status, r.body)
		}
		jsonEq(t, "ping", r.json(t), `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`)
	}
	r := do(h, http.MethodPost, "/mcp", map[string]string{"Content-Type": "application/json", "MCP-Protocol-Version": Version20260728, "Mcp-Method": "ping"}, "ping")
	if r.status != 400 || r.json(t)["error"].(map[string]any)["code"] != float64(-32700) {
		t.Fatalf("not JSON: %d %s", r.status, r.body)
	}
}

// A message that is not JSON gets one -32700 object on both transports
// (docs/spec/mcp-projection.md §2; JSON-RPC 2.0 §5.1 names the message
// "Parse error"): an HTTP body is answered exactly as the same stdio line.
func TestParseErrorSameOnBothTransports(t *testing.T) {
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{})
	for _, in := range []string{
		`{not json`,
		`{"jsonrpc":`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\"}}",
	} {
		r := do(h, http.MethodPost, "/mcp", nil, in)
		if stdio := serveLines(in); r.status != 400 || r.body+"\n" != stdio {
			t.Errorf("%q: HTTP %d %s, stdio %s", in, r.status, r.body, stdio)
		}
	}
}
