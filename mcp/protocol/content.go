package protocol

import (
	"fmt"

	"github.com/harnlang/harn/internal/jsonv"
)

// The result shapes both servers build for their providers: content
// blocks, tool failures, prompt messages and resource contents.

// TextContent is a text content block.
func TextContent(text string) *jsonv.Object {
	b := jsonv.NewObject(2)
	b.Set("type", "text")
	b.Set("text", text)
	return b
}

// ToolError is the CallToolResult of a failed call: text as its one
// content block and isError set, so the model reads what went wrong (a
// protocol error would hide it from the model). Callers may add _meta.
func ToolError(text string) *jsonv.Object {
	res := jsonv.NewObject(3)
	res.Set("content", []any{TextContent(text)})
	res.Set("isError", true)
	return res
}

// PromptMessage is one message of a prompts/get result.
func PromptMessage(role string, content *jsonv.Object) *jsonv.Object {
	m := jsonv.NewObject(2)
	m.Set("role", role)
	m.Set("content", content)
	return m
}

// TextResource is a resources/read contents item holding text; an
// empty mimeType is left out.
func TextResource(uri, mimeType, text string) *jsonv.Object {
	item := jsonv.NewObject(3)
	item.Set("uri", uri)
	if mimeType != "" {
		item.Set("mimeType", mimeType)
	}
	item.Set("text", text)
	return item
}

// ResourceContents is the resources/read result of one contents item.
func ResourceContents(item *jsonv.Object) *jsonv.Object {
	res := jsonv.NewObject(1)
	res.Set("contents", []any{item})
	return res
}

// PromptArgument is one argument of a prompts/list entry.
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// PromptDocument is a prompts/list entry. An empty title or description
// is left out, and so are the arguments when args is nil (an empty,
// non-nil args lists none).
func PromptDocument(name, title, description string, args []PromptArgument) *jsonv.Object {
	o := jsonv.NewObject(4)
	o.Set("name", name)
	if title != "" {
		o.Set("title", title)
	}
	if description != "" {
		o.Set("description", description)
	}
	if args != nil {
		docs := make([]any, len(args))
		for i, a := range args {
			ao := jsonv.NewObject(3)
			ao.Set("name", a.Name)
			ao.Set("required", a.Required)
			if a.Description != "" {
				ao.Set("description", a.Description)
			}
			docs[i] = ao
		}
		o.Set("arguments", docs)
	}
	return o
}

// UnknownPrompt is the error for a prompts/get or completion of a
// prompt the server does not have.
func UnknownPrompt(name string) *Error { return InvalidParams("Unknown prompt: " + name) }

// PromptArguments checks the arguments of a prompts/get request for
// both MCP servers, the script surface (docs/spec/mcp-projection.md §14)
// and the orchestrator (docs/spec/orchestrator.md §7), so they refuse
// alike: absent or null is no arguments, anything else must be an
// object, and each name in required must be present and not null (null
// counts as left out). Errors are -32602.
func PromptArguments(params *jsonv.Object, required []string) (*jsonv.Object, *Error) {
	av, _ := params.Get("arguments")
	if av == nil {
		av = jsonv.NewObject(0)
	}
	args, ok := av.(*jsonv.Object)
	if !ok {
		return nil, InvalidParams("prompt arguments must be an object")
	}
	for _, name := range required {
		if v, ok := args.Get(name); !ok || v == nil {
			return nil, InvalidParams("Missing required argument: " + name)
		}
	}
	return args, nil
}

// StringPromptArguments is PromptArguments for a prompt whose handler
// takes the arguments as MCP types them, strings: any other value but
// null is refused, naming the argument, before the handler runs. (Prompt
// files render JSON values too, for their {{ for }} and {{ if }} blocks.)
func StringPromptArguments(params *jsonv.Object, required []string) (*jsonv.Object, *Error) {
	args, bad := PromptArguments(params, required)
	if bad != nil {
		return nil, bad
	}
	for i := range args.Len() {
		k, v := args.At(i)
		if _, ok := v.(string); !ok && v != nil {
			return nil, InvalidParams(fmt.Sprintf("prompt argument %s must be a string, got %s", k, jsonv.TypeName(v)))
		}
	}
	return args, nil
}

// UnknownPromptArgument is the error for a completion of an argument
// the prompt does not declare.
func UnknownPromptArgument(name string) *Error {
	return InvalidParams("Unknown prompt argument: " + name)
}

// ResourceDocument is a resources/list entry; an empty title,
// description or mimeType is left out.
func ResourceDocument(uri, name, title, description, mimeType string) *jsonv.Object {
	return described("uri", uri, name, title, description, mimeType)
}

// TemplateDocument is a resources/templates/list entry, left out like
// ResourceDocument's.
func TemplateDocument(uriTemplate, name, title, description, mimeType string) *jsonv.Object {
	return described("uriTemplate", uriTemplate, name, title, description, mimeType)
}

func described(key, uri, name, title, description, mimeType string) *jsonv.Object {
	o := jsonv.NewObject(5)
	o.Set(key, uri)
	o.Set("name", name)
	for _, kv := range [...][2]string{{"title", title}, {"description", description}, {"mimeType", mimeType}} {
		if kv[1] != "" {
			o.Set(kv[0], kv[1])
		}
	}
	return o
}
