package llm

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// TestAnthropicThinkingBlocks: the thinking blocks of an Anthropic reply
// become the response's thinking, apart from its text.
func TestAnthropicThinkingBlocks(t *testing.T) {
	p, _ := providerByName("anthropic")
	r, err := config{provider: p, model: "claude"}.parse([]byte(`{"model":"claude","stop_reason":"end_turn",
		"content":[{"type":"thinking","thinking":"step one. ","signature":"x"},{"type":"thinking","thinking":"step two."},{"type":"text","text":"42"}],
		"usage":{"input_tokens":3,"output_tokens":5}}`))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := r.value().AsDict()
	if r.Text != "42" || thinking(d) != "step one. step two." {
		t.Fatalf("text %q, thinking %q", r.Text, r.Thinking)
	}
	r.Thinking = ""
	if d, _ := r.value().AsDict(); d.Has("thinking") {
		t.Fatal("a reply without thinking has a thinking key")
	}
}

func thinking(d *vm.Dict) string {
	v, _ := d.Get("thinking")
	return vm.ToDisplay(v)
}
