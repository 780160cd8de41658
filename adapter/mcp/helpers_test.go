package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/internal/jsonv"

	"github.com/harnlang/harn/mcp/mcptest"
)

// session drives a Server over in-memory pipes, the way a stdio client
// does.
type session struct {
	t      *testing.T
	srv    *Server
	in     *io.PipeWriter
	stderr *mcptest.SyncBuffer

	mu     sync.Mutex
	lines  []string // every line the server wrote, in order
	byID   map[string]map[string]any
	notes  []map[string]any
	reqs   []map[string]any // server-to-client requests
	cond   *sync.Cond
	nextID int
	done   chan struct{}
}

func testdata(name string) string { return filepath.Join("testdata", name) }

// writeScript writes a script into a temporary directory.
func writeScript(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "server.harn")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func loadSurface(t *testing.T, path string, stderr io.Writer) *Surface {
	t.Helper()
	sf, err := LoadScript(path, stderr, "0.0.0-test")
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return sf
}

func start(t *testing.T, path string, opts Options) *session {
	t.Helper()
	stderr := &mcptest.SyncBuffer{}
	sf := loadSurface(t, path, stderr)
	if opts.Stderr == nil {
		opts.Stderr = stderr
	}
	return startSurface(t, sf, opts, stderr)
}

func startSurface(t *testing.T, sf *Surface, opts Options, stderr *mcptest.SyncBuffer) *session {
	srv := NewServer(sf, opts)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, srv: srv, in: inW, stderr: stderr, byID: map[string]map[string]any{}, done: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	go func() {
		srv.Serve(inR, outW)
		outW.Close()
	}()
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Text()
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Errorf("server wrote a line that is not JSON: %q", line)
				continue
			}
			s.mu.Lock()
			s.lines = append(s.lines, line)
			_, hasID := m["id"]
			_, hasMethod := m["method"]
			switch {
			case hasMethod && hasID:
				s.reqs = append(s.reqs, m)
			case hasMethod:
				s.notes = append(s.notes, m)
			case m["id"] != nil:
				s.byID[fmt.Sprint(m["id"])] = m
			}
			s.cond.Broadcast()
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop after stdin closed")
		}
	})
	return s
}

// send writes one raw line.
func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// wait returns the response with the given id (as printed by fmt).
func (s *session) wait(id string) map[string]any {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if m, ok := s.byID[id]; ok {
			delete(s.byID, id)
			return m
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no response with id %s; lines: %s", id, strings.Join(s.lines, "\n"))
		}
		go func() { time.Sleep(20 * time.Millisecond); s.cond.Broadcast() }()
		s.cond.Wait()
	}
}

// request sends a request and returns its whole response.
func (s *session) request(method string, params any) map[string]any {
	s.t.Helper()
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	s.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	s.send(string(b))
	return s.wait(fmt.Sprint(id))
}

// result sends a request that must succeed and returns its result.
func (s *session) result(method string, params any) map[string]any {
	s.t.Helper()
	r := s.request(method, params)
	res, ok := r["result"].(map[string]any)
	if !ok {
		s.t.Fatalf("%s: expected a result, got %s", method, js(r))
	}
	return res
}

// rpcErr sends a request that must fail and returns its error.
func (s *session) rpcErr(method string, params any) map[string]any {
	s.t.Helper()
	r := s.request(method, params)
	e, ok := r["error"].(map[string]any)
	if !ok {
		s.t.Fatalf("%s: expected an error, got %s", method, js(r))
	}
	return e
}

func (s *session) notifications(method string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, n := range s.notes {
		if n["method"] == method {
			out = append(out, n)
		}
	}
	return out
}

// waitFor polls until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *session) initialize(version string) map[string]any {
	s.t.Helper()
	res := s.result("initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test-client", "version": "1.0.0"}})
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res
}

func (s *session) initializeWith(caps map[string]any) {
	s.t.Helper()
	s.result("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps,
		"clientInfo": map[string]any{"name": "test-client", "version": "1.0.0"}})
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// meta2026 is valid 2026-07-28 request metadata.
func meta2026(caps map[string]any) map[string]any {
	if caps == nil {
		caps = map[string]any{}
	}
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "c", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

// with2026 adds 2026 metadata to params.
func with2026(params map[string]any, caps map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = meta2026(caps)
	return params
}

var tasksCaps = map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// jsonEq compares a decoded value with expected JSON text.
func jsonEq(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation %s: %v", want, err)
	}
	if js(got) != js(w) {
		t.Errorf("%s:\n got %s\nwant %s", what, js(got), js(w))
	}
}

func path(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func text(res map[string]any) string {
	c, _ := res["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	s, _ := path(c[0], "text").(string)
	return s
}

func dirOf(p string) string { return filepath.Dir(p) }

func mustParse(s string) any {
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

func mustParsePlain(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}
