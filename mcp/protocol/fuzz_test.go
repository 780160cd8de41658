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
