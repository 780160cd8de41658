package llm_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/stdlib/llm"
)

// clearEnv unsets every variable the providers read, so a test sees only
// what it sets itself.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		"OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "OLLAMA_BASE_URL", "HARN_LLM_PROVIDER", "HARN_LLM_MODEL"} {
		t.Setenv(k, "")
	}
}

// run runs src and returns its stdout, or the uncaught error text.
func run(t *testing.T, src string) (string, string) {
	t.Helper()
	var errb bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{Stderr: &errb})
	if r.Err != nil {
		return string(r.Stdout), r.Err.Error()
	}
	return string(r.Stdout), ""
}

func mustRun(t *testing.T, src string) string {
	t.Helper()
	out, err := run(t, src)
	if err != "" {
		t.Fatalf("run failed: %s", err)
	}
	return strings.TrimSpace(out)
}

// recorded is one request a fake provider received.
type recorded struct {
	path    string
	headers http.Header
	body    map[string]any
}

// fake serves every request with status and body, recording it.
func fake(t *testing.T, status int, reply string, contentType string) (*httptest.Server, *[]recorded) {
	t.Helper()
	var got []recorded
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not JSON: %v: %s", err, raw)
		}
		mu.Lock()
		got = append(got, recorded{path: r.URL.Path, headers: r.Header.Clone(), body: body})
		mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestOpenAIChatCompletions(t *testing.T) {
	clearEnv(t)
	srv, got := fake(t, 200, `{"id":"x","model":"gpt-4o-mini-2024","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!",
		"tool_calls":[{"id":"call_a","type":"function","function":{"name":"add","arguments":"{\"a\":1,\"b\":2}"}}]},"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1/")
	out := mustRun(t, `
let r = llm_call("hello", "be brief", {model: "gpt-4o-mini", temperature: 0.5, max_tokens: 50, stop: ["END"],
  tools: [{name: "add", description: "Add two ints", parameters: {a: "int", b: "int"}}], tool_choice: "auto"})
println(r.text)
println(r.provider)
println(r.model)
println(r.tool_calls)
println(r.stop_reason)
println(r.usage)
println(llm_usage().calls)
`)
	want := `Hi!
openai
gpt-4o-mini-2024
[{arguments: {a: 1, b: 2}, id: call_a, name: add}]
tool_use
{input_tokens: 12, output_tokens: 5, total_tokens: 17}
1`
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	if len(*got) != 1 {
		t.Fatalf("%d requests, want 1", len(*got))
	}
	req := (*got)[0]
	if req.path != "/v1/chat/completions" {
		t.Errorf("path %q", req.path)
	}
	if h := req.headers.Get("Authorization"); h != "Bearer sk-test" {
		t.Errorf("Authorization %q", h)
	}
	b := req.body
	if b["model"] != "gpt-4o-mini" || b["temperature"] != 0.5 || b["max_tokens"] != float64(50) || b["tool_choice"] != "auto" {
		t.Errorf("body %s", jsonOf(b))
	}
	if s := jsonOf(b["messages"]); s != `[{"content":"be brief","role":"system"},{"content":"hello","role":"user"}]` {
		t.Errorf("messages %s", s)
	}
	if s := jsonOf(b["stop"]); s != `["END"]` {
		t.Errorf("stop %s", s)
	}
	tools := jsonOf(b["tools"])
	if !strings.Contains(tools, `"type":"function"`) || !strings.Contains(tools, `"name":"add"`) || !strings.Contains(tools, `"parameters":{`) || !strings.Contains(tools, `"integer"`) {
		t.Errorf("tools %s", tools)
	}
}

func TestOpenAIToolConversation(t *testing.T) {
	clearEnv(t)
	srv, got := fake(t, 200, `{"choices":[{"message":{"content":"3"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `
let msgs = [
  {role: "user", content: "1+2?"},
  {role: "assistant", content: "", tool_calls: [{id: "c1", name: "add", arguments: {a: 1, b: 2}}]},
  {role: "tool", tool_call_id: "c1", content: "3"},
]
let r = llm_call(nil, nil, {provider: "openai", messages: msgs})
println([r.text, r.stop_reason, r.model])
`)
	if out != "[3, end_turn, gpt-4o-mini]" {
		t.Fatalf("got %s", out)
	}
	msgs := jsonOf((*got)[0].body["messages"])
	want := `[{"content":"1+2?","role":"user"},{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"a\":1,\"b\":2}","name":"add"},"id":"c1","type":"function"}]},{"content":"3","role":"tool","tool_call_id":"c1"}]`
	if msgs != want {
		t.Errorf("messages\n%s\nwant\n%s", msgs, want)
	}
}

func TestAnthropicMessages(t *testing.T) {
	clearEnv(t)
	srv, got := fake(t, 200, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001",
		"content":[{"type":"text","text":"Let me add."},{"type":"tool_use","id":"toolu_1","name":"add","input":{"a":1,"b":2.5}}],
		"stop_reason":"tool_use","usage":{"input_tokens":20,"output_tokens":7}}`, "application/json")
	t.Setenv("ANTHROPIC_API_KEY", "ak-test")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	out := mustRun(t, `
let msgs = [
  {role: "system", content: "from messages"},
  {role: "user", content: "add"},
  {role: "assistant", content: "", tool_calls: [{id: "toolu_0", name: "add", arguments: {a: 0, b: 0}}, {id: "toolu_x", name: "add", arguments: {a: "x"}}]},
  {role: "tool", tool_call_id: "toolu_0", content: "0"},
  {role: "tool", tool_call_id: "toolu_x", content: "Error: a must be a number", is_error: true},
]
let r = llm_call("and now 1 + 2.5", "be exact", {model: "haiku", messages: msgs, tools: [{name: "add", description: "Add", parameters: {a: "number", b: "number"}}]})
println(r.text)
println([r.provider, r.model, r.stop_reason])
println(r.tool_calls)
println([r.input_tokens, r.output_tokens])
`)
	want := `Let me add.
[anthropic, claude-haiku-4-5-20251001, tool_use]
[{arguments: {a: 1, b: 2.5}, id: toolu_1, name: add}]
[20, 7]`
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	req := (*got)[0]
	if req.path != "/v1/messages" {
		t.Errorf("path %q", req.path)
	}
	if req.headers.Get("X-Api-Key") != "ak-test" || req.headers.Get("Anthropic-Version") != "2023-06-01" || req.headers.Get("Authorization") != "" {
		t.Errorf("headers %v", req.headers)
	}
	b := req.body
	if b["model"] != "claude-haiku-4-5" || b["max_tokens"] != float64(4096) || b["system"] != "be exact\n\nfrom messages" {
		t.Errorf("body %s", jsonOf(b))
	}
	msgs := jsonOf(b["messages"])
	want = `[{"content":"add","role":"user"},{"content":[{"id":"toolu_0","input":{"a":0,"b":0},"name":"add","type":"tool_use"},{"id":"toolu_x","input":{"a":"x"},"name":"add","type":"tool_use"}],"role":"assistant"},{"content":[{"content":"0","tool_use_id":"toolu_0","type":"tool_result"},{"content":"Error: a must be a number","is_error":true,"tool_use_id":"toolu_x","type":"tool_result"},{"text":"and now 1 + 2.5","type":"text"}],"role":"user"}]`
	if msgs != want {
		t.Errorf("messages\n%s\nwant\n%s", msgs, want)
	}
	if tools := jsonOf(b["tools"]); !strings.Contains(tools, `"input_schema":{`) || !strings.Contains(tools, `"name":"add"`) {
		t.Errorf("tools %s", tools)
	}
}

func TestHTTPErrorsAreCatchableAndCategorized(t *testing.T) {
	for _, tc := range []struct {
		status   int
		body     string
		category string
		message  string
	}{
		{429, `{"error":{"type":"rate_limit_error","message":"slow down"}}`, "rate_limit", "llm_call: anthropic returned HTTP 429: slow down"},
		{401, `{"error":{"type":"authentication_error","message":"invalid x-api-key"}}`, "auth", "llm_call: anthropic returned HTTP 401: invalid x-api-key"},
		{529, `{"error":{"type":"overloaded_error","message":"Overloaded"}}`, "overloaded", "HTTP 529: Overloaded"},
		{500, `upstream exploded`, "server_error", "HTTP 500: upstream exploded"},
	} {
		clearEnv(t)
		srv, _ := fake(t, tc.status, tc.body, "application/json")
		t.Setenv("ANTHROPIC_API_KEY", "k")
		t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
		out := mustRun(t, `
try {
  llm_call("hi", {max_retries: 0})
} catch (e) {
  println([error_category(e), e.status, e.provider])
  println(e.message)
}
let s = llm_call_safe("hi", {max_retries: 0})
println([s.ok, s.response, s.error.category])
`)
		lines := strings.Split(out, "\n")
		if want := "[" + tc.category + ", " + jsonOf(tc.status) + ", anthropic]"; lines[0] != want {
			t.Errorf("%d: got %s, want %s", tc.status, lines[0], want)
		}
		if !strings.Contains(lines[1], tc.message) {
			t.Errorf("%d: message %q does not contain %q", tc.status, lines[1], tc.message)
		}
		if want := "[false, nil, " + tc.category + "]"; lines[2] != want {
			t.Errorf("%d: safe %s, want %s", tc.status, lines[2], want)
		}
	}
}

func TestUncaughtHTTPErrorText(t *testing.T) {
	clearEnv(t)
	srv, _ := fake(t, 404, `{"error":{"message":"The model does-not-exist does not exist"}}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	_, err := run(t, `llm_call("hi", nil, {model: "gpt-does-not-exist"})`)
	if !strings.Contains(err, "llm_call: openai returned HTTP 404: The model does-not-exist does not exist") || !strings.Contains(err, "not_found") {
		t.Fatalf("error %q", err)
	}
}

func TestNetworkFailure(t *testing.T) {
	clearEnv(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", url)
	out := mustRun(t, `let s = llm_call_safe("hi", {max_retries: 0})
println(s.error.category)
println(s.error.message.starts_with("llm_call_safe: openai request failed"))`)
	if out != "transient_network\ntrue" {
		t.Fatalf("got %q", out)
	}
}

func TestNoProviderConfigured(t *testing.T) {
	clearEnv(t)
	_, err := run(t, `llm_call("hi")`)
	if !strings.Contains(err, "llm_call: no LLM provider is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY") || !strings.Contains(err, "llm_mock") {
		t.Fatalf("error %q", err)
	}
	out := mustRun(t, `println(llm_config())`)
	if out != "{api_key_env: nil, api_key_set: false, base_url: nil, mock: false, model: nil, provider: nil}" {
		t.Fatalf("llm_config %s", out)
	}
}

func TestMissingAPIKey(t *testing.T) {
	clearEnv(t)
	_, err := run(t, `llm_call("hi", nil, {provider: "openai"})`)
	if !strings.Contains(err, "llm_call: provider openai needs an API key: set OPENAI_API_KEY") {
		t.Fatalf("error %q", err)
	}
	_, err = run(t, `llm_call("hi", nil, {model: "claude-sonnet-4-5"})`)
	if !strings.Contains(err, "provider anthropic needs an API key: set ANTHROPIC_API_KEY") {
		t.Fatalf("error %q", err)
	}
}

func TestProviderSelection(t *testing.T) {
	clearEnv(t)
	t.Setenv("ANTHROPIC_API_KEY", "secret-value")
	out := mustRun(t, `let c = llm_config()
println([c.provider, c.model, c.base_url, c.api_key_set])
println(llm_config({model: "gpt-4o"}).provider)
println(llm_config({model: "ollama/qwen2.5:7b"}))
println(json_stringify(llm_providers()).contains("secret-value"))`)
	want := `[anthropic, claude-sonnet-4-5, https://api.anthropic.com, true]
openai
{api_key_env: nil, api_key_set: false, base_url: http://localhost:11434/v1, mock: false, model: qwen2.5:7b, provider: ollama}
false`
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	t.Setenv("HARN_LLM_PROVIDER", "openai")
	t.Setenv("HARN_LLM_MODEL", "gpt-4.1")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
	out = mustRun(t, `let c = llm_config()
println([c.provider, c.model, c.base_url, c.api_key_set])`)
	if out != "[openai, gpt-4.1, http://127.0.0.1:9/v1, false]" {
		t.Fatalf("got %s", out)
	}
	_, err := run(t, `llm_config({provider: "acme"})`)
	if !strings.Contains(err, `llm_config: unknown provider "acme" (known: anthropic, mock, ollama, openai, openrouter)`) {
		t.Fatalf("error %q", err)
	}
}

func TestOpenAIStream(t *testing.T) {
	clearEnv(t)
	sse := strings.Join([]string{
		`data: {"model":"gpt-4o-mini","choices":[{"delta":{"role":"assistant","content":""}}]}`,
		`data: {"choices":[{"delta":{"content":"Hel"}}]}`,
		`data: {"choices":[{"delta":{"content":"lo"}}]}`,
		`data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`,
		`data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2}}`,
		`data: [DONE]`, ``}, "\n\n")
	srv, got := fake(t, 200, sse, "text/event-stream")
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `let parts = []
for chunk in llm_stream("hi") { parts = parts.push(chunk) }
println(parts)
println(llm_usage())`)
	if out != "[Hel, lo]\n{calls: 1, cost_usd: 0.0000018, input_tokens: 4, output_tokens: 2, total_tokens: 6}" {
		t.Fatalf("got %s", out)
	}
	if (*got)[0].body["stream"] != true {
		t.Errorf("body %s", jsonOf((*got)[0].body))
	}
}

func TestAnthropicStream(t *testing.T) {
	clearEnv(t)
	sse := strings.Join([]string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\",\"usage\":{\"input_tokens\":9}}}",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"One \"}}",
		"event: ping\ndata: {\"type\":\"ping\"}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"two\"}}",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}", ""}, "\n\n")
	srv, _ := fake(t, 200, sse, "text/event-stream")
	t.Setenv("ANTHROPIC_API_KEY", "k")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	out := mustRun(t, `let s = llm_stream("count")
println(s.next())
println(s.next())
println(s.next())
println(llm_usage().output_tokens)`)
	if out != "{done: false, value: One }\n{done: false, value: two}\n{done: true, value: nil}\n3" {
		t.Fatalf("got %q", out)
	}
}

func TestStreamHTTPError(t *testing.T) {
	clearEnv(t)
	srv, _ := fake(t, 429, `{"error":{"message":"too many"}}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `try { llm_stream("x", {max_retries: 0}) } catch (e) { println([e.category, e.message]) }`)
	if out != "[rate_limit, llm_stream: openai returned HTTP 429: too many]" {
		t.Fatalf("got %s", out)
	}
}

// An armed mock answers instead of the configured provider.
func TestMockInterceptsConfiguredProvider(t *testing.T) {
	clearEnv(t)
	srv, got := fake(t, 200, `{}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `llm_mock("offline")
let r = llm_call("hi", nil, {provider: "openai"})
println([r.text, r.provider])`)
	if out != "[offline, openai]" || len(*got) != 0 {
		t.Fatalf("got %s, %d requests", out, len(*got))
	}
}

func TestEnvironmentPrecedence(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		opts string
		want string
	}{
		{map[string]string{"HARN_LLM_MODEL": "haiku"}, `{}`, "[anthropic, claude-haiku-4-5]"},
		{map[string]string{"HARN_LLM_PROVIDER": "openai", "HARN_LLM_MODEL": "haiku"}, `{}`, "[openai, gpt-4o-mini]"},
		{map[string]string{"HARN_LLM_PROVIDER": "OpenAI"}, `{model: "sonnet"}`, "[anthropic, claude-sonnet-4-5]"},
		{map[string]string{"HARN_LLM_MODEL": "gpt-4.1"}, `{provider: "openai"}`, "[openai, gpt-4.1]"},
		{map[string]string{}, `{provider: "openai", model: "claude-on-a-proxy"}`, "[openai, claude-on-a-proxy]"},
		{map[string]string{"OPENROUTER_API_KEY": "k"}, `{model: "meta-llama/llama-3-70b"}`, "[openrouter, meta-llama/llama-3-70b]"},
		{map[string]string{"OPENAI_API_KEY": "k", "OPENROUTER_API_KEY": "k"}, `{}`, "[openai, gpt-4o-mini]"},
	} {
		clearEnv(t)
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		out := mustRun(t, `let c = llm_config(`+tc.opts+`)
println([c.provider, c.model])`)
		if out != tc.want {
			t.Errorf("%v %s: got %s, want %s", tc.env, tc.opts, out, tc.want)
		}
	}
}

func TestInfoReportsABadProvider(t *testing.T) {
	clearEnv(t)
	t.Setenv("HARN_LLM_PROVIDER", "nonesuch")
	out := mustRun(t, `let i = llm_info()
println([i.provider, i.config_error])`)
	if out != `[nil, llm_config: unknown provider "nonesuch" (known: anthropic, mock, ollama, openai, openrouter)]` {
		t.Fatalf("got %s", out)
	}
	_, err := run(t, `llm_call("x")`)
	if !strings.Contains(err, `llm_call: unknown provider "nonesuch"`) {
		t.Fatalf("error %q", err)
	}
}

// Calls from parallel tasks share the mocks and the usage totals, and
// real calls run at the same time (the VM lock is released while a
// request is in flight).
func TestParallelCalls(t *testing.T) {
	clearEnv(t)
	out := mustRun(t, `llm_mock({match: "*", text: "same", usage: {input_tokens: 1, output_tokens: 2}})
let texts = parallel 8 { i -> llm_call("q ${i}").text }
println(len(texts.filter({ t -> t == "same" })))
println(len(llm_mock_calls()))
println(llm_usage().total_tokens)`)
	if out != "8\n8\n24" {
		t.Fatalf("got %q", out)
	}
	srv, got := fake(t, 200, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out = mustRun(t, `let texts = parallel 6 { i -> llm_completion("q ${i}") }
println(texts)
println(llm_usage())`)
	if out != "[ok, ok, ok, ok, ok, ok]\n{calls: 6, cost_usd: 0.0000063, input_tokens: 18, output_tokens: 6, total_tokens: 24}" {
		t.Fatalf("got %q", out)
	}
	if len(*got) != 6 {
		t.Fatalf("%d requests", len(*got))
	}
}

// A deadline stops a call that is waiting for the provider.
func TestDeadlineStopsACall(t *testing.T) {
	clearEnv(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	t.Setenv("ANTHROPIC_API_KEY", "k")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	out := mustRun(t, `try {
  deadline 50ms { llm_call("slow") }
} catch (e) {
  println(e)
}
println(llm_usage().calls)`)
	if out != "Deadline exceeded\n0" {
		t.Fatalf("got %q", out)
	}
}

func TestOpenAIStructuredAndReasoningModels(t *testing.T) {
	clearEnv(t)
	srv, got := fake(t, 200, `{"choices":[{"message":{"content":"{\"n\": 2}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `println(llm_call_structured("two", {type: "object", properties: {n: {type: "integer"}}}, {model: "o3-mini", max_tokens: 100}))`)
	if out != "{n: 2}" {
		t.Fatalf("got %s", out)
	}
	b := (*got)[0].body
	if jsonOf(b["response_format"]) != `{"type":"json_object"}` || b["max_completion_tokens"] != float64(100) || b["max_tokens"] != nil {
		t.Errorf("body %s", jsonOf(b))
	}
	if sys := jsonOf(b["messages"]); !strings.Contains(sys, "JSON Schema") {
		t.Errorf("messages %s", sys)
	}
}

// sequence serves the statuses in order (the last one from then on), with
// Retry-After: 0, and counts the requests.
func sequence(t *testing.T, statuses []int, okBody string) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		st := statuses[min(i, len(statuses)-1)]
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(st)
		if st == 200 {
			io.WriteString(w, okBody)
		} else {
			io.WriteString(w, `{"error":{"message":"busy"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestTransientFailuresAreRetried(t *testing.T) {
	clearEnv(t)
	srv, n := sequence(t, []int{503, 429, 200}, `{"choices":[{"message":{"content":"third time"},"finish_reason":"stop"}]}`)
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	if out := mustRun(t, `println(llm_completion("q"))`); out != "third time" || n.Load() != 3 {
		t.Fatalf("got %q after %d requests", out, n.Load())
	}

	srv, n = sequence(t, []int{529}, "")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `let s = llm_call_safe("q", {max_retries: 1})
println([s.error.category, s.error.status])`)
	if out != "[overloaded, 529]" || n.Load() != 2 {
		t.Fatalf("got %q after %d requests", out, n.Load())
	}

	srv, n = sequence(t, []int{400}, "")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	if out := mustRun(t, `println(llm_call_safe("q").error.status)`); out != "400" || n.Load() != 1 {
		t.Fatalf("a 400 is not retried: %q after %d requests", out, n.Load())
	}

	srv, n = sequence(t, []int{502, 200}, "data: {\"choices\":[{\"delta\":{\"content\":\"streamed\"}}]}\n\ndata: [DONE]\n\n")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	if out := mustRun(t, `println(stream.collect(llm_stream("q")))`); out != "[streamed]" || n.Load() != 2 {
		t.Fatalf("stream: %q after %d requests", out, n.Load())
	}
}

func TestBackoff(t *testing.T) {
	for _, c := range []struct {
		attempt int64
		header  string
		want    time.Duration
	}{
		{0, "", 500 * time.Millisecond},
		{1, "", time.Second},
		{3, "", 4 * time.Second},
		{0, "2", 2 * time.Second},
		{0, "0.25", 250 * time.Millisecond},
		{0, "3600", time.Minute},
		{1, "Wed, 21 Oct 2015 07:28:00 GMT", time.Second},
	} {
		if got := llm.Backoff(c.attempt, c.header); got != c.want {
			t.Errorf("backoff(%d, %q) = %v, want %v", c.attempt, c.header, got, c.want)
		}
	}
}

func TestAvailableProvidersAndPick(t *testing.T) {
	clearEnv(t)
	out := mustRun(t, `println(llm_available_providers())
println(llm_pick_model())`)
	if out != "[]\nnil" {
		t.Fatalf("nothing set up: %q", out)
	}
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OLLAMA_BASE_URL", "http://127.0.0.1:11434/v1")
	out = mustRun(t, `println(llm_available_providers())
println(llm_pick_model())
println(llm_pick_model({tier: "small"}))
println(llm_pick_model({tier: "frontier", provider: "anthropic"}))`)
	if out != "[ollama, openai]\ngpt-4.1-mini\nllama3.2\nclaude-opus-4-1" {
		t.Fatalf("got %q", out)
	}
}

// One llm_stream read by several tasks at once: a pull that overlaps
// another is refused ("stream already running") instead of sharing the
// response body, and no chunk is lost or read twice (run with -race).
func TestStreamReadBySeveralTasks(t *testing.T) {
	clearEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 8 {
			io.WriteString(w, `data: {"choices":[{"delta":{"content":"c`+string(rune('0'+i))+`"}}]}`+"\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `let s = llm_stream("hi")
let res = parallel 3 { i ->
  let got = []
  let errs = []
  for k in range(6) {
    try {
      let r = s.next()
      if r.done { break }
      got = got + [r.value]
    } catch (e) { errs = errs + ["${e}"] }
  }
  {got: got, errs: errs}
}
let all = res.map({ r -> r.got }).flatten() + stream.collect(s)
println(all.sort())
println(res.map({ r -> r.errs }).flatten().unique())`)
	want := "[c0, c1, c2, c3, c4, c5, c6, c7]\n[Runtime error: stream already running]"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
}

// TestProviderToolSchemasBundleComponents: a tool whose input schema
// references the registry's components reaches the provider standalone,
// the components under $defs (a provider resolves no
// #/components/schemas/… reference), whether the tools come as a
// registry or as a list of tool values carrying them.
func TestProviderToolSchemasBundleComponents(t *testing.T) {
	clearEnv(t)
	srv, got := fake(t, 200, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	mustRun(t, `
let reg = tool_define(tool_registry(nil, {schemas: {Pt: {type: "object", properties: {x: {type: "integer"}}}}}), "norm", "Norm.", {
  input_schema: {type: "object", properties: {p: {"$ref": "#/components/schemas/Pt"}}},
  handler: { a -> 1 },
})
llm_call("a", nil, {provider: "openai", tools: reg})
llm_call("b", nil, {provider: "openai", tools: [tool_ref(reg, "norm")]})
`)
	if len(*got) != 2 {
		t.Fatalf("%d requests", len(*got))
	}
	for i, req := range *got {
		tools := jsonOf(req.body["tools"])
		if strings.Contains(tools, "#/components/") || !strings.Contains(tools, `"$ref":"#/$defs/Pt"`) || !strings.Contains(tools, `"$defs":{"Pt":`) {
			t.Errorf("request %d tools %s", i, tools)
		}
	}
}
