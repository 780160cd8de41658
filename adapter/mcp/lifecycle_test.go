package mcp

import (
	"strings"
	"testing"
)

// Acceptance 138-145, 161-163, 183: lifecycles, profiles, errors.

func TestInitializeReleased(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	res := s.initialize("2025-06-18")
	if res["protocolVersion"] != "2025-06-18" {
		t.Errorf("protocolVersion = %v", res["protocolVersion"])
	}
	if path(res, "capabilities", "tools") == nil {
		t.Errorf("no capabilities.tools: %s", js(res))
	}
	if path(res, "serverInfo", "name") != "widgets" || res["instructions"] != "Widget integration" {
		t.Errorf("serverInfo: %s", js(res))
	}
	// 140: released results carry no envelope.
	list := s.result("tools/list", nil)
	for _, k := range []string{"resultType", "ttlMs", "cacheScope"} {
		if _, ok := list[k]; ok {
			t.Errorf("released tools/list has %s", k)
		}
	}
	// Even with _meta on an initialized connection.
	list = s.result("tools/list", with2026(nil, nil))
	if _, ok := list["resultType"]; ok {
		t.Errorf("initialized connection switched profile: %s", js(list))
	}
}

func TestInitializeUnknownVersion(t *testing.T) {
	for _, v := range []string{"1999-01-01", "2026-07-28"} {
		s := start(t, testdata("widgets.harn"), Options{}) // initialize happens once per connection
		res := s.result("initialize", map[string]any{"protocolVersion": v, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"}})
		if res["protocolVersion"] != "2025-11-25" {
			t.Errorf("%s negotiated %v", v, res["protocolVersion"])
		}
	}
}

func TestInitializeMalformed(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	e := s.rpcErr("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}})
	if e["code"] != float64(-32602) || !strings.HasPrefix(e["message"].(string), "invalid MCP initialize params: ") {
		t.Errorf("error %s", js(e))
	}
}

func TestNotInitialized(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	e := s.rpcErr("tools/list", nil)
	jsonEq(t, "error", e, `{"code":-32002,"message":"server not initialized"}`)
	jsonEq(t, "ping", s.result("ping", nil), `{}`)
}

func TestDiscover(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	res := s.result("server/discover", with2026(nil, nil))
	if res["resultType"] != "complete" || res["ttlMs"] != float64(0) || res["cacheScope"] != "private" {
		t.Errorf("envelope: %s", js(res))
	}
	jsonEq(t, "supportedVersions", res["supportedVersions"], `["2026-07-28"]`)
	jsonEq(t, "serverInfo", path(res, "_meta", "io.modelcontextprotocol/serverInfo"), `{"name":"widgets","version":"1.0.0"}`)
	if path(res, "capabilities", "tools") == nil || res["instructions"] != "Widget integration" {
		t.Errorf("discover: %s", js(res))
	}
}

func TestDiscoverUnsupportedVersion(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	meta := meta2026(nil)
	meta["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
	e := s.rpcErr("server/discover", map[string]any{"_meta": meta})
	if e["code"] != float64(-32022) || path(e, "data", "requested") != "2099-01-01" {
		t.Errorf("error %s", js(e))
	}
	jsonEq(t, "supported", path(e, "data", "supported"), `["2026-07-28"]`)
	// A released version in _meta is refused too.
	meta["io.modelcontextprotocol/protocolVersion"] = "2025-06-18"
	if e := s.rpcErr("tools/list", map[string]any{"_meta": meta}); e["code"] != float64(-32022) {
		t.Errorf("released version in _meta: %s", js(e))
	}
}

func TestMissingMeta(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	meta := meta2026(nil)
	delete(meta, "io.modelcontextprotocol/clientCapabilities")
	e := s.rpcErr("tools/list", map[string]any{"_meta": meta})
	jsonEq(t, "error", e, `{"code":-32602,"message":"request _meta is missing or has malformed required fields: io.modelcontextprotocol/clientCapabilities"}`)
	e = s.rpcErr("server/discover", map[string]any{"_meta": map[string]any{}})
	jsonEq(t, "error", e, `{"code":-32602,"message":"request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientInfo, io.modelcontextprotocol/clientCapabilities"}`)
}

func TestEnvelope2026(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	list := s.result("tools/list", with2026(nil, nil))
	if list["resultType"] != "complete" || list["ttlMs"] != float64(5000) || list["cacheScope"] != "private" {
		t.Errorf("tools/list envelope: %v %v %v", list["resultType"], list["ttlMs"], list["cacheScope"])
	}
	read := s.result("resources/read", with2026(map[string]any{"uri": "test://static-text"}, nil))
	if read["ttlMs"] != float64(1000) || read["cacheScope"] != "private" || read["resultType"] != "complete" {
		t.Errorf("resources/read envelope: %s", js(read))
	}
	// Errors are never enveloped.
	e := s.request("tools/call", with2026(map[string]any{"name": "nope"}, nil))
	if _, ok := e["result"]; ok {
		t.Errorf("unknown tool answered %s", js(e))
	}
}

func TestUnsupportedFeatures(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	for method, feature := range map[string]string{"sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots", "subscriptions/listen": "subscriptions"} {
		e := s.rpcErr(method, with2026(nil, nil))
		if e["code"] != float64(-32601) || path(e, "data", "type") != "mcp.unsupportedFeature" || path(e, "data", "feature") != feature {
			t.Errorf("%s: %s", method, js(e))
		}
		if method == "sampling/createMessage" {
			if path(e, "data", "role") != "client" || path(e, "data", "protocolVersion") != "2026-07-28" ||
				e["message"] != "Unsupported MCP client-bound method: sampling/createMessage" {
				t.Errorf("sampling: %s", js(e))
			}
		}
	}
}

func TestMethodNotFound(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	s.initialize("2025-06-18")
	jsonEq(t, "error", s.rpcErr("widgets/frobnicate", nil), `{"code":-32601,"message":"Method not found: widgets/frobnicate"}`)
}

func TestNotificationsGetNoResponse(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	s.initialize("2025-06-18")
	for _, n := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","method":"notifications/whatever"}`,
		`{"jsonrpc":"2.0","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"lookup_widget","arguments":{}}}`,
	} {
		s.send(n)
	}
	s.result("ping", nil) // a barrier: everything before it was read
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lines) != 2 { // initialize and ping
		t.Errorf("notifications were answered: %v", s.lines)
	}
}

func TestParseErrorKeepsServing(t *testing.T) {
	s := start(t, testdata("widgets.harn"), Options{})
	s.send(`{"jsonrpc":"2.0","id":1,`)
	s.send(``)
	s.initialize("2025-06-18")
	s.mu.Lock()
	first := s.lines[0]
	s.mu.Unlock()
	if first != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` {
		t.Errorf("first line %s", first)
	}
}
