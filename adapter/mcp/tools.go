package mcp

import (
	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

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
			o, ok := jsonv.Member[*jsonv.Object](d, "outputSchema")
			if !ok {
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

// Tools implements protocol.Provider: the prepared tools/list
// documents of the request's profile (docs/spec/mcp-projection.md §4).
func (p provider) Tools(r *protocol.Request) ([]*jsonv.Object, *protocol.Error) {
	return p.s.Surface().toolDocs(profile(r)), nil
}

// Tool implements protocol.Provider: an MCP-audience tool of the
// surface now served.
func (p provider) Tool(r *protocol.Request, name string) (protocol.Tool, bool) {
	sf := p.s.Surface()
	t, ok := sf.Catalog.ToolFor(tool.AudienceMCP, name)
	if !ok {
		return nil, false
	}
	return &mcpTool{s: p.s, sf: sf, tool: t}, true
}

// mcpTool is a catalog entry called through tools/call
// (docs/spec/mcp-projection.md §6).
type mcpTool struct {
	s    *Server
	sf   *Surface
	tool *tool.PreparedTool
}

func (t *mcpTool) TaskSupport() string {
	if ex := t.tool.Entry().Execution; ex != nil {
		return string(ex.TaskSupport)
	}
	return "forbidden"
}

func (t *mcpTool) Validate(args any) *protocol.Error {
	if err := t.tool.ValidateInput(args); err != nil {
		return protocol.InvalidParams(err.Error())
	}
	return nil
}

// Call runs the handler on the surface's runtime and shapes its
// CallToolResult.
func (t *mcpTool) Call(x *protocol.Call, args any) any {
	var out *tool.Outcome
	if !t.s.exclusive(x, func(start func(*vm.Thread)) { out = t.sf.Runtime.Invoke(handler{x}, t.tool, args, start) }) {
		return shuttingDown()
	}
	return callResult(t.tool, out, profile(x.Request))
}

// callResult projects a classified outcome (docs/spec/mcp-projection.md §5-§6).
func callResult(t *tool.PreparedTool, out *tool.Outcome, profile tool.MCPProfile) any {
	switch out.Kind {
	case tool.Success:
		res := jsonv.NewObject(3)
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
		return res
	case tool.ApplicationError:
		res := protocol.ToolError(out.FailureText())
		ae := jsonv.NewObject(2)
		ae.Set("tool", out.Tool)
		ae.Set("data", out.Data)
		contract := jsonv.NewObject(1)
		contract.Set("applicationError", ae)
		meta := jsonv.NewObject(1)
		meta.Set(tool.MetaContractKey, contract)
		res.Set("_meta", meta)
		return res
	case tool.ContractViolation:
		return protocol.ToolError(out.Contract.Error())
	case tool.InvalidInput:
		return protocol.InvalidParams(out.Contract.Error())
	default:
		return protocol.ToolError(out.FailureText())
	}
}

// content renders a successful result as content blocks: a string is
// one text block; a list of content records (type text, image, audio,
// resource or resource_link) becomes those blocks; anything else is one
// text block of the value's display form.
func content(result any, value vm.Value) []any {
	if s, ok := result.(string); ok {
		return []any{protocol.TextContent(s)}
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
	return []any{protocol.TextContent(vm.ToDisplay(value))}
}

// contentBlock maps one content record; nil when it is not one.
func contentBlock(v any) *jsonv.Object {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return nil
	}
	typ, _ := jsonv.Member[string](o, "type")
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
