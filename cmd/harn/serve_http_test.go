package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "[harn] serve mcp: listening on "); ok {
				found <- strings.TrimSuffix(rest, "/mcp")
			}
		}
		close(found)
	}()
	select {
	case base, ok := <-found:
		if !ok {
			t.Fatal("server exited before listening")
		}
		return base, cmd
	case <-time.After(60 * time.Second):
		t.Fatal("server did not start listening")
	}
	return "", nil
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
