package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/mcptest"
)

// fake is a Provider with a few tools that exercise the protocol layer:
// plain results, progress, tasks, cancellation and client input.
type fake struct {
	extra   int                  // number of filler tools t0, t1, …
	started chan string          // a blocking tool's name when it starts
	stopped chan string          // a blocking tool's name when its context ends
	release chan struct{}        // closed to let blocking tools finish
	logging bool                 // advertise the logging capability
	refused chan string          // "<client> <name> <code> <message>" of each refused call
	ctxs    chan context.Context // when set, a blocking tool's Context as it starts
}

func newFake() *fake {
	return &fake{started: make(chan string, 8), stopped: make(chan string, 8), release: make(chan struct{})}
}

func (f *fake) ServerInfo() *jsonv.Object {
	o := jsonv.NewObject(2)
	o.Set("name", "fake")
	o.Set("version", "1.0.0")
	return o
}

func (f *fake) Instructions() string { return "A fake server." }

func (f *fake) Capabilities() *jsonv.Object {
	caps := mustObj(`{"tools":{},"resources":{},"prompts":{},"completions":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	if f.logging {
		caps.Set("logging", jsonv.NewObject(0))
	}
	return caps
}

func (f *fake) RefusedCall(x *Call, name string, e *Error) {
	if f.refused != nil {
		f.refused <- fmt.Sprintf("%s %s %d %s", x.Identity(), name, e.Code, e.Message)
	}
}

var fakeTools = []string{"echo", "progress", "block", "ask", "whoami"}

func (f *fake) Tools(r *Request) ([]*jsonv.Object, *Error) {
	var out []*jsonv.Object
	for _, n := range fakeTools {
		out = append(out, mustObj(`{"name":"`+n+`","inputSchema":{"type":"object"}}`))
	}
	for i := 0; i < f.extra; i++ {
		out = append(out, mustObj(fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i)))
	}
	return out, nil
}

func (f *fake) Tool(r *Request, name string) (Tool, bool) {
	if name == "crash" || name == "log" { // unlisted: a handler with a bug; one that logs
		return &fakeTool{f: f, name: name}, true
	}
	for _, n := range fakeTools {
		if n == name {
			return &fakeTool{f: f, name: name}, true
		}
	}
	return nil, false
}

func (f *fake) Resources(*Request) ([]any, *Error) {
	return []any{mustObj(`{"uri":"fake://static","name":"static"}`)}, nil
}

func (f *fake) ResourceTemplates(*Request) ([]any, *Error) {
	return []any{mustObj(`{"uriTemplate":"fake://item/{id}","name":"item"}`)}, nil
}

func (f *fake) ReadResource(r *Request, uri string) any {
	switch uri {
	case "fake://static":
		return mustObj(`{"contents":[{"uri":"fake://static","text":"hello"}]}`)
	case "fake://item/1":
		return Handler(func(x *Call) any {
			return mustObj(`{"contents":[{"uri":"fake://item/1","text":"item one"}]}`)
		})
	}
	return Errorf(CodeResourceNotFound, "Resource not found: "+uri)
}

func (f *fake) Prompts(*Request) ([]any, *Error) {
	return []any{mustObj(`{"name":"greet","arguments":[{"name":"who","required":true}]}`)}, nil
}

func (f *fake) GetPrompt(r *Request) any {
	return Handler(func(x *Call) any {
		return mustObj(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`)
	})
}

func (f *fake) Complete(r *Request, ref CompletionRef, arg, value string) ([]string, *Error) {
	if ref.Type == "ref/prompt" && ref.Name != "greet" {
		return nil, InvalidParams("Unknown prompt: " + ref.Name)
	}
	return []string{"beta", " alpha ", "Alphabet", "alpha", "", "gamma-alpha"}, nil
}

type fakeTool struct {
	f    *fake
	name string
}

func (t *fakeTool) TaskSupport() string {
	if t.name == "block" || t.name == "ask" {
		return "optional"
	}
	return "forbidden"
}

func (t *fakeTool) Validate(args any) *Error {
	if t.name == "echo" {
		o, _ := args.(*jsonv.Object)
		if v, _ := o.Get("text"); v == nil {
			return InvalidParams(`echo: "text" is required`)
		}
	}
	return nil
}

func textResult(text string) *jsonv.Object {
	b := jsonv.NewObject(2)
	b.Set("type", "text")
	b.Set("text", text)
	o := jsonv.NewObject(2)
	o.Set("content", []any{b})
	o.Set("isError", false)
	return o
}

func (t *fakeTool) Call(x *Call, args any) any {
	switch t.name {
	case "crash":
		var m map[string]int
		m["boom"] = 1 // a nil-map write: a Go panic inside the handler
		return nil
	case "log":
		sent := ""
		for _, level := range []string{"debug", "info", "error"} {
			if x.Log(level, "", level+" line") {
				sent += level + " "
			}
		}
		return textResult(sent)
	case "echo":
		v, _ := args.(*jsonv.Object).Get("text")
		return textResult(fmt.Sprint(v))
	case "progress":
		total := 3.0
		for i := 1; i <= 3; i++ {
			msg := fmt.Sprintf("step %d", i)
			x.Progress(float64(i), &total, &msg, nil)
		}
		x.Progress(2, nil, nil, nil) // not increasing: dropped
		return textResult("done")
	case "block":
		if t.f.ctxs != nil {
			t.f.ctxs <- x.Context()
		}
		t.f.started <- t.name
		select {
		case <-x.Context().Done():
			t.f.stopped <- t.name
			return textResult("cancelled")
		case <-t.f.release:
			return textResult("released")
		}
	case "ask":
		p := mustObj(`{"mode":"form","message":"Which?","requestedSchema":{"type":"object"}}`)
		ans, err := x.Input("elicitation/create", p, nil)
		var ce *ClientError
		switch {
		case errors.Is(err, ErrInputRequired):
			return nil
		case errors.As(err, &ce):
			return textResult("client error: " + ce.Message)
		case err != nil:
			return textResult("error: " + err.Error())
		}
		return textResult("answer " + string(jsonv.Marshal(ans)))
	case "whoami":
		return textResult(x.Identity() + " " + x.Principal())
	}
	return Errorf(CodeInternalError, "unreachable")
}

func mustObj(s string) *jsonv.Object {
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v.(*jsonv.Object)
}

// pipe drives Server.Serve the way a stdio client does.
type pipe struct {
	*mcptest.Pipe
	t *testing.T
}

func startPipe(t *testing.T, p Provider, o Options) *pipe {
	t.Helper()
	return startPipeServer(t, NewServer(p, o))
}

func startPipeServer(t *testing.T, srv *Server) *pipe {
	t.Helper()
	return &pipe{mcptest.Start(t, srv.Serve), t}
}

// call sends a request, with its params member even when nil, and
// returns its answer.
func (c *pipe) call(id any, method string, params any) map[string]any {
	c.t.Helper()
	c.Send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return c.Answer(id)
}

// modern adds 2026-07-28 request metadata to params.
func modern(params map[string]any, caps map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	if caps == nil {
		caps = map[string]any{}
	}
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[MetaProtocolVersion] = Version20260728
	meta[MetaClientInfo] = map[string]any{"name": "tester", "version": "1"}
	meta[MetaClientCaps] = caps
	params["_meta"] = meta
	return params
}

var tasksCaps = map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonEq(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation: %v", what, err)
	}
	if js(got) != js(w) {
		t.Errorf("%s:\n got  %s\n want %s", what, js(got), js(w))
	}
}
