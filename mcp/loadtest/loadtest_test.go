package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harnlang/harn/mcp/auth"
)

// stubMCP answers every tools/call with a small CallToolResult, after
// checking the routing headers a 2026-07-28 server requires, so the
// harness itself can be tested and the cost of auth measured apart from
// any dispatch. fail makes every call an isError result.
func stubMCP(fail bool, calls *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &m); err != nil || r.Header.Get("Mcp-Method") != m.Method ||
			r.Header.Get("Mcp-Name") != m.Params.Name || r.Header.Get("MCP-Protocol-Version") != "2026-07-28" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if calls != nil {
			calls.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"1"}],"isError":` + map[bool]string{true: "true", false: "false"}[fail] + `}}`))
	})
}

// protect puts cfg in front of h the way the MCP HTTP handler does.
func protect(cfg *auth.Config, endpoint string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := cfg.Authenticate(w, r, endpoint); ok {
			h.ServeHTTP(w, r)
		}
	})
}

func TestRunHandler(t *testing.T) {
	for _, netHTTP := range []bool{false, true} {
		var calls atomic.Int64
		res, err := RunHandler(context.Background(), stubMCP(false, &calls), Options{Clients: 4, Requests: 40, Warmup: 2, Tool: "echo", Arguments: json.RawMessage(`{"n":1}`), NetHTTP: netHTTP})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 40 || res.Errors != 0 || res.FirstError != "" {
			t.Errorf("net/http %v: result %+v", netHTTP, res)
		}
		if n := calls.Load(); n != 40+4*2 {
			t.Errorf("net/http %v: server saw %d calls, want 48 (40 measured + 8 warm-up)", netHTTP, n)
		}
		if res.P50 <= 0 || res.P50 > res.P90 || res.P90 > res.P99 || res.P99 > res.Max || res.PerSecond() <= 0 {
			t.Errorf("net/http %v: inconsistent percentiles: %v", netHTTP, res)
		}
	}
}

// An answer to another request than the one sent is a failure, with
// either client.
func TestRunCountsWrongIDs(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID int64 `json:"id"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, m.ID+1)
	})
	for _, netHTTP := range []bool{false, true} {
		res, err := RunHandler(context.Background(), h, Options{Clients: 2, Requests: 10, Warmup: -1, Tool: "echo", NetHTTP: netHTTP})
		if err != nil {
			t.Fatal(err)
		}
		if res.Errors != 10 || !strings.HasPrefix(res.FirstError, "answer to id ") {
			t.Errorf("net/http %v: %+v", netHTTP, res)
		}
	}
}

func TestRunCountsFailures(t *testing.T) {
	res, err := RunHandler(context.Background(), stubMCP(true, nil), Options{Clients: 2, Requests: 10, Warmup: -1, Tool: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 10 || !strings.HasPrefix(res.FirstError, "tool failed: ") {
		t.Errorf("isError results: %+v", res)
	}

	cfg, err := auth.FromEnv(func(k string) string { return map[string]string{auth.EnvAPIKeys: "right"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	h := protect(cfg, "http://127.0.0.1/mcp", stubMCP(false, nil))
	res, err = RunHandler(context.Background(), h, Options{Clients: 2, Requests: 10, Warmup: -1, Tool: "echo", Header: http.Header{"X-Api-Key": {"wrong"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 10 || res.FirstError != "HTTP 401: auth failed\n" {
		t.Errorf("wrong key: %+v", res)
	}
	res, err = RunHandler(context.Background(), h, Options{Clients: 2, Requests: 10, Tool: "echo", Header: http.Header{"X-Api-Key": {"right"}}})
	if err != nil || res.Errors != 0 {
		t.Errorf("right key: %+v, %v", res, err)
	}
}

func TestCheckAnswer(t *testing.T) {
	tests := []struct{ answer, err string }{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, ""},
		{"id: 0\ndata: \n\nid: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool"}}`, "JSON-RPC error -32602: Unknown tool"},
		{`{"jsonrpc":"2.0","id":1}`, `answer has no result: {"jsonrpc":"2.0","id":1}`},
		{`nope`, "answer is not JSON-RPC: nope"},
		// Members are found at the top level only, in any order and
		// spacing; lookalikes inside strings and nested values are not
		// members.
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"error\":1,\"isError\":true}"}],` +
			`"structuredContent":{"error":"x","isError":true},"isError":false}}`, ""},
		{"{ \"result\" : { \"isError\" : false } , \"id\" : 1 , \"jsonrpc\" : \"2.0\" }", ""},
		{`{"jsonrpc":"2.0\"}","id":1,"result":{"isError":true,"content":[]}}`, `tool failed: {"jsonrpc":"2.0\"}","id":1,"result":{"isError":true,"content":[]}}`},
		// The answer must be to the request sent: same id, as a number.
		{`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`, `answer to id 2, want 1: {"jsonrpc":"2.0","id":2,"result":{"content":[]}}`},
		{`{"jsonrpc":"2.0","id":"1","result":{"content":[]}}`, `answer to id "1", want 1: {"jsonrpc":"2.0","id":"1","result":{"content":[]}}`},
		{`{"jsonrpc":"2.0","id":11,"result":{"content":[]}}`, `answer to id 11, want 1: {"jsonrpc":"2.0","id":11,"result":{"content":[]}}`},
		{`{"jsonrpc":"2.0","result":{"content":[]}}`, `answer to id , want 1: {"jsonrpc":"2.0","result":{"content":[]}}`},
		{"id: 0\ndata: \n\nid: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n", `answer to id 3, want 1: {"jsonrpc":"2.0","id":3,"result":{}}`},
		{`{"result":{"content":[]},"error":{"code":1,"message":"both"}}`, "JSON-RPC error 1: both"},
		{`{"jsonrpc":"2.0","id":1,"result":[]}`, `answer is not JSON-RPC: {"jsonrpc":"2.0","id":1,"result":[]}`},
		{`{"jsonrpc":"2.0","id":1,"result":{}`, `answer is not JSON-RPC: {"jsonrpc":"2.0","id":1,"result":{}`},
	}
	for _, tc := range tests {
		err := checkAnswer([]byte(tc.answer), 1)
		if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("checkAnswer(%q) = %v, want %q", tc.answer, err, tc.err)
		}
		if succeeded([]byte(tc.answer), []byte("1")) && tc.err != "" {
			t.Errorf("succeeded(%q), want %q", tc.answer, tc.err)
		}
	}
}

// A success is checked without decoding: the load generator shares the
// cores with the server it measures.
func TestCheckAnswerAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled scanners at random")
	}
	answer := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\n  \"n\": 1\n}"}],"structuredContent":{"n":1}}}`)
	if n := testing.AllocsPerRun(100, func() { checkAnswer(answer, 7) }); n != 0 {
		t.Errorf("checkAnswer allocates %v times, want 0", n)
	}
}

// The client reads chunked answers (a server that flushes, or an SSE
// stream) and dials again after Connection: close.
func TestRunChunkedAndClose(t *testing.T) {
	var calls atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(body, &m)
		n := calls.Add(1)
		if n%2 == 0 {
			w.Header().Set("Connection", "close")
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID)))
		w.(http.Flusher).Flush() // no Content-Length: chunked
		w.Write([]byte(`,"result":{"content":[]}}`))
	})
	res, err := RunHandler(context.Background(), h, Options{Clients: 3, Requests: 30, Warmup: -1, Tool: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 0 || calls.Load() != 30 {
		t.Errorf("%d calls: %+v", calls.Load(), res)
	}
}

// One client is never passed: it waits for each answer before it sends
// again, so no other request completes while one is in flight.
func TestPassedOneClient(t *testing.T) {
	res, err := RunHandler(context.Background(), stubMCP(false, nil), Options{Clients: 1, Requests: 20, Tool: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed50 != 0 || res.Passed99 != 0 {
		t.Fatalf("one client passed: p50 %d p99 %d, want 0", res.Passed50, res.Passed99)
	}
}
