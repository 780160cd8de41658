//go:build !harnlite

package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hmacHex is the hex HMAC-SHA256 of msg under secret, computed here
// rather than by the code under test.
func hmacHex(secret, msg string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

// signedHeader is the Authorization of body signed with secret at ts
// (docs/mcp.md, HMAC request signing).
func signedHeader(secret string, ts time.Time, body string) map[string]string {
	t := strconv.FormatInt(ts.Unix(), 10)
	return map[string]string{"Authorization": "HMAC-SHA256 timestamp=" + t + ",signature=" + hmacHex(secret, t+"."+body)}
}

const unauthorizedBody = `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"unauthorized"}}`

func TestServeMCPHMACSignedRequests(t *testing.T) {
	base := startServeHTTP(t, "--surface", "script", "--hmac-secret", "s3cret", writeServeScript(t, serveWidget))
	now := time.Now()
	tampered := strings.Replace(toolsListBody, `"id":1`, `"id":2`, 1)
	for _, tc := range []struct {
		name   string
		body   string
		header map[string]string
		status int
	}{
		{"signed", toolsListBody, signedHeader("s3cret", now, toolsListBody), 200},
		{"signed a minute ago", toolsListBody, signedHeader("s3cret", now.Add(-time.Minute), toolsListBody), 200},
		{"unsigned", toolsListBody, nil, 401},
		{"expired", toolsListBody, signedHeader("s3cret", now.Add(-6*time.Minute), toolsListBody), 401},
		{"from the future", toolsListBody, signedHeader("s3cret", now.Add(6*time.Minute), toolsListBody), 401},
		{"tampered body", tampered, signedHeader("s3cret", now, toolsListBody), 401},
		{"another secret", toolsListBody, signedHeader("other", now, toolsListBody), 401},
		{"secret as a bearer token", toolsListBody, map[string]string{"Authorization": "Bearer s3cret"}, 401},
		// Refused for its signature before the body is parsed: not a parse error.
		{"signed garbage, wrong signature", "not json", signedHeader("s3cret", now, toolsListBody), 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := postMCP(t, http.DefaultClient, base, tc.body, tc.header)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.status == 401 && strings.TrimSpace(body) != unauthorizedBody {
				t.Errorf("401 body %s, want %s", body, unauthorizedBody)
			}
			if tc.status == 200 && !strings.Contains(body, `"lookup_widget"`) {
				t.Errorf("tools/list: %s", body)
			}
		})
	}
}

func TestServeMCPHMACFromTheEnvironment(t *testing.T) {
	base, _ := startServeHTTPCmd(t, []string{"HARN_SERVE_HMAC_SECRET=env-secret"}, "--surface", "script", writeServeScript(t, serveWidget))
	if resp, body := postMCP(t, http.DefaultClient, base, toolsListBody, nil); resp.StatusCode != 401 {
		t.Errorf("unsigned: %d %s", resp.StatusCode, body)
	}
	if resp, body := postMCP(t, http.DefaultClient, base, toolsListBody, signedHeader("env-secret", time.Now(), toolsListBody)); resp.StatusCode != 200 {
		t.Errorf("signed: %d %s", resp.StatusCode, body)
	}
}

func TestServeMCPHMACOrAPIKey(t *testing.T) {
	base := startServeHTTP(t, "--surface", "script", "--hmac-secret", "s3cret", "--api-key", "k1", writeServeScript(t, serveWidget))
	for name, tc := range map[string]struct {
		header map[string]string
		status int
	}{
		"API key":         {map[string]string{"X-API-Key": "k1"}, 200},
		"bearer API key":  {map[string]string{"Authorization": "Bearer k1"}, 200},
		"signature":       {signedHeader("s3cret", time.Now(), toolsListBody), 200},
		"wrong key":       {map[string]string{"X-API-Key": "k2"}, 401},
		"wrong signature": {signedHeader("k1", time.Now(), toolsListBody), 401},
		"expired, no key": {signedHeader("s3cret", time.Now().Add(-time.Hour), toolsListBody), 401},
	} {
		t.Run(name, func(t *testing.T) {
			if resp, body := postMCP(t, http.DefaultClient, base, toolsListBody, tc.header); resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
		})
	}
}

// The Origin check comes first: a foreign page is 403 even when signed.
func TestServeMCPHMACAfterTheOriginCheck(t *testing.T) {
	base := startServeHTTP(t, "--surface", "script", "--hmac-secret", "s3cret", writeServeScript(t, serveWidget))
	h := signedHeader("s3cret", time.Now(), toolsListBody)
	h["Origin"] = "https://evil.example"
	if resp, body := postMCP(t, http.DefaultClient, base, toolsListBody, h); resp.StatusCode != 403 {
		t.Errorf("signed request from a foreign origin: %d %s", resp.StatusCode, body)
	}
}
