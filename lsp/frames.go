package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// The protocol library ends the session at the first message it cannot
// frame or decode, with a timestamped log line and no sign in the exit
// status. copyFrames stands between the client and it: it passes on the
// messages the library accepts. A body that is not JSON, or not a
// JSON-RPC message, is answered as JSON-RPC says (-32700 Parse error,
// -32600 Invalid Request, with a null id) and the session goes on; a
// message that cannot be framed (bad headers) stops it with an error that
// says what was wrong, which `harn lsp` reports with exit status 1.
// Because the answers and the library's messages share the client's
// output, the library writes to a pipe and copyReplies passes its
// messages on whole, one at a time.

// maxFrame bounds one message, as the MCP servers bound a stdio line
// (docs/limits.md).
const maxFrame = 64 << 20

// JSON-RPC error codes of bodies the library is not given.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// badMessage is a body copyFrames answers instead of passing on.
type badMessage struct {
	code int
	msg  string
}

func (e *badMessage) Error() string { return e.msg }

// copyFrames copies LSP messages (Content-Length header, blank line, JSON
// body) from src to dst until src ends, which is not an error, even inside
// a message: the client went away. A body the library would refuse is
// answered through reply (a whole framed message) instead; every other
// body is noted (arrive) before it is passed on.
func copyFrames(dst io.Writer, src io.Reader, arrive func(body []byte), reply func(frame []byte)) error {
	br := bufio.NewReader(src)
	for {
		n, err := readHeader(br)
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil
			}
			return err
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil
		}
		if err := checkMessage(body); err != nil {
			reply(errorFrame(err.(*badMessage)))
			continue
		}
		arrive(body)
		if _, err := fmt.Fprintf(dst, "Content-Length: %d\r\n\r\n%s", n, body); err != nil {
			return nil // the server is gone
		}
	}
}

// errorFrame is the framed JSON-RPC error response to a bad body.
func errorFrame(e *badMessage) []byte {
	name := "Parse error"
	if e.code == codeInvalidRequest {
		name = "Invalid Request"
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": e.code, "message": name + ": " + e.msg}})
	return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// copyReplies passes the library's messages from src to the client
// whole, each under mu (which the error answers take too), as rewrite
// makes them.
func copyReplies(dst io.Writer, src io.Reader, mu *sync.Mutex, rewrite func(body []byte) []byte) {
	br := bufio.NewReader(src)
	for {
		n, err := readHeader(br)
		if err != nil {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		body = rewrite(body)
		mu.Lock()
		_, err = fmt.Fprintf(dst, "Content-Length: %d\r\n\r\n%s", len(body), body)
		mu.Unlock()
		if err != nil {
			return
		}
	}
}

// readHeader reads the header lines of one message and returns its
// Content-Length.
func readHeader(br *bufio.Reader) (int, error) {
	n := -1
	for first := true; ; first = false {
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF && first && line == "" {
				return 0, io.EOF
			}
			return 0, io.ErrUnexpectedEOF
		}
		if !strings.HasSuffix(line, "\r\n") {
			return 0, fmt.Errorf("header line %s does not end with \\r\\n", quoteClip(line))
		}
		line = strings.TrimSuffix(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, fmt.Errorf("header line %s is not NAME: VALUE (is the client speaking LSP?)", quoteClip(line))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || v <= 0 {
				return 0, fmt.Errorf("Content-Length %s is not a positive number", quoteClip(strings.TrimSpace(value)))
			}
			if v > maxFrame {
				return 0, fmt.Errorf("message of %d bytes is over the limit of %d", v, maxFrame)
			}
			n = v
		}
	}
	if n < 0 {
		return 0, errors.New("message without a Content-Length header")
	}
	return n, nil
}

// checkMessage refuses a body the protocol library could not decode,
// with a *badMessage.
func checkMessage(body []byte) error {
	invalid := func(format string, args ...any) error {
		return &badMessage{codeInvalidRequest, fmt.Sprintf(format, args...)}
	}
	if !json.Valid(body) {
		return &badMessage{codeParseError, "message body is not JSON: " + quoteClip(string(body))}
	}
	var m map[string]json.RawMessage // keys present, even with null values
	if err := json.Unmarshal(body, &m); err != nil {
		return invalid("message is not a JSON-RPC object: %s", quoteClip(string(body)))
	}
	if id, ok := m["id"]; ok && string(id) != "null" {
		var num uint64
		var str string
		if json.Unmarshal(id, &num) != nil && json.Unmarshal(id, &str) != nil {
			return invalid("message id %s is neither a string nor a non-negative integer", quoteClip(string(id)))
		}
	}
	method, isRequest := m["method"]
	isRequest = isRequest && string(method) != "null"
	if isRequest {
		var name string
		if json.Unmarshal(method, &name) != nil {
			return invalid("method %s is not a string", quoteClip(string(method)))
		}
	}
	_, result := m["result"] // a null result is a result
	e, failed := m["error"]
	if isRequest == (result || failed && string(e) != "null") {
		return invalid("message is neither a request (method) nor a response (result or error)")
	}
	return nil
}

// quoteClip quotes s for a message, cut to a readable length.
func quoteClip(s string) string {
	const max = 60
	if len(s) > max {
		return strconv.Quote(s[:max]) + "…"
	}
	return strconv.Quote(s)
}
