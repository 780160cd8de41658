package auth

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
)

// whoami is a provider with one tool that answers the principal the
// transport established, so the tests see Authenticate's identity arrive.
type whoami struct{}

func (whoami) ServerInfo() *jsonv.Object {
	o := jsonv.NewObject(2)
	o.Set("name", "whoami")
	o.Set("version", "1")
	return o
}
func (whoami) Instructions() string { return "" }
func (whoami) Capabilities() *jsonv.Object {
	o := jsonv.NewObject(1)
	o.Set("tools", jsonv.NewObject(0))
	return o
}
func (whoami) Tools(*protocol.Request) ([]*jsonv.Object, *protocol.Error) { return nil, nil }
func (whoami) Tool(_ *protocol.Request, name string) (protocol.Tool, bool) {
	return whoamiTool{}, name == "whoami"
}
func (whoami) Resources(*protocol.Request) ([]any, *protocol.Error)         { return nil, nil }
func (whoami) ResourceTemplates(*protocol.Request) ([]any, *protocol.Error) { return nil, nil }
func (whoami) ReadResource(*protocol.Request, string) any {
	return protocol.Errorf(-32002, "no resources")
}
func (whoami) Prompts(*protocol.Request) ([]any, *protocol.Error) { return nil, nil }
func (whoami) GetPrompt(*protocol.Request) any                    { return protocol.Errorf(-32602, "no prompts") }
func (whoami) Complete(*protocol.Request, protocol.CompletionRef, string, string) ([]string, *protocol.Error) {
	return nil, nil
}

type whoamiTool struct{}

func (whoamiTool) TaskSupport() string          { return "forbidden" }
func (whoamiTool) Validate(any) *protocol.Error { return nil }
func (whoamiTool) Call(x *protocol.Call, _ any) any {
	text := jsonv.NewObject(2)
	text.Set("type", "text")
	text.Set("text", x.Principal())
	res := jsonv.NewObject(1)
	res.Set("content", []any{text})
	return res
}

// protocolServer serves whoami through the protocol package's HTTP
// handler with cfg as its authenticator, the way both MCP servers do.
func protocolServer(t *testing.T, cfg *Config) *httptest.Server {
	t.Helper()
	srv := protocol.NewServer(whoami{}, protocol.Options{Parallel: true})
	h := srv.HTTPHandler(protocol.HTTPOptions{
		Path:      "/mcp",
		Auth:      cfg,
		Discovery: &protocol.Discovery{Name: "harn-orchestrator", Title: "Harn Orchestrator MCP", Version: "test"},
	})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// exchange is one HTTP request through a proxy that publishes
// https://mcp.example.com (so challenges name the public URLs).
func exchange(t *testing.T, ts *httptest.Server, method, path string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	}
	req, err := http.NewRequest(method, ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("X-Forwarded-Host", "mcp.example.com")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "whoami")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// principalOf extracts the whoami tool's answer.
func principalOf(t *testing.T, body string) string {
	t.Helper()
	var m struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || len(m.Result.Content) != 1 {
		t.Fatalf("not a tools/call result: %s", body)
	}
	return m.Result.Content[0].Text
}

// Every endpoint of the HTTP transport, with OAuth (JWKS) and API keys
// configured: the POST path is protected (§9's decision order), the
// discovery and metadata documents are public.
func TestProtocolEndpointsOAuth(t *testing.T) {
	testKeys(t)
	jwks := newJWKSServer(t, publicJWK(t, &rsaKey.PublicKey, "rsa1", "RS256"))
	cfg := mustConfig(t, map[string]string{
		EnvAPIKeys:              "ops-key",
		EnvAuthorizationServers: testIssuer,
		EnvJWKSURL:              jwks.URL,
		EnvResource:             testResource,
		EnvIssuer:               testIssuer,
		EnvScopes:               "mcp:control",
	})
	ts := protocolServer(t, cfg)
	valid := validSpec()
	mod := func(f func(*tokenSpec)) string {
		s := validSpec()
		f(&s)
		return sign(t, s.build(t), "RS256", rsaKey, "rsa1")
	}
	posts := []struct {
		name      string
		headers   map[string]string
		status    int
		challenge string
		principal string
	}{
		{"valid JWT", bearer(sign(t, valid.build(t), "RS256", rsaKey, "rsa1")), 200, "", "user-1"},
		{"API key header", map[string]string{"X-Api-Key": "ops-key"}, 200, "", "api-key#1"},
		{"API key as bearer", bearer("ops-key"), 200, "", "api-key#1"},
		{"missing", nil, 401, missingChallenge, ""},
		{"malformed", bearer("garbage"), 401, invalidChallenge("access token is malformed"), ""},
		{"wrong signature", bearer(sign(t, valid.build(t), "RS256", rsaOther, "rsa1")), 401, invalidChallenge("access token signature is invalid"), ""},
		{"expired", bearer(mod(func(s *tokenSpec) { s.exp = time.Now().Add(-time.Minute) })), 401, invalidChallenge("access token is expired"), ""},
		{"not yet valid", bearer(mod(func(s *tokenSpec) { s.nbf = time.Now().Add(time.Hour) })), 401, invalidChallenge("access token is not yet valid"), ""},
		{"wrong audience", bearer(mod(func(s *tokenSpec) { s.aud = []string{"https://elsewhere.example.com/mcp"} })), 401, invalidChallenge("access token audience does not include this resource"), ""},
		{"wrong issuer", bearer(mod(func(s *tokenSpec) { s.iss = "https://evil.example.com" })), 401, invalidChallenge("access token issuer is not accepted"), ""},
		{"alg none", bearer(unsignedToken(t, valid.build(t))), 401, invalidChallenge(`access token algorithm \"none\" is not allowed`), ""},
		{"HS256 with the public key", bearer(sign(t, valid.build(t), "HS256", rsaPublicKeyPEM, "rsa1")), 401, invalidChallenge(`access token algorithm \"HS256\" is not allowed`), ""},
		{"missing scope", bearer(mod(func(s *tokenSpec) { s.scope = "openid" })), 403, scopeChallenge, ""},
	}
	for _, p := range posts {
		t.Run("POST /mcp "+p.name, func(t *testing.T) {
			status, hdr, body := exchange(t, ts, http.MethodPost, "/mcp", p.headers)
			if status != p.status || hdr.Get("WWW-Authenticate") != p.challenge {
				t.Fatalf("status %d, WWW-Authenticate %q\nwant %d, %q\nbody %s", status, hdr.Get("WWW-Authenticate"), p.status, p.challenge, body)
			}
			if p.status == 200 {
				if got := principalOf(t, body); got != p.principal {
					t.Errorf("principal %q, want %q", got, p.principal)
				}
			}
		})
	}
	wantMetadata := `{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"],"scopes_supported":["mcp:control"]}`
	gets := []struct {
		path   string
		status int
		body   string
	}{
		{"/.well-known/oauth-protected-resource", 200, wantMetadata},
		{"/.well-known/oauth-protected-resource/mcp", 200, wantMetadata},
		{"/.well-known/mcp.json", 200, `{"name":"harn-orchestrator","title":"Harn Orchestrator MCP","version":"test","endpoint":"https://mcp.example.com/mcp","transport":"streamable-http","protocolVersions":["2026-07-28"],"authorization":{"resourceMetadata":"` + testMetadata + `"}}`},
		{"/.well-known/oauth-protected-resource/other", 404, ""},
	}
	for _, g := range gets {
		t.Run("GET "+g.path, func(t *testing.T) {
			status, hdr, body := exchange(t, ts, http.MethodGet, g.path, nil)
			if status != g.status || (g.status == 200 && body != g.body) || hdr.Get("WWW-Authenticate") != "" {
				t.Errorf("status %d, WWW-Authenticate %q, body %s\nwant %d, none, %s", status, hdr.Get("WWW-Authenticate"), body, g.status, g.body)
			}
		})
	}
	if status, _, _ := exchange(t, ts, http.MethodGet, "/mcp", nil); status != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp: %d, want 405", status)
	}
}

// The same endpoints with opaque tokens checked by introspection.
func TestProtocolEndpointsIntrospection(t *testing.T) {
	intro := newIntrospectionServer(t, func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer rs-secret" }, introspectionTokens())
	ts := protocolServer(t, mustConfig(t, map[string]string{
		EnvAuthorizationServers: testIssuer,
		EnvIntrospectionURL:     intro.URL,
		EnvIntrospectionToken:   "rs-secret",
		EnvResource:             testResource,
		EnvIssuer:               testIssuer,
		EnvScopes:               "mcp:control",
	}))
	posts := []struct {
		token     string
		status    int
		challenge string
	}{
		{"good", 200, ""},
		{"", 401, missingChallenge},
		{"inactive", 401, invalidChallenge("access token is inactive")},
		{"unknown", 401, invalidChallenge("access token is inactive")},
		{"expired", 401, invalidChallenge("access token is expired")},
		{"future", 401, invalidChallenge("access token is not yet valid")},
		{"wrong-aud", 401, invalidChallenge("access token audience does not include this resource")},
		{"wrong-iss", 401, invalidChallenge("access token issuer is not accepted")},
		{"no-scope", 403, scopeChallenge},
	}
	for _, p := range posts {
		var headers map[string]string
		if p.token != "" {
			headers = bearer(p.token)
		}
		status, hdr, body := exchange(t, ts, http.MethodPost, "/mcp", headers)
		if status != p.status || hdr.Get("WWW-Authenticate") != p.challenge {
			t.Errorf("token %q: status %d, WWW-Authenticate %q\nwant %d, %q", p.token, status, hdr.Get("WWW-Authenticate"), p.status, p.challenge)
		} else if status == 200 && principalOf(t, body) != "alice" {
			t.Errorf("token %q: principal %s", p.token, body)
		}
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/mcp.json"} {
		if status, _, _ := exchange(t, ts, http.MethodGet, path, nil); status != 200 {
			t.Errorf("GET %s: %d, want 200 without credentials", path, status)
		}
	}
}

// With API keys only there is no OAuth metadata, and refusals carry no
// challenge; with nothing configured the endpoint is open.
func TestProtocolEndpointsAPIKeysAndOpen(t *testing.T) {
	ts := protocolServer(t, mustConfig(t, map[string]string{EnvAPIKeys: "k1,k2"}))
	if status, hdr, body := exchange(t, ts, http.MethodPost, "/mcp", nil); status != 401 || hdr.Get("WWW-Authenticate") != "" || body != "auth failed\n" {
		t.Errorf("no key: %d %q %q", status, hdr.Get("WWW-Authenticate"), body)
	}
	if status, _, body := exchange(t, ts, http.MethodPost, "/mcp", map[string]string{"X-Api-Key": "k2"}); status != 200 || principalOf(t, body) != "api-key#2" {
		t.Errorf("key 2: %d %s", status, body)
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		if status, _, _ := exchange(t, ts, http.MethodGet, p, nil); status != 404 {
			t.Errorf("GET %s without OAuth: %d, want 404", p, status)
		}
	}
	if status, _, body := exchange(t, ts, http.MethodGet, "/.well-known/mcp.json", nil); status != 200 || strings.Contains(body, "authorization") {
		t.Errorf("mcp.json without OAuth: %d %s", status, body)
	}

	open := protocolServer(t, mustConfig(t, nil))
	if status, _, body := exchange(t, open, http.MethodPost, "/mcp", nil); status != 200 || principalOf(t, body) != "anonymous" {
		t.Errorf("open server: %d %s", status, body)
	}
}
