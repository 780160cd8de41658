package protocol

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// initLine is an initialize request negotiating version.
func initLine(version string) string {
	return `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`
}

// afterInit is what a server initialized at version writes for input,
// without the initialize answer.
func afterInit(version, input string) string {
	out := serveLines(initLine(version) + "\n" + input)
	_, rest, _ := strings.Cut(out, "\n")
	return rest
}

// A session initialized at 2025-03-26 receives batches (MCP 2025-03-26
// Base Protocol, docs/mcp.md): one array of the responses, in the
// order of the requests; notifications answer nothing; invalid members
// get their own -32600.
func TestBatchAt20250326(t *testing.T) {
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}},` +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}},` +
		`7,` +
		`{"jsonrpc":"2.0","id":"\ud800","method":"ping"},` +
		`{"jsonrpc":"2.0","id":3,"method":"nope"},` +
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}]`
	want := `[{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}},` +
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a JSON-RPC message must be an object"}},` +
		`{"jsonrpc":"2.0","id":"\ud800","result":{}},` +
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: nope"}},` +
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Unknown tool: nope"}}]` + "\n"
	if got := afterInit("2025-03-26", batch); got != want {
		t.Errorf("batch:\n got  %s\n want %s", got, want)
	}
	// Nothing to answer: no output at all.
	if got := afterInit("2025-03-26", `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"x","result":{}}]`); got != "" {
		t.Errorf("notifications only: %q", got)
	}
	// An empty batch is one -32600 (JSON-RPC 2.0).
	if got := afterInit("2025-03-26", `[]`); got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: empty batch"}}`+"\n" {
		t.Errorf("empty batch: %s", got)
	}
	// The session goes on after a batch.
	if got := afterInit("2025-03-26", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`); got != `[{"jsonrpc":"2.0","id":1,"result":{}}]`+"\n"+`{"jsonrpc":"2.0","id":2,"result":{}}`+"\n" {
		t.Errorf("after a batch: %s", got)
	}
}

// Other sessions refuse a batch: 2024-11-05 has no batch message,
// 2025-06-18 dropped batching, and an uninitialized connection has no
// version.
func TestBatchRefusedOtherwise(t *testing.T) {
	refused := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are not supported; send one JSON-RPC message at a time"}}` + "\n"
	for _, v := range []string{"2024-11-05", "2025-06-18", "2025-11-25"} {
		if got := afterInit(v, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`); got != refused {
			t.Errorf("%s: %s", v, got)
		}
	}
	if got := serveLines(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`); got != refused {
		t.Errorf("uninitialized: %s", got)
	}
}

// A batch member the client cancels gets no response; the others are
// still answered together.
func TestBatchMemberCancelled(t *testing.T) {
	f := newFake()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		NewServer(f, Options{}).Serve(inR, outW)
		outW.Close()
	}()
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
			return ""
		}
	}
	io.WriteString(inW, initLine("2025-03-26")+"\n")
	next()
	io.WriteString(inW, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`+"\n")
	<-f.started
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
	if got := next(); got != `[{"jsonrpc":"2.0","id":2,"result":{}}]` {
		t.Errorf("batch with a cancelled member: %s", got)
	}
	inW.Close()
	for l := range lines {
		t.Errorf("more output: %s", l)
	}
}

// arrayElements splits a batch into the text of its messages.
func TestArrayElements(t *testing.T) {
	got := arrayElements([]byte(` [ {"a":[1,"]"]} ,2,"x\"]" ,null]`))
	b, _ := json.Marshal(func() []string {
		var s []string
		for _, e := range got {
			s = append(s, string(e))
		}
		return s
	}())
	if string(b) != `["{\"a\":[1,\"]\"]}","2","\"x\\\"]\"","null"]` {
		t.Errorf("elements %s", b)
	}
	if arrayElements([]byte(`{"a":1}`)) != nil || len(arrayElements([]byte(`[]`))) != 0 {
		t.Error("not a batch")
	}
}
