package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMcpServeAuth walks docs/spec/acceptance.md "Auth (HTTP)" against
// `harn mcp serve` itself (the auth package's own tests cover every
// credential shape against the shared HTTP handler): API keys, OAuth
// with an introspection server of the test's own on loopback, the
// RFC 9728 documents, the start-up refusals and an unauthenticated stdio
// initialize.
func TestMcpServeAuth(t *testing.T) {
	const issuer = "https://auth.example.com"
	const public = "https://mcp.example.com/mcp" // what the proxy headers publish
	now := time.Now().Unix()
	doc := func(extra map[string]any) map[string]any {
		d := map[string]any{"active": true, "iss": issuer, "aud": public, "sub": "alice", "scope": "mcp:read mcp:write", "exp": now + 3600}
		for k, v := range extra {
			d[k] = v
		}
		return d
	}
	tokens := map[string]map[string]any{
		"good":      doc(nil),
		"inactive":  doc(map[string]any{"active": false}),
		"expired":   doc(map[string]any{"exp": now - 60}),
		"wrong-aud": doc(map[string]any{"aud": "https://other.example.com/mcp"}),
		"wrong-iss": doc(map[string]any{"iss": "https://evil.example.com"}),
		"no-scope":  doc(map[string]any{"scope": "mcp:read"}),
	}
	intro := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer rs-secret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		d, ok := tokens[r.PostFormValue("token")]
		if !ok {
			d = map[string]any{"active": false}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(d)
	}))
	defer intro.Close()
	oauth := []string{
		"HARN_MCP_OAUTH_AUTHORIZATION_SERVERS=" + issuer,
		"HARN_MCP_OAUTH_INTROSPECTION_URL=" + intro.URL,
		"HARN_MCP_OAUTH_INTROSPECTION_TOKEN=rs-secret",
		"HARN_MCP_OAUTH_ISSUER=" + issuer,
		"HARN_MCP_OAUTH_SCOPES=mcp:read mcp:write",
	}
	serve := func(env ...string) (base string, stop func()) {
		p := startHarn(t, append([]string{"HARN_ORCHESTRATOR_API_KEYS=", "HARN_MCP_OAUTH_AUTHORIZATION_SERVERS=", "HARN_MCP_OAUTH_RESOURCE=", "HARN_MCP_OAUTH_AUDIENCE="}, env...),
			"mcp", "serve", "--config", fixtureManifest, "--state-dir", t.TempDir(), "--transport", "http", "--bind", "127.0.0.1:0")
		endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP HTTP listener ready on (http://\S+)$`))[1]
		return strings.TrimSuffix(endpoint, "/mcp"), func() {
			p.stdin.Close()
			p.cmd.Process.Kill()
			p.wait()
		}
	}
	type answer struct {
		status    int
		challenge string
		body      string
	}
	do := func(method, url string, headers map[string]string) answer {
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"harn.trigger.list","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"auth","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
		}
		req, _ := http.NewRequest(method, url, body)
		req.Header.Set("X-Forwarded-Proto", "https")
		req.Header.Set("X-Forwarded-Host", "mcp.example.com")
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "harn.trigger.list")
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
		return answer{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)}
	}
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	listed := func(a answer) bool { return a.status == 200 && strings.Contains(a.body, `"trigger_id":"manual-ok"`) }

	// Items 200–202: API keys only, then nothing configured.
	base, stop := serve("HARN_ORCHESTRATOR_API_KEYS=k1,k2")
	if a := do("POST", base+"/mcp", bearer("k2")); !listed(a) {
		t.Errorf("Bearer k2: %+v", a)
	}
	if a := do("POST", base+"/mcp", map[string]string{"x-api-key": "k1"}); !listed(a) {
		t.Errorf("x-api-key k1: %+v", a)
	}
	for name, h := range map[string]map[string]string{"none": nil, "wrong bearer": bearer("k3"), "wrong x-api-key": {"x-api-key": "k3"}} {
		if a := do("POST", base+"/mcp", h); a.status != 401 || a.challenge != "" {
			t.Errorf("%s: %+v, want 401 without a challenge", name, a)
		}
	}
	// Item 210: no OAuth, no protected-resource metadata.
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		if a := do("GET", base+p, nil); a.status != 404 {
			t.Errorf("GET %s without OAuth: %+v", p, a)
		}
	}
	stop()
	base, stop = serve()
	if a := do("POST", base+"/mcp", nil); !listed(a) {
		t.Errorf("open server: %+v", a)
	}
	stop()

	// Items 205–209, 211 (no resource: the forwarded endpoint) and 212.
	base, stop = serve(append(oauth, "HARN_MCP_OAUTH_AUDIENCE="+public, "HARN_ORCHESTRATOR_API_KEYS=ops")...)
	metadata := "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	scope := `scope="mcp:read mcp:write"`
	invalid := func(desc string) string {
		return `Bearer error="invalid_token", resource_metadata="` + metadata + `", ` + scope + `, error_description="` + desc + `"`
	}
	cases := []struct {
		name    string
		headers map[string]string
		status  int
		want    string // WWW-Authenticate
	}{
		{"good token", bearer("good"), 200, ""},
		{"API key with OAuth", map[string]string{"x-api-key": "ops"}, 200, ""},
		{"API key as bearer with OAuth", bearer("ops"), 200, ""},
		{"no token", nil, 401, `Bearer resource_metadata="` + metadata + `", ` + scope},
		{"wrong API key", map[string]string{"x-api-key": "nope"}, 401, `Bearer resource_metadata="` + metadata + `", ` + scope},
		{"inactive", bearer("inactive"), 401, invalid("access token is inactive")},
		{"expired", bearer("expired"), 401, invalid("access token is expired")},
		{"wrong audience", bearer("wrong-aud"), 401, invalid("access token audience does not include this resource")},
		{"wrong issuer", bearer("wrong-iss"), 401, invalid("access token issuer is not accepted")},
		{"missing scope", bearer("no-scope"), 403, `Bearer error="insufficient_scope", resource_metadata="` + metadata + `", ` + scope + `, error_description="Token does not include the required MCP scope"`},
	}
	for _, c := range cases {
		a := do("POST", base+"/mcp", c.headers)
		if a.status != c.status || a.challenge != c.want || (c.status == 200 && !listed(a)) {
			t.Errorf("%s: %d %q %s\nwant %d %q", c.name, a.status, a.challenge, a.body, c.status, c.want)
		}
	}
	wantMeta := `{"resource":"` + public + `","authorization_servers":["` + issuer + `"],"bearer_methods_supported":["header"],"scopes_supported":["mcp:read","mcp:write"]}`
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		if a := do("GET", base+p, nil); a.status != 200 || !sameJSONText(a.body, wantMeta) {
			t.Errorf("GET %s: %+v\nwant %s", p, a, wantMeta)
		}
	}
	stop()
	// Item 211: HARN_MCP_OAUTH_RESOURCE, when set, is the resource.
	base, stop = serve(append(oauth, "HARN_MCP_OAUTH_RESOURCE=https://canonical.example.com/mcp")...)
	if a := do("GET", base+"/.well-known/oauth-protected-resource", nil); a.status != 200 || !strings.Contains(a.body, `"resource":"https://canonical.example.com/mcp"`) {
		t.Errorf("metadata with a resource: %+v", a)
	}
	stop()

	// Items 203 and 204: OAuth configurations that refuse to start.
	refusals := []struct {
		env  []string
		want string
	}{
		{[]string{"HARN_MCP_OAUTH_AUTHORIZATION_SERVERS=" + issuer, "HARN_MCP_OAUTH_AUDIENCE=" + public}, "requires HARN_MCP_OAUTH_INTROSPECTION_URL or HARN_MCP_OAUTH_JWKS_URL"},
		{[]string{"HARN_MCP_OAUTH_AUTHORIZATION_SERVERS=" + issuer, "HARN_MCP_OAUTH_INTROSPECTION_URL=" + intro.URL}, "refusing to derive OAuth audiences from request headers"},
	}
	for _, r := range refusals {
		cmd := exec.Command(os.Args[0], "mcp", "serve", "--config", fixtureManifest, "--state-dir", t.TempDir(), "--transport", "http", "--bind", "127.0.0.1:0")
		cmd.Env = append(append(os.Environ(), "HARN_TEST_MAIN=1", "HARN_MCP_OAUTH_RESOURCE=", "HARN_MCP_OAUTH_AUDIENCE=", "HARN_MCP_OAUTH_JWKS_URL=", "HARN_MCP_OAUTH_INTROSPECTION_URL="), r.env...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), r.want) {
			t.Errorf("%v: %v, stderr:\n%s\nwant exit 1 and %q", r.env, err, errb.String(), r.want)
		}
	}

	// Item 213: stdio is never authenticated, whatever HTTP would need.
	p := startHarn(t, append(oauth, "HARN_MCP_OAUTH_AUDIENCE="+public, "HARN_ORCHESTRATOR_API_KEYS=ops"), "mcp", "serve", "--config", fixtureManifest, "--state-dir", t.TempDir())
	init := p.rpc(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "stdio", "version": "1"}})
	if dig(init, "result", "serverInfo", "name") != "harn-orchestrator" {
		t.Errorf("stdio initialize: %v", init)
	}
	p.stdin.Close()
	if err := p.wait(); err != nil {
		t.Errorf("stdio exit: %v; stderr:\n%s", err, p.errText())
	}
}

// sameJSONText compares two JSON texts, ignoring key order.
func sameJSONText(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
