package agents_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/harnlang/harn/interp"
)

// run runs src and returns its trimmed stdout and the uncaught error
// text ("" when it succeeded).
func run(t *testing.T, src string) (string, string) {
	t.Helper()
	var errb bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{Stderr: &errb})
	out := strings.TrimSpace(string(r.Stdout))
	if r.Err != nil {
		return out, r.Err.Error()
	}
	return out, ""
}

func mustRun(t *testing.T, src string) string {
	t.Helper()
	out, err := run(t, src)
	if err != "" {
		t.Fatalf("run failed: %s", err)
	}
	return out
}

func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		"OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "OLLAMA_BASE_URL", "HARN_LLM_PROVIDER", "HARN_LLM_MODEL"} {
		t.Setenv(k, "")
	}
}

// TestLoopOverOpenAIWire runs a whole tool loop against a fake
// OpenAI-compatible server: the second request must carry the
// assistant's tool call and the tool result in the provider's format.
func TestLoopOverOpenAIWire(t *testing.T) {
	clearEnv(t)
	replies := []string{
		`{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_x","type":"function","function":{"name":"add","arguments":"{\"a\":2,\"b\":40}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":20,"completion_tokens":9}}`,
		`{"choices":[{"message":{"role":"assistant","content":"42"},"finish_reason":"stop"}],"usage":{"prompt_tokens":35,"completion_tokens":1}}`,
	}
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request is not JSON: %v", err)
		}
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n >= len(replies) {
			w.WriteHeader(500)
			io.WriteString(w, `{"error":{"message":"too many calls"}}`)
			return
		}
		io.WriteString(w, replies[n])
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `
let add = tool_def("add", "Add two ints", {parameters: {a: "int", b: "int"}, handler: {args -> args.a + args.b}})
let r = agent_loop("2 + 40?", "Use tools.", {provider: "openai", model: "gpt-4o-mini", tools: [add]})
println([r.text, r.turns, r.stop_reason, r.usage.total_tokens, r.tool_calls[0].result])
`)
	if out != "[42, 2, end_turn, 65, 42]" {
		t.Fatalf("got %s", out)
	}
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2", len(bodies))
	}
	b, _ := json.Marshal(bodies[1]["messages"])
	want := `[{"content":"Use tools.","role":"system"},{"content":"2 + 40?","role":"user"},{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"a\":2,\"b\":40}","name":"add"},"id":"call_x","type":"function"}]},{"content":"42","role":"tool","tool_call_id":"call_x"}]`
	if string(b) != want {
		t.Errorf("second request messages\n%s\nwant\n%s", b, want)
	}
	tools, _ := json.Marshal(bodies[0]["tools"])
	if !strings.Contains(string(tools), `"name":"add"`) {
		t.Errorf("tools not offered: %s", tools)
	}
}

// TestConcurrentLoops runs agent loops in parallel tasks: each loop
// gets its own answers (matched by prompt), its feedback reaches only
// itself, and every run is recorded once.
func TestConcurrentLoops(t *testing.T) {
	const n = 8
	var src strings.Builder
	src.WriteString(`
let nudge = tool_def("nudge", "Nudge", {parameters: {who: "string"}, handler: {args ->
  agent_inject_feedback("feedback for " + args.who)
  "nudged"
}})
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&src, "llm_mock({match: \"task %d\", consume_match: true, tool_calls: [{name: \"nudge\", arguments: {who: \"w%d\"}}]})\n", i, i)
		fmt.Fprintf(&src, "llm_mock({match: \"feedback for w%d\", text: \"done %d\"})\n", i, i)
	}
	fmt.Fprintf(&src, `
let results = parallel(%d) { i ->
  let r = agent_loop("task ${i}", {tools: [nudge], name: "w${i}"})
  let fb = r.messages.filter({ m -> m.feedback ?? false }).map({ m -> m.content })
  "${r.text}|${fb}"
}
for x in results { println(x) }
let s = agent_trace_summary()
println([s.runs, s.turns, s.tool_calls, s.tool_errors])
`, n)
	out := mustRun(t, src.String())
	lines := strings.Split(out, "\n")
	if len(lines) != n+1 {
		t.Fatalf("got %d lines:\n%s", len(lines), out)
	}
	for i := 0; i < n; i++ {
		want := fmt.Sprintf("done %d|[feedback for w%d]", i, i)
		if lines[i] != want {
			t.Errorf("task %d: got %q, want %q", i, lines[i], want)
		}
	}
	if lines[n] != fmt.Sprintf("[%d, %d, %d, 0]", n, 2*n, n) {
		t.Errorf("summary %s", lines[n])
	}
}

// TestToolErrorKinds checks what the model reads for each failure kind
// of the registry's classification.
func TestToolErrorKinds(t *testing.T) {
	out := mustRun(t, `
let tools = [
  tool_def("ok", "", {parameters: {}, handler: {args -> {n: 1}}}),
  tool_def("undeclared", "", {parameters: {}, handler: {args -> throw {code: 7}}}),
  tool_def("runtime", "", {parameters: {}, handler: {args -> 1 / 0}}),
  tool_def("bad_output", "", {parameters: {}, returns: {type: "string"}, handler: {args -> 5}}),
  tool_def("bad_input", "", {parameters: {n: {type: "integer", required: true}}, handler: {args -> args.n}}),
]
llm_mock({tool_calls: tools.map({ t -> {name: t.name} })})
llm_mock("done")
let r = agent_loop("go", {tools: tools})
for m in r.messages.filter({ m -> m.role == "tool" }) {
  println("${m.name}: ${m.content}")
}
`)
	want := []string{
		`ok: {"n":1}`,
		`undeclared: Error: {"code":7}`,
		`runtime: Error: Division by zero`,
		`bad_output: Error: tool "bad_output" output violates its declared schema`,
		`bad_input: Error: tool "bad_input" input violates its declared schema`,
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q in\n%s", w, out)
		}
	}
}

// TestExitInToolEndsLoop: exit() in a tool ends the program even though
// tool errors are reported to the model by default.
func TestExitInToolEndsLoop(t *testing.T) {
	_, err := run(t, `
let t = tool_def("quit", "", {parameters: {}, handler: {args -> exit(3)}})
llm_mock({tool_calls: [{name: "quit"}]})
llm_mock("never")
agent_loop("go", {tools: [t]})
println("not reached")
`)
	if err == "" {
		t.Fatal("the program went on after exit(3)")
	}
}

// TestRegistryAudience: a registry tool outside the agent audience is
// neither offered to the model nor runnable.
func TestRegistryAudience(t *testing.T) {
	out := mustRun(t, `
import { tool_registry_from } from "std/tools"
let reg = tool_registry_from([
  {name: "public", description: "P", parameters: {}, handler: {args -> 1}},
  {name: "cli_only", description: "C", parameters: {}, governance: {audiences: ["cli"]}, handler: {args -> 2}},
])
llm_mock({tool_calls: [{name: "cli_only"}]})
llm_mock("ok")
let r = agent_loop("go", {tools: reg})
println(llm_mock_calls()[0].tools)
println(r.tool_calls[0].error)
`)
	if out != "[public]\nunknown tool \"cli_only\" (available: public)" {
		t.Fatalf("got %s", out)
	}
}

// TestLoopOverOpenAIWireBrokenArguments: arguments a model writes as
// text that is not JSON fail that one call with an error the model reads
// (the run goes on), and go back to the provider as written.
func TestLoopOverOpenAIWireBrokenArguments(t *testing.T) {
	clearEnv(t)
	replies := []string{
		`{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_x","type":"function","function":{"name":"add","arguments":"{\"a\":2,"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":20,"completion_tokens":9}}`,
		`{"choices":[{"message":{"role":"assistant","content":"sorry"},"finish_reason":"stop"}],"usage":{"prompt_tokens":35,"completion_tokens":1}}`,
	}
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request is not JSON: %v", err)
		}
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n >= len(replies) {
			w.WriteHeader(500)
			return
		}
		io.WriteString(w, replies[n])
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	out := mustRun(t, `
let add = tool_def("add", "Add two ints", {parameters: {a: "int", b: "int"}, handler: {args -> args.a + args.b}})
let r = agent_loop("2 + 40?", {provider: "openai", model: "gpt-4o-mini", tools: [add]})
println([r.text, r.turns, r.tool_calls[0].ok, r.tool_calls[0].arguments])
println(r.tool_calls[0].error)
`)
	want := "[sorry, 2, false, {\"a\":2,]\ntool \"add\" arguments are not JSON: EOF while parsing a value at line 1 column 7"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2", len(bodies))
	}
	b, _ := json.Marshal(bodies[1]["messages"])
	want = `[{"content":"2 + 40?","role":"user"},{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"a\":2,","name":"add"},"id":"call_x","type":"function"}]},{"content":"Error: tool \"add\" arguments are not JSON: EOF while parsing a value at line 1 column 7","role":"tool","tool_call_id":"call_x"}]`
	if string(b) != want {
		t.Errorf("second request messages\n%s\nwant\n%s", b, want)
	}
}
