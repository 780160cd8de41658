package auth

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/harnlang/harn/mcp/protocol"
)

// BenchmarkAuthenticate is the per-request cost of each mode, without
// HTTP (the JWKS server is on loopback, fetched once), with the
// verified-token cache and without it.
func BenchmarkAuthenticate(b *testing.B) {
	testKeys(b)
	srv := newJWKSServer(b, publicJWK(b, &rsaKey.PublicKey, "rsa1", "RS256"), publicJWK(b, &ecKey.PublicKey, "ec1", ""))
	c := mustConfig(b, map[string]string{
		EnvAPIKeys:              "a,b,c,bench-key",
		EnvAuthorizationServers: testIssuer,
		EnvJWKSURL:              srv.URL,
		EnvResource:             testResource,
		EnvIssuer:               testIssuer,
		EnvScopes:               "mcp:control",
	})
	spec := validSpec()
	rsTok := sign(b, spec.build(b), "RS256", rsaKey, "rsa1")
	esTok := sign(b, spec.build(b), "ES256", ecKey, "ec1")
	for _, bc := range []struct {
		name    string
		headers map[string]string
		cold    bool // forget verified tokens before each request
	}{
		{"api-key", map[string]string{"X-Api-Key": "bench-key"}, false},
		{"jwt-rs256", bearer(rsTok), false},
		{"jwt-es256", bearer(esTok), false},
		{"jwt-rs256-uncached", bearer(rsTok), true},
		{"jwt-es256-uncached", bearer(esTok), true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if got := authenticate(c, bc.headers); !got.ok {
				b.Fatalf("refused: %+v", got)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if bc.cold {
					tc := &c.oauth.jwks.verified
					tc.mu.Lock()
					clear(tc.m)
					tc.mu.Unlock()
				}
				authenticate(c, bc.headers)
			}
		})
	}
}

// BenchmarkTransport is a whole session-free tools/call through the
// protocol's HTTP handler, without the network, under no credentials
// and under an API key: what the key check adds to a request's CPU
// (a SHA-256 of the presented key and one comparison per configured
// key, about a microsecond), next to everything else a request costs.
func BenchmarkTransport(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`)
	for _, bc := range []struct {
		name   string
		env    map[string]string
		header map[string]string
	}{
		{"none", map[string]string{}, nil},
		{"api-key", map[string]string{EnvAPIKeys: "a,b,c,bench-key"}, map[string]string{"X-Api-Key": "bench-key"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := mustConfig(b, bc.env)
			h := protocol.NewServer(whoami{}, protocol.Options{Parallel: true}).HTTPHandler(protocol.HTTPOptions{Path: "/mcp", Auth: cfg})
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
				"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "whoami"} {
				req.Header.Set(k, v)
			}
			for k, v := range bc.header {
				req.Header.Set(k, v)
			}
			rd := bytes.NewReader(body)
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
