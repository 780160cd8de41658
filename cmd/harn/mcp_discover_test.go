package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
	if _, errs, code := runHarn("mcp", "frobnicate"); code != 2 || !strings.HasPrefix(errs, `error: unknown mcp command "frobnicate"`) {
		t.Errorf("mcp frobnicate: exit %d, %q", code, errs)
	}
	if _, _, code := runHarn("mcp"); code != 2 {
		t.Errorf("mcp without a command: exit %d", code)
	}
}
