package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startServeHTTP runs `harn serve mcp --transport http` as a subprocess
// on a free loopback port and returns its base URL; the process is
// killed when the test ends.
func startServeHTTP(t *testing.T, args ...string) string {
	t.Helper()
	base, _ := startServeHTTPCmd(t, nil, args...)
	return base
}

// startServeHTTPCmd is startServeHTTP with extra environment, returning
// the process too.
func startServeHTTPCmd(t *testing.T, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	base, cmd, _ := startServeHTTPLog(t, env, args...)
	return base, cmd
}

// startServeHTTPLog is startServeHTTPCmd that also returns the lines the
// server wrote to stderr before it listened.
func startServeHTTPLog(t *testing.T, env []string, args ...string) (string, *exec.Cmd, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(append(os.Environ(), "HARN_TEST_MAIN=1"), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	type started struct {
		base   string
		before []string
	}
	found := make(chan started, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var before []string
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "[harn] serve mcp: listening on "); ok {
				found <- started{strings.TrimSuffix(rest, "/mcp"), before}
			}
			before = append(before, sc.Text())
		}
		close(found)
	}()
	select {
	case s, ok := <-found:
		if !ok {
			t.Fatal("server exited before listening")
		}
		return s.base, cmd, s.before
	case <-time.After(60 * time.Second):
		t.Fatal("server did not start listening")
	}
	return "", nil, nil
}

// A signal stops the HTTP server cleanly: status 0, the listener closed
// and main's CPU profile written (it is flushed only when the command
// returns).
func TestServeMCPHTTPStopsOnSignal(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			p := writeServeScript(t, serveWidget)
			profile := filepath.Join(t.TempDir(), "cpu.pprof")
			base, cmd := startServeHTTPCmd(t, []string{"HARN_CPUPROFILE=" + profile}, "--surface", "script", p)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("exit: %v, want status 0", err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("server did not stop")
			}
			if c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://")); err == nil {
				c.Close()
				t.Error("the listener still accepts connections")
			}
			if info, err := os.Stat(profile); err != nil || info.Size() == 0 {
				t.Errorf("CPU profile not written: %v", err)
			}
		})
	}
}

func TestServeMCPHTTP(t *testing.T) {
	p := writeServeScript(t, serveWidget)
	base := startServeHTTP(t, "--surface", "script", "--api-key", "k1", p)
	post := func(key string) (int, map[string]any) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup_widget","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "lookup_widget")
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		b, _ := io.ReadAll(resp.Body)
		json.Unmarshal(b, &m)
		return resp.StatusCode, m
	}
	if status, m := post(""); status != 401 || m["error"].(map[string]any)["code"] != float64(-32001) {
		t.Errorf("without a key: %d %v", status, m)
	}
	if status, m := post("k1"); status != 200 || m["result"].(map[string]any)["isError"] != false {
		t.Errorf("with a key: %d %v", status, m)
	}
	for path, want := range map[string]int{"/mcp": 405, "/.well-known/mcp.json": 404, "/.well-known/oauth-protected-resource/mcp": 404} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// SIGTERM while a tool call runs drains `harn serve mcp` (docs/mcp.md,
// Stopping): a call that finishes within the 5 s grace is answered with
// its real result, one still running then with -32603 "server is
// shutting down" rather than a dropped connection or no line at all, and
// a call received meanwhile is refused with that error; the process
// exits 0. The end of stdin lets the call in flight finish too.
func TestServeMCPDrainsInFlightCallOnSIGTERM(t *testing.T) {
	// script serves nap (3 s) and stall (20 s); each writes its marker
	// file when it starts.
	script := func(t *testing.T) (path, dir string) {
		dir = t.TempDir()
		src := fmt.Sprintf(`import { tool_registry_from } from "std/tools"
fn nap(args) {
  write_file(%q, "yes")
  sleep(3000)
  return {slept: 3000}
}
fn stall(args) {
  write_file(%q, "yes")
  sleep(20000)
  return {slept: 20000}
}
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "nap", description: "Sleep 3 s.", handler: nap},
    {name: "stall", description: "Sleep 20 s.", handler: stall},
  ], {info: {name: "sleepy", version: "1.0.0"}}))
}
`, filepath.Join(dir, "nap"), filepath.Join(dir, "stall"))
		path = filepath.Join(dir, "server.harn")
		os.WriteFile(path, []byte(src), 0o644)
		return path, dir
	}
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": map[string]any{"name": "t", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	call := func(id int, name string) []byte {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "_meta": meta}})
		return b
	}
	isReal := func(m map[string]any) bool {
		return dig(m, "result", "isError") == false && strings.Contains(fmt.Sprint(dig(m, "result", "content")), "slept")
	}
	isShuttingDown := func(m map[string]any) bool {
		return dig(m, "error", "code") == float64(-32603) && dig(m, "error", "message") == "server is shutting down"
	}
	exited := func(t *testing.T, p *harnProc, signalled time.Time) {
		t.Helper()
		if err := p.wait(); err != nil {
			t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, p.errText())
		}
		// 5 s grace, 2 s for cut-short calls to settle, plus slack.
		if d := time.Since(signalled); d > 12*time.Second {
			t.Errorf("exited %s after SIGTERM", d)
		}
	}

	for _, tool := range []string{"nap", "stall"} {
		t.Run("http/"+tool, func(t *testing.T) {
			t.Parallel()
			path, dir := script(t)
			p := startHarn(t, nil, "serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", path)
			endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] serve mcp: listening on (http://\S+)$`))[1]
			req, _ := http.NewRequest("POST", endpoint, bytes.NewReader(call(1, tool)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", tool)
			signalled := make(chan time.Time, 1)
			go func() {
				waitForMarker(t, p, filepath.Join(dir, tool))
				signalled <- time.Now()
				p.cmd.Process.Signal(syscall.SIGTERM)
			}()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("call during shutdown: %v; stderr:\n%s", err, p.errText())
			}
			var m map[string]any
			err = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("call during shutdown: %d, %v; stderr:\n%s", resp.StatusCode, err, p.errText())
			}
			if ok := map[string]bool{"nap": isReal(m), "stall": isShuttingDown(m)}[tool]; !ok {
				t.Errorf("%s during shutdown: %d %v", tool, resp.StatusCode, m)
			}
			exited(t, p, <-signalled)
		})
	}
	// read reads the next JSON-RPC message on stdout.
	read := func(t *testing.T, p *harnProc) map[string]any {
		t.Helper()
		line, err := p.stdout.ReadBytes('\n')
		if err != nil {
			t.Fatalf("stdout: %v; stderr:\n%s", err, p.errText())
		}
		var m map[string]any
		json.Unmarshal(line, &m)
		return m
	}
	for _, tool := range []string{"nap", "stall"} {
		t.Run("stdio/"+tool, func(t *testing.T) {
			t.Parallel()
			path, dir := script(t)
			p := startHarn(t, nil, "serve", "mcp", path)
			p.waitLine(t, regexp.MustCompile(`serve mcp: serving 2 tools`))
			p.stdin.Write(append(call(1, tool), '\n'))
			waitForMarker(t, p, filepath.Join(dir, tool))
			signalled := time.Now()
			p.cmd.Process.Signal(syscall.SIGTERM)
			p.waitLine(t, regexp.MustCompile(`serve mcp: stopping`))
			p.stdin.Write(append(call(2, "nap"), '\n'))
			// The two answers may come in either order: a slow machine can
			// reach the end of the grace before it reads call 2.
			byID := map[float64]map[string]any{}
			for range 2 {
				m := read(t, p)
				id, _ := m["id"].(float64)
				byID[id] = m
			}
			if m := byID[2]; !isShuttingDown(m) {
				t.Errorf("call while draining: %v", m)
			}
			m := byID[1]
			if ok := map[string]bool{"nap": isReal(m), "stall": isShuttingDown(m)}[tool]; !ok {
				t.Errorf("%s during shutdown: %v", tool, m)
			}
			exited(t, p, signalled)
		})
	}
	t.Run("stdio/eof", func(t *testing.T) {
		t.Parallel()
		path, dir := script(t)
		p := startHarn(t, nil, "serve", "mcp", path)
		p.waitLine(t, regexp.MustCompile(`serve mcp: serving 2 tools`))
		p.stdin.Write(append(call(1, "nap"), '\n'))
		waitForMarker(t, p, filepath.Join(dir, "nap"))
		p.stdin.Close()
		if m := read(t, p); m["id"] != float64(1) || !isReal(m) {
			t.Errorf("call when stdin ended: %v", m)
		}
		if err := p.wait(); err != nil {
			t.Fatalf("exit after stdin ended: %v; stderr:\n%s", err, p.errText())
		}
	})
}

// waitForMarker waits until the handler of a drain test has written its
// marker file, i.e. it is running (30 s at most).
func waitForMarker(t *testing.T, p *harnProc, marker string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the handler never started; stderr:\n%s", p.errText())
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SIGTERM while a tool call's task works in the background (the call was
// answered with resultType "task") drains it too, over HTTP: a task that
// ends within the bound runs to its end before the process exits, one
// still working then is failed and interrupted, and the process exits 0
// (docs/mcp.md, Stopping; docs/orchestrator.md, Shutdown).
func TestServeDrainsTasksOnSIGTERM(t *testing.T) {
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": map[string]any{"name": "t", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
	// startTask calls tool as a task and returns once it is created.
	startTask := func(t *testing.T, p *harnProc, endpoint, tool string, args map[string]any) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args, "_meta": meta}})
		req, _ := http.NewRequest("POST", endpoint, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", tool)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("call: %v; stderr:\n%s", err, p.errText())
		}
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if dig(m, "result", "resultType") != "task" {
			t.Fatalf("not a task: %v", m)
		}
	}
	exists := func(path string) bool { _, err := os.Stat(path); return err == nil }

	for _, c := range []struct {
		tool  string
		sleep int
	}{{"nap", 3000}, {"stall", 20000}} {
		t.Run("serve mcp/"+c.tool, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			started, done := filepath.Join(dir, "started"), filepath.Join(dir, "done")
			src := fmt.Sprintf(`import { tool_registry_from } from "std/tools"
fn work(args) {
  write_file(%q, "yes")
  sleep(%d)
  write_file(%q, "yes")
  return {slept: %d}
}
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: %q, description: "Sleep.", handler: work, execution: {taskSupport: "optional"}},
  ], {info: {name: "sleepy", version: "1.0.0"}}))
}
`, started, c.sleep, done, c.sleep, c.tool)
			path := filepath.Join(dir, "server.harn")
			os.WriteFile(path, []byte(src), 0o644)
			p := startHarn(t, nil, "serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", path)
			endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] serve mcp: listening on (http://\S+)$`))[1]
			startTask(t, p, endpoint, c.tool, map[string]any{})
			waitForMarker(t, p, started)
			signalled := time.Now()
			p.cmd.Process.Signal(syscall.SIGTERM)
			if err := p.wait(); err != nil {
				t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, p.errText())
			}
			// 5 s grace, 2 s for cut-short calls to settle, plus slack.
			if d := time.Since(signalled); d > 12*time.Second {
				t.Errorf("exited %s after SIGTERM", d)
			}
			cut := strings.Contains(p.errText(), "still running after 5s answered: server is shutting down")
			switch c.tool {
			case "nap":
				if !exists(done) || cut {
					t.Errorf("the task did not run to its end before the exit (done: %v); stderr:\n%s", exists(done), p.errText())
				}
			case "stall":
				if exists(done) || !cut {
					t.Errorf("the task was not cut short at the bound (done: %v); stderr:\n%s", exists(done), p.errText())
				}
			}
		})
	}
	t.Run("mcp serve/fire", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		config, marker := filepath.Join(dir, "harn.toml"), filepath.Join(dir, "started")
		os.WriteFile(config, []byte("[package]\nname = \"drain\"\n\n[[triggers]]\nid = \"slow\"\nkind = \"manual\"\nhandler = \"on_slow\"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "lib.harn"), []byte(fmt.Sprintf("fn on_slow(event) {\n  write_file(%q, \"yes\")\n  sleep(3000)\n  return {ok: true}\n}\n", marker)), 0o644)
		p := startHarn(t, nil, "mcp", "serve", "--config", config, "--state-dir", filepath.Join(dir, "state"), "--transport", "http", "--bind", "127.0.0.1:0")
		endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] MCP HTTP listener ready on (http://\S+)$`))[1]
		startTask(t, p, endpoint, "harn.trigger.fire", map[string]any{"trigger_id": "slow", "payload": map[string]any{}})
		waitForMarker(t, p, marker)
		p.cmd.Process.Signal(syscall.SIGTERM)
		if err := p.wait(); err != nil {
			t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, p.errText())
		}
		if !strings.Contains(p.errText(), "tool=harn.trigger.fire status=completed") {
			t.Errorf("the task's call is not recorded completed; stderr:\n%s", p.errText())
		}
	})
}
