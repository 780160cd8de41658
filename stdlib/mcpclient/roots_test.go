package mcpclient_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
)

// rootsServer is a Streamable HTTP server whose one tool asks the client
// for its roots (a roots/list request inside the tool call's event
// stream) and answers with what the client sent back.
type rootsServer struct {
	mu           sync.Mutex
	capabilities string // the client's capabilities at initialize
	answers      chan string
}

func (s *rootsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	v, err := jsonv.Parse(body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	o := v.(*jsonv.Object)
	method, _ := jsonv.Member[string](o, "method")
	id, hasID := o.Get("id")
	if method == "" {
		// The client's answer to roots/list: its result, or its error.
		if res, ok := o.Get("result"); ok {
			s.answers <- string(jsonv.Marshal(res))
		} else if e, ok := o.Get("error"); ok {
			s.answers <- "error " + string(jsonv.Marshal(e))
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !hasID {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	answer := func(result string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + string(jsonv.Marshal(id)) + `,"result":` + result + `}`)
	}
	switch method {
	case "initialize":
		p, _ := jsonv.Member[*jsonv.Object](o, "params")
		caps, _ := p.Get("capabilities")
		s.mu.Lock()
		s.capabilities = string(jsonv.Marshal(caps))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"roots","version":"0.1"}}`))
	case "tools/list":
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer(`{"tools":[{"name":"which_roots","inputSchema":{"type":"object"}}]}`))
	case "tools/call":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", `{"jsonrpc":"2.0","id":"roots-1","method":"roots/list"}`)
		w.(http.Flusher).Flush()
		var got string
		select {
		case got = <-s.answers:
		case <-time.After(10 * time.Second):
			got = "no answer"
		}
		text := string(jsonv.Marshal(got))
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", answer(`{"content":[{"type":"text","text":`+text+`}]}`))
	default:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(jsonv.Marshal(id)) + `,"error":{"code":-32601,"message":"Method not found"}}`))
	}
}

// A client configured with roots declares the roots capability and
// answers the server's roots/list with them: paths become absolute
// file:// URIs, URIs and names are kept.
func TestRootsAnswered(t *testing.T) {
	s := &rootsServer{answers: make(chan string, 1)}
	ts := httptest.NewServer(s)
	defer ts.Close()
	got := run(t, `
let c = mcp_connect({url: "`+ts.URL+`", protocol_version: "2025-06-18", roots: ["sub/dir", {uri: "file:///data", name: "data"}, {path: "/abs/place"}]})
println(mcp_call(c, "which_roots"))
mcp_disconnect(c)
`)
	s.mu.Lock()
	caps := s.capabilities
	s.mu.Unlock()
	if caps != `{"roots":{"listChanged":false}}` {
		t.Errorf("capabilities at initialize = %s", caps)
	}
	v, err := jsonv.Parse([]byte(strings.TrimSpace(got)))
	if err != nil {
		t.Fatalf("answer %q: %v", got, err)
	}
	roots, _ := jsonv.Member[[]any](v.(*jsonv.Object), "roots")
	if len(roots) != 3 {
		t.Fatalf("roots = %s", got)
	}
	first, _ := jsonv.Member[string](roots[0].(*jsonv.Object), "uri")
	if !strings.HasPrefix(first, "file:///") || !strings.HasSuffix(first, "/sub/dir") {
		t.Errorf("a relative path root = %q, want an absolute file:// URI", first)
	}
	if second := string(jsonv.Marshal(roots[1])); second != `{"uri":"file:///data","name":"data"}` {
		t.Errorf("a URI root = %s", second)
	}
	if third := string(jsonv.Marshal(roots[2])); third != `{"uri":"file:///abs/place"}` {
		t.Errorf("a path root = %s", third)
	}
}

// Without roots the client declares no capabilities and answers
// roots/list with "Method not found".
func TestRootsNotOffered(t *testing.T) {
	s := &rootsServer{answers: make(chan string, 1)}
	ts := httptest.NewServer(s)
	defer ts.Close()
	got := run(t, `
let c = mcp_connect({url: "`+ts.URL+`", protocol_version: "2025-06-18"})
println(mcp_call(c, "which_roots"))
mcp_disconnect(c)
`)
	if caps := s.capabilities; caps != `{}` {
		t.Errorf("capabilities at initialize = %s", caps)
	}
	if !strings.Contains(got, `error {"code":-32601,"message":"Method not found: roots/list"}`) {
		t.Errorf("answer = %q", got)
	}
}

// Bad roots are refused before connecting.
func TestRootsInvalid(t *testing.T) {
	for src, want := range map[string]string{
		`mcp_connect({url: "http://127.0.0.1:1", roots: "x"})`:                             "roots must be a list",
		`mcp_connect({url: "http://127.0.0.1:1", roots: [{uri: "http://x"}]})`:             "roots[0]: uri must be a file:// URI",
		`mcp_connect({url: "http://127.0.0.1:1", roots: [{uri: "file:///a", path: "b"}]})`: "roots[0]: give either uri or path",
		`mcp_connect({url: "http://127.0.0.1:1", roots: [{path: "a", label: "x"}]})`:       `roots[0]: unknown key "label"`,
		`mcp_connect({url: "http://127.0.0.1:1", roots: [""]})`:                            "roots[0]: must not be empty",
		`mcp_connect({url: "http://127.0.0.1:1", roots: [3]})`:                             "roots[0]: expected a path",
	} {
		got := run(t, `try { `+src+` } catch (e) { println(e) }`)
		if !strings.Contains(got, want) {
			t.Errorf("%s: got %q, want %q", src, got, want)
		}
	}
}

// rootsProvider is the fixture server with one tool, "roots", that asks
// the client for its roots through the protocol layer: a server-to-client
// request in a released profile, the input_required round trip in the
// 2026-07-28 one.
type rootsProvider struct{ provider }

func (*rootsProvider) Tools(*protocol.Request) ([]*jsonv.Object, *protocol.Error) {
	return []*jsonv.Object{
		obj(`{"name":"roots","inputSchema":{"type":"object"}}`),
		obj(`{"name":"ask","inputSchema":{"type":"object"}}`),
		obj(`{"name":"sample","inputSchema":{"type":"object"}}`),
	}, nil
}

// inputTools are the fixture's tools, each asking the client one thing.
var inputTools = map[string]rootsTool{
	"roots":  {"roots/list", `{}`},
	"ask":    {"elicitation/create", `{"mode":"form","message":"Which environment?","requestedSchema":{"type":"object","properties":{"env":{"type":"string"}}}}`},
	"sample": {"sampling/createMessage", `{"messages":[{"role":"user","content":{"type":"text","text":"hello"}}],"maxTokens":50}`},
}

func (*rootsProvider) Tool(_ *protocol.Request, name string) (protocol.Tool, bool) {
	t, ok := inputTools[name]
	return t, ok
}

// rootsTool asks the client with method and params and answers with the
// client's answer as JSON text.
type rootsTool struct{ method, params string }

func (rootsTool) TaskSupport() string          { return "forbidden" }
func (rootsTool) Validate(any) *protocol.Error { return nil }
func (t rootsTool) Call(x *protocol.Call, _ any) any {
	ans, err := x.Input(t.method, obj(t.params), nil)
	switch {
	case errors.Is(err, protocol.ErrInputRequired):
		return nil // answered input_required
	case err != nil:
		return protocol.ToolError(t.method + ": " + err.Error())
	}
	res := jsonv.NewObject(1)
	res.Set("content", []any{protocol.TextContent(string(jsonv.Marshal(ans)))})
	return res
}

// Against the repository's own server layer over stdio, in both
// profiles: the released one asks with a roots/list request, the
// session-free one with input_required, and the client answers both.
func TestRootsProtocolServer(t *testing.T) {
	cfg := fmt.Sprintf(`{command: %q, env: {%s: "roots"}, roots: [{uri: "file:///work", name: "work"}]`, os.Args[0], serverEnv)
	expect(t, `
let a = mcp_connect(`+cfg+`})
println(mcp_server_info(a).protocol_version)
println(mcp_call(a, "roots"))
mcp_disconnect(a)
let b = mcp_connect(`+cfg+`, protocol_version: "2026-07-28"})
println(mcp_server_info(b).protocol_version)
println(mcp_call(b, "roots"))
mcp_disconnect(b)
let c = mcp_connect({command: "`+os.Args[0]+`", env: {`+serverEnv+`: "roots"}, protocol_version: "2026-07-28"})
try { mcp_call(c, "roots") } catch (e) { println(e) }
mcp_disconnect(c)
`, `
2025-11-25
{"roots":[{"uri":"file:///work","name":"work"}]}
2026-07-28
{"roots":[{"uri":"file:///work","name":"work"}]}
mcp_call: roots/list: the MCP client did not advertise support for the input method
`)
}

// A client with elicitation and sampling handlers declares both
// capabilities and answers the server's requests by running them, in
// the released profile (server requests on the stream) and in the
// 2026-07-28 one (input_required); a handler that fails fails the call.
func TestElicitationAndSampling(t *testing.T) {
	cfg := fmt.Sprintf(`{command: %q, env: {%s: "roots"}`, os.Args[0], serverEnv)
	handlers := `elicitation: { req -> {action: "accept", content: {env: "staging", asked: req.message}} },
  sampling: { req -> "echo: " + req.messages[0].content.text }`
	expect(t, `
for v in ["2025-11-25", "2026-07-28"] {
  let c = mcp_connect(`+cfg+`, protocol_version: v, `+handlers+`})
  println(mcp_call(c, "ask"))
  println(mcp_call(c, "sample"))
  mcp_disconnect(c)
}
let d = mcp_connect(`+cfg+`, elicitation: { req -> nil }, sampling: { req -> {content: "hi", model: "m1"} }})
println(mcp_call(d, "ask"))
println(mcp_call(d, "sample"))
mcp_disconnect(d)
for v in ["2025-11-25", "2026-07-28"] {
  let e = mcp_connect(`+cfg+`, protocol_version: v, elicitation: { req -> throw "no user here" }, sampling: { req -> {action: "maybe"} }})
  try { mcp_call(e, "ask") } catch (err) { println(err) }
  try { mcp_call(e, "sample") } catch (err) { println(err) }
  mcp_disconnect(e)
}
let f = mcp_connect(`+cfg+`, elicitation: { req -> {action: "maybe"} }})
try { mcp_call(f, "ask") } catch (err) { println(err) }
try { mcp_call(f, "sample") } catch (err) { println(err) }
mcp_disconnect(f)
try { mcp_connect(`+cfg+`, sampling: "llm"}) } catch (err) { println(err) }
`, `
{"action":"accept","content":{"asked":"Which environment?","env":"staging"}}
{"role":"assistant","model":"harn","content":{"type":"text","text":"echo: hello"},"stopReason":"endTurn"}
{"action":"accept","content":{"asked":"Which environment?","env":"staging"}}
{"role":"assistant","model":"harn","content":{"type":"text","text":"echo: hello"},"stopReason":"endTurn"}
{"action":"decline"}
{"role":"assistant","model":"m1","content":{"type":"text","text":"hi"}}
mcp_call: elicitation/create: no user here
mcp_call: sampling/createMessage: the sampling handler's result has no content
no user here
mcp_call: the sampling handler's result has no content
mcp_call: elicitation/create: the elicitation handler's action must be "accept", "decline" or "cancel", got "maybe"
mcp_call: sampling/createMessage: the MCP client did not advertise support for the input method
Runtime error: mcp_connect: sampling must be a function (the handler of the server's requests), got string
`)
}
