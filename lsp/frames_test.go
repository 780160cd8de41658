package lsp

import (
	"bytes"
	"strings"
	"sync"
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
// error even inside a message, a body the protocol library would refuse
// is answered with a JSON-RPC error and skipped, and a message that
// cannot be framed stops the copy with an error that says what is wrong.
func TestCopyFrames(t *testing.T) {
	msgs := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `{"jsonrpc":"2.0","id":"a","result":null}`, `{"jsonrpc":"2.0","method":"exit"}`}
	good := frame(msgs[0]) + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(msgs[1]) + frame(msgs[2])
	copied := frame(msgs[0]) + frame(msgs[1]) + frame(msgs[2]) // the headers the library reads
	noReply := func(frame []byte) { t.Errorf("reply %s", frame) }
	noArrive := func([]byte) {}
	for _, in := range []string{good, good + "Content-Len", good + "Content-Length: 100\r\n\r\n{\"a\":"} {
		var out bytes.Buffer
		if err := copyFrames(&out, strings.NewReader(in), noArrive, noReply); err != nil || out.String() != copied {
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
	} {
		var out bytes.Buffer
		err := copyFrames(&out, strings.NewReader(good+c.in+good), noArrive, noReply)
		if err == nil || err.Error() != c.want {
			t.Errorf("copyFrames(%q) = %v, want %s", c.in, err, c.want)
		}
		if out.String() != copied {
			t.Errorf("copyFrames(%q) copied %q, want only the good messages before it", c.in, out.String())
		}
	}
	for _, c := range []struct{ in, want string }{
		{frame("hello"), `{"error":{"code":-32700,"message":"Parse error: message body is not JSON: \"hello\""},"id":null,"jsonrpc":"2.0"}`},
		{frame("[1,2]"), `{"error":{"code":-32600,"message":"Invalid Request: message is not a JSON-RPC object: \"[1,2]\""},"id":null,"jsonrpc":"2.0"}`},
		{frame(`{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}`), `"code":-32600,"message":"Invalid Request: message id \"{\\\"a\\\":1}\" is neither a string nor a non-negative integer"`},
		{frame(`{"jsonrpc":"2.0","id":1,"method":5}`), `"code":-32600,"message":"Invalid Request: method \"5\" is not a string"`},
		{frame(`{"jsonrpc":"2.0","id":1}`), `"code":-32600,"message":"Invalid Request: message is neither a request (method) nor a response (result or error)"`},
		{frame(`{"jsonrpc":"2.0","id":1,"method":"x","result":1}`), `"code":-32600`},
	} {
		var out bytes.Buffer
		var replies []string
		err := copyFrames(&out, strings.NewReader(good+c.in+good), noArrive, func(f []byte) { replies = append(replies, string(f)) })
		if err != nil || out.String() != copied+copied {
			t.Errorf("copyFrames(%q) = %v, copied %q", c.in, err, out.String())
		}
		if len(replies) != 1 || !strings.HasPrefix(replies[0], "Content-Length: ") || !strings.Contains(replies[0], c.want) {
			t.Errorf("copyFrames(%q) replied %q, want %s", c.in, replies, c.want)
		}
	}
}

// TestCopyReplies: the library's messages reach the client whole.
func TestCopyReplies(t *testing.T) {
	in := frame(`{"jsonrpc":"2.0","id":1,"result":null}`) + frame(`{"jsonrpc":"2.0","method":"m"}`)
	var out bytes.Buffer
	var mu sync.Mutex
	copyReplies(&out, strings.NewReader(in), &mu, func(b []byte) []byte { return b })
	if out.String() != in {
		t.Errorf("copied %q", out.String())
	}
}
