package protocol

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

var hmacNow = time.Unix(1_800_000_000, 0)

func signedRequest(authorization, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Authorization", authorization)
	return r
}

func TestHMACVerifyAcceptsTheSignatureOfTheBody(t *testing.T) {
	s := NewHMACSecret("s3cret", func() time.Time { return hmacNow })
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	auth := SignHMAC("s3cret", hmacNow.Add(-time.Minute), []byte(body))
	if !strings.HasPrefix(auth, "HMAC-SHA256 timestamp=1799999940,signature=") {
		t.Fatalf("SignHMAC = %q", auth)
	}
	if r := signedRequest(auth, body); !s.Fresh(r) || !s.Verify(r, []byte(body)) {
		t.Errorf("a fresh signature of the body is refused: %s", auth)
	}
}

func TestHMACVerifyRefusesAnotherBodyOrSecret(t *testing.T) {
	s := NewHMACSecret("s3cret", func() time.Time { return hmacNow })
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	tampered := []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if r := signedRequest(SignHMAC("s3cret", hmacNow, body), string(tampered)); s.Verify(r, tampered) {
		t.Error("a signature of another body is accepted")
	}
	if r := signedRequest(SignHMAC("other", hmacNow, body), string(body)); s.Verify(r, body) {
		t.Error("a signature under another secret is accepted")
	}
}

func TestHMACFreshRefusesATimestampOutsideTheWindow(t *testing.T) {
	s := NewHMACSecret("s3cret", func() time.Time { return hmacNow })
	body := []byte("{}")
	for _, d := range []time.Duration{-HMACReplayWindow - time.Second, HMACReplayWindow + time.Second} {
		r := signedRequest(SignHMAC("s3cret", hmacNow.Add(d), body), "{}")
		if s.Fresh(r) || s.Verify(r, body) {
			t.Errorf("timestamp %s from now is accepted", d)
		}
	}
	if r := signedRequest(SignHMAC("s3cret", hmacNow.Add(HMACReplayWindow), body), "{}"); !s.Verify(r, body) {
		t.Error("a timestamp at the edge of the window is refused")
	}
}

func TestHMACAuthorizationForms(t *testing.T) {
	s := NewHMACSecret("k", func() time.Time { return hmacNow })
	body := []byte("{}")
	ts := strconv.FormatInt(hmacNow.Unix(), 10)
	sig := strings.TrimPrefix(SignHMAC("k", hmacNow, body), "HMAC-SHA256 timestamp="+ts+",signature=")
	for _, ok := range []string{
		"hmac-sha256 timestamp=" + ts + ",signature=" + sig,
		"HMAC-SHA256 signature=" + strings.ToUpper(sig) + ", timestamp=" + ts,
		"HMAC-SHA256 timestamp=" + ts + ",signature=sha256=" + sig,
	} {
		if !s.Verify(signedRequest(ok, "{}"), body) {
			t.Errorf("refused: %s", ok)
		}
	}
	for _, bad := range []string{
		"Bearer " + sig,
		"HMAC-SHA256 timestamp=" + ts,
		"HMAC-SHA256 signature=" + sig,
		"HMAC-SHA256 timestamp=" + ts + ",signature=" + sig + ",timestamp=" + ts,
		"HMAC-SHA256 timestamp=" + ts + ",signature=" + sig + ",nonce=1",
		"HMAC-SHA256 timestamp=soon,signature=" + sig,
		"HMAC-SHA256",
	} {
		if s.Fresh(signedRequest(bad, "{}")) || s.Verify(signedRequest(bad, "{}"), body) {
			t.Errorf("accepted: %s", bad)
		}
	}
}

// bodyAuth accepts "Bearer ok" at once, and "Signed" provisionally, then
// only a body that says so.
type bodyAuth struct {
	fakeAuth
	bodies int
}

func (a *bodyAuth) Authenticate(w http.ResponseWriter, r *http.Request, _ string) (string, bool) {
	switch r.Header.Get("Authorization") {
	case "Bearer ok":
		return "key", true
	case "Signed":
		return "signed", true
	}
	w.WriteHeader(http.StatusUnauthorized)
	return "", false
}

func (a *bodyAuth) AuthenticateBody(w http.ResponseWriter, r *http.Request, _, identity string, body []byte) bool {
	a.bodies++
	if identity == "key" || strings.Contains(string(body), "ping") {
		return true
	}
	w.WriteHeader(http.StatusUnauthorized)
	return false
}

func TestHTTPBodyAuthenticatorDecidesBeforeTheBodyIsParsed(t *testing.T) {
	auth := &bodyAuth{}
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{Auth: auth, MaxBody: 4096})
	if r := rpc(h, 1, "ping", "", nil, map[string]string{"Authorization": "Signed"}); r.status != 200 || auth.bodies != 1 {
		t.Errorf("signed ping: %d %s, %d body checks", r.status, r.body, auth.bodies)
	}
	// Not JSON, but refused for its signature before it is parsed.
	if r := do(h, http.MethodPost, "/mcp", map[string]string{"Authorization": "Signed"}, "not json"); r.status != 401 {
		t.Errorf("unsigned body: %d %s, want 401 before the parse error", r.status, r.body)
	}
	// A body over the limit is 413 before its signature is checked.
	before := auth.bodies
	if r := do(h, http.MethodPost, "/mcp", map[string]string{"Authorization": "Signed"}, strings.Repeat("x", 5000)); r.status != 413 || auth.bodies != before {
		t.Errorf("large signed body: %d, %d body checks", r.status, auth.bodies-before)
	}
	// Without any credential the body is not read.
	if r := do(h, http.MethodPost, "/mcp", nil, "{}"); r.status != 401 {
		t.Errorf("no credential: %d", r.status)
	}
}

func TestPublicEndpointOfATLSRequestIsHTTPS(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Host = "127.0.0.1:8443"
	r.TLS = &tls.ConnectionState{}
	if got := PublicEndpoint(r, "/mcp"); got != "https://127.0.0.1:8443/mcp" {
		t.Errorf("PublicEndpoint over TLS = %s", got)
	}
	r.Header.Set("X-Forwarded-Proto", "http")
	if got := PublicEndpoint(r, "/mcp"); got != "http://127.0.0.1:8443/mcp" {
		t.Errorf("PublicEndpoint with X-Forwarded-Proto: http = %s", got)
	}
}

// An X-Forwarded-Host value that is not a host[:port] (a space, a path,
// a query, a bad port) is ignored for Host, so every URL built from the
// endpoint names one origin (the WWW-Authenticate resource_metadata and
// the metadata's resource used to disagree).
func TestPublicEndpointIgnoresAnInvalidForwardedHost(t *testing.T) {
	for forwarded, want := range map[string]string{
		"mcp.example.com":      "http://mcp.example.com/mcp",
		"MCP.example.com:8443": "http://mcp.example.com:8443/mcp",
		"[::1]:9000":           "http://[::1]:9000/mcp",
		"10.0.0.1:80, proxy":   "http://10.0.0.1:80/mcp",
		"a b":                  "http://127.0.0.1:8765/mcp",
		"evil.com/x?y":         "http://127.0.0.1:8765/mcp",
		"evil.com#frag":        "http://127.0.0.1:8765/mcp",
		"user@evil.com":        "http://127.0.0.1:8765/mcp",
		"evil.com:":            "http://127.0.0.1:8765/mcp",
		"evil.com:99999":       "http://127.0.0.1:8765/mcp",
		"evil.com:8x":          "http://127.0.0.1:8765/mcp",
		"[evil.com]":           "http://127.0.0.1:8765/mcp",
		"::1":                  "http://127.0.0.1:8765/mcp",
		"":                     "http://127.0.0.1:8765/mcp",
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Host = "127.0.0.1:8765"
		if forwarded != "" {
			r.Header.Set("X-Forwarded-Host", forwarded)
		}
		got := PublicEndpoint(r, "/mcp")
		if got != want {
			t.Errorf("X-Forwarded-Host %q: %s, want %s", forwarded, got, want)
		}
		if meta := ResourceMetadataURL(got); !strings.HasPrefix(meta, strings.TrimSuffix(want, "/mcp")+"/.well-known/") {
			t.Errorf("X-Forwarded-Host %q: metadata URL %s is not on the endpoint's origin", forwarded, meta)
		}
	}
}

// In OAuth mode, the WWW-Authenticate resource_metadata URL of a
// refusal and the metadata document's resource name the same origin
// whatever X-Forwarded-Host says.
func TestPublishedURLsShareTheOriginOfAnInvalidForwardedHost(t *testing.T) {
	h := NewServer(newFake(), Options{}).HTTPHandler(HTTPOptions{Auth: &fakeAuth{oauth: true}})
	for _, forwarded := range []string{"a b", "evil.com/x?y"} {
		hdr := map[string]string{"X-Forwarded-Host": forwarded} // Host: example.com
		meta := do(h, http.MethodGet, ResourceMetadataPath+"/mcp", hdr, "")
		refused := rpc(h, 1, "tools/list", "", nil, hdr)
		challenge := refused.header.Get("WWW-Authenticate")
		if strings.TrimSpace(meta.body) != `{"resource":"http://example.com/mcp"}` || challenge != `Bearer resource_metadata="http://example.com/.well-known/oauth-protected-resource/mcp"` {
			t.Errorf("X-Forwarded-Host %q: metadata %s, challenge %q", forwarded, meta.body, challenge)
		}
	}
}
