package protocol

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
)

// Call is one run of provider handler code: a tools/call (inline or as
// a task), or a Handler answering resources/read or prompts/get. It is
// what the handler talks to while it runs: progress, logging, resource
// updates, client input and cancellation.
type Call struct {
	*Request
	c    *conn
	task *task

	ctxOnce sync.Once
	ctx     context.Context
	// endCtx cancels ctx once the handler has returned, which also takes
	// it out of the server's stop context (a long-running server would
	// otherwise keep one entry there for every call it ever made).
	endCtx context.CancelFunc

	last    *float64      // last reported progress
	answers *jsonv.Object // input responses collected so far (nil: none)
	next    int           // index of the next input request
	// pending is the input request that abandoned the handler.
	pending   *jsonv.Object
	taskInput bool
}

func (c *conn) newCall(req *Request, t *task) *Call {
	return &Call{Request: req, c: c, task: t}
}

// Task reports a call running as a task.
func (x *Call) Task() bool { return x.task != nil }

func (x *Call) canceller() *canceller {
	if x.task != nil {
		return x.task.cancel
	}
	return x.Request.cancel
}

// OnCancel registers f to run when the request (or its task) is
// cancelled; f runs at once when it already is.
func (x *Call) OnCancel(f func()) { x.canceller().onCancel(f) }

// Cancelled reports a cancelled request or task.
func (x *Call) Cancelled() bool { return x.canceller().isCancelled() }

// Context is cancelled with the request (or its task), or by Drain
// (cause ErrShuttingDown).
func (x *Call) Context() context.Context {
	x.ctxOnce.Do(func() { x.ctx, x.endCtx = contextFor(x.c.srv.callParent(), x.canceller()) })
	return x.ctx
}

// end releases what the call's Context holds; the handler has returned.
func (x *Call) end() {
	x.ctxOnce.Do(func() { // asked for after the end: already done
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		x.ctx = ctx
	})
	if x.endCtx != nil {
		x.endCtx()
	}
}

// Progress emits notifications/progress for the request's progress
// token, or for token when it is not nil (docs/spec/mcp-projection.md §13). It
// reports false, sending nothing, without a token or when progress does
// not strictly increase.
func (x *Call) Progress(progress float64, total *float64, message *string, token any) bool {
	if token == nil {
		token = x.token
	}
	if token == nil || (x.last != nil && progress <= *x.last) {
		return false
	}
	p := progress
	x.last = &p
	params := jsonv.NewObject(4)
	params.Set("progressToken", token)
	params.Set("progress", jsonv.Float(progress))
	if total != nil {
		params.Set("total", jsonv.Float(*total))
	}
	if message != nil {
		params.Set("message", *message)
	}
	x.c.w.line(notification("notifications/progress", params))
	return true
}

// Log emits notifications/message when the client's level admits
// level: released clients set it with logging/setLevel (default info);
// 2026-07-28 requests name it in _meta (none: no logging).
func (x *Call) Log(level, logger string, data any) bool {
	min := x.logLevel
	if !x.modern {
		x.c.mu.Lock()
		min = x.c.logLevel
		x.c.mu.Unlock()
		if min == "" {
			min = "info"
		}
	}
	if min == "" || levelRank[level] < levelRank[min] {
		return false
	}
	params := jsonv.NewObject(3)
	params.Set("level", level)
	if logger != "" {
		params.Set("logger", logger)
	}
	params.Set("data", data)
	x.c.w.line(notification("notifications/message", params))
	return true
}

// ResourceUpdated sends notifications/resources/updated when the
// connection subscribed to uri; false when it did not.
func (x *Call) ResourceUpdated(uri string) bool {
	x.c.mu.Lock()
	ok := x.c.subscribed[uri]
	x.c.mu.Unlock()
	if ok {
		params := jsonv.NewObject(1)
		params.Set("uri", uri)
		x.c.w.line(notification("notifications/resources/updated", params))
	}
	return ok
}

// Errors of Call.Input.
var (
	// ErrInputUnsupported: the client did not advertise the capability.
	ErrInputUnsupported = errors.New("the MCP client did not advertise support for the input method")
	// ErrInputRequired: the handler must unwind now; the server answers
	// input_required (or fails the task).
	ErrInputRequired = errors.New("MCP handler abandoned for client input")
	// ErrConnectionClosed: the connection closed before the request
	// could be sent.
	ErrConnectionClosed = errors.New("the MCP connection is closed")
	// ErrNoAnswer: the connection closed before the client answered.
	ErrNoAnswer = errors.New("the MCP connection closed before the client answered")
)

// ClientError is the client's error answer to a server request.
type ClientError struct{ Message string }

func (e *ClientError) Error() string { return e.Message }

// ReadInputResponses collects the responses of a multi-round-trip retry
// (requestState and inputResponses, docs/spec/mcp-projection.md §6 step 4) for
// Input. tools/call does it before running the tool; a Handler calls it
// before running code that may ask for input.
func (x *Call) ReadInputResponses() *Error {
	state, rerr := inputState(x.params)
	if rerr != nil {
		return rerr
	}
	x.answers = state
	return nil
}

// Input asks the client for input (method elicitation/create,
// roots/list or sampling/createMessage). In the 2026-07-28 profile it
// returns the keyed answer of a retry, or ErrInputRequired after
// recording the request for the input_required answer; in the released
// profile it sends a server-to-client request and waits for the answer
// with wait (which returns false when it stopped without the channel
// closing; nil waits on the call's context). A task cannot carry input:
// ErrInputRequired, and the task fails.
func (x *Call) Input(method string, params *jsonv.Object, wait func(<-chan struct{}) (bool, error)) (any, error) {
	if !x.supports(method, params) {
		return nil, ErrInputUnsupported
	}
	if x.task != nil {
		x.taskInput = true
		return nil, ErrInputRequired
	}
	if !x.modern {
		return x.c.call(x, method, params, wait)
	}
	key := fmt.Sprintf("harn-input-%d", x.next)
	x.next++
	if ans, ok := x.answers.Get(key); ok {
		return ans, nil
	}
	r := jsonv.NewObject(2)
	r.Set("method", method)
	r.Set("params", params)
	x.pending = jsonv.NewObject(1)
	x.pending.Set(key, r)
	return nil, ErrInputRequired
}

// outcome replaces the result of a handler that asked for input.
func (x *Call) outcome(res any) any {
	if x.pending != nil {
		ir := jsonv.NewObject(3)
		ir.Set("resultType", "input_required")
		ir.Set("inputRequests", x.pending)
		answers := x.answers
		if answers == nil {
			answers = jsonv.NewObject(0)
		}
		ir.Set("requestState", string(jsonv.Marshal(answers)))
		return ir
	}
	if x.taskInput {
		return errTaskInput
	}
	return res
}

// supports checks the request's client capabilities for an input
// method. An empty elicitation object means form mode (as in the
// 2025-11-25 specification).
func (x *Call) supports(method string, params *jsonv.Object) bool {
	caps := x.caps
	if caps == nil {
		return false
	}
	switch method {
	case "elicitation/create":
		ev, ok := caps.Get("elicitation")
		eo, isObj := ev.(*jsonv.Object)
		if !ok || !isObj {
			return false
		}
		mode, _ := params.Get("mode")
		if mode == "url" {
			return eo.Has("url")
		}
		return eo.Has("form") || eo.Len() == 0
	case "roots/list":
		return caps.Has("roots")
	case "sampling/createMessage":
		return caps.Has("sampling")
	}
	return false
}

// errTaskInput fails a task whose handler asked for client input.
var errTaskInput = Errorf(CodeInternalError, "Tool requested client input, which a task cannot carry")

// inputState merges requestState and inputResponses; nil when the
// request carries neither (a call's first round, nearly every call).
func inputState(p *jsonv.Object) (*jsonv.Object, *Error) {
	var state *jsonv.Object
	if rv, ok := p.Get("requestState"); ok {
		s, ok := rv.(string)
		if !ok {
			return nil, InvalidParams("MCP requestState must be a string")
		}
		v, err := jsonv.Parse([]byte(s))
		if err != nil {
			return nil, InvalidParams("invalid MCP requestState: " + err.Error())
		}
		o, ok := v.(*jsonv.Object)
		if !ok {
			return nil, InvalidParams("invalid MCP requestState: not a JSON object")
		}
		state = o.Copy()
	}
	if iv, ok := p.Get("inputResponses"); ok {
		o, ok := iv.(*jsonv.Object)
		if !ok {
			return nil, InvalidParams("MCP inputResponses must be an object")
		}
		if state == nil {
			state = jsonv.NewObject(o.Len())
		}
		o.Range(func(k string, v any) bool {
			state.Set(k, v)
			return true
		})
	}
	return state, nil
}

// pendingCall is a server-to-client request awaiting its answer: wake
// is closed when msg is set (or, with msg nil, when the connection
// closes).
type pendingCall struct {
	wake chan struct{}
	msg  *message
}

// call sends a server-to-client request (released profile) and waits
// for the answer.
func (c *conn) call(x *Call, method string, params *jsonv.Object, wait func(<-chan struct{}) (bool, error)) (any, error) {
	id := fmt.Sprintf("harn-%d", c.nextID.Add(1))
	pc := &pendingCall{wake: make(chan struct{})}
	c.qmu.Lock()
	closed := c.closed
	c.qmu.Unlock()
	if closed {
		return nil, ErrConnectionClosed
	}
	c.mu.Lock()
	if c.pending == nil {
		c.pending = map[string]*pendingCall{}
	}
	c.pending[idKey(id)] = pc
	c.mu.Unlock()
	if method == "elicitation/create" {
		if m, _ := params.Get("mode"); m == "form" {
			params = params.Without("mode") // released clients predate mode
		}
	}
	msg := jsonv.NewObject(4)
	msg.Set("jsonrpc", "2.0")
	msg.Set("id", id)
	msg.Set("method", method)
	msg.Set("params", params)
	c.w.line(msg)
	if wait == nil {
		ctx := x.Context()
		wait = func(ch <-chan struct{}) (bool, error) {
			select {
			case <-ch:
				return true, nil
			case <-ctx.Done():
				return false, ctx.Err()
			}
		}
	}
	fired, err := wait(pc.wake)
	if !fired || pc.msg == nil {
		c.mu.Lock()
		delete(c.pending, idKey(id))
		c.mu.Unlock()
		if !fired {
			// The call was cancelled (or the server is stopping) while the
			// client works on the request: tell it to stop, as a client
			// tells the server, so it does not keep asking its user.
			params := jsonv.NewObject(2)
			params.Set("requestId", id)
			params.Set("reason", "the request that asked for it was cancelled")
			c.w.line(notification("notifications/cancelled", params))
		}
		if err != nil {
			return nil, err
		}
		return nil, ErrNoAnswer
	}
	m := pc.msg
	if m.rpcErr != nil {
		text := "error"
		if eo, ok := m.rpcErr.(*jsonv.Object); ok {
			if mv, _ := eo.Get("message"); mv != nil {
				if s, ok := mv.(string); ok {
					text = s
				}
			}
		}
		return nil, &ClientError{Message: text}
	}
	return m.result, nil
}

// toolsCall answers tools/call on the executor (docs/spec/mcp-projection.md §6).
func (c *conn) toolsCall(x *Call) any {
	req := x.Request
	name, t, asTask, args, rerr := c.prepareCall(x)
	if rerr != nil {
		if r, ok := c.srv.p.(CallRecorder); ok {
			r.RefusedCall(x, name, rerr)
		}
		return rerr
	}
	if !asTask {
		return t.Call(x, args)
	}
	tk := c.srv.tasks.create(req.taskOwner())
	if !req.answered.CompareAndSwap(false, true) {
		return nil // Drain answered the call before its task existed
	}
	c.reply(req, tk.createdAnswer())
	tx := c.newCall(req, tk)
	tx.answers = x.answers
	c.srv.startWork(tk) // before this call's job ends: Drain waits for one or the other
	work := func() {
		defer c.srv.endWork(tk)
		res := guardHandler(func() any {
			defer tx.end()
			return tx.outcome(t.Call(tx, args))
		})
		if o, ok := res.(*jsonv.Object); ok && req.modern && !o.Has("resultType") {
			o.Set("resultType", "complete") // stored exactly as the inline answer
		}
		tk.finish(res)
	}
	// The work outlives the request on an HTTP connection, whose job
	// runs on the request's goroutine, and in parallel mode.
	if (c.srv.opts.Parallel || c.ephemeral) && c.background(work) {
		return nil
	}
	work()
	return nil
}

// CallRecorder is implemented by a provider that records every
// tools/call (docs/spec/orchestrator.md §12): the server tells it of
// the calls that end before any tool runs, answered with a JSON-RPC
// error (refused by the lifecycle, or by the checks of prepareCall) or
// cancelled by the client before they started.
type CallRecorder interface {
	// RefusedCall is told the call's tool name ("" when params.name is
	// missing or not a string) and the error the call is answered
	// with, or CancelledBeforeStart. The call's Identity is the
	// client's whenever the request carried a well-formed clientInfo,
	// even when the request was refused for something else in its
	// metadata or headers.
	RefusedCall(x *Call, name string, e *Error)
}

// CancelledBeforeStart is what a CallRecorder is told of a tools/call
// the client cancelled (notifications/cancelled) while it waited for
// the executor: like every cancelled request it gets no answer, so this
// error never goes on the wire, but the call failed and is recorded
// (docs/spec/orchestrator.md §12). Its code is JSON-RPC's
// request-cancelled code as LSP defines it; MCP defines none.
var CancelledBeforeStart = &Error{Code: CodeRequestCancelled, Message: "cancelled by the client before it started"}

// prepareCall checks a tools/call up to the point where its tool runs
// (docs/spec/mcp-projection.md §6 steps 1-4).
func (c *conn) prepareCall(x *Call) (name string, t Tool, asTask bool, args any, rerr *Error) {
	req := x.Request
	name, rerr = nameParam(req, "tool")
	if rerr != nil {
		return name, nil, false, nil, rerr
	}
	t, ok := c.srv.p.Tool(req, name)
	if !ok {
		return name, nil, false, nil, InvalidParams("Unknown tool: " + name)
	}
	support := t.TaskSupport()
	asTask = req.TasksOptIn() && (support == "optional" || support == "required")
	if support == "required" && !asTask {
		return name, nil, false, nil, MissingTasksCapability()
	}
	args, ok = req.params.Get("arguments")
	if !ok || args == nil {
		args = jsonv.NewObject(0)
	}
	if rerr := t.Validate(args); rerr != nil {
		return name, nil, false, nil, rerr
	}
	if rerr := x.ReadInputResponses(); rerr != nil {
		return name, nil, false, nil, rerr
	}
	return name, t, asTask, args, nil
}

// MissingTasksCapability is the -32021 error of a request that needs
// the tasks extension without opting in.
func MissingTasksCapability() *Error {
	ext := jsonv.NewObject(1)
	ext.Set(TasksExtension, jsonv.NewObject(0))
	caps := jsonv.NewObject(1)
	caps.Set("extensions", ext)
	data := jsonv.NewObject(1)
	data.Set("requiredCapabilities", caps)
	return &Error{Code: CodeMissingCapability, Message: "Missing required client capability", Data: data}
}
