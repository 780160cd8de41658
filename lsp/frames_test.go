package lsp

import (
	"bytes"
	"strings"
	"testing"
)

func frame(body string) string {
	return "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body
}

func itoa(n int) string {
	var b []byte
	for ; n > 0 || len(b) == 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestCopyFrames: well-formed messages pass through (a response with a
// null result, a notification, other headers), a stream that ends is no
// error even inside a message, and the first message the protocol library
// would refuse stops the copy with an error that says what is wrong.
func TestCopyFrames(t *testing.T) {
	msgs := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `{"jsonrpc":"2.0","id":"a","result":null}`, `{"jsonrpc":"2.0","method":"exit"}`}
	good := frame(msgs[0]) + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(msgs[1]) + frame(msgs[2])
	copied := frame(msgs[0]) + frame(msgs[1]) + frame(msgs[2]) // the headers the library reads
	for _, in := range []string{good, good + "Content-Len", good + "Content-Length: 100\r\n\r\n{\"a\":"} {
		var out bytes.Buffer
		if err := copyFrames(&out, strings.NewReader(in)); err != nil || out.String() != copied {
			t.Errorf("copyFrames(%q) = %v, copied %q", in, err, out.String())
		}
	}
	for _, c := range []struct{ in, want string }{
		{"hello\r\n\r\n{}", `header line "hello" is not NAME: VALUE (is the client speaking LSP?)`},
		{"Content-Length: 2\n\n{}", `header line "Content-Length: 2\n" does not end with \r\n`},
		{"Content-Length: abc\r\n\r\n{}", `Content-Length "abc" is not a positive number`},
		{"Content-Length: -5\r\n\r\n{}", `Content-Length "-5" is not a positive number`},
		{"Content-Length: 99999999999\r\n\r\n{}", "message of 99999999999 bytes is over the limit of 67108864"},
		{"X-Other: 1\r\n\r\n{}", "message without a Content-Length header"},
		{frame("hello"), `message body is not JSON: "hello"`},
		{frame("[1,2]"), `message is not a JSON-RPC object: "[1,2]"`},
		{frame(`{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}`), `message id "{\"a\":1}" is neither a string nor a non-negative integer`},
		{frame(`{"jsonrpc":"2.0","id":1,"method":5}`), `method "5" is not a string`},
		{frame(`{"jsonrpc":"2.0","id":1}`), "message is neither a request (method) nor a response (result or error)"},
		{frame(`{"jsonrpc":"2.0","id":1,"method":"x","result":1}`), "message is neither a request (method) nor a response (result or error)"},
	} {
		var out bytes.Buffer
		err := copyFrames(&out, strings.NewReader(good+c.in+good))
		if err == nil || err.Error() != c.want {
			t.Errorf("copyFrames(%q) = %v, want %s", c.in, err, c.want)
		}
		if out.String() != copied {
			t.Errorf("copyFrames(%q) copied %q, want only the good messages before it", c.in, out.String())
		}
	}
}
