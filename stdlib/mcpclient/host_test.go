package mcpclient_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/mcp/protocol"
)

// hostProvider is the fixture server for supervision: "pid" answers the
// server's process id, "crash" ends the process with status 3.
type hostProvider struct{ provider }

func (*hostProvider) Tools(*protocol.Request) ([]*jsonv.Object, *protocol.Error) {
	return []*jsonv.Object{
		obj(`{"name":"pid","inputSchema":{"type":"object"}}`),
		obj(`{"name":"crash","inputSchema":{"type":"object"}}`),
	}, nil
}

func (*hostProvider) Tool(_ *protocol.Request, name string) (protocol.Tool, bool) {
	switch name {
	case "pid", "crash":
		return hostTool(name), true
	}
	return nil, false
}

type hostTool string

func (hostTool) TaskSupport() string          { return "forbidden" }
func (hostTool) Validate(any) *protocol.Error { return nil }
func (t hostTool) Call(*protocol.Call, any) any {
	if t == "crash" {
		fmt.Fprintln(os.Stderr, "fixture: crashed on purpose")
		os.Exit(3)
	}
	res := jsonv.NewObject(1)
	res.Set("content", []any{protocol.TextContent(strconv.Itoa(os.Getpid()))})
	return res
}

func hostServer() string {
	return fmt.Sprintf(`{command: %q, env: {%s: "host"}}`, os.Args[0], serverEnv)
}

// alive reports whether a process with pid exists (signal 0 checks
// without signalling).
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// A supervised server is started again each time its process exits,
// as a new process, until the restarts in a row run out; calls made
// meanwhile wait; reload starts it afresh; the end of the run stops it.
func TestHostSupervision(t *testing.T) {
	out := run(t, `
let h = mcp_host_spawn("fx", `+hostServer()+`, {max_restarts: 2, backoff: 10ms})
println("${h.name} ${h.state} ${h.restarts} ${h.server_name}")
println(mcp_host_tools("fx").map({ t -> t.name }))
let p1 = mcp_host_call("fx", "pid")
println(p1 == to_string(mcp_host_status("fx").pid))
try { mcp_host_call("fx", "crash") } catch (e) { println(e) }
let p2 = mcp_host_call("fx", "pid")
let s = mcp_host_status("fx")
println("${p2 != p1} ${s.state} ${s.restarts} ${s.last_error}")
try { mcp_host_call("fx", "crash") } catch (e) { println(e.contains("exit status 3")) }
mcp_host_call("fx", "pid")
try { mcp_host_call("fx", "crash") } catch (e) { println(e.contains("exit status 3")) }
try { mcp_host_call("fx", "pid") } catch (e) { println(e) }
println(mcp_host_status()[0].state)
let r = mcp_host_reload("fx")
println("${r.state} ${r.restarts}")
println("pid=" + mcp_host_call("fx", "pid"))
`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	pidLine := lines[len(lines)-1]
	want := `
fx running 0 go-fixture
[pid, crash]
true
mcp_host_call: the server process exited (exit status 3); its stderr: fixture: crashed on purpose
true restarting 1 the server process exited (exit status 3); its stderr: fixture: crashed on purpose
true
true
mcp_host_call: the MCP server "fx" is not running: it failed (the server process exited (exit status 3); its stderr: fixture: crashed on purpose); mcp_host_reload starts it again
failed
running 0
`
	// "restarting" or "running": the supervisor may have restarted it
	// before the status was asked for.
	got := strings.Join(lines[:len(lines)-1], "\n")
	got = regexp.MustCompile(`true (restarting|running) 1`).ReplaceAllString(got, "true restarting 1")
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(pidLine, "pid="))
	if err != nil {
		t.Fatalf("last line %q", pidLine)
	}
	if alive(pid) {
		t.Errorf("the supervised server (pid %d) outlived the run", pid)
	}
}

func TestHostErrors(t *testing.T) {
	expect(t, `
let cfg = `+hostServer()+`
mcp_host_spawn("fx", cfg)
try { mcp_host_spawn("fx", cfg) } catch (e) { println(e) }
println(mcp_host_stop("fx"))
try { mcp_host_stop("fx") } catch (e) { println(e) }
try { mcp_host_call("fx", "pid") } catch (e) { println(e) }
println(mcp_host_status("fx"))
try { mcp_host_tools("nope") } catch (e) { println(e) }
try { mcp_host_status("nope") } catch (e) { println(e) }
try { mcp_host_spawn("web", "http://127.0.0.1:1/mcp") } catch (e) { println(e) }
try { mcp_host_spawn("fx", cfg, {retries: 1}) } catch (e) { println(e) }
try { mcp_host_spawn("fx", cfg, {max_restarts: -1}) } catch (e) { println(e) }
try { mcp_host_spawn("bad", {command: "harn-no-such-mcp-server-xyz"}) } catch (e) { println(e) }
println(mcp_host_status("bad").state)
try { mcp_host_call("bad", "pid") } catch (e) { println(e) }
`, `
mcp_host_spawn: the MCP server "fx" is already running (mcp_host_reload restarts it, mcp_host_stop stops it)
nil
mcp_host_stop: the MCP server "fx" is not running (it was stopped already)
mcp_host_call: the MCP server "fx" is not running (it was stopped; mcp_host_reload starts it again)
{last_error: nil, name: fx, pid: nil, restarts: 0, server_name: nil, state: stopped}
mcp_host_tools: no supervised MCP server named "nope" (mcp_host_spawn starts one)
mcp_host_status: no supervised MCP server named "nope" (mcp_host_spawn starts one)
Runtime error: mcp_host_spawn: a supervised server is a process: the config needs a command, not a url (mcp_ensure_active connects to an HTTP server)
mcp_host_spawn: unknown option "retries" (known: backoff, max_restarts)
Runtime error: mcp_host_spawn: max_restarts must be an int, at least 0, got -1
mcp_host_spawn: cannot start harn-no-such-mcp-server-xyz: executable file not found in $PATH
failed
mcp_host_call: the MCP server "bad" is not running: it failed (mcp_host_spawn: cannot start harn-no-such-mcp-server-xyz: executable file not found in $PATH); mcp_host_reload starts it again
`)
}

// A process killed from outside is restarted too; calls from several
// tasks while it restarts all wait for the new process.
func TestHostRestartAfterKill(t *testing.T) {
	out := run(t, `
mcp_host_spawn("fx", `+hostServer()+`, {backoff: 20ms})
let before = mcp_host_status("fx").pid
exec("kill", "-9", to_string(before))
// A call sent before the supervisor sees the exit fails with it; wait
// until it has seen it.
while mcp_host_status("fx").pid == before { sleep(5ms) }
let pids = parallel each [1, 2, 3] { _ -> mcp_host_call("fx", "pid") }
let s = mcp_host_status("fx")
println("${pids[0] == pids[1] && pids[1] == pids[2]} ${pids[0] != to_string(before)} ${s.state} ${s.restarts}")
`)
	if strings.TrimSpace(out) != "true true running 1" {
		t.Fatalf("got %q", out)
	}
}

// The servers of the registry stop with the run as well.
func TestRegistryStopsWithTheRun(t *testing.T) {
	out := run(t, `
mcp_ensure_active("fx", `+hostServer()+`)
println(mcp_call("fx", "pid"))
`)
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("output %q", out)
	}
	if alive(pid) {
		t.Errorf("the registry's server (pid %d) outlived the run", pid)
	}
}

// mcp_bootstrap registers every server, connects the ones not lazy at
// once (one reference each), and records a failed connection instead
// of throwing.
func TestBootstrap(t *testing.T) {
	expect(t, `
let st = mcp_bootstrap([
  {name: "eager", command: `+strconv.Quote(os.Args[0])+`, env: {`+serverEnv+`: "1"}},
  {name: "later", command: `+strconv.Quote(os.Args[0])+`, env: {`+serverEnv+`: "1"}, lazy: true},
  {name: "ghost", command: "harn-no-such-mcp-server-xyz"},
])
for s in st { println("${s.name} ${s.active} ${s.ref_count} ${s.last_error}") }
println(mcp_call("eager", "shout", {text: "up"}))
println(mcp_ensure_active("later"))
println(mcp_registry_status().map({ s -> "${s.name}:${s.ref_count}" }))
println(mcp_bootstrap({eager: `+stdioServer()+`})[0].ref_count)
println(mcp_release("eager"))
try { mcp_bootstrap([{command: "x"}]) } catch (e) { println(e) }
try { mcp_bootstrap([{name: "a", command: "x"}, {name: "a", command: "y"}]) } catch (e) { println(e) }
try { mcp_bootstrap({b: {comand: "x"}}) } catch (e) { println(e) }
try { mcp_bootstrap({c: {command: "x", lazy: "yes"}}) } catch (e) { println(e) }
println(mcp_bootstrap([]))
`, `
eager true 1 nil
later false 0 nil
ghost false 0 mcp_bootstrap: cannot start harn-no-such-mcp-server-xyz: executable file not found in $PATH
UP
<mcp_client:later>
[eager:1, ghost:0, later:1]
1
0
Runtime error: mcp_bootstrap: servers[0] needs a name (a non-empty string)
Runtime error: mcp_bootstrap: the server "a" is given twice
Runtime error: mcp_bootstrap: server "b": unknown config key "comand" (known: args, auth, client_info, command, cwd, description, elicitation, env, headers, lazy, name, protocol_version, roots, sampling, timeout, transport, url)
Runtime error: mcp_bootstrap: server "c": lazy must be a bool, got string
[]
`)
}

// Without an argument, mcp_bootstrap reads the project's harn.toml.
func TestBootstrapManifest(t *testing.T) {
	dir := t.TempDir()
	toml := fmt.Sprintf(`[[mcp]]
name = "eager"
command = %q
env = { %s = "1" }

[[mcp]]
name = "lazy"
command = "harn-no-such-mcp-server-xyz"
lazy = true
`, os.Args[0], serverEnv)
	if err := os.WriteFile(filepath.Join(dir, "harn.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "main.harn")
	src := `for s in mcp_bootstrap() { println("${s.name} ${s.active} ${s.ref_count}") }
println(mcp_call("eager", "shout", {text: "declared"}))
for d in mcp_host_discover() { println("${d.name} ${d.transport} ${d.config.cwd == project_root()} ${d.error}") }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := interp.RunProgram(script, nil, interp.Options{})
	if r.Err != nil {
		t.Fatal(interp.GoldenText(r.Err))
	}
	want := "eager true 1\nlazy false 0\nDECLARED\neager stdio true nil\nlazy stdio true nil\n"
	if string(r.Stdout) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", r.Stdout, want)
	}
}

// tokenServer is the fixture's HTTP server behind bearer tokens: only
// the tokens in valid are accepted; GET /revoke?t=X removes X and
// GET /grant?t=X adds it.
type tokenServer struct {
	mu    sync.Mutex
	valid map[string]bool
	h     http.Handler
}

func (s *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	switch r.URL.Path {
	case "/revoke":
		delete(s.valid, r.URL.Query().Get("t"))
		s.mu.Unlock()
		return
	case "/grant":
		s.valid[r.URL.Query().Get("t")] = true
		s.mu.Unlock()
		return
	}
	ok := s.valid[r.Header.Get("Authorization")]
	s.mu.Unlock()
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"unauthorized"}}`))
		return
	}
	s.h.ServeHTTP(w, r)
}

// An auth function gives an HTTP server's credentials when it connects;
// mcp_reauth_expired asks it again for the servers whose credentials
// were refused (401) or have expired, and only those.
func TestReauthExpired(t *testing.T) {
	srv := protocol.NewServer(&provider{}, protocol.Options{})
	ts := &tokenServer{valid: map[string]bool{"Bearer t1": true, "Token e1": true, "Token e2": true, "Token e3": true}, h: srv.HTTPHandler(protocol.HTTPOptions{})}
	hs := httptest.NewServer(ts)
	defer hs.Close()
	expect(t, `
var n = 0
var asked = []
let rotating = { req -> n = n + 1; asked = asked + ["${req.server}/${req.reason}/${req.url.ends_with("/mcp")}"]; "t${n}" }
var e = 0
let expiring = { req -> e = e + 1; {access_token: "e${e}", token_type: "Token", expires_in: 0} }
mcp_ensure_active("api", {url: "`+hs.URL+`/mcp", auth: rotating})
mcp_ensure_active("short", {url: "`+hs.URL+`/mcp", auth: expiring})
println(mcp_call("api", "shout", {text: "one"}))
println(mcp_reauth_expired())
http_get("`+hs.URL+`/revoke?t=Bearer%20t1")
http_get("`+hs.URL+`/grant?t=Bearer%20t2")
try { mcp_call("api", "shout", {text: "two"}) } catch (err) { println(err) }
println(mcp_reauth_expired())
println(mcp_call("api", "shout", {text: "three"}))
println(mcp_call("short", "shout", {text: "four"}))
println(mcp_reauth_expired())
println(asked)
`, `
ONE
[short]
mcp_call: server error -32001: unauthorized
[api, short]
THREE
FOUR
[short]
[api/connect/true, api/expired/true]
`)
}

func TestAuthErrors(t *testing.T) {
	srv := protocol.NewServer(&provider{}, protocol.Options{})
	ts := &tokenServer{valid: map[string]bool{"Bearer ok": true}, h: srv.HTTPHandler(protocol.HTTPOptions{})}
	hs := httptest.NewServer(ts)
	defer hs.Close()
	url := strconv.Quote(hs.URL + "/mcp")
	expect(t, `
try { mcp_connect({command: "x", auth: { _ -> "t" }}) } catch (e) { println(e) }
try { mcp_connect({url: `+url+`, auth: "t"}) } catch (e) { println(e) }
try { mcp_connect({url: `+url+`, auth: { _ -> 42 }}) } catch (e) { println(e) }
try { mcp_connect({url: `+url+`, auth: { _ -> {token_type: "Bearer"} }}) } catch (e) { println(e) }
try { mcp_connect({url: `+url+`, auth: { _ -> {token: "ok", expires_in: -1} }}) } catch (e) { println(e) }
try { mcp_connect({url: `+url+`, auth: { _ -> throw "no credentials here" }}) } catch (e) { println(e) }
var fail = false
mcp_ensure_active("api", {url: `+url+`, auth: { _ -> if fail { throw "the vault is sealed" } else { {token: "ok", expires_in: 0} } }})
fail = true
try { mcp_reauth_expired() } catch (e) { println(e) }
println(mcp_call("api", "shout", {text: "still"}))
`, `
Runtime error: mcp_connect: auth gives the credentials of an HTTP server (a url); a stdio server takes its credentials in env
Runtime error: mcp_connect: auth must be a function returning the credentials, got string
mcp_connect: the auth function must return a token string or a dict {access_token | token, token_type?, expires_in?}, got a number
mcp_connect: the auth function must return a token string or a dict {access_token | token, token_type?, expires_in?}; the dict has no access_token or token
mcp_connect: the auth function must return a token string or a dict {access_token | token, token_type?, expires_in?}; expires_in must be a number of seconds, at least 0
no credentials here
mcp_reauth_expired: cannot re-authenticate "api": the vault is sealed
STILL
`)
}

// Given a URL, mcp_host_discover reads the origin's discovery document
// and returns a config that connects to its endpoint.
func TestDiscoverURL(t *testing.T) {
	srv := protocol.NewServer(&provider{}, protocol.Options{})
	ts := httptest.NewServer(srv.HTTPHandler(protocol.HTTPOptions{Discovery: &protocol.Discovery{Name: "go-fixture", Version: "2.0.0"}}))
	defer ts.Close()
	expect(t, `
let found = mcp_host_discover("`+ts.URL+`")
println(len(found))
let d = found[0]
println("${d.name} ${d.transport} ${d.config.url == "`+ts.URL+`/mcp"} ${d.source} ${d.error} ${d.card.name}")
let c = mcp_ensure_active(d.name, d.config)
println(mcp_call(c, "shout", {text: "found"}))
try { mcp_host_discover("ftp://example.com") } catch (e) { println(e) }
try { mcp_host_discover(42) } catch (e) { println(e) }
`, `
1
go-fixture http true `+ts.URL+` nil go-fixture
FOUND
mcp_host_discover: "ftp://example.com" is not an http(s) URL
Runtime error: mcp_host_discover: expected the URL of an HTTP MCP server, got int
`)
}
