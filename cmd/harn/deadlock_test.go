package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A wait that nothing can end, in a tool command's script or handler,
// fails with the deadlock error instead of hanging the command (issue
// 13; docs/tool-run.md, docs/mcp.md "Deadlocks"). The commands run as
// subprocesses, bounded in time, so a hang fails the test.

const deadlockText = "Error [deadlock]: every task is waiting for another task; none can continue"

// deadlockHandlers serves stuck, whose handler waits on a channel no
// task has, and ok.
const deadlockHandlers = `import { tool_registry_from } from "std/tools"

fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "stuck", description: "Waits forever.", handler: {args -> receive(channel())}},
    {name: "ok", description: "Answers.", handler: {args -> "fine"}},
  ], {info: {name: "dl", version: "1.0.0"}}))
}
`

// deadlockLoad waits forever before it publishes its registry.
const deadlockLoad = `import { tool_registry_from } from "std/tools"

fn main(harness: Harness) {
  let _v = receive(channel())
  harness.tools.mcp_tools(tool_registry_from([{name: "ok", handler: {args -> "fine"}}]))
}
`

// deadlockExports is a module whose initialisation waits forever.
const deadlockExports = `let ready = receive(channel())

/// Adds two numbers.
pub fn add(a: int, b: int) -> int {
  return a + b
}
`

// runHarnBounded runs the harn command as a subprocess with no input
// and returns its output and exit status; it fails the test when the
// command runs for more than a minute.
func runHarnBounded(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("harn %s hung; stderr:\n%s", strings.Join(args, " "), errb.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func writeHarnFile(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// harn tool run reports a deadlocked handler as it reports any handler
// failure: on stderr, exit status 1.
func TestToolRunDeadlockedHandler(t *testing.T) {
	p := writeHarnFile(t, "dl.harn", deadlockHandlers)
	stdout, stderr, code := runHarnBounded(t, "tool", "run", p, "stuck")
	if code != 1 || stdout != "" || stderr != `error: tool "stuck" failed: `+deadlockText+"\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stdout, _, code := runHarnBounded(t, "tool", "run", p, "ok"); code != 0 || stdout != "\"fine\"\n" {
		t.Errorf("ok: exit %d, stdout %q", code, stdout)
	}
}

// Every command that loads a script or module reports a deadlock while
// loading as a load failure: the error on stderr, located as harn run
// locates it (docs/tool-schema.md), exit status 1.
func TestToolCommandsDeadlockedLoad(t *testing.T) {
	script := writeHarnFile(t, "load.harn", deadlockLoad)
	module := writeHarnFile(t, "lib.harn", deadlockExports)
	for _, args := range [][]string{
		{"tool", "schema", script},
		{"tool", "completions", script, "--shell", "bash"},
		{"tool", "run", script, "ok"},
		{"tool", "sdk", script, "--lang", "ts", "--out", t.TempDir()},
		{"serve", "mcp", script},
		{"tool", "run", "--surface", "exports", module, "add", "--a", "1", "--b", "2"},
		{"tool", "completions", module, "--shell", "bash"},
		{"serve", "mcp", module},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			stdout, stderr, code := runHarnBounded(t, args...)
			if code != 1 || stdout != "" || !strings.Contains(stderr, "error: "+deadlockText+"\n  --> ") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
			}
		})
	}
}

// harn serve mcp over stdio answers a deadlocked call with a tool error,
// answers the calls after it, and exits 0 at the end of stdin.
func TestServeMCPStdioDeadlockedCall(t *testing.T) {
	p := startHarn(t, nil, "serve", "mcp", writeHarnFile(t, "dl.harn", deadlockHandlers))
	p.waitLine(t, regexp.MustCompile(`serve mcp: serving 2 tools`))
	// A hung server is killed, so that the reads below fail instead of
	// blocking.
	watchdog := time.AfterFunc(time.Minute, func() { p.cmd.Process.Kill() })
	defer watchdog.Stop()
	p.rpc(t, 1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "1"}})
	m := p.rpc(t, 2, "tools/call", map[string]any{"name": "stuck"})
	if dig(m, "result", "isError") != true || !strings.Contains(fmt.Sprint(dig(m, "result", "content", 0, "text")), deadlockText) {
		t.Errorf("stuck: %v", m)
	}
	if m := p.rpc(t, 3, "tools/call", map[string]any{"name": "ok"}); dig(m, "result", "content", 0, "text") != "fine" {
		t.Errorf("ok after stuck: %v", m)
	}
	// A deadlocked call still in progress at the end of stdin is answered
	// too, and the process exits.
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": map[string]any{"name": "stuck"}})
	p.stdin.Write(append(b, '\n'))
	p.stdin.Close()
	rest, _ := io.ReadAll(p.stdout)
	if !strings.Contains(string(rest), `"id":4`) || !strings.Contains(string(rest), "[deadlock]") {
		t.Errorf("the call in progress at the end of stdin: %s", rest)
	}
	exited := make(chan error, 1)
	go func() { exited <- p.wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v; stderr:\n%s", err, p.errText())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("harn serve mcp did not exit at the end of stdin")
	}
}

// Over HTTP the deadlocked call is answered the same way, and the calls
// after it are served.
func TestServeMCPHTTPDeadlockedCall(t *testing.T) {
	base := startServeHTTP(t, writeHarnFile(t, "dl.harn", deadlockHandlers))
	call := func(name string) map[string]any {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", name)
		client := &http.Client{Timeout: 30 * time.Second}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return m
	}
	if m := call("stuck"); dig(m, "result", "isError") != true || !strings.Contains(fmt.Sprint(dig(m, "result", "content", 0, "text")), deadlockText) {
		t.Errorf("stuck: %v", m)
	}
	if m := call("ok"); dig(m, "result", "content", 0, "text") != "fine" {
		t.Errorf("ok after stuck: %v", m)
	}
}
