package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/harnlang/harn/internal/jsonv"
)

// JSON-RPC and MCP error codes (docs/spec/mcp-projection.md §2).
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
	// CodeRequestCancelled is only ever told to a CallRecorder (see
	// CancelledBeforeStart): a cancelled request gets no answer.
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error object. Provider methods return one to
// answer a request with an error.
type Error struct {
	Code    int
	Message string
	Data    any // a jsonv value or nil
}

func (e *Error) Error() string { return e.Message }

// errParse answers a message that is not JSON (or not UTF-8) on every
// transport alike: JSON-RPC 2.0 §5.1 names the -32700 message "Parse
// error", and a stdio line and an HTTP body get the same object
// (docs/spec/mcp-projection.md §2, docs/mcp.md).
var errParse = Errorf(CodeParseError, "Parse error")

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
	wire   any // id as written back (see wireID)
	hasID  bool
	method string
	params *jsonv.Object
	// A response to one of the server's own requests.
	isResponse bool
	result     any
	rpcErr     any
	// batch collects the response of a request that came in a batch,
	// at index slot.
	batch *batchReply
	slot  int
}

// decode classifies one parsed JSON value. A non-nil *Error is the
// answer to send (with the id it carries, or null); the message comes
// with it when it is a request whose params are not an object.
func decode(v any) (*message, any, *Error) {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return nil, nil, Errorf(CodeInvalidRequest, "Invalid Request: a JSON-RPC message must be an object")
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
			if !m.hasID {
				// A notification is never answered, not even when its
				// params are malformed: drop it like a stray message.
				m.isResponse = true
				return m, nil, nil
			}
			// The message is returned with the error, so that a refused
			// tools/call can still be recorded (CallRecorder).
			m.params = jsonv.NewObject(0)
			return m, m.id, InvalidParams("Invalid params: params must be an object")
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
	case json.RawMessage:
		v, _ := jsonv.Parse(x)
		return idKey(v)
	}
	return ""
}

// wireID is the id to write back for a request decoded from line: the
// decoded id, or, for a string id written with escapes, the id's own
// text, since decoding turns a lone surrogate (`"\ud800"`) into U+FFFD
// and the client must get back exactly the id it sent.
func wireID(id any, line []byte) any {
	if _, ok := id.(string); !ok {
		return id
	}
	if raw := rawID(line); raw != nil && bytes.IndexByte(raw, '\\') >= 0 {
		return json.RawMessage(bytes.Clone(raw)) // line's buffer is reused
	}
	return id
}

// unparsedID is the id of a message that does not parse (nested too
// deep, or malformed after its id), read from its text; nil when none
// can be read.
func unparsedID(line []byte) any {
	if raw := rawID(line); raw != nil {
		return json.RawMessage(bytes.Clone(raw)) // line's buffer is reused
	}
	return nil
}

// rawID returns the text of the last top-level "id" member of the JSON
// object in data when it is a string or a number, skipping the other
// members without decoding them (and without recursion, so any depth
// is fine). Text that is not a whole object (truncated, or followed by
// more) has no id: like JSON-RPC, only a message whose id can be
// detected for sure is answered with it.
func rawID(data []byte) []byte {
	s := idScanner{data: data}
	s.space()
	if !s.byte('{') {
		return nil
	}
	var id []byte
	s.space()
	if s.byte('}') {
		return nil
	}
	for {
		s.space()
		start := s.pos
		if !s.skipString() {
			return nil
		}
		var key string
		if json.Unmarshal(data[start:s.pos], &key) != nil {
			return nil
		}
		s.space()
		if !s.byte(':') {
			return nil
		}
		s.space()
		start = s.pos
		if !s.skipValue() {
			return nil
		}
		if key == "id" {
			v := data[start:s.pos]
			// An id that is not valid UTF-8 cannot be echoed verbatim
			// in valid JSON: it is no id.
			if (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) && json.Valid(v) && utf8.Valid(v) {
				id = v
			} else {
				id = nil
			}
		}
		s.space()
		if s.byte('}') {
			s.space()
			if s.pos != len(data) {
				return nil
			}
			return id
		}
		if !s.byte(',') {
			return nil
		}
	}
}

type idScanner struct {
	data []byte
	pos  int
}

func (s *idScanner) space() {
	for s.pos < len(s.data) && (s.data[s.pos] == ' ' || s.data[s.pos] == '\t' || s.data[s.pos] == '\n' || s.data[s.pos] == '\r') {
		s.pos++
	}
}

func (s *idScanner) byte(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

func (s *idScanner) skipString() bool {
	if !s.byte('"') {
		return false
	}
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			s.pos += 2
		case '"':
			s.pos++
			return true
		default:
			s.pos++
		}
	}
	return false
}

// skipValue moves past one value, counting brackets for containers.
func (s *idScanner) skipValue() bool {
	if s.pos >= len(s.data) {
		return false
	}
	switch c := s.data[s.pos]; c {
	case '"':
		return s.skipString()
	case '{', '[':
		depth := 0
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case '"':
				if !s.skipString() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.pos++
					return true
				}
			}
			s.pos++
		}
		return false
	}
	start := s.pos
	for s.pos < len(s.data) && !strings.ContainsRune(" \t\r\n,}]", rune(s.data[s.pos])) {
		s.pos++
	}
	return s.pos > start
}

// writer is a connection's one writer: it serializes every outgoing
// line, whichever goroutine produced it, to a stream (stdio) or, with
// route set, to a router that gets each message with its text (an HTTP
// request's connection, which routes messages by id).
type writer struct {
	mu    sync.Mutex
	w     *bufio.Writer
	route router
	buf   []byte
	err   error
}

// A router takes the messages of an HTTP request's connection, under
// its writer's lock. The text is only lent to it: it is encoded into a
// pooled buffer, reused once route returns.
type router interface {
	route(v any, line []byte)
}

// lineBuffers hold the text of routed messages (see router).
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1<<10); return &b }}

func newWriter(w io.Writer) *writer { return &writer{w: bufio.NewWriterSize(w, 64<<10)} }

func (w *writer) line(v any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.route != nil {
		bp := lineBuffers.Get().(*[]byte)
		*bp = jsonv.Append((*bp)[:0], v)
		w.route.route(v, *bp)
		if cap(*bp) <= 64<<10 {
			lineBuffers.Put(bp)
		}
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
