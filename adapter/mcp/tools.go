package mcp

import (
	"encoding/base64"
	"strconv"

	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/jsonv"
	"github.com/harnlang/harn/vm"
)

func encodeCursor(off int) string {
	return base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(off)))
}

func decodeCursor(s string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(b))
	return n, err == nil
}

// toolDocs are the tools/list documents of a profile: the prepared
// catalog's, except that in the released profile an output schema that
// guarantees an object without saying so at its root (a $ref to an
// object component, an allOf, …) also gets "type": "object" there.
// Released MCP versions require outputSchema.type to be "object", and
// real clients (the TypeScript SDK) reject a whole tools/list otherwise;
// the addition changes no instance's validity (docs/mcp.md).
func (sf *Surface) toolDocs(p tool.MCPProfile) []*jsonv.Object {
	docs := sf.Catalog.MCPTools(p)
	if p != tool.MCPReleased {
		return docs
	}
	sf.releasedOnce.Do(func() {
		sf.releasedDocs = make([]*jsonv.Object, len(docs))
		for i, d := range docs {
			sf.releasedDocs[i] = d
			os, ok := d.Get("outputSchema")
			o, isObj := os.(*jsonv.Object)
			if !ok || !isObj {
				continue
			}
			if t, _ := o.Get("type"); t == "object" {
				continue
			}
			typed := jsonv.NewObject(o.Len() + 1)
			typed.Set("type", "object")
			o.Range(func(k string, v any) bool {
				if k != "type" {
					typed.Set(k, v)
				}
				return true
			})
			cp := d.Copy()
			cp.Set("outputSchema", typed)
			sf.releasedDocs[i] = cp
		}
	})
	return sf.releasedDocs
}

// toolsList pages the prepared tools/list documents of the request's
// profile (mcp-projection.md §4).
func (c *conn) toolsList(req *request) any {
	docs := c.srv.Surface().toolDocs(req.profile())
	start, end, next, rerr := c.page(req, len(docs))
	if rerr != nil {
		return rerr
	}
	items := make([]any, 0, end-start)
	for _, d := range docs[start:end] {
		items = append(items, d)
	}
	res := jsonv.NewObject(2)
	res.Set("tools", items)
	if next != "" {
		res.Set("nextCursor", next)
	}
	return res
}

// toolCall is a validated tools/call.
type toolCall struct {
	sf    *Surface
	tool  *tool.PreparedTool
	args  any
	state *jsonv.Object // collected input responses (2026 profile)
}

// toolsCall runs on the executor (mcp-projection.md §6).
func (c *conn) toolsCall(req *request) any {
	call, asTask, rerr := c.prepareCall(req)
	if rerr != nil {
		return rerr
	}
	if asTask {
		t := c.srv.tasks.create(req.identity)
		c.reply(req, t.createdAnswer())
		c.runTask(req, call, t)
		return nil
	}
	return c.runTool(req, call, nil)
}

// prepareCall applies steps 1-4 of the tools/call processing order.
func (c *conn) prepareCall(req *request) (*toolCall, bool, *rpcError) {
	sf := c.srv.Surface()
	nv, _ := req.params.Get("name")
	name, _ := nv.(string)
	t, ok := sf.Catalog.ToolFor(tool.AudienceMCP, name)
	if !ok {
		if _, isString := nv.(string); !isString {
			return nil, false, invalidParams("Unknown tool: " + string(jsonv.Marshal(nv)))
		}
		return nil, false, invalidParams("Unknown tool: " + name)
	}
	support := tool.TaskSupport("forbidden")
	if ex := t.Entry().Execution; ex != nil {
		support = ex.TaskSupport
	}
	asTask := req.tasksOptIn() && (support == "optional" || support == "required")
	if support == "required" && !asTask {
		return nil, false, missingTasksCapability()
	}
	args, ok := req.params.Get("arguments")
	if !ok || args == nil {
		args = jsonv.NewObject(0)
	}
	if err := t.ValidateInput(args); err != nil {
		return nil, false, invalidParams(err.Error())
	}
	state, rerr := inputState(req.params)
	if rerr != nil {
		return nil, false, rerr
	}
	return &toolCall{sf: sf, tool: t, args: args, state: state}, asTask, nil
}

func missingTasksCapability() *rpcError {
	ext := jsonv.NewObject(1)
	ext.Set(tasksExtension, jsonv.NewObject(0))
	caps := jsonv.NewObject(1)
	caps.Set("extensions", ext)
	data := jsonv.NewObject(1)
	data.Set("requiredCapabilities", caps)
	return &rpcError{Code: codeMissingCapability, Message: "Missing required client capability", Data: data}
}

// runTool calls the handler and shapes its CallToolResult; task is set
// when the call runs as a task.
func (c *conn) runTool(req *request, call *toolCall, task *task) any {
	h := c.handlerFor(req, call.state, task)
	start := req.start
	if task != nil {
		start = task.start
	}
	c.srv.callMu.Lock()
	out := call.sf.Runtime.Invoke(h, call.tool, call.args, start)
	c.srv.callMu.Unlock()
	if h.pending != nil {
		return h.inputRequired()
	}
	if h.taskInput {
		return errTaskInput
	}
	return callResult(call.tool, out, req.profile())
}

// callResult projects a classified outcome (mcp-projection.md §5-§6).
func callResult(t *tool.PreparedTool, out *tool.Outcome, profile tool.MCPProfile) any {
	res := jsonv.NewObject(4)
	failure := func(text string) {
		res.Set("content", []any{textBlock(text)})
		res.Set("isError", true)
	}
	switch out.Kind {
	case tool.Success:
		res.Set("content", content(out.Result, out.Value))
		if t.MCPOutput != nil {
			sc := out.Result
			if t.WrapsOutput(profile) {
				w := jsonv.NewObject(1)
				w.Set("result", sc)
				sc = w
			}
			res.Set("structuredContent", sc)
		}
		res.Set("isError", false)
	case tool.ApplicationError:
		failure(out.FailureText())
		ae := jsonv.NewObject(2)
		ae.Set("tool", out.Tool)
		ae.Set("data", out.Data)
		contract := jsonv.NewObject(1)
		contract.Set("applicationError", ae)
		meta := jsonv.NewObject(1)
		meta.Set(tool.MetaContractKey, contract)
		res.Set("_meta", meta)
	case tool.ContractViolation:
		failure(out.Contract.Error())
	case tool.InvalidInput:
		return invalidParams(out.Contract.Error())
	default:
		failure(out.FailureText())
	}
	return res
}

func textBlock(text string) *jsonv.Object {
	b := jsonv.NewObject(2)
	b.Set("type", "text")
	b.Set("text", text)
	return b
}

// content renders a successful result as content blocks: a string is
// one text block; a list of content records (type text, image, audio,
// resource or resource_link) becomes those blocks; anything else is one
// text block of the value's display form.
func content(result any, value vm.Value) []any {
	if s, ok := result.(string); ok {
		return []any{textBlock(s)}
	}
	if items, ok := result.([]any); ok && len(items) > 0 {
		blocks := make([]any, 0, len(items))
		for _, it := range items {
			b := contentBlock(it)
			if b == nil {
				blocks = nil
				break
			}
			blocks = append(blocks, b)
		}
		if blocks != nil {
			return blocks
		}
	}
	return []any{textBlock(vm.ToDisplay(value))}
}

// contentBlock maps one content record; nil when it is not one.
func contentBlock(v any) *jsonv.Object {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return nil
	}
	tv, _ := o.Get("type")
	typ, _ := tv.(string)
	b := jsonv.NewObject(4)
	b.Set("type", typ)
	copyKeys := func(keys ...string) {
		for _, k := range keys {
			if x, ok := o.Get(k); ok && x != nil {
				b.Set(k, x)
			}
		}
	}
	mime := func() {
		if x, ok := o.Get("mimeType"); ok {
			b.Set("mimeType", x)
		} else if x, ok := o.Get("mime_type"); ok {
			b.Set("mimeType", x)
		}
	}
	switch typ {
	case "text":
		tx, ok := o.Get("text")
		if !ok {
			return nil
		}
		if s, isString := tx.(string); isString {
			b.Set("text", s)
		} else {
			b.Set("text", string(jsonv.Marshal(tx)))
		}
	case "image", "audio":
		if !o.Has("data") {
			return nil
		}
		copyKeys("data")
		mime()
	case "resource":
		r, ok := o.Get("resource")
		if !ok {
			return nil
		}
		b.Set("resource", r)
	case "resource_link":
		if !o.Has("uri") {
			return nil
		}
		copyKeys("uri", "name", "title", "description")
		mime()
	default:
		return nil
	}
	copyKeys("annotations", "_meta")
	return b
}
