package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnlang/harn/mcp/protocol"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

const (
	testEndpoint = "https://mcp.example.com/mcp"
	testMetadata = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	testIssuer   = "https://auth.example.com"
	testResource = "https://mcp.example.com/mcp"
)

// keys are generated once: RSA generation is slow on shared CI cores.
var (
	keysOnce         sync.Once
	rsaKey, rsaOther *rsa.PrivateKey
	ecKey            *ecdsa.PrivateKey
	rsaPublicKeyPEM  []byte
	errKeyGeneration error
)

func testKeys(t testing.TB) {
	t.Helper()
	keysOnce.Do(func() {
		var err error
		if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			errKeyGeneration = err
			return
		}
		if rsaOther, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			errKeyGeneration = err
			return
		}
		if ecKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			errKeyGeneration = err
			return
		}
		der, err := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
		if err != nil {
			errKeyGeneration = err
			return
		}
		rsaPublicKeyPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	})
	if errKeyGeneration != nil {
		t.Fatal(errKeyGeneration)
	}
}

// jwksServer publishes a key set that a test may replace (rotation) and
// counts fetches.
type jwksServer struct {
	*httptest.Server
	mu      sync.Mutex
	body    []byte
	fetches atomic.Int32
}

func newJWKSServer(t testing.TB, keys ...jwk.Key) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.publish(t, keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		body := s.body
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) publish(t testing.TB, keys ...jwk.Key) {
	t.Helper()
	set := jwk.NewSet()
	for _, k := range keys {
		if err := set.AddKey(k); err != nil {
			t.Fatal(err)
		}
	}
	body, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.body = body
	s.mu.Unlock()
}

// publicJWK is the public half of priv as a JWK with kid (and alg when
// not empty).
func publicJWK(t testing.TB, pub any, kid, alg string) jwk.Key {
	t.Helper()
	k, err := jwk.Import(pub)
	if err != nil {
		t.Fatal(err)
	}
	k.Set(jwk.KeyIDKey, kid)
	if alg != "" {
		a, ok := jwa.LookupSignatureAlgorithm(alg)
		if !ok {
			t.Fatalf("unknown alg %s", alg)
		}
		k.Set(jwk.AlgorithmKey, a)
	}
	return k
}

// tokenSpec describes a JWT to sign; zero fields take the valid defaults.
type tokenSpec struct {
	iss      string
	aud      []string
	resource string
	sub      string
	scope    string
	scp      []string
	exp, nbf time.Time
	noExp    bool
	extra    map[string]any
}

func (ts tokenSpec) build(t testing.TB) jwt.Token {
	t.Helper()
	b := jwt.NewBuilder().Issuer(ts.iss).Subject(ts.sub).IssuedAt(time.Now().Add(-time.Minute))
	if ts.aud != nil {
		b = b.Audience(ts.aud)
	}
	if !ts.noExp {
		exp := ts.exp
		if exp.IsZero() {
			exp = time.Now().Add(time.Hour)
		}
		b = b.Expiration(exp)
	}
	if !ts.nbf.IsZero() {
		b = b.NotBefore(ts.nbf)
	}
	if ts.scope != "" {
		b = b.Claim("scope", ts.scope)
	}
	if ts.scp != nil {
		b = b.Claim("scp", ts.scp)
	}
	if ts.resource != "" {
		b = b.Claim("resource", ts.resource)
	}
	for k, v := range ts.extra {
		b = b.Claim(k, v)
	}
	tok, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func validSpec() tokenSpec {
	return tokenSpec{iss: testIssuer, aud: []string{testResource}, sub: "user-1", scope: "openid mcp:control"}
}

func sign(t testing.TB, tok jwt.Token, alg string, key any, kid string) string {
	t.Helper()
	a, ok := jwa.LookupSignatureAlgorithm(alg)
	if !ok {
		t.Fatalf("unknown alg %s", alg)
	}
	hdr := jws.NewHeaders()
	if kid != "" {
		hdr.Set(jws.KeyIDKey, kid)
	}
	out, err := jwt.Sign(tok, jwt.WithKey(a, key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// unsignedToken is `alg: none`, which no library will produce for us.
func unsignedToken(t testing.TB, tok jwt.Token) string {
	t.Helper()
	payload, err := json.Marshal(tok)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"none","kid":"rsa1"}`)) + "." + enc.EncodeToString(payload) + "."
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func mustConfig(t testing.TB, m map[string]string) *Config {
	t.Helper()
	c, err := FromEnv(env(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// result is what Authenticate did with one request.
type result struct {
	status    int
	challenge string
	identity  string
	ok        bool
	body      string
}

func authenticate(c *Config, headers map[string]string) result {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8765/mcp", strings.NewReader("{}"))
	for k, v := range headers {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	id, ok := c.Authenticate(w, r, testEndpoint)
	res := result{status: w.Code, challenge: w.Header().Get("WWW-Authenticate"), identity: id, ok: ok, body: w.Body.String()}
	if ok {
		res.status = 0
	}
	return res
}

func bearer(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

func invalidChallenge(desc string) string {
	return `Bearer error="invalid_token", resource_metadata="` + testMetadata + `", scope="mcp:control", error_description="` + desc + `"`
}

const (
	missingChallenge = `Bearer resource_metadata="` + testMetadata + `", scope="mcp:control"`
	scopeChallenge   = `Bearer error="insufficient_scope", resource_metadata="` + testMetadata + `", scope="mcp:control", error_description="Token does not include the required MCP scope"`
)

func TestJWTCredentials(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t,
		publicJWK(t, &rsaKey.PublicKey, "rsa1", "RS256"),
		publicJWK(t, &ecKey.PublicKey, "ec1", ""),
	)
	c := mustConfig(t, map[string]string{
		EnvAuthorizationServers: testIssuer,
		EnvJWKSURL:              srv.URL,
		EnvResource:             testResource,
		EnvIssuer:               testIssuer,
		EnvScopes:               "mcp:control",
	})
	valid := validSpec()
	mod := func(f func(*tokenSpec)) jwt.Token {
		s := validSpec()
		f(&s)
		return s.build(t)
	}
	hmacToken := sign(t, valid.build(t), "HS256", rsaPublicKeyPEM, "rsa1")

	tests := []struct {
		name    string
		headers map[string]string
		want    result
	}{
		{"valid RS256", bearer(sign(t, valid.build(t), "RS256", rsaKey, "rsa1")), result{ok: true, identity: "user-1"}},
		{"valid ES256, key without alg", bearer(sign(t, valid.build(t), "ES256", ecKey, "ec1")), result{ok: true, identity: "user-1"}},
		{"valid without kid", bearer(sign(t, valid.build(t), "ES256", ecKey, "")), result{ok: true, identity: "user-1"}},
		{"scheme is case-insensitive", map[string]string{"Authorization": "bEaReR " + sign(t, valid.build(t), "RS256", rsaKey, "rsa1")}, result{ok: true, identity: "user-1"}},
		{"scp array", bearer(sign(t, mod(func(s *tokenSpec) { s.scope = ""; s.scp = []string{"mcp:control"} }), "RS256", rsaKey, "rsa1")), result{ok: true, identity: "user-1"}},
		{"resource claim instead of aud", bearer(sign(t, mod(func(s *tokenSpec) { s.aud = nil; s.resource = testResource }), "RS256", rsaKey, "rsa1")), result{ok: true, identity: "user-1"}},
		{"client_id identity", bearer(sign(t, mod(func(s *tokenSpec) { s.sub = ""; s.extra = map[string]any{"client_id": "svc-7"} }), "RS256", rsaKey, "rsa1")), result{ok: true, identity: "svc-7"}},

		{"missing", nil, result{status: 401, challenge: missingChallenge}},
		{"empty bearer", map[string]string{"Authorization": "Bearer "}, result{status: 401, challenge: missingChallenge}},
		{"basic scheme", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, result{status: 401, challenge: missingChallenge}},
		{"api key header in OAuth-only mode", map[string]string{"X-Api-Key": "k1"}, result{status: 401, challenge: missingChallenge}},
		{"malformed", bearer("not-a-jwt"), result{status: 401, challenge: invalidChallenge("access token is malformed")}},
		{"malformed segments", bearer("a.b.c"), result{status: 401, challenge: invalidChallenge("access token is malformed")}},
		{"wrong signature", bearer(sign(t, valid.build(t), "RS256", rsaOther, "rsa1")), result{status: 401, challenge: invalidChallenge("access token signature is invalid")}},
		{"tampered payload", bearer(tamper(t, sign(t, valid.build(t), "RS256", rsaKey, "rsa1"))), result{status: 401, challenge: invalidChallenge("access token signature is invalid")}},
		{"unknown kid", bearer(sign(t, valid.build(t), "RS256", rsaOther, "nope")), result{status: 401, challenge: invalidChallenge("access token signing key is unknown")}},
		{"key alg mismatch", bearer(sign(t, valid.build(t), "RS384", rsaKey, "rsa1")), result{status: 401, challenge: invalidChallenge("access token signing key is unknown")}},
		{"alg none", bearer(unsignedToken(t, valid.build(t))), result{status: 401, challenge: invalidChallenge(`access token algorithm \"none\" is not allowed`)}},
		{"HS256 with the RSA public key", bearer(hmacToken), result{status: 401, challenge: invalidChallenge(`access token algorithm \"HS256\" is not allowed`)}},
		{"expired", bearer(sign(t, mod(func(s *tokenSpec) { s.exp = time.Now().Add(-time.Minute) }), "RS256", rsaKey, "rsa1")), result{status: 401, challenge: invalidChallenge("access token is expired")}},
		{"no exp", bearer(sign(t, mod(func(s *tokenSpec) { s.noExp = true }), "RS256", rsaKey, "rsa1")), result{status: 401, challenge: invalidChallenge("access token has no expiry")}},
		{"not yet valid", bearer(sign(t, mod(func(s *tokenSpec) { s.nbf = time.Now().Add(time.Hour) }), "RS256", rsaKey, "rsa1")), result{status: 401, challenge: invalidChallenge("access token is not yet valid")}},
		{"wrong audience", bearer(sign(t, mod(func(s *tokenSpec) { s.aud = []string{"https://other.example.com/mcp"} }), "RS256", rsaKey, "rsa1")), result{status: 401, challenge: invalidChallenge("access token audience does not include this resource")}},
		{"no audience", bearer(sign(t, mod(func(s *tokenSpec) { s.aud = nil }), "RS256", rsaKey, "rsa1")), result{status: 401, challenge: invalidChallenge("access token audience does not include this resource")}},
		{"wrong issuer", bearer(sign(t, mod(func(s *tokenSpec) { s.iss = "https://evil.example.com" }), "RS256", rsaKey, "rsa1")), result{status: 401, challenge: invalidChallenge("access token issuer is not accepted")}},
		{"missing scope", bearer(sign(t, mod(func(s *tokenSpec) { s.scope = "openid" }), "RS256", rsaKey, "rsa1")), result{status: 403, challenge: scopeChallenge}},
		{"scope prefix is not the scope", bearer(sign(t, mod(func(s *tokenSpec) { s.scope = "mcp:control:read" }), "RS256", rsaKey, "rsa1")), result{status: 403, challenge: scopeChallenge}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := authenticate(c, tc.headers)
			if got.ok != tc.want.ok || got.status != tc.want.status || got.challenge != tc.want.challenge || (tc.want.ok && got.identity != tc.want.identity) {
				t.Errorf("got ok=%v status=%d identity=%q\n  WWW-Authenticate: %s\nwant ok=%v status=%d identity=%q\n  WWW-Authenticate: %s",
					got.ok, got.status, got.identity, got.challenge, tc.want.ok, tc.want.status, tc.want.identity, tc.want.challenge)
			}
			if !got.ok && got.body != "auth failed\n" {
				t.Errorf("body = %q", got.body)
			}
		})
	}
	// The first use fetches (the cache's background fetch may race with
	// the synchronous one), the unknown kid forces one refresh; every
	// other request was served from the cache.
	if n := srv.fetches.Load(); n > 3 {
		t.Errorf("JWKS fetched %d times for %d requests, want at most 3", n, len(tests))
	}
}

// tamper flips the payload of a signed token without re-signing it.
func tamper(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	payload = []byte(strings.Replace(string(payload), "user-1", "admin", 1))
	parts[1] = base64.RawURLEncoding.EncodeToString(payload)
	return strings.Join(parts, ".")
}

func TestJWKSRotationAndOutage(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, publicJWK(t, &rsaKey.PublicKey, "old", "RS256"))
	c := mustConfig(t, map[string]string{
		EnvAuthorizationServers: testIssuer,
		EnvJWKSURL:              srv.URL,
		EnvAudience:             "aud-a, " + testResource,
	})
	spec := validSpec()
	if got := authenticate(c, bearer(sign(t, spec.build(t), "RS256", rsaKey, "old"))); !got.ok {
		t.Fatalf("token signed with the published key refused: %+v", got)
	}
	// The issuer rotates to a new key; a token naming it forces a refresh.
	srv.publish(t, publicJWK(t, &rsaOther.PublicKey, "new", "RS256"))
	if got := authenticate(c, bearer(sign(t, spec.build(t), "RS256", rsaOther, "new"))); !got.ok {
		t.Fatalf("token signed with the rotated key refused: %+v", got)
	}
	// Unknown kids force at most one refresh per gap, however many arrive.
	before := srv.fetches.Load()
	for i := range 5 {
		got := authenticate(c, bearer(sign(t, spec.build(t), "RS256", rsaOther, fmt.Sprintf("random-%d", i))))
		if got.status != 401 {
			t.Fatalf("unknown kid accepted: %+v", got)
		}
	}
	if n := srv.fetches.Load() - before; n > 1 {
		t.Errorf("5 unknown kids caused %d JWKS fetches, want at most 1", n)
	}
	// Concurrent requests share the cache safely (run with -race).
	tok := sign(t, spec.build(t), "RS256", rsaOther, "new")
	var wg sync.WaitGroup
	var refused atomic.Int32
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !authenticate(c, bearer(tok)).ok {
				refused.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := refused.Load(); n != 0 {
		t.Errorf("%d of 16 concurrent valid requests refused", n)
	}

	// Without scopes configured the challenge has no scope parameter.
	got := authenticate(c, nil)
	want := `Bearer resource_metadata="` + testMetadata + `"`
	if got.status != 401 || got.challenge != want {
		t.Errorf("missing token: status %d, WWW-Authenticate %q; want 401, %q", got.status, got.challenge, want)
	}

	// A JWKS that cannot be fetched is the server's problem: 503, no challenge.
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	c2 := mustConfig(t, map[string]string{
		EnvAuthorizationServers: testIssuer,
		EnvJWKSURL:              down.URL,
		EnvResource:             testResource,
	})
	got = authenticate(c2, bearer(sign(t, spec.build(t), "RS256", rsaKey, "old")))
	if got.status != http.StatusServiceUnavailable || got.challenge != "" {
		t.Errorf("JWKS down: status %d, WWW-Authenticate %q; want 503 and none", got.status, got.challenge)
	}
}

// A cached verification never outlives the token: once the clock passes
// exp the token is checked again and refused.
func TestVerifiedTokenCache(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, publicJWK(t, &rsaKey.PublicKey, "rsa1", "RS256"))
	c := mustConfig(t, map[string]string{
		EnvAuthorizationServers: testIssuer,
		EnvJWKSURL:              srv.URL,
		EnvResource:             testResource,
		EnvScopes:               "mcp:control",
	})
	var now atomic.Pointer[time.Time]
	start := time.Now()
	now.Store(&start)
	c.oauth.jwks.clock = func() time.Time { return *now.Load() }
	spec := validSpec()
	spec.exp = start.Add(30 * time.Second)
	tok := sign(t, spec.build(t), "RS256", rsaKey, "rsa1")
	for range 3 {
		if got := authenticate(c, bearer(tok)); !got.ok {
			t.Fatalf("valid token refused: %+v", got)
		}
	}
	if n := len(c.oauth.jwks.verified.m); n != 1 {
		t.Errorf("%d cached verifications, want 1", n)
	}
	// Scopes are checked on every request, cached or not.
	narrow := validSpec()
	narrow.scope = "openid"
	narrowTok := sign(t, narrow.build(t), "RS256", rsaKey, "rsa1")
	for range 2 {
		if got := authenticate(c, bearer(narrowTok)); got.status != 403 {
			t.Fatalf("token without the scope: %+v", got)
		}
	}
	later := start.Add(31 * time.Second)
	now.Store(&later)
	if got := authenticate(c, bearer(tok)); got.status != 401 || !strings.Contains(got.challenge, "access token is expired") {
		t.Errorf("expired token answered from the cache: %+v", got)
	}
}

// introspectionServer answers RFC 7662 requests from a table of tokens,
// after checking the caller's credentials the way the test configured.
type introspectionServer struct {
	*httptest.Server
	tokens map[string]map[string]any
	check  func(r *http.Request) bool
	calls  atomic.Int32
}

func newIntrospectionServer(t *testing.T, check func(r *http.Request) bool, tokens map[string]map[string]any) *introspectionServer {
	t.Helper()
	s := &introspectionServer{tokens: tokens, check: check}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if !s.check(r) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		doc, ok := s.tokens[r.PostFormValue("token")]
		if !ok {
			doc = map[string]any{"active": false}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(s.Close)
	return s
}

func introspectionTokens() map[string]map[string]any {
	now := time.Now().Unix()
	good := func(extra map[string]any) map[string]any {
		doc := map[string]any{"active": true, "iss": testIssuer, "aud": testResource, "sub": "alice", "scope": "mcp:control", "exp": now + 3600}
		for k, v := range extra {
			if v == nil {
				delete(doc, k)
			} else {
				doc[k] = v
			}
		}
		return doc
	}
	return map[string]map[string]any{
		"good":          good(nil),
		"aud-list":      good(map[string]any{"aud": []string{"x", testResource}}),
		"resource":      good(map[string]any{"aud": nil, "resource": testResource}),
		"scp":           good(map[string]any{"scope": nil, "scp": []string{"mcp:control"}}),
		"client":        good(map[string]any{"sub": nil, "client_id": "ci-bot"}),
		"inactive":      good(map[string]any{"active": false}),
		"active-string": good(map[string]any{"active": "true"}),
		"expired":       good(map[string]any{"exp": now - 60}),
		"future":        good(map[string]any{"nbf": now + 3600}),
		"wrong-aud":     good(map[string]any{"aud": "https://other.example.com/mcp"}),
		"wrong-iss":     good(map[string]any{"iss": "https://evil.example.com"}),
		"no-scope":      good(map[string]any{"scope": "openid profile"}),
	}
}

func TestIntrospectionCredentials(t *testing.T) {
	srv := newIntrospectionServer(t, func(r *http.Request) bool {
		// RFC 6749 §2.3.1: both parts are form-encoded inside Basic.
		id, secret, ok := r.BasicAuth()
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		return ok && id == "harn rs" && secret == "s3cr:et"
	}, introspectionTokens())
	c := mustConfig(t, map[string]string{
		EnvAuthorizationServers:      testIssuer,
		EnvIntrospectionURL:          srv.URL,
		EnvIntrospectionClientID:     "harn rs",
		EnvIntrospectionClientSecret: "s3cr:et",
		EnvJWKSURL:                   "http://127.0.0.1:1/unused-when-introspecting",
		EnvResource:                  testResource,
		EnvIssuer:                    testIssuer,
		EnvScopes:                    "mcp:control",
	})
	if c.Mode() != "oauth-introspection" {
		t.Errorf("Mode() = %q", c.Mode())
	}
	tests := []struct {
		token string
		want  result
	}{
		{"good", result{ok: true, identity: "alice"}},
		{"aud-list", result{ok: true, identity: "alice"}},
		{"resource", result{ok: true, identity: "alice"}},
		{"scp", result{ok: true, identity: "alice"}},
		{"client", result{ok: true, identity: "ci-bot"}},
		{"unknown", result{status: 401, challenge: invalidChallenge("access token is inactive")}},
		{"inactive", result{status: 401, challenge: invalidChallenge("access token is inactive")}},
		{"active-string", result{status: 401, challenge: invalidChallenge("access token is inactive")}},
		{"expired", result{status: 401, challenge: invalidChallenge("access token is expired")}},
		{"future", result{status: 401, challenge: invalidChallenge("access token is not yet valid")}},
		{"wrong-aud", result{status: 401, challenge: invalidChallenge("access token audience does not include this resource")}},
		{"wrong-iss", result{status: 401, challenge: invalidChallenge("access token issuer is not accepted")}},
		{"no-scope", result{status: 403, challenge: scopeChallenge}},
	}
	for _, tc := range tests {
		t.Run(tc.token, func(t *testing.T) {
			got := authenticate(c, bearer(tc.token))
			if got.ok != tc.want.ok || got.status != tc.want.status || got.challenge != tc.want.challenge || (tc.want.ok && got.identity != tc.want.identity) {
				t.Errorf("got ok=%v status=%d identity=%q\n  WWW-Authenticate: %s\nwant ok=%v status=%d identity=%q\n  WWW-Authenticate: %s",
					got.ok, got.status, got.identity, got.challenge, tc.want.ok, tc.want.status, tc.want.identity, tc.want.challenge)
			}
		})
	}
	if got := authenticate(c, nil); got.status != 401 || got.challenge != missingChallenge {
		t.Errorf("missing token: %+v", got)
	}
	if n := int(srv.calls.Load()); n != len(tests) {
		t.Errorf("introspection called %d times, want %d (once per presented token)", n, len(tests))
	}
}

func TestIntrospectionClientAuth(t *testing.T) {
	tokens := introspectionTokens()
	cases := []struct {
		name  string
		env   map[string]string
		check func(r *http.Request) bool
	}{
		{"bearer token takes precedence", map[string]string{
			EnvIntrospectionToken:        "rs-token",
			EnvIntrospectionClientID:     "id",
			EnvIntrospectionClientSecret: "secret",
		}, func(r *http.Request) bool {
			_, _, basic := r.BasicAuth()
			return r.Header.Get("Authorization") == "Bearer rs-token" && !basic && r.PostFormValue("client_id") == ""
		}},
		{"client id alone is a form field", map[string]string{
			EnvIntrospectionClientID: "public-client",
		}, func(r *http.Request) bool {
			return r.Header.Get("Authorization") == "" && r.PostFormValue("client_id") == "public-client" && r.PostFormValue("token_type_hint") == "access_token"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newIntrospectionServer(t, tc.check, tokens)
			e := map[string]string{EnvAuthorizationServers: testIssuer, EnvIntrospectionURL: srv.URL, EnvAudience: testResource}
			for k, v := range tc.env {
				e[k] = v
			}
			c := mustConfig(t, e)
			if got := authenticate(c, bearer("good")); !got.ok || got.identity != "alice" {
				t.Errorf("got %+v", got)
			}
		})
	}
	// The endpoint refusing our credentials (or failing) is a 503, not a
	// verdict on the client's token.
	srv := newIntrospectionServer(t, func(*http.Request) bool { return false }, tokens)
	c := mustConfig(t, map[string]string{EnvAuthorizationServers: testIssuer, EnvIntrospectionURL: srv.URL, EnvResource: testResource})
	if got := authenticate(c, bearer("good")); got.status != http.StatusServiceUnavailable || got.challenge != "" {
		t.Errorf("introspection refused: %+v", got)
	}
}

func TestAPIKeys(t *testing.T) {
	c := mustConfig(t, map[string]string{EnvAPIKeys: " k-one ,, k-two,"})
	if c.Mode() != "api-key" {
		t.Errorf("Mode() = %q", c.Mode())
	}
	tests := []struct {
		name    string
		headers map[string]string
		want    result
	}{
		{"x-api-key", map[string]string{"X-Api-Key": "k-one"}, result{ok: true, identity: "api-key#1"}},
		{"bearer", bearer("k-two"), result{ok: true, identity: "api-key#2"}},
		{"lower-case scheme", map[string]string{"Authorization": "bearer k-two"}, result{ok: true, identity: "api-key#2"}},
		{"wrong x-api-key, right bearer", map[string]string{"X-Api-Key": "nope", "Authorization": "Bearer k-one"}, result{ok: true, identity: "api-key#1"}},
		{"missing", nil, result{status: 401}},
		{"wrong key", map[string]string{"X-Api-Key": "k-three"}, result{status: 401}},
		{"prefix of a key", map[string]string{"X-Api-Key": "k-on"}, result{status: 401}},
		{"blank segment is not a key", map[string]string{"X-Api-Key": " "}, result{status: 401}},
		{"basic scheme", map[string]string{"Authorization": "Basic k-one"}, result{status: 401}},
		{"key without scheme", map[string]string{"Authorization": "k-one"}, result{status: 401}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := authenticate(c, tc.headers)
			if got.ok != tc.want.ok || got.status != tc.want.status || got.identity != tc.want.identity && tc.want.ok {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if !got.ok && (got.challenge != "" || got.body != "auth failed\n") {
				t.Errorf("API-key refusal: WWW-Authenticate %q, body %q; want none and \"auth failed\"", got.challenge, got.body)
			}
		})
	}
}

func TestAPIKeysWithOAuth(t *testing.T) {
	srv := newIntrospectionServer(t, func(*http.Request) bool { return true }, introspectionTokens())
	c := mustConfig(t, map[string]string{
		EnvAPIKeys:              "ops-key",
		EnvAuthorizationServers: testIssuer,
		EnvIntrospectionURL:     srv.URL,
		EnvResource:             testResource,
		EnvScopes:               "mcp:control",
	})
	if c.Mode() != "oauth-introspection+api-key" {
		t.Errorf("Mode() = %q", c.Mode())
	}
	if got := authenticate(c, map[string]string{"X-Api-Key": "ops-key"}); !got.ok || got.identity != "api-key#1" {
		t.Errorf("API key in OAuth mode: %+v", got)
	}
	if got := authenticate(c, bearer("ops-key")); !got.ok || got.identity != "api-key#1" {
		t.Errorf("API key as bearer in OAuth mode: %+v", got)
	}
	if n := srv.calls.Load(); n != 0 {
		t.Errorf("API keys were sent to introspection %d times", n)
	}
	if got := authenticate(c, bearer("good")); !got.ok || got.identity != "alice" {
		t.Errorf("OAuth token: %+v", got)
	}
	// A wrong API key falls through to OAuth, which finds no bearer token.
	if got := authenticate(c, map[string]string{"X-Api-Key": "wrong"}); got.status != 401 || got.challenge != missingChallenge {
		t.Errorf("wrong API key: %+v", got)
	}
	if got := authenticate(c, bearer("wrong")); got.status != 401 || got.challenge != invalidChallenge("access token is inactive") {
		t.Errorf("wrong bearer: %+v", got)
	}
}

func TestNoAuth(t *testing.T) {
	c := mustConfig(t, map[string]string{})
	if c.Mode() != "none" {
		t.Errorf("Mode() = %q", c.Mode())
	}
	if got := authenticate(c, nil); !got.ok || got.identity != "anonymous" {
		t.Errorf("got %+v", got)
	}
	if got := authenticate(c, bearer("anything")); !got.ok {
		t.Errorf("got %+v", got)
	}
	if u := c.ResourceMetadataURL(testEndpoint); u != "" {
		t.Errorf("ResourceMetadataURL = %q, want empty", u)
	}
	w := httptest.NewRecorder()
	c.ServeMetadata(w, httptest.NewRequest(http.MethodGet, protocol.ResourceMetadataPath, nil), testEndpoint)
	if w.Code != http.StatusNotFound {
		t.Errorf("metadata without OAuth: %d, want 404", w.Code)
	}
}

func TestFromEnvErrors(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{EnvAuthorizationServers: testIssuer, EnvResource: testResource},
			"HARN_MCP_OAUTH_AUTHORIZATION_SERVERS requires HARN_MCP_OAUTH_INTROSPECTION_URL or HARN_MCP_OAUTH_JWKS_URL"},
		{map[string]string{EnvAuthorizationServers: testIssuer, EnvJWKSURL: "https://auth.example.com/jwks"},
			"HARN_MCP_OAUTH_AUTHORIZATION_SERVERS requires HARN_MCP_OAUTH_RESOURCE or HARN_MCP_OAUTH_AUDIENCE; refusing to derive OAuth audiences from request headers"},
		{map[string]string{EnvAuthorizationServers: " , ", EnvJWKSURL: "https://auth.example.com/jwks"},
			"HARN_MCP_OAUTH_JWKS_URL is set but HARN_MCP_OAUTH_AUTHORIZATION_SERVERS is empty; OAuth resource-server mode needs the authorization servers"},
		{map[string]string{EnvAuthorizationServers: "auth.example.com", EnvJWKSURL: "https://auth.example.com/jwks", EnvResource: testResource},
			`HARN_MCP_OAUTH_AUTHORIZATION_SERVERS: "auth.example.com" is not an absolute http(s) URL`},
		{map[string]string{EnvAuthorizationServers: testIssuer, EnvJWKSURL: "file:///etc/jwks", EnvResource: testResource},
			`HARN_MCP_OAUTH_JWKS_URL: "file:///etc/jwks" is not an absolute http(s) URL`},
		{map[string]string{EnvAuthorizationServers: testIssuer, EnvIntrospectionURL: "https://auth.example.com/i", EnvIntrospectionClientSecret: "s", EnvResource: testResource},
			"HARN_MCP_OAUTH_INTROSPECTION_CLIENT_SECRET requires HARN_MCP_OAUTH_INTROSPECTION_CLIENT_ID"},
		{map[string]string{EnvAPIKeys: " , "},
			`HARN_ORCHESTRATOR_API_KEYS holds no API key (" , "); give one or more keys separated by commas`},
		{map[string]string{EnvAuthorizationServers: " ,"},
			`HARN_MCP_OAUTH_AUTHORIZATION_SERVERS names no authorization server (" ,"); list their URLs separated by commas, or leave it empty for no OAuth`},
	}
	for _, tc := range tests {
		c, err := FromEnv(env(tc.env))
		if err == nil || err.Error() != tc.want {
			t.Errorf("FromEnv(%v) = %v, %v\nwant error %q", tc.env, c, err, tc.want)
		}
	}
}

func TestMetadata(t *testing.T) {
	base := map[string]string{
		EnvAuthorizationServers: "https://auth.example.com, https://backup.example.com",
		EnvJWKSURL:              "https://auth.example.com/jwks",
		EnvAudience:             "api://harn",
	}
	with := func(extra map[string]string) *Config {
		e := map[string]string{}
		for k, v := range base {
			e[k] = v
		}
		for k, v := range extra {
			e[k] = v
		}
		return mustConfig(t, e)
	}
	tests := []struct {
		name     string
		c        *Config
		endpoint string
		method   string
		status   int
		body     string
		url      string
	}{
		{"resource from the endpoint", with(nil), testEndpoint, http.MethodGet, 200,
			`{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com","https://backup.example.com"],"bearer_methods_supported":["header"]}`,
			testMetadata},
		{"configured resource and scopes", with(map[string]string{EnvResource: "https://public.example.com/mcp", EnvScopes: "mcp:control, mcp:read"}), "http://10.0.0.5:8765/mcp", http.MethodGet, 200,
			`{"resource":"https://public.example.com/mcp","authorization_servers":["https://auth.example.com","https://backup.example.com"],"bearer_methods_supported":["header"],"scopes_supported":["mcp:control","mcp:read"]}`,
			"http://10.0.0.5:8765/.well-known/oauth-protected-resource/mcp"},
		{"root path", with(nil), "https://mcp.example.com/", http.MethodGet, 200,
			`{"resource":"https://mcp.example.com/","authorization_servers":["https://auth.example.com","https://backup.example.com"],"bearer_methods_supported":["header"]}`,
			"https://mcp.example.com/.well-known/oauth-protected-resource"},
		{"nested path", with(nil), "https://mcp.example.com/api/mcp", http.MethodHead, 200, "",
			"https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp"},
		{"POST", with(nil), testEndpoint, http.MethodPost, 405, "", testMetadata},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			tc.c.ServeMetadata(w, httptest.NewRequest(tc.method, protocol.ResourceMetadataPath, nil), tc.endpoint)
			if w.Code != tc.status || w.Body.String() != tc.body {
				t.Errorf("status %d body %s\nwant %d %s", w.Code, w.Body.String(), tc.status, tc.body)
			}
			if tc.status == 200 && w.Header().Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type = %q", w.Header().Get("Content-Type"))
			}
			if u := tc.c.ResourceMetadataURL(tc.endpoint); u != tc.url {
				t.Errorf("ResourceMetadataURL = %q, want %q", u, tc.url)
			}
		})
	}
}

func TestChallengeQuoting(t *testing.T) {
	if got := authParam("error_description", `bad "x" \ y`); got != `error_description="bad \"x\" \\ y"` {
		t.Errorf("authParam = %s", got)
	}
}
