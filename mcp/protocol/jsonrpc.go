package protocol

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"

	"github.com/harnlang/harn/tool/jsonv"
)

// JSON-RPC and MCP error codes (mcp-projection.md §2).
const (
	CodeParseError         = -32700
	CodeInvalidRequest     = -32600
	CodeMethodNotFound     = -32601
	CodeInvalidParams      = -32602
	CodeInternalError      = -32603
	CodeNotInitialized     = -32002
	CodeResourceNotFound   = -32002
	CodeUnauthorized       = -32001
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
)

// Error is a JSON-RPC error object. Provider methods return one to
// answer a request with an error.
type Error struct {
	Code    int
	Message string
	Data    any // a jsonv value or nil
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an error with code and message.
func Errorf(code int, msg string) *Error { return &Error{Code: code, Message: msg} }

// InvalidParams returns a -32602 error.
func InvalidParams(msg string) *Error { return Errorf(CodeInvalidParams, msg) }

// Object is the error as a JSON-RPC error object.
func (e *Error) Object() *jsonv.Object {
	o := jsonv.NewObject(3)
	o.Set("code", jsonv.Int(int64(e.Code)))
	o.Set("message", e.Message)
	if e.Data != nil {
		o.Set("data", e.Data)
	}
	return o
}

// unsupportedVersion is -32022 with the supported and requested
// versions.
func unsupportedVersion(requested any) *Error {
	data := jsonv.NewObject(2)
	data.Set("supported", []any{Version20260728})
	data.Set("requested", requested)
	return &Error{Code: CodeUnsupportedVersion, Message: "Unsupported protocol version", Data: data}
}

// message is one decoded incoming message.
type message struct {
	id     any // json.Number or string; nil for a notification
	hasID  bool
	method string
	params *jsonv.Object
	// A response to one of the server's own requests.
	isResponse bool
	result     any
	rpcErr     any
}

// decode classifies one parsed JSON value. A non-nil *Error is the
// answer to send (with the id it carries, or null).
func decode(v any) (*message, any, *Error) {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return nil, nil, Errorf(CodeInvalidRequest, "Invalid Request")
	}
	m := &message{}
	idv, hasID := o.Get("id")
	if hasID {
		switch idv.(type) {
		case json.Number, string:
			m.id, m.hasID = idv, true
		default:
			return nil, nil, Errorf(CodeInvalidRequest, "Invalid Request: id must be a string or a number")
		}
	}
	mv, hasMethod := o.Get("method")
	if !hasMethod {
		// A response (or a stray message): never answered.
		m.isResponse = true
		m.result, _ = o.Get("result")
		m.rpcErr, _ = o.Get("error")
		return m, m.id, nil
	}
	if ver, _ := o.Get("jsonrpc"); ver != "2.0" {
		return nil, m.id, Errorf(CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	method, ok := mv.(string)
	if !ok {
		return nil, m.id, Errorf(CodeInvalidRequest, "Invalid Request: method must be a string")
	}
	m.method = method
	if pv, ok := o.Get("params"); ok && pv != nil {
		p, ok := pv.(*jsonv.Object)
		if !ok {
			return nil, m.id, InvalidParams("Invalid params: params must be an object")
		}
		m.params = p
	} else {
		m.params = jsonv.NewObject(0)
	}
	return m, m.id, nil
}

// idKey is a map key for a request id: numbers and strings never
// collide.
func idKey(id any) string {
	switch x := id.(type) {
	case json.Number:
		return "n" + string(x)
	case string:
		return "s" + x
	}
	return ""
}

// writer is a connection's one writer: it serializes every outgoing
// line, whichever goroutine produced it, to a stream (stdio) or, with
// emit set, to a function that gets each message with its text (an
// HTTP request's connection, which routes messages by id).
type writer struct {
	mu   sync.Mutex
	w    *bufio.Writer
	emit func(v any, line []byte)
	buf  []byte
	err  error
}

func newWriter(w io.Writer) *writer { return &writer{w: bufio.NewWriterSize(w, 64<<10)} }

func (w *writer) line(v any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.emit != nil {
		w.emit(v, jsonv.Marshal(v))
		return
	}
	if w.err != nil {
		return
	}
	w.buf = jsonv.Append(w.buf[:0], v)
	w.buf = append(w.buf, '\n')
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = err
		return
	}
	w.err = w.w.Flush()
}

func response(id any, result any) *jsonv.Object {
	o := jsonv.NewObject(3)
	o.Set("jsonrpc", "2.0")
	o.Set("id", id)
	o.Set("result", result)
	return o
}

func errorResponse(id any, e *Error) *jsonv.Object {
	o := jsonv.NewObject(3)
	o.Set("jsonrpc", "2.0")
	o.Set("id", id)
	o.Set("error", e.Object())
	return o
}

func notification(method string, params any) *jsonv.Object {
	o := jsonv.NewObject(3)
	o.Set("jsonrpc", "2.0")
	o.Set("method", method)
	if params == nil {
		params = jsonv.NewObject(0)
	}
	o.Set("params", params)
	return o
}

// lineReader reads newline-delimited messages of any length; a line
// longer than max is reported as too long and skipped.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// next returns the next line without its terminator; tooLong reports a
// skipped over-long line.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > lr.max {
			tooLong = true
		} else {
			lr.buf = append(lr.buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && (len(lr.buf) > 0 || tooLong) {
				return trimEOL(lr.buf), tooLong, nil
			}
			return nil, false, err
		}
		return trimEOL(lr.buf), tooLong, nil
	}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
