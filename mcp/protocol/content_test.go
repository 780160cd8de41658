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
