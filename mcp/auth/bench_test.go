package auth

import (
	"testing"
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
