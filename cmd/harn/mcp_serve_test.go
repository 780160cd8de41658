package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/orchestrator"
)

// End-to-end tests of `harn mcp serve` and `harn orchestrator`: the test
// binary re-executed as harn (TestMain), on the fixture project
// testdata/orchestrator-fixture, over stdio and HTTP.

const fixtureManifest = "../../testdata/orchestrator-fixture/harn.toml"

// harnProc is a running `harn` subprocess.
type harnProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	mu     sync.Mutex
	stderr bytes.Buffer
	lines  chan string   // stderr lines
	eof    chan struct{} // closed when stderr is read to its end
}

func startHarn(t *testing.T, env []string, args ...string) *harnProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "HARN_TEST_MAIN=1"), env...)
	p := &harnProc{cmd: cmd, lines: make(chan string, 256), eof: make(chan struct{})}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdout = bufio.NewReader(out)
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		close(p.lines)
		close(p.eof)
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.wait()
		}
	})
	return p
}

// wait reads stderr to its end, then reaps the process (Wait closes the
// pipe, so it must come last).
func (p *harnProc) wait() error {
	<-p.eof
	return p.cmd.Wait()
}

func (p *harnProc) errText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// waitLine waits for a stderr line matching re.
func (p *harnProc) waitLine(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("harn exited before %s; stderr:\n%s", re, p.errText())
			}
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-timeout:
			t.Fatalf("no %s; stderr:\n%s", re, p.errText())
		}
	}
}

// rpc sends one JSON-RPC request on stdio and reads lines until its
// response.
func (p *harnProc) rpc(t *testing.T, id int, method string, params any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	for {
		line, err := p.stdout.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: %v; stderr:\n%s", method, err, p.errText())
		}
		var m map[string]any
		if json.Unmarshal(line, &m) == nil && m["id"] == float64(id) {
			return m
		}
	}
}

func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func callArgs(name string, args any) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

func TestMcpServeStdio(t *testing.T) {
	state := t.TempDir()
	p := startHarn(t, nil, "mcp", "serve", "--config", fixtureManifest, "--state-dir", state)
	p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP stdio server ready$`))
	init := p.rpc(t, 1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}})
	if dig(init, "result", "serverInfo", "name") != "harn-orchestrator" {
		t.Fatalf("initialize %v", init)
	}
	p.stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))

	list := p.rpc(t, 2, "tools/call", callArgs("harn.trigger.list", map[string]any{}))
	if n := len(dig(list, "result", "structuredContent", "triggers").([]any)); n != 4 {
		t.Fatalf("list %v", list)
	}
	fire := p.rpc(t, 3, "tools/call", callArgs("harn.trigger.fire", map[string]any{"trigger_id": "manual-ok", "payload": map[string]any{}}))
	if dig(fire, "result", "structuredContent", "status") != "succeeded" {
		t.Fatalf("fire %v", fire)
	}
	dead := p.rpc(t, 4, "tools/call", callArgs("harn.trigger.fire", map[string]any{"trigger_id": "cron-fail", "payload": map[string]any{}}))
	entry, _ := dig(dead, "result", "structuredContent", "dlq_entry_id").(string)
	if dig(dead, "result", "structuredContent", "status") != "dlq" || entry == "" {
		t.Fatalf("dead %v", dead)
	}
	dlq := p.rpc(t, 5, "tools/call", callArgs("harn.orchestrator.dlq.list", map[string]any{}))
	if dig(dlq, "result", "structuredContent", "entries", 0, "id") != entry {
		t.Fatalf("dlq %v", dlq)
	}
	retry := p.rpc(t, 6, "tools/call", callArgs("harn.orchestrator.dlq.retry", map[string]any{"entry_id": entry}))
	if dig(retry, "result", "structuredContent", "handle", "replay_of_event_id") != dig(dead, "result", "structuredContent", "event_id") {
		t.Fatalf("retry %v", retry)
	}
	eventID := dig(fire, "result", "structuredContent", "event_id").(string)
	replay := p.rpc(t, 7, "tools/call", callArgs("harn.trigger.replay", map[string]any{"event_id": eventID}))
	if dig(replay, "result", "structuredContent", "replay_of_event_id") != eventID {
		t.Fatalf("replay %v", replay)
	}
	queue := p.rpc(t, 8, "tools/call", callArgs("harn.orchestrator.queue", map[string]any{}))
	if dig(queue, "result", "structuredContent", "outbox", "count") != 4.0 {
		t.Fatalf("queue %v", queue)
	}
	insp := p.rpc(t, 9, "tools/call", callArgs("harn.orchestrator.inspect", map[string]any{}))
	if dig(insp, "result", "structuredContent", "snapshot", "bind") != "stdio" {
		t.Fatalf("inspect %v", insp)
	}
	// docs/spec/orchestrator.md §5.1: these keys and no others.
	var keys []string
	for k := range dig(insp, "result", "structuredContent").(map[string]any) {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, " "); got != "activations budget connectors dispatcher recent_dispatches snapshot triggers" {
		t.Errorf("inspect keys %s", got)
	}
	res := p.rpc(t, 10, "resources/read", map[string]any{"uri": "harn://event/" + eventID})
	if !strings.Contains(dig(res, "result", "contents", 0, "text").(string), `"x-harn-mcp-client": "e2e/1"`) {
		t.Fatalf("event %v", res)
	}
	prompt := p.rpc(t, 11, "prompts/get", map[string]any{"name": "review", "arguments": map[string]any{"code": "x = 1", "language": "python"}})
	if dig(prompt, "result", "messages", 0, "content", "text") != "Review this python code:\nx = 1\n" {
		t.Fatalf("prompt %v", prompt)
	}
	p.stdin.Close()
	if err := p.wait(); err != nil {
		t.Fatalf("exit: %v; stderr:\n%s", err, p.errText())
	}
	// docs/spec/orchestrator.md §12: exactly this line per call, no more fields.
	callLine := regexp.MustCompile(`(?m)^\[harn\] mcp: client=e2e/1 tool=\S+ status=completed trace_id=mcp_[0-9a-f]{32}$`)
	if got := len(callLine.FindAllString(p.errText(), -1)); got != 8 || strings.Count(p.errText(), "[harn] mcp: client=") != 8 {
		t.Errorf("%d tool-call lines of the §12 form; stderr:\n%s", got, p.errText())
	}
	snap, _ := os.ReadFile(filepath.Join(state, orchestrator.SnapshotFile))
	if !strings.Contains(string(snap), `"status": "stopped"`) {
		t.Errorf("snapshot %s", snap)
	}

	// The operator CLI reads the same state directory.
	var out, errb bytes.Buffer
	if code := run([]string{"orchestrator", "dlq", "list", "--json", "--config", fixtureManifest, "--state-dir", state}, nil, &out, &errb); code != 0 {
		t.Fatalf("dlq list: %d %s", code, errb.String())
	}
	// The retried event failed again: one new entry, not the retried one.
	var pending struct{ Entries []orchestrator.DLQEntry }
	json.Unmarshal(out.Bytes(), &pending)
	if len(pending.Entries) != 1 || pending.Entries[0].ID == entry || pending.Entries[0].EventID != dig(retry, "result", "structuredContent", "handle", "event_id") {
		t.Fatalf("dlq list after retry: %s", out.String())
	}
	out.Reset()
	if code := run([]string{"orchestrator", "replay", eventID, "--config", fixtureManifest, "--state-dir", state}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "status:  succeeded") || !strings.Contains(out.String(), "replay of: "+eventID) {
		t.Fatalf("replay: %d %s %s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run([]string{"orchestrator", "inspect", "--config", fixtureManifest, "--state-dir", state}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "manual-ok") || !strings.Contains(out.String(), "received 3") ||
		!regexp.MustCompile(`^node \S+, event log sqlite\n`).MatchString(out.String()) {
		t.Fatalf("inspect: %d %s %s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run([]string{"orchestrator", "fire", "cron-fail", "--json", "--config", fixtureManifest, "--state-dir", state}, nil, &out, &errb); code != 1 || !strings.Contains(out.String(), `"status": "dlq"`) {
		t.Fatalf("fire failing: %d %s %s", code, out.String(), errb.String())
	}
}

func TestMcpServeHTTP(t *testing.T) {
	state := t.TempDir()
	p := startHarn(t, []string{"HARN_ORCHESTRATOR_API_KEYS=k1,k2"}, "mcp", "serve", "--config", fixtureManifest, "--state-dir", state, "--transport", "http", "--bind", "127.0.0.1:0")
	endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP HTTP listener ready on (http://\S+)$`))[1]
	base := strings.TrimSuffix(endpoint, "/mcp")
	post := func(method, name string, params map[string]any, key string) (int, map[string]any) {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": map[string]any{"name": "curl", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		req, _ := http.NewRequest("POST", endpoint, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", name)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if code, _ := post("tools/call", "harn.trigger.list", callArgs("harn.trigger.list", map[string]any{}), ""); code != 401 {
		t.Fatalf("no key: %d", code)
	}
	code, fire := post("tools/call", "harn.trigger.fire", callArgs("harn.trigger.fire", map[string]any{"trigger_id": "manual-ok", "payload": map[string]any{}}), "k2")
	if code != 200 || dig(fire, "result", "structuredContent", "status") != "succeeded" || dig(fire, "result", "resultType") != "complete" {
		t.Fatalf("fire %d %v", code, fire)
	}
	resp, err := http.Get(base + "/.well-known/mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	var disc map[string]any
	json.NewDecoder(resp.Body).Decode(&disc)
	resp.Body.Close()
	if disc["endpoint"] != endpoint || disc["name"] != "harn-orchestrator" {
		t.Fatalf("discovery %v", disc)
	}
	// Webhook deliveries share the listener; an unsigned binding needs
	// the server's credentials.
	hook := func(key, body, delivery string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", base+"/hooks/push", strings.NewReader(body))
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		req.Header.Set("X-Harn-Delivery-Id", delivery)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if code, _ := hook("", `{}`, "a"); code != 401 {
		t.Fatalf("hook without key: %d", code)
	}
	body := `{"ref":"refs/heads/main","commits":[{"id":"c1"}]}`
	code, ack := hook("k1", body, "d-1")
	if code != 202 || ack["status"] != "accepted" {
		t.Fatalf("hook %d %v", code, ack)
	}
	if code, again := hook("k1", body, "d-1"); code != 202 || again["duplicate"] != true || again["event_id"] != ack["event_id"] {
		t.Fatalf("redelivery %d %v", code, again)
	}
	// The delivery is dispatched asynchronously: wait for its outcome.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, ev := post("resources/read", "harn://event/"+ack["event_id"].(string), map[string]any{"uri": "harn://event/" + ack["event_id"].(string)}, "k1")
		text, _ := dig(ev, "result", "contents", 0, "text").(string)
		if strings.Contains(text, `"dispatch_succeeded"`) {
			if !strings.Contains(text, `"received": "refs/heads/main"`) {
				t.Fatalf("event %s", text)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery not dispatched: %s", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, p.errText())
	}
	snap, _ := os.ReadFile(filepath.Join(state, orchestrator.SnapshotFile))
	var s map[string]any
	json.Unmarshal(snap, &s)
	if s["status"] != "stopped" || !strings.Contains(fmt.Sprint(s["connectors"]), "webhook") {
		t.Fatalf("snapshot %s", snap)
	}
}

func TestMcpServeRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "harn.toml")
	os.WriteFile(bad, []byte("[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"f\"\nretry = { max = 500 }\n"), 0o644)
	// A handler missing from lib.harn is found when the handlers load,
	// after the static checks; it is located like them.
	undefined := filepath.Join(dir, "undefined", "harn.toml")
	os.MkdirAll(filepath.Dir(undefined), 0o755)
	os.WriteFile(undefined, []byte("[package]\nname = \"u\"\n\n[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"nope\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "undefined", "lib.harn"), []byte("fn f(e) { return 1 }\n"), 0o644)
	// A webhook on the MCP endpoint's path would never receive a delivery.
	hookAtMCP := filepath.Join(dir, "hook", "harn.toml")
	os.MkdirAll(filepath.Dir(hookAtMCP), 0o755)
	os.WriteFile(hookAtMCP, []byte("[[triggers]]\nid = \"in\"\nkind = \"webhook\"\nhandler = \"f\"\nwebhook = { path = \"/mcp\" }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "hook", "lib.harn"), []byte("fn f(e) { return 1 }\n"), 0o644)
	// docs/spec/orchestrator.md §1: the flags' environment variables and
	// defaults, seen through what each refuses.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	notDir := filepath.Join(dir, "file")
	os.WriteFile(notDir, nil, 0o644)
	cases := []struct {
		args []string
		env  []string
		code int
		want string
	}{
		{[]string{"mcp", "serve", "--config", filepath.Join(dir, "missing.toml")}, nil, 1, "failed to read manifest " + filepath.Join(dir, "missing.toml") + ": no such file or directory"},
		{[]string{"mcp", "serve", "--manifest", filepath.Join(dir, "alias.toml")}, nil, 1, "failed to read manifest " + filepath.Join(dir, "alias.toml") + ": no such file or directory"},
		{[]string{"mcp", "serve"}, []string{"HARN_ORCHESTRATOR_MANIFEST=" + filepath.Join(dir, "env.toml")}, 1, "failed to read manifest " + filepath.Join(dir, "env.toml") + ": no such file or directory"},
		{[]string{"mcp", "serve"}, []string{"HARN_ORCHESTRATOR_MANIFEST="}, 1, "failed to read manifest harn.toml: no such file or directory"},
		{[]string{"mcp", "serve", "--config", fixtureManifest}, []string{"HARN_ORCHESTRATOR_STATE_DIR=" + notDir}, 1, "error: cannot create state directory " + notDir + ": not a directory"},
		{[]string{"mcp", "serve", "--config", fixtureManifest, "--state-dir", dir, "--transport", "http"}, []string{"HARN_MCP_SERVE_BIND=" + busy.Addr().String()}, 1, "error: listen tcp " + busy.Addr().String() + ": bind: address already in use"},
		{[]string{"mcp", "serve", "--config", bad, "--state-dir", dir}, nil, 1, "error: invalid manifest " + bad + ":\n  " + bad + ":1: [[triggers]][0] (id \"x\"): retry.max: must be between 0 and 100, got 500"},
		{[]string{"mcp", "serve", "--config", undefined, "--state-dir", dir}, nil, 1, "  " + undefined + ":4: [[triggers]][0] (id \"x\"): handler: function nope is not defined in lib.harn"},
		{[]string{"orchestrator", "queue", "--config", undefined, "--state-dir", dir}, nil, 1, "error: invalid manifest " + undefined + ":\n  " + undefined + ":4: [[triggers]][0] (id \"x\"): handler: function nope is not defined in lib.harn"},
		{[]string{"mcp", "serve", "--transport", "carrier-pigeon"}, nil, 2, "--transport must be stdio or http"},
		{[]string{"mcp", "serve", "--bogus"}, nil, 2, `unknown option --bogus`},
		{[]string{"mcp", "serve", "--config", fixtureManifest, "--state-dir", dir, "--transport", "http"}, []string{"HARN_MCP_OAUTH_AUTHORIZATION_SERVERS=https://auth.example.com"}, 1, "HARN_MCP_OAUTH_AUTHORIZATION_SERVERS requires"},
		// The manifest is read before the auth configuration
		// (docs/spec/orchestrator.md §1): with both wrong, the manifest is reported.
		{[]string{"mcp", "serve", "--config", bad, "--state-dir", dir, "--transport", "http"}, []string{"HARN_MCP_OAUTH_AUTHORIZATION_SERVERS=https://auth.example.com"}, 1, "error: invalid manifest " + bad + ":"},
		{[]string{"mcp", "serve", "--config", hookAtMCP, "--state-dir", dir, "--transport", "http", "--bind", "127.0.0.1:0"}, nil, 1, `(id "in"): webhook.path: /mcp is the MCP endpoint (--path)`},
		{[]string{"mcp", "serve", "--path", "/.well-known/mcp.json"}, nil, 2, `error: --path must not be under /.well-known/`},
		// A key list with no key would serve without authentication.
		{[]string{"mcp", "serve", "--config", fixtureManifest, "--state-dir", dir, "--transport", "http", "--bind", "127.0.0.1:0"}, []string{"HARN_ORCHESTRATOR_API_KEYS= , "}, 1, `error: HARN_ORCHESTRATOR_API_KEYS holds no API key (" , "); give one or more keys separated by commas`},
		{[]string{"orchestrator", "inspect", "--config", fixtureManifest, "--state-dir", filepath.Join(dir, "mistyped")}, []string{"HARN_EVENT_LOG_URL="}, 1, "error: no state directory " + filepath.Join(dir, "mistyped") + " (start harn mcp serve with it first, or pass --state-dir)"},
		{[]string{"mcp", "serve", "--state-dir", ""}, nil, 2, "error: --state-dir needs a value, got an empty one\n"},
		{[]string{"mcp", "serve", "--config="}, nil, 2, "error: --config needs a value, got an empty one\n"},
		{[]string{"orchestrator", "queue", "--manifest", ""}, nil, 2, "error: --manifest needs a value, got an empty one\n"},
		{[]string{"orchestrator", "fire"}, nil, 2, "error: fire needs TRIGGER_ID\n"},
		{[]string{"orchestrator", "fire", "a", "b"}, nil, 2, "error: fire takes one argument, TRIGGER_ID; got 2: a b\n"},
		{[]string{"orchestrator", "dlq", "retry"}, nil, 2, "error: dlq retry needs ENTRY_ID\n"},
		{[]string{"orchestrator", "queue", "extra"}, nil, 2, "error: queue takes no argument, got extra\n"},
		{[]string{"orchestrator", "dlq", "show"}, nil, 2, "error: unknown dlq command \"show\" (list or retry)\n"},
		{[]string{"orchestrator", "fire", "nope", "--config", fixtureManifest, "--state-dir", dir}, nil, 1, "error: unknown manifest binding 'nope'"},
		{[]string{"orchestrator", "queue", "--payload", "{}"}, nil, 2, "--payload applies to fire only"},
		{[]string{"orchestrator", "fire", "manual-ok", "--payload", "[1,2]"}, nil, 2, "error: --payload must be a JSON object (the event fields merged over the synthetic event), got array"},
		{[]string{"orchestrator", "fire", "manual-ok", "--payload", "null"}, nil, 2, "got null"},
	}
	for _, c := range cases {
		// Every case is refused at start; one that serves instead is
		// killed after a minute and fails.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], c.args...)
		cmd.Env = append(append(os.Environ(), "HARN_TEST_MAIN=1", "HARN_ORCHESTRATOR_API_KEYS="), c.env...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		cmd.Stdin = strings.NewReader("")
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}

// serveOnce runs harn mcp serve on the state directory until its stdin
// ends, so that the directory holds an event log with the bindings
// registered: the operator commands work on such a log only.
func serveOnce(t *testing.T, config, state string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"mcp", "serve", "--config", config, "--state-dir", state}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("mcp serve: exit %d\n%s", code, errb.String())
	}
}

// TestOrchestratorCLIWithoutWebhookSecret: the operator CLI and a stdio
// server receive no webhook deliveries, so an unset webhook.secret_env
// must not stop them;
// the read-only commands run no handler, so neither must an unset
// trigger secret. A dispatching command still needs the handler secrets.
func TestOrchestratorCLIWithoutWebhookSecret(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "harn.toml")
	os.WriteFile(config, []byte(`[package]
name = "hooks"

[[triggers]]
id = "push"
kind = "webhook"
handler = "on_push"
webhook = { secret_env = "HARN_TEST_UNSET_WEBHOOK_SECRET" }

[[triggers]]
id = "by-hand"
kind = "manual"
handler = "on_push"

[[triggers]]
id = "with-secret"
kind = "manual"
handler = "on_push"
secrets = { token = "test/unset-token" }
`), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("fn on_push(event) { return {ok: true} }\n"), 0o644)
	state := filepath.Join(dir, "state")
	t.Setenv("HARN_SECRET_TEST_UNSET_TOKEN", "set") // the server needs it; the commands below unset it
	serveOnce(t, config, state)
	token := "HARN_SECRET_TEST_UNSET_TOKEN="
	run := func(args ...string) (int, string) {
		cmd := exec.Command(os.Args[0], append(args, "--config", config, "--state-dir", state)...)
		cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1", "HARN_TEST_UNSET_WEBHOOK_SECRET=", token)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return code, string(out)
	}
	for _, args := range [][]string{{"orchestrator", "queue"}, {"orchestrator", "dlq", "list"}, {"orchestrator", "inspect"}} {
		if code, out := run(args...); code != 0 {
			t.Errorf("%v: exit %d:\n%s", args, code, out)
		}
	}
	// fire makes the CLI a worker node, which may run any handler.
	if code, out := run("orchestrator", "fire", "by-hand"); code != 1 || !strings.Contains(out, "HARN_SECRET_TEST_UNSET_TOKEN (secret test/unset-token) is not set") {
		t.Errorf("fire with an unset handler secret: exit %d:\n%s", code, out)
	}
	token = "HARN_SECRET_TEST_UNSET_TOKEN=set"
	if code, out := run("orchestrator", "fire", "by-hand"); code != 0 {
		t.Errorf("fire with the handler secrets: exit %d:\n%s", code, out)
	}
	// A stdio server receives no deliveries either; an HTTP one needs
	// the secret.
	if code, out := run("mcp", "serve"); code != 0 || !strings.Contains(out, "MCP stdio server ready") {
		t.Errorf("stdio serve with an unset webhook secret: exit %d:\n%s", code, out)
	}
	if code, out := run("mcp", "serve", "--transport", "http", "--bind", "127.0.0.1:0"); code != 1 || !strings.Contains(out, "HARN_TEST_UNSET_WEBHOOK_SECRET (the webhook's HMAC secret) is not set") {
		t.Errorf("http serve with an unset webhook secret: exit %d:\n%s", code, out)
	}
}

// An operator command brings no events in, so it does not repeat the
// server's warning about triggers this build runs no connector for
// (docs/orchestrator.md, manifest reference).
func TestOrchestratorCommandsDoNotWarnAboutConnectors(t *testing.T) {
	dir := t.TempDir()
	manifestPath := filepath.Join(dir, "harn.toml")
	os.WriteFile(manifestPath, []byte("[package]\nname = \"p\"\n\n[[triggers]]\nid = \"issues\"\nkind = \"poll\"\nprovider = \"github\"\nhandler = \"echo\"\n\n[[triggers]]\nid = \"now\"\nkind = \"manual\"\nhandler = \"echo\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.harn"), []byte("fn echo(event) { return event.payload }\n"), 0o644)
	state := filepath.Join(dir, "state")
	serveOnce(t, manifestPath, state)
	for _, args := range [][]string{{"queue"}, {"inspect"}, {"dlq", "list"}, {"fire", "now"}} {
		var out, errb bytes.Buffer
		if code := run(append(append([]string{"orchestrator"}, args...), "--config", manifestPath, "--state-dir", state), nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d; stderr:\n%s", args, code, errb.String())
		}
		if strings.Contains(errb.String(), "connector") {
			t.Errorf("%v warned: %s", args, errb.String())
		}
	}
}

// SIGTERM while an inline harn.trigger.fire waits for a slow handler
// drains the server: the call is answered with the attempt's real
// outcome before the process exits, over HTTP and over stdio
// (docs/orchestrator.md, Shutdown). The handler outlasts the 5 s a plain
// HTTP server gives its requests to finish.
func TestMcpServeDrainsInFlightFireOnSIGTERM(t *testing.T) {
	// project writes a project whose handler marks the file it returns
	// when it starts.
	project := func(t *testing.T) (config, marker string) {
		dir := t.TempDir()
		config, marker = filepath.Join(dir, "harn.toml"), filepath.Join(dir, "started")
		os.WriteFile(config, []byte("[package]\nname = \"drain\"\n\n[[triggers]]\nid = \"slow\"\nkind = \"manual\"\nhandler = \"on_slow\"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "lib.harn"), []byte(fmt.Sprintf("fn on_slow(event) {\n  write_file(%q, \"yes\")\n  sleep(6000)\n  return {ok: true}\n}\n", marker)), 0o644)
		return config, marker
	}
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": map[string]any{"name": "t", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	params := map[string]any{"name": "harn.trigger.fire", "arguments": map[string]any{"trigger_id": "slow", "payload": map[string]any{}}, "_meta": meta}
	// terminateOnceStarted sends SIGTERM once the handler runs.
	terminateOnceStarted := func(t *testing.T, p *harnProc, marker string) {
		waitForMarker(t, p, marker)
		p.cmd.Process.Signal(syscall.SIGTERM)
	}

	t.Run("http", func(t *testing.T) {
		t.Parallel()
		config, marker := project(t)
		p := startHarn(t, nil, "mcp", "serve", "--config", config, "--state-dir", filepath.Join(filepath.Dir(config), "state"), "--transport", "http", "--bind", "127.0.0.1:0")
		endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP HTTP listener ready on (http://\S+)$`))[1]
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
		req, _ := http.NewRequest("POST", endpoint, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "harn.trigger.fire")
		go terminateOnceStarted(t, p, marker)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("fire during shutdown: %v; stderr:\n%s", err, p.errText())
		}
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if dig(m, "result", "structuredContent", "status") != "succeeded" {
			t.Errorf("fire during shutdown: %d %v", resp.StatusCode, m)
		}
		if err := p.wait(); err != nil {
			t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, p.errText())
		}
		if !strings.Contains(p.errText(), "tool=harn.trigger.fire status=completed") {
			t.Errorf("the call is not recorded completed; stderr:\n%s", p.errText())
		}
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		config, marker := project(t)
		p := startHarn(t, nil, "mcp", "serve", "--config", config, "--state-dir", filepath.Join(filepath.Dir(config), "state"))
		p.waitLine(t, regexp.MustCompile(`MCP stdio server ready`))
		go terminateOnceStarted(t, p, marker)
		m := p.rpc(t, 1, "tools/call", params)
		if dig(m, "result", "structuredContent", "status") != "succeeded" {
			t.Errorf("fire during shutdown: %v", m)
		}
		if err := p.wait(); err != nil {
			t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, p.errText())
		}
	})
}
