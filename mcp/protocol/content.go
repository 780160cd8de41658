package protocol

import "github.com/harnlang/harn/internal/jsonv"

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
