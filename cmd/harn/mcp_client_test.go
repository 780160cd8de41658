//go:build !harnlite

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The MCP client builtins (docs/mcp-client.md) end to end: a script run
// by `harn run` talks to `harn serve mcp` serving testdata/mcp-client/server.harn,
// over stdio (the client starts this test binary as harn) and over HTTP
// (the session-free 2026-07-28 profile).

const mcpClientServer = "../../testdata/mcp-client/server.harn"

func runClientScript(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "client.harn")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"run", p}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("harn run: exit %d\n%s%s", code, out.String(), errb.String())
	}
	return out.String()
}

// The calls every transport must answer alike.
const mcpClientCalls = `
println(c)
println(mcp_list_tools(c).map({ t -> t.name }))
println(mcp_call(c, "lookup", {id: 4}))
println(mcp_call(c, "count"))
try { mcp_call(c, "lookup", {id: 9}) } catch (e) { println(e) }
try { mcp_call(c, "lookup", {id: 0}) } catch (e) { println(e.contains("-32602") && e.contains("violates its declared schema")) }
try { mcp_call(c, "operator_only") } catch (e) { println(e) }
let info = mcp_server_info(c)
println("${info.server_name} ${info.version} ${info.instructions}")
mcp_disconnect(c)
`

const mcpClientWant = `<mcp_client:widgets>
[lookup, count]
{id: 4, label: widget 4}
3
mcp_call: tool "lookup" failed: declared application error
true
mcp_call: server error -32602: Unknown tool: operator_only
widgets 1.0.0 Widget integration
`

func TestMCPClientStdioServeMCP(t *testing.T) {
	server, err := filepath.Abs(mcpClientServer)
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`let c = mcp_connect({command: %q, args: ["serve", "mcp", %q], env: {HARN_TEST_MAIN: "1"}})
let v = mcp_server_info(c).protocol_version
println(v)
`, os.Args[0], server) + mcpClientCalls
	if got, want := runClientScript(t, src), "2025-11-25\n"+mcpClientWant; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMCPClientHTTPServeMCP(t *testing.T) {
	server, err := filepath.Abs(mcpClientServer)
	if err != nil {
		t.Fatal(err)
	}
	base := startServeHTTP(t, "--surface", "script", server)
	src := fmt.Sprintf(`let c = mcp_connect(%q)
println(mcp_server_info(c).protocol_version)
`, base+"/mcp") + mcpClientCalls
	if got, want := runClientScript(t, src), "2026-07-28\n"+mcpClientWant; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// mcp_server_card reads `harn serve mcp --card`: over HTTP from
// /.well-known/mcp-card (the server has no /.well-known/mcp.json, so the
// client moves on after its 404), over stdio from serverInfo.card.
func TestMCPClientServerCard(t *testing.T) {
	server, err := filepath.Abs(mcpClientServer)
	if err != nil {
		t.Fatal(err)
	}
	card := `{"name":"widgets-card","description":"Widgets for tests"}`
	base := startServeHTTP(t, "--surface", "script", "--card", card, server)
	src := fmt.Sprintf(`let card = mcp_server_card(%q)
println("${card.name}: ${card.description}")
let c = mcp_connect({command: %q, args: ["serve", "mcp", "--card", %q, %q], env: {HARN_TEST_MAIN: "1"}})
println(mcp_server_card(c).name)
mcp_disconnect(c)
try { mcp_server_card(%q) } catch (e) { println(e) }
`, base, os.Args[0], card, server, base+"/.well-known/nothing.json")
	want := "widgets-card: Widgets for tests\nwidgets-card\nmcp_server_card: GET " + base + "/.well-known/nothing.json: HTTP 404 Not Found\n"
	if got := runClientScript(t, src); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A script's elicitation and sampling handlers answer what a tool of
// `harn serve mcp` asks with mcp_elicit and mcp_sample: as server
// requests over stdio (2025-11-25), and through input_required over
// HTTP (2026-07-28).
func TestMCPClientAnswersElicitationAndSampling(t *testing.T) {
	server, err := filepath.Abs("../../testdata/mcp-client/ask.harn")
	if err != nil {
		t.Fatal(err)
	}
	base := startServeHTTP(t, "--surface", "script", server)
	handlers := `elicitation: { req -> {action: "accept", content: {env: "staging"}} },
  sampling: { req -> "summary of ${len(req.messages)} message(s)" }`
	src := fmt.Sprintf(`let a = mcp_connect({command: %q, args: ["serve", "mcp", %q], env: {HARN_TEST_MAIN: "1"}, %s})
println(mcp_server_info(a).protocol_version)
println(mcp_call(a, "deploy"))
mcp_disconnect(a)
let b = mcp_connect({url: %q, %s})
println(mcp_server_info(b).protocol_version)
println(mcp_call(b, "deploy"))
mcp_disconnect(b)
let c = mcp_connect({url: %q, elicitation: { req -> {action: "decline"} }})
println(mcp_call(c, "deploy"))
let d = mcp_connect({url: %q})
try { mcp_call(d, "deploy") } catch (e) { println(e) }
`, os.Args[0], server, handlers, base+"/mcp", handlers, base+"/mcp", base+"/mcp")
	want := `2025-11-25
deployed to staging; summary of 1 message(s)
2026-07-28
deployed to staging; summary of 1 message(s)
not deployed (decline)
`
	got := runClientScript(t, src)
	if !strings.HasPrefix(got, want) || !strings.Contains(got[len(want):], "elicitation") {
		t.Errorf("got:\n%s\nwant:\n%s<an error about elicitation>", got, want)
	}
}
