package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A server whose stderr reader goes away keeps serving: every call
// writes a log line to stderr, and the Go runtime used to end the
// process with SIGPIPE on the first one (surviveBrokenPipes).
func TestServersSurviveClosedStderr(t *testing.T) {
	for _, c := range []struct {
		name, call, ready string
		args              []string
	}{
		{"mcp serve", "harn.trigger.list", "ready", []string{"mcp", "serve", "--config", fixtureManifest, "--state-dir", t.TempDir()}},
		{"serve mcp", "lookup_widget", "serving", []string{"serve", "mcp", writeServeScript(t, serveWidget)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], c.args...)
			cmd.Env = append(os.Environ(), "HARN_TEST_MAIN=1")
			cmd.Stderr = w
			stdin, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			defer cmd.Process.Kill()
			// Read until the server says it is ready, then stop reading.
			sc := bufio.NewScanner(r)
			for sc.Scan() && !strings.Contains(sc.Text(), c.ready) {
			}
			r.Close()
			replies := bufio.NewReader(out)
			send := func(id int, method string, params any) map[string]any {
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
				fmt.Fprintf(stdin, "%s\n", b)
				line, err := replies.ReadBytes('\n')
				if err != nil {
					t.Fatalf("call %d: %v (server exit: %v)", id, err, cmd.Wait())
				}
				var m map[string]any
				json.Unmarshal(line, &m)
				return m
			}
			send(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
			fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for id := 2; id <= 4; id++ {
				if m := send(id, "tools/call", map[string]any{"name": c.call, "arguments": map[string]any{}}); m["result"] == nil {
					t.Fatalf("call %d: %v", id, m)
				}
			}
			stdin.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("exit after stdin closed: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the server did not stop when stdin closed")
			}
		})
	}
}
