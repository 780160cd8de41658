package protocol

import (
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
)

func TestResultShapes(t *testing.T) {
	cases := []struct {
		name string
		got  *jsonv.Object
		want string
	}{
		{"tool error", ToolError("boom"), `{"content":[{"type":"text","text":"boom"}],"isError":true}`},
		{"prompt message", PromptMessage("user", TextContent("hi")), `{"role":"user","content":{"type":"text","text":"hi"}}`},
		{"text resource", ResourceContents(TextResource("x://a", "text/plain", "t")), `{"contents":[{"uri":"x://a","mimeType":"text/plain","text":"t"}]}`},
		{"text resource without a type", TextResource("x://a", "", "t"), `{"uri":"x://a","text":"t"}`},
		{"prompt without arguments", PromptDocument("p", "", "", nil), `{"name":"p"}`},
		{"prompt with none", PromptDocument("p", "P", "", []PromptArgument{}), `{"name":"p","title":"P","arguments":[]}`},
		{"prompt with arguments", PromptDocument("p", "", "d", []PromptArgument{{Name: "a", Required: true}, {Name: "b", Description: "bee"}}),
			`{"name":"p","description":"d","arguments":[{"name":"a","required":true},{"name":"b","required":false,"description":"bee"}]}`},
		{"resource", ResourceDocument("x://a", "a", "", "d", "text/plain"), `{"uri":"x://a","name":"a","description":"d","mimeType":"text/plain"}`},
		{"template", TemplateDocument("x://{id}", "t", "T", "", ""), `{"uriTemplate":"x://{id}","name":"t","title":"T"}`},
	}
	for _, c := range cases {
		if got := string(jsonv.Marshal(c.got)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	if e := UnknownPromptArgument("x"); e.Code != CodeInvalidParams || e.Message != "Unknown prompt argument: x" {
		t.Errorf("UnknownPromptArgument: %+v", e)
	}
}

// TestPromptArguments pins the prompts/get argument check both servers
// share (docs/spec/mcp-projection.md §14, docs/spec/orchestrator.md §7);
// for a script handler MCP prompt arguments are strings, so another
// value is -32602 naming the argument before the handler runs.
func TestPromptArguments(t *testing.T) {
	required := []string{"code"}
	for _, c := range []struct{ params, want string }{
		{`{"name":"p","arguments":{"code":5}}`, "prompt argument code must be a string, got number"},
		{`{"name":"p","arguments":{"code":"x","lang":true}}`, "prompt argument lang must be a string, got boolean"},
		{`{"name":"p","arguments":{"code":["x"]}}`, "prompt argument code must be a string, got array"},
		{`{"name":"p","arguments":{"code":{}}}`, "prompt argument code must be a string, got object"},
		{`{"name":"p","arguments":[]}`, "prompt arguments must be an object"},
		{`{"name":"p","arguments":"code=x"}`, "prompt arguments must be an object"},
		{`{"name":"p"}`, "Missing required argument: code"},
		{`{"name":"p","arguments":null}`, "Missing required argument: code"},
		{`{"name":"p","arguments":{"code":null}}`, "Missing required argument: code"},
	} {
		var params jsonv.Object
		if err := params.UnmarshalJSON([]byte(c.params)); err != nil {
			t.Fatal(err)
		}
		_, e := StringPromptArguments(&params, required)
		if e == nil || e.Code != CodeInvalidParams || e.Message != c.want {
			t.Errorf("%s: got %+v, want -32602 %q", c.params, e, c.want)
		}
	}
	var params jsonv.Object
	if err := params.UnmarshalJSON([]byte(`{"name":"p","arguments":{"code":"x","lang":null}}`)); err != nil {
		t.Fatal(err)
	}
	args, e := StringPromptArguments(&params, required)
	if e != nil || string(jsonv.Marshal(args)) != `{"code":"x","lang":null}` {
		t.Errorf("strings and null: got %s, %+v", jsonv.Marshal(args), e)
	}
	// prompt files render JSON values ({{ for }} over a list)
	if err := params.UnmarshalJSON([]byte(`{"arguments":{"code":[1,2]}}`)); err != nil {
		t.Fatal(err)
	}
	if _, e := PromptArguments(&params, required); e != nil {
		t.Errorf("PromptArguments refused a list: %+v", e)
	}
	if _, e := PromptArguments(&params, []string{"lang"}); e == nil || e.Message != "Missing required argument: lang" {
		t.Errorf("PromptArguments missing: %+v", e)
	}
}
