package mcpclient

import (
	"context"
	"fmt"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// inputs answers what a server asks of the client (docs/mcp-client.md,
// "Requests from the server"): ping, roots/list from the configured
// roots, and elicitation/create and sampling/createMessage through the
// script's handler closures. The same answers serve the released
// profiles (a server request on the stream) and the 2026-07-28 one (the
// inputRequests of an input_required result).
type inputs struct {
	roots  []root
	vm     *vm.VM   // runs the handlers
	elicit vm.Value // elicitation handler; not callable when none
	sample vm.Value // sampling handler; not callable when none
}

// has reports whether the client can answer method.
func (in *inputs) has(method string) bool {
	switch method {
	case "ping":
		return true
	case "roots/list":
		return len(in.roots) > 0
	case "elicitation/create":
		return vm.IsCallable(in.elicit)
	case "sampling/createMessage":
		return vm.IsCallable(in.sample)
	}
	return false
}

// capabilities is the client's capabilities object: what it can answer.
func (in *inputs) capabilities() *jsonv.Object {
	o := jsonv.NewObject(3)
	if len(in.roots) > 0 {
		r := jsonv.NewObject(1)
		r.Set("listChanged", false)
		o.Set("roots", r)
	}
	if vm.IsCallable(in.elicit) {
		e := jsonv.NewObject(1)
		e.Set("form", jsonv.NewObject(0))
		o.Set("elicitation", e)
	}
	if vm.IsCallable(in.sample) {
		o.Set("sampling", jsonv.NewObject(0))
	}
	return o
}

// answer is the result for one request; an error is the handler's
// failure or a malformed answer (the caller reports it).
func (in *inputs) answer(ctx context.Context, method string, params any) (any, error) {
	switch method {
	case "ping":
		return jsonv.NewObject(0), nil
	case "roots/list":
		return rootsResult(in.roots), nil
	case "elicitation/create":
		v, err := in.call(ctx, in.elicit, params)
		if err != nil {
			return nil, err
		}
		return elicitResult(v)
	case "sampling/createMessage":
		v, err := in.call(ctx, in.sample, params)
		if err != nil {
			return nil, err
		}
		return sampleResult(v)
	}
	return nil, fmt.Errorf("method not found: %s", method)
}

// call runs a handler closure with the request's params (as a dict) on
// a task of the script's VM, and returns what it returned as JSON. The
// thread that made the MCP call is waiting away from the VM lock, so
// the task can run.
func (in *inputs) call(ctx context.Context, fn vm.Value, params any) (any, error) {
	if params == nil {
		params = jsonv.NewObject(0)
	}
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	in.vm.Start(vm.RunnerFunc(func(th *vm.Thread) {
		v, err := th.Call(fn, tool.FromJSON(params))
		if err != nil {
			done <- result{err: err}
			return
		}
		j, err := tool.ToJSON(v)
		done <- result{j, err}
	}))
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// elicitResult reads an elicitation handler's answer: a dict with
// action "accept" (and content), "decline" or "cancel"; a dict without
// action is accepted content; nil declines.
func elicitResult(v any) (any, error) {
	out := jsonv.NewObject(2)
	switch x := v.(type) {
	case nil:
		out.Set("action", "decline")
		return out, nil
	case *jsonv.Object:
		a, has := x.Get("action")
		if !has {
			out.Set("action", "accept")
			out.Set("content", x)
			return out, nil
		}
		action, _ := a.(string)
		switch action {
		case "accept":
			out.Set("action", action)
			c, ok := x.Get("content")
			if _, isObj := c.(*jsonv.Object); ok && !isObj {
				return nil, fmt.Errorf("the elicitation handler's content must be a dict")
			}
			if ok {
				out.Set("content", c)
			}
			return out, nil
		case "decline", "cancel":
			out.Set("action", action)
			return out, nil
		}
		return nil, fmt.Errorf("the elicitation handler's action must be \"accept\", \"decline\" or \"cancel\", got %s", jsonv.Marshal(a))
	}
	return nil, fmt.Errorf("the elicitation handler must return a dict or nil")
}

// sampleResult reads a sampling handler's answer: a string is the
// assistant's text; a dict is the result itself, with role (default
// "assistant") and model (default "harn") filled in and content a string
// or a content dict.
func sampleResult(v any) (any, error) {
	out := jsonv.NewObject(4)
	out.Set("role", "assistant")
	out.Set("model", "harn")
	switch x := v.(type) {
	case string:
		out.Set("content", textContent(x))
		out.Set("stopReason", "endTurn")
		return out, nil
	case *jsonv.Object:
		for _, k := range x.Keys() {
			val, _ := x.Get(k)
			if k == "content" {
				if s, ok := val.(string); ok {
					val = textContent(s)
				} else if _, ok := val.(*jsonv.Object); !ok {
					return nil, fmt.Errorf("the sampling handler's content must be a string or a content dict")
				}
			}
			out.Set(k, val)
		}
		if _, ok := out.Get("content"); !ok {
			return nil, fmt.Errorf("the sampling handler's result has no content")
		}
		return out, nil
	}
	return nil, fmt.Errorf("the sampling handler must return a string or a dict")
}

func textContent(s string) *jsonv.Object {
	c := jsonv.NewObject(2)
	c.Set("type", "text")
	c.Set("text", s)
	return c
}
