package mcpclient_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/mcp/protocol"
)

// The tests drive the client from Harn programs against the repository's
// own MCP server layer (mcp/protocol): over stdio in a subprocess (this
// test binary re-executed with serverEnv set) and over its session-free
// HTTP transport; a hand-written handler covers the session-based
// Streamable HTTP flavour (Mcp-Session-Id, answers in event streams).

const serverEnv = "HARN_MCPCLIENT_TEST_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(serverEnv) {
	case "1":
		srv := protocol.NewServer(&provider{}, protocol.Options{PageSize: 2})
		srv.Serve(os.Stdin, os.Stdout)
		os.Exit(0)
	case "roots":
		srv := protocol.NewServer(&rootsProvider{}, protocol.Options{})
		srv.Serve(os.Stdin, os.Stdout)
		os.Exit(0)
	case "host":
		srv := protocol.NewServer(&hostProvider{}, protocol.Options{})
		srv.Serve(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// provider is a small server: four tools (so tools/list takes two
// pages of two), a resource, a template and a prompt.
type provider struct{}

func obj(s string) *jsonv.Object {
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v.(*jsonv.Object)
}

func (*provider) ServerInfo() *jsonv.Object { return obj(`{"name":"go-fixture","version":"2.0.0"}`) }
func (*provider) Instructions() string      { return "Go fixture server." }
func (*provider) Capabilities() *jsonv.Object {
	return obj(`{"tools":{},"resources":{},"prompts":{},"completions":{}}`)
}

func (*provider) Tools(r *protocol.Request) ([]*jsonv.Object, *protocol.Error) {
	count := `{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"],"additionalProperties":false}`
	if r.Modern() {
		count = `{"type":"integer"}`
	}
	return []*jsonv.Object{
		obj(`{"name":"add","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}`),
		obj(`{"name":"shout","inputSchema":{"type":"object"}}`),
		obj(`{"name":"oops","inputSchema":{"type":"object"}}`),
		obj(`{"name":"count","inputSchema":{"type":"object"},"outputSchema":` + count + `}`),
	}, nil
}

func (*provider) Tool(r *protocol.Request, name string) (protocol.Tool, bool) {
	switch name {
	case "add", "shout", "oops", "count":
		return tool(name), true
	}
	return nil, false
}

func (*provider) Resources(*protocol.Request) ([]any, *protocol.Error) {
	return []any{obj(`{"uri":"mem://a","name":"a"}`), obj(`{"uri":"mem://b","name":"b"}`), obj(`{"uri":"mem://c","name":"c"}`)}, nil
}

func (*provider) ResourceTemplates(*protocol.Request) ([]any, *protocol.Error) {
	return []any{obj(`{"uriTemplate":"mem://{id}","name":"mem"}`)}, nil
}

func (*provider) ReadResource(r *protocol.Request, uri string) any {
	if uri == "mem://a" {
		return protocol.ResourceContents(protocol.TextResource(uri, "text/plain", "contents of a"))
	}
	return protocol.Errorf(protocol.CodeResourceNotFound, "Resource not found: "+uri)
}

func (*provider) Prompts(*protocol.Request) ([]any, *protocol.Error) {
	return []any{protocol.PromptDocument("hello", "", "Say hello", []protocol.PromptArgument{{Name: "who", Required: true}})}, nil
}

func (*provider) GetPrompt(r *protocol.Request) any {
	name, _ := jsonv.Member[string](r.Params(), "name")
	if name != "hello" {
		return protocol.UnknownPrompt(name)
	}
	args, _ := jsonv.Member[*jsonv.Object](r.Params(), "arguments")
	who, _ := jsonv.Member[string](args, "who")
	res := jsonv.NewObject(1)
	res.Set("messages", []any{protocol.PromptMessage("user", protocol.TextContent("Hello, "+who+"!"))})
	return res
}

func (*provider) Complete(*protocol.Request, protocol.CompletionRef, string, string) ([]string, *protocol.Error) {
	return nil, nil
}

type tool string

func (tool) TaskSupport() string { return "forbidden" }

func (t tool) Validate(args any) *protocol.Error {
	if t == "add" {
		o, _ := args.(*jsonv.Object)
		if !o.Has("a") || !o.Has("b") {
			return protocol.InvalidParams(`add: "a" and "b" are required`)
		}
	}
	return nil
}

func (t tool) Call(x *protocol.Call, args any) any {
	o, _ := args.(*jsonv.Object)
	switch t {
	case "add":
		a, _ := jsonv.Member[jsonNumber](o, "a")
		b, _ := jsonv.Member[jsonNumber](o, "b")
		x, _ := strconv.Atoi(string(a))
		y, _ := strconv.Atoi(string(b))
		res := jsonv.NewObject(3)
		res.Set("content", []any{protocol.TextContent(strconv.Itoa(x + y))})
		sc := jsonv.NewObject(1)
		sc.Set("sum", jsonv.Int(int64(x+y)))
		res.Set("structuredContent", sc)
		res.Set("isError", false)
		return res
	case "shout":
		s, _ := jsonv.Member[string](o, "text")
		res := jsonv.NewObject(2)
		res.Set("content", []any{protocol.TextContent(strings.ToUpper(s))})
		res.Set("isError", false)
		return res
	case "oops":
		return protocol.ToolError(`tool "oops" failed: nothing works`)
	case "count":
		res := jsonv.NewObject(3)
		res.Set("content", []any{protocol.TextContent("3")})
		if x.Modern() {
			res.Set("structuredContent", jsonv.Int(3))
		} else {
			res.Set("structuredContent", obj(`{"result":3}`))
		}
		res.Set("isError", false)
		return res
	}
	return protocol.Errorf(protocol.CodeInternalError, "unreachable")
}

type jsonNumber = json.Number

// run runs src and returns stdout, or the error text when it fails.
func run(t *testing.T, src string) string {
	t.Helper()
	var stderr bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{Stderr: &stderr})
	if r.Err != nil {
		return "error: " + interp.GoldenText(r.Err)
	}
	return string(r.Stdout)
}

func expect(t *testing.T, src, want string) {
	t.Helper()
	got := run(t, src)
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// stdioServer is the mcp_connect config of the re-executed test binary.
func stdioServer() string {
	return fmt.Sprintf(`{command: %q, env: {%s: "1"}}`, os.Args[0], serverEnv)
}

func TestStdioAgainstProtocolServer(t *testing.T) {
	expect(t, `
let c = mcp_connect(`+stdioServer()+`)
println(c)
let info = mcp_server_info(c)
println("${info.protocol_version} ${info.server_name} ${info.version} ${info.instructions} ${info.transport}")
println(mcp_list_tools(c).map({ t -> t.name }))
println(mcp_call(c, "add", {a: 2, b: 40}))
println(mcp_call(c, "shout", {text: "hi"}))
println(mcp_call(c, "count"))
try { mcp_call(c, "oops") } catch (e) { println(e) }
try { mcp_call(c, "add", {a: 1}) } catch (e) { println(e) }
try { mcp_call(c, "nope") } catch (e) { println(e) }
println(mcp_list_resources(c).map({ r -> r.uri }))
println(mcp_list_resource_templates(c))
println(mcp_read_resource(c, "mem://a"))
try { mcp_read_resource(c, "mem://zzz") } catch (e) { println(e) }
println(mcp_list_prompts(c).map({ p -> p.name }))
println(mcp_get_prompt(c, "hello", {who: "Ada"}).messages[0].content.text)
mcp_disconnect(c)
println(mcp_server_info(c).connected)
`, `
<mcp_client:go-fixture>
2025-11-25 go-fixture 2.0.0 Go fixture server. stdio
[add, shout, oops, count]
{sum: 42}
HI
3
mcp_call: tool "oops" failed: nothing works
mcp_call: server error -32602: add: "a" and "b" are required
mcp_call: server error -32602: Unknown tool: nope
[mem://a, mem://b, mem://c]
[{name: mem, uriTemplate: mem://{id}}]
contents of a
mcp_read_resource: server error -32002: Resource not found: mem://zzz
[hello]
Hello, Ada!
false
`)
}

// An older released version is negotiated when asked for.
func TestStdioOlderVersion(t *testing.T) {
	expect(t, `
let c = mcp_connect({command: `+strconv.Quote(os.Args[0])+`, env: {`+serverEnv+`: "1"}, protocol_version: "2025-03-26", name: "old"})
println("${c} ${mcp_server_info(c).protocol_version}")
mcp_disconnect(c)
`, `<mcp_client:old> 2025-03-26`)
}

// Harn's HTTP servers refuse initialize in favour of the session-free
// profile; the client switches to it and every request passes the
// server's routing-header checks.
func TestHTTPSessionFree(t *testing.T) {
	srv := protocol.NewServer(&provider{}, protocol.Options{PageSize: 2})
	h := srv.HTTPHandler(protocol.HTTPOptions{Discovery: &protocol.Discovery{Name: "go-fixture", Version: "2.0.0"}})
	ts := httptest.NewServer(h)
	defer ts.Close()
	expect(t, `
let c = mcp_connect("`+ts.URL+`/mcp")
let info = mcp_server_info(c)
println("${c} ${info.protocol_version} ${info.transport} ${info.server_name}")
println(mcp_list_tools(c).map({ t -> t.name }))
println(mcp_call(c, "add", {a: 1, b: 2}))
println(mcp_call(c, "count"))
try { mcp_call(c, "oops") } catch (e) { println(e) }
try { mcp_call(c, "nope") } catch (e) { println(e) }
println(mcp_read_resource(c, "mem://a"))
println(len(mcp_list_resources(c)))
println(mcp_get_prompt(c, "hello", {who: "Bo"}).messages[0].content.text)
let card = mcp_server_card("`+ts.URL+`")
println("${card.name} ${card.transport} ${card.protocolVersions}")
println(mcp_server_card(c).endpoint.ends_with("/mcp"))
mcp_disconnect(c)
`, `
<mcp_client:go-fixture> 2026-07-28 http go-fixture
[add, shout, oops, count]
{sum: 3}
3
mcp_call: tool "oops" failed: nothing works
mcp_call: server error -32602: Unknown tool: nope
contents of a
3
Hello, Bo!
go-fixture streamable-http [2026-07-28]
true
`)
}

// sessionServer is a session-based Streamable HTTP server: initialize
// hands out Mcp-Session-Id, later requests must carry it and the
// negotiated MCP-Protocol-Version, tools/call answers in an event stream
// after a ping the client must answer, and DELETE ends the session.
type sessionServer struct {
	mu      sync.Mutex
	deleted bool
	pinged  bool
	headers http.Header
	// expire: the first session ends after one tools/list (404 to its
	// next request); the client must start a second one.
	expire  bool
	current string // the live session id
	inits   int
	lists   int
}

func (s *sessionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodDelete {
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && sid == s.current {
			s.deleted = true
		}
		w.WriteHeader(http.StatusOK)
		return
	}
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
		// The client's answer to the ping.
		if res, ok := o.Get("result"); ok && res != nil && fmt.Sprint(id) == "ping-1" {
			s.pinged = true
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if method != "initialize" {
		sid := r.Header.Get("Mcp-Session-Id")
		if sid != "" && sid != s.current {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		if sid == "" || r.Header.Get("MCP-Protocol-Version") != "2025-06-18" {
			http.Error(w, "missing session", http.StatusBadRequest)
			return
		}
	}
	if !hasID {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.headers = r.Header.Clone()
	answer := func(result string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + string(jsonv.Marshal(id)) + `,"result":` + result + `}`)
	}
	switch method {
	case "initialize":
		s.inits++
		s.current = fmt.Sprintf("sess-%d", s.inits)
		w.Header().Set("Mcp-Session-Id", s.current)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sessions","version":"0.1"}}`))
	case "tools/list":
		s.lists++
		if s.expire && s.lists == 1 {
			defer func() { s.current = "ended" }()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer(`{"tools":[{"name":"streamed","inputSchema":{"type":"object"}}]}`))
	case "tools/call":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", `{"jsonrpc":"2.0","id":"ping-1","method":"ping"}`)
		s.mu.Unlock()
		w.(http.Flusher).Flush()
		s.mu.Lock()
		fmt.Fprintf(w, "id: 7\nevent: message\ndata: %s\n\n", answer(`{"content":[{"type":"text","text":"from a stream"}]}`))
	default:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(jsonv.Marshal(id)) + `,"error":{"code":-32601,"message":"Method not found: ` + method + `"}}`))
	}
}

func TestHTTPSessions(t *testing.T) {
	s := &sessionServer{}
	ts := httptest.NewServer(s)
	defer ts.Close()
	expect(t, `
let c = mcp_connect({url: "`+ts.URL+`", headers: {"X-Api-Key": "k1"}, protocol_version: "2025-06-18"})
println("${c} ${mcp_server_info(c).protocol_version}")
println(mcp_list_tools(c).map({ t -> t.name }))
println(mcp_call(c, "streamed"))
println(mcp_list_prompts(c))
mcp_disconnect(c)
`, `
<mcp_client:sessions> 2025-06-18
[streamed]
from a stream
[]
`)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.pinged {
		t.Error("the client did not answer the server's ping")
	}
	if !s.deleted {
		t.Error("mcp_disconnect did not DELETE the session")
	}
	if got := s.headers.Get("X-Api-Key"); got != "k1" {
		t.Errorf("custom header = %q", got)
	}
}

// A server that ends the session (404) gets a new initialize, and the
// request is sent again in the new session.
func TestHTTPSessionExpiry(t *testing.T) {
	s := &sessionServer{expire: true}
	ts := httptest.NewServer(s)
	defer ts.Close()
	expect(t, `
let c = mcp_connect({url: "`+ts.URL+`", protocol_version: "2025-06-18"})
println(mcp_list_tools(c).map({ t -> t.name }))
println(mcp_call(c, "streamed"))
mcp_disconnect(c)
`, `
[streamed]
from a stream
`)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inits != 2 || s.current != "sess-2" || !s.deleted {
		t.Errorf("inits = %d, current = %s, deleted = %v; want a second session, ended by DELETE", s.inits, s.current, s.deleted)
	}
}

func TestHTTPFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"unauthorized"}}`))
	}))
	defer unauthorized.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "database is down", http.StatusInternalServerError)
	}))
	defer broken.Close()
	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-block:
		}
	}))
	defer slow.Close()
	defer close(block)
	for _, c := range []struct{ src, want string }{
		{`mcp_connect("` + closed + `")`, `mcp_connect: POST ` + closed + `: dial tcp`},
		{`mcp_connect("` + closed + `")`, `connection refused`},
		{`mcp_connect("` + unauthorized.URL + `")`, `mcp_connect: server error -32001: unauthorized`},
		{`mcp_connect("` + broken.URL + `")`, `mcp_connect: POST ` + broken.URL + `: HTTP 500 Internal Server Error: database is down`},
		{`mcp_connect({url: "` + slow.URL + `", timeout: 50ms})`, `mcp_connect: timed out after 50ms waiting for the answer to initialize`},
		{`mcp_server_card("` + broken.URL + `")`, `mcp_server_card: GET ` + broken.URL + `/.well-known/mcp.json: HTTP 500 Internal Server Error`},
	} {
		got := run(t, `try { `+c.src+` } catch (e) { println(e) }`)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s:\ngot  %s\nwant %s", c.src, got, c.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	expect(t, `
let cfg = `+stdioServer()+`
println(mcp_registry_status())
let a = mcp_ensure_active("fx", cfg)
let b = mcp_ensure_active("fx")
println("${a} ${b}")
println(mcp_call("fx", "shout", {text: "by name"}))
println(mcp_registry_status())
println(mcp_release("fx"))
println("${mcp_registry_status()[0].active} ${mcp_registry_status()[0].ref_count}")
println(mcp_release("fx"))
println(mcp_registry_status()[0].active)
try { mcp_release("fx") } catch (e) { println(e) }
try { mcp_call(a, "shout", {text: "x"}) } catch (e) { println(e) }
let c = mcp_ensure_active("fx")
println(mcp_call(c, "shout", {text: "again"}))
mcp_disconnect(c)
println(mcp_registry_status()[0].active)
try { mcp_ensure_active("other") } catch (e) { println(e) }
`, `
[]
<mcp_client:fx> <mcp_client:fx>
BY NAME
[{active: true, last_error: nil, name: fx, ref_count: 2, server_name: go-fixture, transport: stdio}]
1
true 1
0
false
mcp_release: the MCP server "fx" is not active
mcp_call: the client <mcp_client:fx> is disconnected
AGAIN
false
mcp_ensure_active: no configuration for the MCP server "other"; pass one, mcp_ensure_active("other", {command: ...}), or declare it in harn.toml ([[mcp]] name = "other")
`)
}

// A failed connection is recorded in the status list.
func TestRegistryLastError(t *testing.T) {
	expect(t, `
try { mcp_ensure_active("ghost", {command: "harn-no-such-mcp-server-xyz"}) } catch (e) { println(e) }
let s = mcp_registry_status()[0]
println("${s.name} ${s.active} ${s.last_error}")
`, `
mcp_ensure_active: cannot start harn-no-such-mcp-server-xyz: executable file not found in $PATH
ghost false mcp_ensure_active: cannot start harn-no-such-mcp-server-xyz: executable file not found in $PATH
`)
}

// Tasks may share a client: concurrent calls are matched to their
// answers by id.
func TestConcurrentCalls(t *testing.T) {
	expect(t, `
let c = mcp_connect(`+stdioServer()+`)
let results = parallel each [1, 2, 3, 4, 5, 6, 7, 8] { n -> mcp_call(c, "add", {a: n, b: n}).sum }
println(results)
mcp_disconnect(c)
`, `[2, 4, 6, 8, 10, 12, 14, 16]`)
}
