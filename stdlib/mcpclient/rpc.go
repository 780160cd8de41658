package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/vm"
)

// The JSON-RPC 2.0 layer both transports share: requests with integer
// ids, answers to the few requests a server may send the client, and the
// errors a call can end with.

// rpcError is a JSON-RPC error answer from the server.
type rpcError struct {
	Code    int
	Message string
	Data    any
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("server error %d: %s", e.Code, e.Message)
}

// errTimeout is a call that got no answer within its time limit.
type errTimeout struct {
	method string
	after  time.Duration
}

func (e *errTimeout) Error() string {
	return fmt.Sprintf("timed out after %s waiting for the answer to %s", vm.FormatDuration(e.after.Milliseconds()), e.method)
}

// errClosed is a call on a client that was disconnected.
var errClosed = errors.New("the client is disconnected")

// request is the text of one JSON-RPC request (params omitted when nil).
func request(id int64, method string, params *jsonv.Object) []byte {
	o := jsonv.NewObject(4)
	o.Set("jsonrpc", "2.0")
	o.Set("id", jsonv.Int(id))
	o.Set("method", method)
	if params != nil {
		o.Set("params", params)
	}
	return jsonv.Marshal(o)
}

// notification is the text of one JSON-RPC notification.
func notification(method string, params *jsonv.Object) []byte {
	o := jsonv.NewObject(3)
	o.Set("jsonrpc", "2.0")
	o.Set("method", method)
	if params != nil {
		o.Set("params", params)
	}
	return jsonv.Marshal(o)
}

// rootsResult is the answer to roots/list: {roots: [{uri, name?}]}.
func rootsResult(roots []root) *jsonv.Object {
	list := make([]any, len(roots))
	for i, r := range roots {
		e := jsonv.NewObject(2)
		e.Set("uri", r.uri)
		if r.name != "" {
			e.Set("name", r.name)
		}
		list[i] = e
	}
	res := jsonv.NewObject(1)
	res.Set("roots", list)
	return res
}

// maxInputRounds bounds the input_required round trips of one call.
const maxInputRounds = 8

// inputResponses answers the inputRequests of an input_required result
// (docs/spec/mcp-projection.md §8): every request must be one the client
// can answer (inputs.has); ok is false otherwise. A handler's failure is
// err.
func (s *session) inputResponses(ctx context.Context, res *jsonv.Object) (out *jsonv.Object, ok bool, err error) {
	reqs, ok := jsonv.Member[*jsonv.Object](res, "inputRequests")
	if !ok || reqs.Len() == 0 {
		return nil, false, nil
	}
	for _, key := range reqs.Keys() {
		r, _ := reqs.Get(key)
		ro, isObj := r.(*jsonv.Object)
		if !isObj {
			return nil, false, nil
		}
		if m, _ := jsonv.Member[string](ro, "method"); !s.in.has(m) {
			return nil, false, nil
		}
	}
	out = jsonv.NewObject(reqs.Len())
	for _, key := range reqs.Keys() {
		r, _ := reqs.Get(key)
		ro := r.(*jsonv.Object)
		m, _ := jsonv.Member[string](ro, "method")
		params, _ := ro.Get("params")
		a, err := s.in.answer(ctx, m, params)
		if err != nil {
			return nil, true, err
		}
		out.Set(key, a)
	}
	return out, true, nil
}

// answerServerRequest is the client's answer to a request the server
// sends (id and method set): what inputs can answer, else "Method not
// found". A failing handler is an internal error (-32603) whose message
// is the failure.
func answerServerRequest(ctx context.Context, m incoming, in *inputs) []byte {
	o := jsonv.NewObject(3)
	o.Set("jsonrpc", "2.0")
	o.Set("id", m.id)
	e := jsonv.NewObject(2)
	if !in.has(m.method) {
		e.Set("code", jsonv.Int(-32601))
		e.Set("message", "Method not found: "+m.method)
		o.Set("error", e)
		return jsonv.Marshal(o)
	}
	res, err := in.answer(ctx, m.method, m.params)
	if err != nil {
		e.Set("code", jsonv.Int(-32603))
		e.Set("message", handlerErrText(err))
		o.Set("error", e)
		return jsonv.Marshal(o)
	}
	o.Set("result", res)
	return jsonv.Marshal(o)
}

// handlerErrText is the message of a handler's failure: a thrown
// value's display, a run-time error's message without its kind.
func handlerErrText(err error) string {
	var ve *vm.Error
	if errors.As(err, &ve) {
		if ve.Kind == vm.KindThrown {
			return vm.ToDisplay(ve.Value)
		}
		if ve.Msg != "" {
			return ve.Msg
		}
	}
	return err.Error()
}

// slowAnswer reports whether answering method runs a script handler, so
// the reader must not wait for it (the handler may take long, or call
// the same server).
func slowAnswer(method string) bool {
	return method == "elicitation/create" || method == "sampling/createMessage"
}

// incoming is one decoded message from the server.
type incoming struct {
	id       any // json.Number or string; nil when absent
	hasID    bool
	method   string // "" for a response
	params   any    // a request's params
	result   any
	err      *rpcError
	response bool
}

// decodeIncoming classifies one JSON value; ok is false for anything
// that is not a JSON-RPC message.
func decodeIncoming(v any) (incoming, bool) {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return incoming{}, false
	}
	var m incoming
	m.id, m.hasID = o.Get("id")
	if mv, ok := o.Get("method"); ok {
		s, ok := mv.(string)
		if !ok {
			return incoming{}, false
		}
		m.method = s
		m.params, _ = o.Get("params")
		return m, true
	}
	if !m.hasID {
		return incoming{}, false
	}
	m.response = true
	if ev, ok := o.Get("error"); ok && ev != nil {
		m.err = toRPCError(ev)
		return m, true
	}
	m.result, _ = o.Get("result")
	return m, true
}

func toRPCError(v any) *rpcError {
	e := &rpcError{Code: -32603, Message: "malformed error object"}
	o, ok := v.(*jsonv.Object)
	if !ok {
		return e
	}
	if c, ok := o.Get("code"); ok {
		if n, ok := c.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				e.Code = int(i)
			}
		}
	}
	if m, ok := o.Get("message"); ok {
		if s, ok := m.(string); ok {
			e.Message = s
		}
	}
	e.Data, _ = o.Get("data")
	return e
}

// idNumber is a response id as the int64 the client sent; ok is false
// for ids the client never uses.
func idNumber(id any) (int64, bool) {
	switch x := id.(type) {
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// callCtx bounds a call by timeout; the returned error converts a
// deadline into errTimeout.
func callCtx(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout)
}

// ctxError is the error of a call whose context ended.
func ctxError(ctx context.Context, method string, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &errTimeout{method: method, after: timeout}
	}
	return ctx.Err()
}

// tail keeps the last bytes written to it (a server's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	t.mu.Unlock()
	return len(p), nil
}

// String is the last non-empty lines kept, joined with "; ".
func (t *tail) String() string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.Join(lines, "; ")
}
