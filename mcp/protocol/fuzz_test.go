package protocol

import (
	"bytes"
	"io"
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
