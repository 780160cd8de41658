// Package mcptest drives an MCP server's stdio transport from a test the
// way a client does: it writes lines to the server and keeps every
// message the server writes, in order, for the tests of the packages that
// serve MCP (mcp/protocol, orchestrator/mcpserver). It knows nothing of
// what the server serves.
package mcptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// Timeout bounds every wait of a Pipe.
const Timeout = 30 * time.Second

// Pipe is one stdio connection to a server.
type Pipe struct {
	t      testing.TB
	in     *io.PipeWriter
	mu     sync.Mutex
	cond   *sync.Cond
	msgs   []map[string]any
	closed bool // the server's output ended
	done   chan struct{}
}

// Start runs serve on a pipe and reads what it writes. When the test
// ends, the pipe's input is closed and the server must stop within
// Timeout.
func Start(t testing.TB, serve func(r io.Reader, w io.Writer) error) *Pipe {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &Pipe{t: t, in: inW, done: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	go func() {
		serve(inR, outW)
		outW.Close()
	}()
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the server wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			p.mu.Lock()
			p.msgs = append(p.msgs, m)
			p.cond.Broadcast()
			p.mu.Unlock()
		}
		p.mu.Lock()
		p.closed = true
		p.cond.Broadcast()
		p.mu.Unlock()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-p.done:
		case <-time.After(Timeout):
			t.Error("the server did not stop after its input closed")
		}
	})
	return p
}

// Send writes v as one JSON line.
func (p *Pipe) Send(v any) {
	p.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	p.SendLine(string(b))
}

// SendLine writes one raw line.
func (p *Pipe) SendLine(line string) {
	p.t.Helper()
	if _, err := p.in.Write([]byte(line + "\n")); err != nil {
		p.t.Fatal(err)
	}
}

// WaitFor returns the first message, already read or still to come, for
// which ok holds. It fails the test after Timeout, or when the server's
// output ends first.
func (p *Pipe) WaitFor(what string, ok func(map[string]any) bool) map[string]any {
	p.t.Helper()
	deadline := time.Now().Add(Timeout)
	timer := time.AfterFunc(Timeout, func() {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	})
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for _, m := range p.msgs {
			if ok(m) {
				return m
			}
		}
		if p.closed {
			p.t.Fatalf("the server closed the connection before %s; got %v", what, p.msgs)
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s; got %v", what, p.msgs)
		}
		p.cond.Wait()
	}
}

// Answer returns the response with id (compared as printed by fmt).
func (p *Pipe) Answer(id any) map[string]any {
	p.t.Helper()
	want := fmt.Sprint(id)
	return p.WaitFor("answer "+want, func(m map[string]any) bool {
		_, isRequest := m["method"]
		return !isRequest && m["id"] != nil && fmt.Sprint(m["id"]) == want
	})
}

// Call sends a request and returns its response.
func (p *Pipe) Call(id any, method string, params any) map[string]any {
	p.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	p.Send(msg)
	return p.Answer(id)
}

// Messages returns every message read so far.
func (p *Pipe) Messages() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.msgs...)
}

// Notifications returns the notifications read so far: the messages
// with a method and no id.
func (p *Pipe) Notifications() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []map[string]any
	for _, m := range p.msgs {
		if _, hasMethod := m["method"]; hasMethod && m["id"] == nil {
			out = append(out, m)
		}
	}
	return out
}

// SyncBuffer collects what goroutines write (a server's stderr).
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
