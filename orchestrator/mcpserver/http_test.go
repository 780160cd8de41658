package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWebhookRefusesForeignOrigins: a web page must not reach webhook
// deliveries on the listener through the browser (DNS rebinding, or a
// plain cross-site POST) any more than the MCP endpoint: a request
// whose Origin is not loopback gets 403 (docs/spec/orchestrator.md §8).
// Origins are compared without regard to case, as host names are.
func TestWebhookRefusesForeignOrigins(t *testing.T) {
	c := newClient(t)
	h := c.srv.HTTPHandler("/mcp", nil)
	cases := []struct {
		path, origin string
		want         int
	}{
		{"/hooks/hook", "", http.StatusAccepted},
		{"/hooks/hook", "http://localhost:3000", http.StatusAccepted},
		{"/hooks/hook", "http://LOCALHOST:3000", http.StatusAccepted},
		{"/hooks/hook", "http://evil.example.com", http.StatusForbidden},
		{"/hooks/hook", "null", http.StatusForbidden},
		{"/mcp", "http://Localhost", http.StatusAccepted}, // past the origin check (the body reads as a notification)
		{"/mcp", "http://evil.example.com", http.StatusForbidden},
	}
	for i, tc := range cases {
		req := httptest.NewRequest("POST", tc.path, strings.NewReader(`{"ref":"refs/heads/main"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Harn-Delivery-Id", "d"+string(rune('a'+i)))
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s Origin %q: %d %s, want %d", tc.path, tc.origin, rec.Code, rec.Body, tc.want)
		}
	}
}
