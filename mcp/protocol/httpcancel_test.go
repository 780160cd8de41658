package protocol

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// whoAuth authenticates every request as the principal its X-Who header
// names.
type whoAuth struct{}

func (whoAuth) Authenticate(_ http.ResponseWriter, r *http.Request, _ string) (string, bool) {
	return r.Header.Get("X-Who"), true
}
func (whoAuth) ServeMetadata(w http.ResponseWriter, r *http.Request, _ string) { http.NotFound(w, r) }
func (whoAuth) ResourceMetadataURL(string) string                              { return "" }

// startBlock POSTs an inline tools/call of the fake's block tool as who,
// and returns once the handler runs; the reply arrives on the channel.
func startBlock(t *testing.T, f *fake, h http.Handler, id any, who string) <-chan reply {
	t.Helper()
	body := js(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": modern(map[string]any{"name": "block"}, nil)})
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": "block", "X-Who": who}
	out := make(chan reply, 1)
	go func() { out <- do(h, http.MethodPost, "/mcp", hdr, body) }()
	select {
	case <-f.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the block tool did not start")
	}
	return out
}

// sendCancel POSTs notifications/cancelled for id as who; meta is the
// notification's _meta (nil: none).
func sendCancel(t *testing.T, h http.Handler, id any, who string, meta map[string]any) {
	t.Helper()
	params := map[string]any{"requestId": id}
	if meta != nil {
		params["_meta"] = meta
	}
	body := js(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
	r := do(h, http.MethodPost, "/mcp", map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": Version20260728, "Mcp-Method": "notifications/cancelled", "X-Who": who}, body)
	if r.status != http.StatusAccepted || r.body != "" {
		t.Fatalf("notifications/cancelled: %d %q", r.status, r.body)
	}
}

// notStopped fails when the block tool's context ends within a while.
func notStopped(t *testing.T, f *fake, what string) {
	t.Helper()
	select {
	case name := <-f.stopped:
		t.Fatalf("%s: %s was cancelled", what, name)
	case <-time.After(150 * time.Millisecond):
	}
}

// A notifications/cancelled POST cancels the tools/call another POST of
// the same client runs: its handler's context ends, its answer is
// suppressed and its POST ends with 204 No Content.
func TestHTTPCancelledNotificationCancelsCall(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		f := newFake()
		h := NewServer(f, Options{Parallel: parallel}).HTTPHandler(HTTPOptions{Auth: whoAuth{}})
		out := startBlock(t, f, h, 7, "alice")
		sendCancel(t, h, 7, "alice", map[string]any{MetaClientInfo: map[string]any{"name": "tester", "version": "1"}})
		select {
		case <-f.stopped:
		case <-time.After(10 * time.Second):
			t.Fatalf("parallel=%v: the handler was not cancelled", parallel)
		}
		r := <-out
		if r.status != http.StatusNoContent || r.body != "" {
			t.Errorf("parallel=%v: cancelled call answered %d %q", parallel, r.status, r.body)
		}
	}
}

// A notification without _meta matches by credential and id alone.
func TestHTTPCancelledWithoutMeta(t *testing.T) {
	f := newFake()
	h := NewServer(f, Options{}).HTTPHandler(HTTPOptions{})
	out := startBlock(t, f, h, "job-1", "")
	sendCancel(t, h, "job-1", "", nil)
	select {
	case <-f.stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not cancelled")
	}
	if r := <-out; r.status != http.StatusNoContent {
		t.Errorf("cancelled call answered %d %q", r.status, r.body)
	}
}

// A cancellation reaches only the request of that id sent with the same
// credential and, when the notification names one, the same client.
func TestHTTPCancelledScopedToSender(t *testing.T) {
	f := newFake()
	h := NewServer(f, Options{}).HTTPHandler(HTTPOptions{Auth: whoAuth{}})
	out := startBlock(t, f, h, 7, "alice")
	sendCancel(t, h, 7, "bob", nil)
	notStopped(t, f, "another credential")
	sendCancel(t, h, 8, "alice", nil)
	notStopped(t, f, "another id")
	sendCancel(t, h, "7", "alice", nil)
	notStopped(t, f, "a string id for a number id")
	sendCancel(t, h, 7, "alice", map[string]any{MetaClientInfo: map[string]any{"name": "other", "version": "1"}})
	notStopped(t, f, "another client identity")
	close(f.release)
	r := <-out
	if r.status != http.StatusOK || !strings.Contains(r.body, `"text":"released"`) {
		t.Errorf("the call was not answered: %d %q", r.status, r.body)
	}
}

// A cancellation after the answer changes nothing, and the request is
// no longer reachable.
func TestHTTPCancelledAfterAnswer(t *testing.T) {
	f := newFake()
	s := NewServer(f, Options{})
	h := s.HTTPHandler(HTTPOptions{})
	r := rpc(h, 3, "tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, nil)
	if r.status != http.StatusOK {
		t.Fatalf("echo %d %q", r.status, r.body)
	}
	sendCancel(t, h, 3, "", nil)
	left := s.httpCalls.len()
	if left != 0 {
		t.Errorf("%d requests still registered after their answers", left)
	}
}

// Requests in progress under one key are each removed on their own,
// whatever the order; ids that are neither numbers nor strings have no
// key.
func TestHTTPCallsList(t *testing.T) {
	var calls httpCalls
	key, ok := callKey("alice", json.Number("7"))
	if !ok {
		t.Fatal("no key for a number id")
	}
	if _, ok := callKey("alice", []any{1}); ok {
		t.Error("a key for an array id")
	}
	if k, _ := callKey("alice", "7"); k == key {
		t.Error(`id "7" has the key of id 7`)
	}
	a, b, c := &httpExchange{}, &httpExchange{}, &httpExchange{}
	for _, ex := range []*httpExchange{a, b, c} {
		calls.add(key, ex)
	}
	for _, ex := range []*httpExchange{b, c, a} {
		calls.remove(key, ex)
		for e := calls.shard(key).by[key]; e != nil; e = e.next {
			if e == ex {
				t.Fatal("a removed request is still listed")
			}
		}
	}
	if n := calls.len(); n != 0 {
		t.Errorf("%d keys left", n)
	}
}

// Requests under many keys spread over the table's shards: each is
// found under its own key, and removing them all leaves nothing.
func TestHTTPCallsShards(t *testing.T) {
	var calls httpCalls
	const n = 200
	keys := make([]httpCallKey, n)
	exs := make([]*httpExchange, n)
	used := map[*httpCallShard]bool{}
	for i := range n {
		keys[i], _ = callKey("p", json.Number(fmt.Sprint(i)))
		exs[i] = &httpExchange{}
		calls.add(keys[i], exs[i])
		used[calls.shard(keys[i])] = true
	}
	if calls.len() != n || len(used) < httpCallShards/2 {
		t.Fatalf("%d keys listed in %d shards", calls.len(), len(used))
	}
	for i := range n {
		if calls.shard(keys[i]).by[keys[i]] != exs[i] {
			t.Fatalf("request %d not found under its key", i)
		}
		calls.remove(keys[i], exs[i])
	}
	if left := calls.len(); left != 0 {
		t.Errorf("%d keys left", left)
	}
}

// len is the number of keys with requests in progress.
func (t *httpCalls) len() int {
	n := 0
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		n += len(sh.by)
		sh.mu.Unlock()
	}
	return n
}
