package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/mcp/protocol"
)

// signedCheck runs both steps of the check of a request carrying
// authorization and body: Authenticate, then AuthenticateBody.
func signedCheck(c *Config, authorization, body string) (identity string, status int) {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	w := httptest.NewRecorder()
	id, ok := c.Authenticate(w, r, testEndpoint)
	if ok && !c.AuthenticateBody(w, r, testEndpoint, id, []byte(body)) {
		ok = false
	}
	if !ok {
		return "", w.Code
	}
	return id, 200
}

func TestHMACSignedRequests(t *testing.T) {
	c := mustConfig(t, map[string]string{EnvHMACSecret: "s3cret"})
	if c.Mode() != "hmac" {
		t.Errorf("Mode() = %q", c.Mode())
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	now := time.Now()
	for _, tc := range []struct {
		name, auth, body string
		status           int
	}{
		{"signed", protocol.SignHMAC("s3cret", now, []byte(body)), body, 200},
		{"unsigned", "", body, 401},
		{"expired", protocol.SignHMAC("s3cret", now.Add(-10*time.Minute), []byte(body)), body, 401},
		{"tampered body", protocol.SignHMAC("s3cret", now, []byte(body)), strings.Replace(body, "1", "2", 1), 401},
		{"another secret", protocol.SignHMAC("other", now, []byte(body)), body, 401},
		{"secret as bearer", "Bearer s3cret", body, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, status := signedCheck(c, tc.auth, tc.body)
			if status != tc.status || status == 200 && id != "hmac" {
				t.Errorf("identity %q, status %d; want %d", id, status, tc.status)
			}
		})
	}
}

func TestHMACOrAPIKey(t *testing.T) {
	c := mustConfig(t, map[string]string{EnvHMACSecret: "s3cret", EnvAPIKeys: "k1"})
	if c.Mode() != "api-key+hmac" {
		t.Errorf("Mode() = %q", c.Mode())
	}
	if id, status := signedCheck(c, "Bearer k1", "{}"); status != 200 || id != "api-key#1" {
		t.Errorf("API key: %q %d", id, status)
	}
	if id, status := signedCheck(c, protocol.SignHMAC("s3cret", time.Now(), []byte("{}")), "{}"); status != 200 || id != "hmac" {
		t.Errorf("signature: %q %d", id, status)
	}
	if _, status := signedCheck(c, "Bearer k2", "{}"); status != 401 {
		t.Errorf("wrong key: %d", status)
	}
}

// A request that is not provisionally signed passes AuthenticateBody
// whatever its identity: a bearer token whose sub is "hmac" is not a
// signature to check.
func TestAuthenticateBodyChecksOnlySignedRequests(t *testing.T) {
	c := mustConfig(t, map[string]string{EnvHMACSecret: "s3cret"})
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Authorization", "Bearer token-of-hmac")
	if !c.AuthenticateBody(httptest.NewRecorder(), r, testEndpoint, "hmac", []byte("{}")) {
		t.Error("a bearer request with identity hmac is refused for its signature")
	}
}

func TestHMACSecretOfBlanksIsAnError(t *testing.T) {
	if c, err := FromEnv(env(map[string]string{EnvHMACSecret: "  "})); err == nil || err.Error() != `HARN_ORCHESTRATOR_HMAC_SECRET holds no secret ("  ")` {
		t.Errorf("FromEnv = %v, %v", c, err)
	}
}
