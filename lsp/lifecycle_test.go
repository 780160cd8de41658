package lsp

import "testing"

// TestSessionLifecycle: the order LSP 3.16 gives a session is kept
// (docs/lsp.md): a request before initialize is answered -32002
// ServerNotInitialized, a second initialize and any request after
// shutdown -32600 Invalid Request saying why; exit still ends the session.
func TestSessionLifecycle(t *testing.T) {
	hover := `{"textDocument":{"uri":"file:///x.harn"},"position":{"line":0,"character":0}}`
	out, stderr, status := session(t, request(7, "textDocument/hover", hover), initialize,
		request(3, "initialize", `{"processId":null,"rootUri":null,"capabilities":{}}`),
		request(4, "shutdown", "null"), request(5, "textDocument/hover", hover),
		`{"jsonrpc":"2.0","method":"exit"}`)
	want := map[float64]float64{7: -32002, 3: -32600, 5: -32600}
	for _, m := range out {
		id, _ := m["id"].(float64)
		code, ok := want[id]
		if !ok {
			continue
		}
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != code || e["message"] == "" {
			t.Errorf("request %v: %v, want error %v", id, m, code)
		}
		delete(want, id)
	}
	if len(want) > 0 || status != 0 {
		t.Errorf("unanswered %v, status %d, stderr %s", want, status, stderr)
	}
}
