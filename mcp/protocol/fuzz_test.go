package protocol

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// FuzzServe decodes and dispatches arbitrary stdio input (newline
// separated JSON-RPC messages) against a fake provider: the server must
// answer or ignore each message and return when input ends, never panic
// (issue 17 fuzzing).
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"\u0000\ud800","method":"ping"}`,
		`[[[[[[[[[[[[[[[[[[[[[[[[{"jsonrpc":"2.0","id":3}]]]]]]]]]]]]]]]]]]]]]]]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
			`[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}},3,[]]`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"n":1e400}}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		srv := NewServer(newFake(), Options{})
		var out bytes.Buffer
		srv.Serve(io.NopCloser(bytes.NewReader([]byte(input))), &out)
	})
}

// A notification with malformed params gets no reply, while a request
// with the same params is answered with its id (issue 17 item 11).
func TestBadNotificationParamsGetNoReply(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}`,
		`{"jsonrpc":"2.0","method":"notifications/unknown","params":[1]}`,
	} {
		var out bytes.Buffer
		NewServer(newFake(), Options{}).Serve(io.NopCloser(bytes.NewReader([]byte(in+"\n"))), &out)
		if out.Len() != 0 {
			t.Errorf("%s answered: %s", in, out.String())
		}
	}
	var out bytes.Buffer
	NewServer(newFake(), Options{}).Serve(io.NopCloser(bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":9,"method":"ping","params":7}`+"\n"))), &out)
	if got := out.String(); got != `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: params must be an object"}}`+"\n" {
		t.Errorf("request with bad params: %s", got)
	}
}

// serveLines runs a fresh server over input and returns what it wrote.
func serveLines(input string) string {
	var out bytes.Buffer
	NewServer(newFake(), Options{}).Serve(io.NopCloser(bytes.NewReader([]byte(input+"\n"))), &out)
	return out.String()
}

// A request too deep to parse is answered with its id when the id can
// be read from its text (issue 17 item 11).
func TestTooDeepRequestKeepsItsID(t *testing.T) {
	deep := strings.Repeat("[", 10002) + strings.Repeat("]", 10002)
	for _, tc := range []struct{ in, id string }{
		{`{"jsonrpc":"2.0","id":41,"method":"ping","params":{"x":` + deep + `}}`, `41`},
		{`{"jsonrpc":"2.0","params":{"x":` + deep + `},"method":"ping","id":"a\"}"}`, `"a\"}"`},
		{`{"jsonrpc":"2.0","id":7,"method":"ping","params":{`, `null`}, // truncated: no sure id
		{`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":` + deep + `}} {}`, `null`},
		{`{"jsonrpc":"2.0","id":{"x":` + deep + `},"method":"ping"}`, `null`},
		{deep, `null`},
	} {
		want := `{"jsonrpc":"2.0","id":` + tc.id + `,"error":{"code":-32700,"message":"Parse error"}}` + "\n"
		if got := serveLines(tc.in); got != want {
			t.Errorf("%.60s…: got %.200s, want %s", tc.in, got, want)
		}
	}
}

// Ids with NUL or lone surrogates come back exactly as sent, on
// answers and on errors (issue 17 item 11).
func TestIDsRoundTripUnchanged(t *testing.T) {
	for _, id := range []string{`"\u0000"`, `"\ud800"`, `"a\udfff\u0000b"`, `"\ud83d\ude00"`, `"\\"`} {
		got := serveLines(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` + "\n"; got != want {
			t.Errorf("ping %s: got %s, want %s", id, got, want)
		}
		got = serveLines(`{"jsonrpc":"1.0","id":` + id + `,"method":"ping"}`)
		if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+id+`,"error":`) {
			t.Errorf("bad version %s: got %s", id, got)
		}
	}
}
