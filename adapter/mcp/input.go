package mcp

import (
	"fmt"

	"github.com/harnlang/harn/tool/jsonv"
	"github.com/harnlang/harn/vm"
)

// handler is the stdlib.MCPHandler of one handler call: progress,
// logging, and client input. In the 2026-07-28 profile input works by
// multi-round-trip results (mcp-projection.md §8): the n-th input
// request of a call has the key harn-input-n; a known answer (from
// requestState and inputResponses) is returned, an unknown one abandons
// the handler and the call answers input_required. In the released
// profile, a client that advertised the capability gets a real
// server-to-client request (docs/mcp.md).
type handler struct {
	c    *conn
	req  *request
	task *task

	last    *float64 // last reported progress
	answers *jsonv.Object
	next    int
	// pending is the input request that abandoned the handler.
	pending   *jsonv.Object
	taskInput bool
}

func (c *conn) handlerFor(req *request, state *jsonv.Object, t *task) *handler {
	if state == nil {
		state = jsonv.NewObject(0)
	}
	return &handler{c: c, req: req, task: t, answers: state}
}

// errAbandon unwinds a handler without being catchable by its script.
var errAbandon = &vm.Error{Kind: vm.KindCancelled, Msg: "MCP handler abandoned for client input"}

// errTaskInput marks a task whose handler asked for client input.
var errTaskInput = errorf(codeInternalError, "Tool requested client input, which a task cannot carry")

// inputState merges requestState and inputResponses
// (mcp-projection.md §6 step 4).
func inputState(p *jsonv.Object) (*jsonv.Object, *rpcError) {
	state := jsonv.NewObject(0)
	if rv, ok := p.Get("requestState"); ok {
		s, ok := rv.(string)
		if !ok {
			return nil, invalidParams("MCP requestState must be a string")
		}
		v, err := jsonv.Parse([]byte(s))
		if err != nil {
			return nil, invalidParams("invalid MCP requestState: " + err.Error())
		}
		o, ok := v.(*jsonv.Object)
		if !ok {
			return nil, invalidParams("invalid MCP requestState: not a JSON object")
		}
		state = o.Copy()
	}
	if iv, ok := p.Get("inputResponses"); ok {
		o, ok := iv.(*jsonv.Object)
		if !ok {
			return nil, invalidParams("MCP inputResponses must be an object")
		}
		o.Range(func(k string, v any) bool {
			state.Set(k, v)
			return true
		})
	}
	return state, nil
}

// inputRequired is the multi-round-trip answer of an abandoned handler.
func (h *handler) inputRequired() *jsonv.Object {
	res := jsonv.NewObject(3)
	res.Set("resultType", "input_required")
	res.Set("inputRequests", h.pending)
	res.Set("requestState", string(jsonv.Marshal(h.answers)))
	return res
}

// ReportProgress implements stdlib.MCPHandler (mcp-projection.md §13).
func (h *handler) ReportProgress(progress float64, total *float64, message *string, token any) bool {
	if token == nil {
		token = h.req.token
	}
	if token == nil || (h.last != nil && progress <= *h.last) {
		return false
	}
	p := progress
	h.last = &p
	params := jsonv.NewObject(4)
	params.Set("progressToken", token)
	params.Set("progress", jsonv.Float(progress))
	if total != nil {
		params.Set("total", jsonv.Float(*total))
	}
	if message != nil {
		params.Set("message", *message)
	}
	h.c.w.line(notification("notifications/progress", params))
	return true
}

// Log implements stdlib.MCPHandler: released clients set the level with
// logging/setLevel (default info); 2026 requests name it in _meta.
func (h *handler) Log(level, logger string, data any) bool {
	min := h.req.logLevel
	if !h.req.modern {
		h.c.mu.Lock()
		min = h.c.logLevel
		h.c.mu.Unlock()
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
	h.c.w.line(notification("notifications/message", params))
	return true
}

// ResourceUpdated implements stdlib.MCPHandler.
func (h *handler) ResourceUpdated(uri string) bool {
	h.c.mu.Lock()
	ok := h.c.subscribed[uri]
	h.c.mu.Unlock()
	if ok {
		params := jsonv.NewObject(1)
		params.Set("uri", uri)
		h.c.w.line(notification("notifications/resources/updated", params))
	}
	return ok
}

// Input implements stdlib.MCPHandler.
func (h *handler) Input(th *vm.Thread, builtin, method string, params *jsonv.Object) (any, error) {
	if !h.supports(method, params) {
		return nil, &vm.Error{Kind: vm.KindRuntime, Msg: fmt.Sprintf("%s: the MCP client did not advertise support for %s", builtin, method)}
	}
	if h.task != nil {
		h.taskInput = true
		return nil, errAbandon
	}
	if !h.req.modern {
		return h.c.call(th, builtin, method, params)
	}
	key := fmt.Sprintf("harn-input-%d", h.next)
	h.next++
	if ans, ok := h.answers.Get(key); ok {
		return ans, nil
	}
	r := jsonv.NewObject(2)
	r.Set("method", method)
	r.Set("params", params)
	h.pending = jsonv.NewObject(1)
	h.pending.Set(key, r)
	return nil, errAbandon
}

// supports checks the request's client capabilities for an input
// method. An empty elicitation object means form mode (as in the
// 2025-11-25 specification).
func (h *handler) supports(method string, params *jsonv.Object) bool {
	caps := h.req.caps
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

// call sends a server-to-client request (released profile) and waits
// for the answer with the VM released.
func (c *conn) call(th *vm.Thread, builtin, method string, params *jsonv.Object) (any, error) {
	id := fmt.Sprintf("harn-%d", c.nextID.Add(1))
	pc := &pendingCall{wake: make(chan struct{})}
	c.qmu.Lock()
	closed := c.closed
	c.qmu.Unlock()
	if closed {
		return nil, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": the MCP connection is closed"}
	}
	c.mu.Lock()
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
	fired, err := th.Wait(pc.wake, -1)
	if !fired || pc.msg == nil {
		c.mu.Lock()
		delete(c.pending, idKey(id))
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return nil, &vm.Error{Kind: vm.KindRuntime, Msg: builtin + ": the MCP connection closed before the client answered " + method}
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
		return nil, &vm.Error{Kind: vm.KindRuntime, Msg: fmt.Sprintf("%s: the client answered %s with an error: %s", builtin, method, text)}
	}
	return m.result, nil
}

// pendingCall is a server-to-client request awaiting its answer: wake
// is closed when msg is set (or, with msg nil, when the connection
// closes).
type pendingCall struct {
	wake chan struct{}
	msg  *message
}
