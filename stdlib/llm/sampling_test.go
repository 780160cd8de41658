package llm_test

import "testing"

// TestSamplingOptionsOnTheWire: top_k goes to Anthropic's messages API,
// seed, frequency_penalty and presence_penalty to OpenAI-compatible chat
// completions; each API gets only the ones it has (docs/llm.md, Options).
func TestSamplingOptionsOnTheWire(t *testing.T) {
	clearEnv(t)
	oa, oaGot := fake(t, 200, `{"model":"gpt-4o-mini","choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`, "application/json")
	an, anGot := fake(t, 200, `{"model":"claude-haiku-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", oa.URL+"/v1")
	t.Setenv("ANTHROPIC_API_KEY", "ak-test")
	t.Setenv("ANTHROPIC_BASE_URL", an.URL)
	mustRun(t, `
let opts = {top_k: 40, seed: 7, frequency_penalty: 0.5, presence_penalty: -0.25}
llm_call("hi", nil, opts.merge({model: "gpt-4o-mini"}))
llm_call("hi", nil, opts.merge({model: "haiku"}))
`)
	if len(*oaGot) != 1 || len(*anGot) != 1 {
		t.Fatalf("requests: openai %d, anthropic %d", len(*oaGot), len(*anGot))
	}
	ob, ab := (*oaGot)[0].body, (*anGot)[0].body
	if ob["seed"] != float64(7) || ob["frequency_penalty"] != 0.5 || ob["presence_penalty"] != -0.25 || ob["top_k"] != nil {
		t.Errorf("openai body %s", jsonOf(ob))
	}
	if ab["top_k"] != float64(40) || ab["seed"] != nil || ab["frequency_penalty"] != nil || ab["presence_penalty"] != nil {
		t.Errorf("anthropic body %s", jsonOf(ab))
	}
	_, err := run(t, `llm_mock("x")
llm_call("hi", nil, {top_k: 0})`)
	if err != "Thrown: llm_call: options.top_k must be a positive int, got 0" {
		t.Errorf("top_k 0: %q", err)
	}
}
