package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// session runs the server as a subprocess fed the given messages (each a
// JSON body, or a raw frame when it starts with "Content-Length"), the
// last of which must make it stop; its input is closed only once it has.
// It returns the messages the server wrote, its stderr and its exit
// status.
func session(t *testing.T, msgs ...string) (out []map[string]any, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HARN_LSP_SERVER=1")
	var in bytes.Buffer
	for _, m := range msgs {
		if !strings.HasPrefix(m, "Content-Length") {
			m = frame(m)
		}
		in.WriteString(m)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write(in.Bytes())
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute): // generous: -race on a loaded 2-core machine took over 30 s
		cmd.Process.Kill()
		t.Fatal("the server did not stop")
	}
	br := bufio.NewReader(&o)
	for {
		n, err := readHeader(br)
		if err != nil {
			break
		}
		body := make([]byte, n)
		io.ReadFull(br, body)
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Errorf("server wrote %q", body)
		}
		out = append(out, m)
	}
	return out, e.String(), cmd.ProcessState.ExitCode()
}

func request(id int, method string, params string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + params + `}`
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`

// TestSessionSurvivesBadBodies: a body that is not JSON gets -32700, one
// that is not a JSON-RPC message -32600, both with a null id, and the
// session goes on (docs/lsp.md).
func TestSessionSurvivesBadBodies(t *testing.T) {
	out, stderr, status := session(t, initialize, "{not json", "[1]",
		request(2, "shutdown", "null"), `{"jsonrpc":"2.0","method":"exit"}`)
	var codes []any
	answered := false
	for _, m := range out {
		if e, ok := m["error"].(map[string]any); ok && m["id"] == nil {
			codes = append(codes, e["code"])
		}
		if m["id"] == float64(2) {
			answered = true
		}
	}
	if js(codes) != "[-32700,-32600]" || !answered || status != 0 {
		t.Errorf("error codes %v, shutdown answered %v, status %d, stderr %s", codes, answered, status, stderr)
	}
}

// TestSessionExitStatus: exit after shutdown is status 0, without it 1
// (as the protocol says); notifications the server has nothing to do for
// are accepted silently.
func TestSessionExitStatus(t *testing.T) {
	quiet := []string{`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":9}}`,
		`{"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":"file:///x.harn","type":2}]}}`,
		`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{}}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{"kind":"end"}}}`,
		`{"jsonrpc":"2.0","method":"$/logTrace","params":{"message":"m"}}`,
		`{"jsonrpc":"2.0","method":"workspace/didChangeWorkspaceFolders","params":{"event":{"added":[],"removed":[]}}}`,
		`{"jsonrpc":"2.0","method":"window/workDoneProgress/cancel","params":{"token":"t"}}`,
		`{"jsonrpc":"2.0","method":"workspace/didCreateFiles","params":{"files":[{"uri":"file:///x.harn"}]}}`,
		`{"jsonrpc":"2.0","method":"workspace/didRenameFiles","params":{"files":[{"oldUri":"file:///x.harn","newUri":"file:///y.harn"}]}}`,
		`{"jsonrpc":"2.0","method":"workspace/didDeleteFiles","params":{"files":[{"uri":"file:///y.harn"}]}}`}
	out, stderr, status := session(t, append(append([]string{initialize}, quiet...), request(3, "harn/unknown", "{}"),
		request(2, "shutdown", "null"), `{"jsonrpc":"2.0","method":"exit"}`)...)
	if status != 0 || stderr != "" {
		t.Errorf("exit after shutdown: status %d, stderr %q", status, stderr)
	}
	unknown := false
	for _, m := range out {
		if e, ok := m["error"].(map[string]any); ok && m["id"] == float64(3) && e["code"] == float64(-32601) {
			unknown = true
		}
	}
	if !unknown {
		t.Errorf("an unknown request is not answered -32601: %v", out)
	}
	_, stderr, status = session(t, initialize, `{"jsonrpc":"2.0","method":"exit"}`)
	if status != 1 || !strings.Contains(stderr, "exit without shutdown") {
		t.Errorf("exit without shutdown: status %d, stderr %q", status, stderr)
	}
}
