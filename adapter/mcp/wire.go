package mcp

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"

	"github.com/harnlang/harn/tool/jsonv"
)

// JSON-RPC and MCP error codes (mcp-projection.md §2).
const (
	codeParseError         = -32700
	codeInvalidRequest     = -32600
	codeMethodNotFound     = -32601
	codeInvalidParams      = -32602
	codeInternalError      = -32603
	codeNotInitialized     = -32002
	codeResourceNotFound   = -32002
	codeUnauthorized       = -32001
	codeHeaderMismatch     = -32020
	codeMissingCapability  = -32021
	codeUnsupportedVersion = -32022
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int
	Message string
	Data    any // jsonv value or nil
}

func (e *rpcError) Error() string { return e.Message }

func errorf(code int, msg string) *rpcError { return &rpcError{Code: code, Message: msg} }

func invalidParams(msg string) *rpcError { return errorf(codeInvalidParams, msg) }

func (e *rpcError) object() *jsonv.Object {
	o := jsonv.NewObject(3)
	o.Set("code", jsonv.Int(int64(e.Code)))
	o.Set("message", e.Message)
	if e.Data != nil {
		o.Set("data", e.Data)
	}
	return o
}

// message is one decoded incoming line.
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

// decode classifies one parsed JSON value. A non-nil *rpcError is the
// answer to send (with the id it carries, or null).
func decode(v any) (*message, any, *rpcError) {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return nil, nil, errorf(codeInvalidRequest, "Invalid Request")
	}
	m := &message{}
	idv, hasID := o.Get("id")
	if hasID {
		switch idv.(type) {
		case json.Number, string:
			m.id, m.hasID = idv, true
		default:
			return nil, nil, errorf(codeInvalidRequest, "Invalid Request: id must be a string or a number")
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
		return nil, m.id, errorf(codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	method, ok := mv.(string)
	if !ok {
		return nil, m.id, errorf(codeInvalidRequest, "Invalid Request: method must be a string")
	}
	m.method = method
	if pv, ok := o.Get("params"); ok && pv != nil {
		p, ok := pv.(*jsonv.Object)
		if !ok {
			return nil, m.id, invalidParams("Invalid params: params must be an object")
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

// writer serializes outgoing lines.
type writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	buf []byte
	err error
}

func newWriter(w io.Writer) *writer { return &writer{w: bufio.NewWriterSize(w, 64<<10)} }

func (w *writer) line(v any) {
	w.mu.Lock()
	defer w.mu.Unlock()
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

func errorResponse(id any, e *rpcError) *jsonv.Object {
	o := jsonv.NewObject(3)
	o.Set("jsonrpc", "2.0")
	o.Set("id", id)
	o.Set("error", e.object())
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
