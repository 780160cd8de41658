package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The protocol library ends the session at the first message it cannot
// frame or decode, with a timestamped log line and no sign in the exit
// status. copyFrames stands between the client and it: it passes on the
// messages the library accepts and stops at the first it would refuse,
// with an error that says what was wrong, which `harn lsp` reports with
// exit status 1.

// maxFrame bounds one message, as the MCP servers bound a stdio line
// (docs/limits.md).
const maxFrame = 64 << 20

// copyFrames copies LSP messages (Content-Length header, blank line, JSON
// body) from src to dst until src ends, which is not an error, even inside
// a message: the client went away.
func copyFrames(dst io.Writer, src io.Reader) error {
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
			return err
		}
		if _, err := fmt.Fprintf(dst, "Content-Length: %d\r\n\r\n%s", n, body); err != nil {
			return nil // the server is gone
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

// checkMessage refuses a body the protocol library could not decode.
func checkMessage(body []byte) error {
	if !json.Valid(body) {
		return fmt.Errorf("message body is not JSON: %s", quoteClip(string(body)))
	}
	var m map[string]json.RawMessage // keys present, even with null values
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("message is not a JSON-RPC object: %s", quoteClip(string(body)))
	}
	if id, ok := m["id"]; ok && string(id) != "null" {
		var num uint64
		var str string
		if json.Unmarshal(id, &num) != nil && json.Unmarshal(id, &str) != nil {
			return fmt.Errorf("message id %s is neither a string nor a non-negative integer", quoteClip(string(id)))
		}
	}
	method, isRequest := m["method"]
	isRequest = isRequest && string(method) != "null"
	if isRequest {
		var name string
		if json.Unmarshal(method, &name) != nil {
			return fmt.Errorf("method %s is not a string", quoteClip(string(method)))
		}
	}
	_, result := m["result"] // a null result is a result
	e, failed := m["error"]
	if isRequest == (result || failed && string(e) != "null") {
		return errors.New("message is neither a request (method) nor a response (result or error)")
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
