package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/mcp/auth"
	"github.com/harnlang/harn/mcp/protocol"
)

// discoveryServer serves /.well-known/mcp.json, and the RFC 9728
// metadata from a real auth.Config, the way `harn mcp serve` does; the
// public endpoint is derived from Host.
func discoveryServer(t *testing.T, env map[string]string) *httptest.Server {
	t.Helper()
	cfg, err := auth.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cfg.Close() })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		endpoint := "http://" + r.Host + "/mcp"
		switch r.URL.Path {
		case "/.well-known/mcp.json":
			doc := `{"name":"harn-orchestrator","title":"Harn Orchestrator MCP","version":"1.2.3","endpoint":"` + endpoint + `","transport":"streamable-http","protocolVersions":["2026-07-28"]`
			if u := cfg.ResourceMetadataURL(endpoint); u != "" {
				doc += `,"authorization":{"resourceMetadata":"` + u + `"}`
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(doc + "}"))
		case protocol.ResourceMetadataPath, protocol.ResourceMetadataPath + "/mcp":
			cfg.ServeMetadata(w, r, endpoint)
		case "/broken/.well-known/mcp.json":
			w.Write([]byte("<html>not json</html>"))
		case "/list/.well-known/mcp.json":
			w.Write([]byte(`["not","an","object"]`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestMcpDiscoverJSON(t *testing.T) {
	srv := discoveryServer(t, nil)
	host := strings.TrimPrefix(srv.URL, "http://")
	want := `{"url":"` + srv.URL + `","mcp":{"name":"harn-orchestrator","title":"Harn Orchestrator MCP","version":"1.2.3","endpoint":"` + srv.URL + `/mcp","transport":"streamable-http","protocolVersions":["2026-07-28"]},"protectedResource":null}` + "\n"
	for _, arg := range []string{srv.URL, srv.URL + "/", srv.URL + "/.well-known/mcp.json", srv.URL + "/mcp", host} {
		out, errs, code := runHarn("mcp", "discover", "--json", arg)
		if code != 0 || errs != "" {
			t.Fatalf("discover %s: exit %d, stderr %s", arg, code, errs)
		}
		// "url" echoes the argument (with a scheme added when missing).
		wantArg := strings.Replace(want, `"url":"`+srv.URL+`"`, `"url":"`+withScheme(arg)+`"`, 1)
		if out != wantArg {
			t.Errorf("discover %s:\n got %s\nwant %s", arg, out, wantArg)
		}
	}
}

func withScheme(s string) string {
	if strings.Contains(s, "://") {
		return s
	}
	return "http://" + s
}

func TestMcpDiscoverOAuth(t *testing.T) {
	srv := discoveryServer(t, map[string]string{
		auth.EnvAuthorizationServers: "https://auth.example.com",
		auth.EnvJWKSURL:              "https://auth.example.com/jwks",
		auth.EnvAudience:             "api://harn",
		auth.EnvScopes:               "mcp:control",
	})
	out, errs, code := runHarn("mcp", "discover", srv.URL, "--json")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	wantPR := `"protectedResource":{"resource":"` + srv.URL + `/mcp","authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"],"scopes_supported":["mcp:control"]}}`
	if !strings.HasSuffix(strings.TrimSpace(out), wantPR) || !strings.Contains(out, `"authorization":{"resourceMetadata":"`+srv.URL+`/.well-known/oauth-protected-resource/mcp"}`) {
		t.Errorf("got %s\nwant it to end with %s", out, wantPR)
	}

	out, errs, code = runHarn("mcp", "discover", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	want := strings.Join([]string{
		"url: " + srv.URL,
		"discovery: " + srv.URL + "/.well-known/mcp.json",
		"mcp.name: harn-orchestrator",
		"mcp.title: Harn Orchestrator MCP",
		"mcp.version: 1.2.3",
		"mcp.endpoint: " + srv.URL + "/mcp",
		"mcp.transport: streamable-http",
		"mcp.protocolVersions: 2026-07-28",
		"mcp.authorization.resourceMetadata: " + srv.URL + "/.well-known/oauth-protected-resource/mcp",
		"protected_resource_metadata: " + srv.URL + "/.well-known/oauth-protected-resource/mcp",
		"protectedResource.resource: " + srv.URL + "/mcp",
		"protectedResource.authorization_servers: https://auth.example.com",
		"protectedResource.bearer_methods_supported: header",
		"protectedResource.scopes_supported: mcp:control",
	}, "\n") + "\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// A proxy that does not forward the public host, or a resource that is
// not the endpoint, is reported on stderr without failing.
func TestMcpDiscoverWarnings(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/mcp.json":
			w.Write([]byte(`{"endpoint":"http://10.0.0.5:8765/mcp","authorization":{"resourceMetadata":"/.well-known/oauth-protected-resource/mcp"}}`))
		case "/.well-known/oauth-protected-resource/mcp":
			w.Write([]byte(`{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	out, errs, code := runHarn("mcp", "discover", "--json", srv.URL)
	want := "warning: the published endpoint http://10.0.0.5:8765/mcp is not on " + srv.URL + ", the origin you asked; behind a proxy, forward X-Forwarded-Proto and X-Forwarded-Host\n" +
		`warning: the protected resource "https://mcp.example.com/mcp" is not the endpoint "http://10.0.0.5:8765/mcp"; clients will request tokens for "https://mcp.example.com/mcp"` + "\n"
	if code != 0 || errs != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, errs, want)
	}
	// The relative resourceMetadata was resolved against the discovery URL.
	if !strings.Contains(out, `"protectedResource":{"resource":"https://mcp.example.com/mcp"`) {
		t.Errorf("stdout %s", out)
	}
}

func TestMcpDiscoverText(t *testing.T) {
	srv := discoveryServer(t, nil)
	out, _, code := runHarn("mcp", "discover", srv.URL)
	if code != 0 || !strings.Contains(out, "mcp.endpoint: "+srv.URL+"/mcp\n") || !strings.HasSuffix(out, "protectedResource: none\n") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

func TestMcpDiscoverErrors(t *testing.T) {
	srv := discoveryServer(t, nil)
	// A server that never answers, to exercise --timeout.
	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(block); slow.Close() })
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	empty := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(empty.Close)

	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{srv.URL + "/broken"}, 1, "error: GET " + srv.URL + "/broken/.well-known/mcp.json: response is not JSON: "},
		{[]string{srv.URL + "/list"}, 1, "error: GET " + srv.URL + "/list/.well-known/mcp.json: response is a JSON array, not an object\n"},
		{[]string{srv.URL + "/nothing/.well-known/mcp.json"}, 1, "error: GET " + srv.URL + "/nothing/.well-known/mcp.json: HTTP 404 Not Found\n"},
		{[]string{empty.URL + "/sub"}, 1, "error: GET " + empty.URL + "/.well-known/mcp.json: HTTP 404 Not Found\n"},
		{[]string{closed.URL}, 1, "error: GET " + closed.URL + "/.well-known/mcp.json: "},
		{[]string{"--timeout", "200ms", slow.URL}, 1, "error: GET " + slow.URL + "/.well-known/mcp.json: timed out after 200ms\n"},
		{[]string{"ftp://example.com"}, 1, `error: "ftp://example.com" is not an http(s) URL` + "\n"},
		{nil, 2, "error: discover needs the server's URL\n"},
		{[]string{"a", "b"}, 2, "error: discover takes one URL\n"},
		{[]string{"--timeout", "soon", "x"}, 2, `error: --timeout: "soon" is not a positive duration such as 5s` + "\n"},
		{[]string{"--pretty", "x"}, 2, "error: unknown option --pretty\n"},
	}
	for _, tc := range tests {
		out, errs, code := runHarn(append([]string{"mcp", "discover"}, tc.args...)...)
		if code != tc.code || !strings.HasPrefix(errs, tc.want) || out != "" {
			t.Errorf("discover %q: exit %d, stdout %q, stderr %q\nwant exit %d, stderr starting %q", tc.args, code, out, errs, tc.code, tc.want)
		}
	}
}

func TestMcpCommandGroup(t *testing.T) {
	if out, _, code := runHarn("help", "mcp", "discover"); code != 0 || !strings.HasPrefix(out, "Usage: harn mcp discover URL") {
		t.Errorf("help mcp discover: exit %d, %q", code, out)
	}
	if out, _, code := runHarn("mcp", "discover", "--help"); code != 0 || !strings.Contains(out, "--json") {
		t.Errorf("mcp discover --help: exit %d, %q", code, out)
	}
	if _, errs, code := runHarn("mcp", "frobnicate"); code != 2 || !strings.HasPrefix(errs, `error: unknown mcp subcommand "frobnicate"`) {
		t.Errorf("mcp frobnicate: exit %d, %q", code, errs)
	}
	if _, _, code := runHarn("mcp"); code != 2 {
		t.Errorf("mcp without a command: exit %d", code)
	}
}

// startMcpServeHTTP runs `harn mcp serve --transport http` (this test
// binary re-executed as harn) on a fresh project with env added to the
// environment, and returns its base URL.
func startMcpServeHTTP(t *testing.T, env ...string) string {
	t.Helper()
	dir := t.TempDir()
	manifest := filepath.Join(dir, "harn.toml")
	os.WriteFile(manifest, []byte("[package]\nname = \"discover-test\"\n\n[[triggers]]\nid = \"noop\"\nkind = \"manual\"\nhandler = \"noop\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("fn noop(event) { return {ok: true} }\n"), 0o644)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "mcp", "serve", "--transport", "http", "--bind", "127.0.0.1:0",
		"--config", manifest, "--state-dir", filepath.Join(dir, "state"))
	cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1", "HARN_EVENT_LOG_URL=", "HARN_ORCHESTRATOR_API_KEYS=",
		"HARN_MCP_OAUTH_AUTHORIZATION_SERVERS=", "HARN_MCP_OAUTH_JWKS_URL=", "HARN_MCP_OAUTH_INTROSPECTION_URL=",
		"HARN_MCP_OAUTH_RESOURCE=", "HARN_MCP_OAUTH_AUDIENCE=", "HARN_MCP_OAUTH_ISSUER=", "HARN_MCP_OAUTH_SCOPES=")
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	found := make(chan string, 1)
	var said strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			said.WriteString(sc.Text() + "\n")
			if _, rest, ok := strings.Cut(sc.Text(), "[harn] MCP HTTP listener ready on "); ok {
				found <- strings.TrimSuffix(rest, "/mcp")
			}
		}
		close(found)
	}()
	select {
	case base, ok := <-found:
		if !ok {
			t.Fatalf("harn mcp serve exited before listening:\n%s", said.String())
		}
		return base
	case <-time.After(60 * time.Second):
		t.Fatal("harn mcp serve did not start listening")
	}
	return ""
}

// End to end: discover a real `harn mcp serve` in OAuth mode, and see
// the MCP endpoint refuse an unauthenticated POST with the challenge
// that points at the same metadata.
func TestMcpDiscoverServe(t *testing.T) {
	base := startMcpServeHTTP(t,
		"HARN_MCP_OAUTH_AUTHORIZATION_SERVERS=https://auth.example.com",
		"HARN_MCP_OAUTH_JWKS_URL=https://auth.example.com/jwks.json",
		"HARN_MCP_OAUTH_RESOURCE=https://mcp.example.com/mcp",
		"HARN_MCP_OAUTH_SCOPES=mcp:control",
	)
	out, errs, code := runHarn("mcp", "discover", "--json", base)
	if code != 0 {
		t.Fatalf("discover: exit %d, stderr %s", code, errs)
	}
	var doc struct {
		URL string `json:"url"`
		MCP struct {
			Name, Endpoint, Transport string
			Authorization             struct{ ResourceMetadata string }
		} `json:"mcp"`
		ProtectedResource struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			ScopesSupported      []string `json:"scopes_supported"`
		} `json:"protectedResource"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	metadata := base + "/.well-known/oauth-protected-resource/mcp"
	if doc.MCP.Name != "harn-orchestrator" || doc.MCP.Endpoint != base+"/mcp" || doc.MCP.Transport != "streamable-http" ||
		doc.MCP.Authorization.ResourceMetadata != metadata || doc.ProtectedResource.Resource != "https://mcp.example.com/mcp" ||
		strings.Join(doc.ProtectedResource.AuthorizationServers, ",") != "https://auth.example.com" ||
		strings.Join(doc.ProtectedResource.ScopesSupported, ",") != "mcp:control" {
		t.Errorf("discovered %s", out)
	}
	// The configured resource differs from the local endpoint: discover says so.
	if !strings.Contains(errs, `warning: the protected resource "https://mcp.example.com/mcp" is not the endpoint`) {
		t.Errorf("stderr %q", errs)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `Bearer resource_metadata="` + metadata + `", scope="mcp:control"`
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("unauthenticated POST: %d %q, want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
}
