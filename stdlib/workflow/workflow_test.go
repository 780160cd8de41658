package workflow_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
)

func runSrc(t *testing.T, src string) (string, error, string) {
	t.Helper()
	var stderr bytes.Buffer
	res := interp.RunProgram(filepath.Join(t.TempDir(), "wf.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
	var err error
	if res.Err != nil {
		err = res.Err
	}
	return string(res.Stdout), err, stderr.String()
}

func run(t *testing.T, src string) string {
	t.Helper()
	out, err, stderr := runSrc(t, src)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	return out
}

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

// The content hash ignores the order in which a node's fields were
// written, and changes with any field's value.
func TestHashIsCanonical(t *testing.T) {
	out := lines(run(t, `
let f = { s -> 1 }
let a = workflow_commit(workflow_graph({name: "a", nodes: [{id: "x", fn: f, retries: 1, kind: "task"}]}))
let b = workflow_commit(workflow_graph({name: "a", nodes: [{kind: "task", retries: 1, fn: f, id: "x"}]}))
let c = workflow_commit(workflow_graph({name: "a", nodes: [{id: "x", fn: f, retries: 2}]}))
println(a.hash == b.hash)
println(b.version)
println(a.hash == c.hash)
println(c.version)
println(c.parent == a.hash)
`))
	want := []string{"true", "1", "false", "2", "true"}
	if strings.Join(out, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", out, want)
	}
}

// Histories are kept per graph name: committing one name leaves the
// other's versions alone.
func TestHistoryPerName(t *testing.T) {
	out := run(t, `
let g = workflow_graph({name: "one", nodes: [{id: "x", fn: { s -> 1 }}]})
workflow_commit(g)
workflow_commit(workflow_set_context_policy(g, {strategy: "full"}))
let h = workflow_commit(workflow_clone(g, "two"))
println(h.version)
println(len(workflow_inspect(g).history))
println(len(workflow_inspect(h).history))
`)
	if out != "1\n2\n1\n" {
		t.Fatalf("got %q", out)
	}
}

// continue_as_new belongs to the innermost running workflow: a nested
// workflow_execute restarts, the outer one does not.
func TestContinueAsNewInnermost(t *testing.T) {
	out := run(t, `
let inner = workflow_graph({nodes: [{id: "i", fn: { s -> if s.input < 2 { continue_as_new(s.input + 1) } else { s.input * 10 } }}]})
let outer = workflow_graph({nodes: [{id: "o", fn: { s -> workflow_execute(inner, 0).output }}]})
let r = workflow_execute(outer, nil)
println(r.output)
println(r.continues)
`)
	if out != "20\n0\n" {
		t.Fatalf("got %q", out)
	}
}

// A task spawned by a node is not inside the run: continue_as_new there
// is the outside-a-workflow error, and the run itself is not restarted.
func TestContinueAsNewInSpawnedTask(t *testing.T) {
	out := run(t, `
let g = workflow_graph({nodes: [{id: "s", fn: { s ->
  let t = spawn { continue_as_new(1) }
  try { await(t) } catch e { return to_string(e) }
  return "no error"
}}]})
let r = workflow_execute(g, 0)
println(r.continues)
println(r.output.contains("called outside a running workflow"))
`)
	if out != "0\ntrue\n" {
		t.Fatalf("got %q", out)
	}
}

// Workflows executed at the same time by several tasks keep their own
// state and continue_as_new bookkeeping (run under -race too).
func TestConcurrentExecutions(t *testing.T) {
	out := run(t, `
let g = workflow_graph({nodes: [
  {id: "step", fn: { s -> if s.input < s.limit { continue_as_new({input: s.input + 1, limit: s.limit}) } else { {done: s.input} } }},
]})
let results = parallel each [3, 5, 7, 9] { n -> workflow_execute(g, {input: 0, limit: n}) }
println(results.map({ r -> [r.state.done, r.continues] }))
`)
	if out != "[[3, 3], [5, 5], [7, 7], [9, 9]]\n" {
		t.Fatalf("got %q", out)
	}
}

// Editing never changes the graph passed in.
func TestEditsLeaveArgumentsAlone(t *testing.T) {
	out := run(t, `
let g = workflow_graph({nodes: [{id: "a", fn: { s -> 1 }}, {id: "b", fn: { s -> 2 }}], edges: [{from: "a", to: "b"}]})
let before = json_stringify(workflow_inspect(g))
workflow_insert_node(g, {id: "m", fn: { s -> 1 }}, "a")
workflow_replace_node(g, "a", {id: "z", fn: { s -> 3 }})
workflow_rewire(g, "a", "b", nil)
workflow_set_model_policy(g, {model: "x"})
println(json_stringify(workflow_inspect(g)) == before)
println(workflow_diff(g, g).same)
`)
	if out != "true\ntrue\n" {
		t.Fatalf("got %q", out)
	}
}

// Argument errors name the builtin and never panic.
func TestArgumentErrors(t *testing.T) {
	cases := map[string]string{
		`workflow_validate(1)`:                       "workflow_validate: expected a workflow graph",
		`workflow_validate()`:                        "workflow_validate: missing argument 1",
		`workflow_diff(workflow_graph({nodes: []}))`: "workflow_diff: missing argument 2",
		`workflow_rewire(workflow_graph({nodes: [{id: "a", fn: { s -> 1 }}]}), "a", "a")`:             "workflow_rewire: missing argument 4",
		`workflow_commit(workflow_graph({nodes: []}), 5)`:                                             "workflow_commit: message must be a string",
		`workflow_graph({nodes: [{id: "t", kind: "tool"}]})`:                                          `tool node "t" needs tool`,
		`workflow_graph({nodes: [{id: "l", kind: "llm", prompt: 3}]})`:                                `llm node "l" needs prompt`,
		`workflow_graph({nodes: [], colour: 1})`:                                                      `unknown spec field "colour"`,
		`workflow_graph({nodes: [], policies: {speed: 1}})`:                                           `unknown policy "speed"`,
		`workflow_set_auto_compact(workflow_graph({nodes: []}), "yes")`:                               "workflow_set_auto_compact: policy must be a dict",
		`workflow_execute(workflow_graph({nodes: [{id: "a", fn: { s -> 1 }}]}), nil, {max_steps: 0})`: "max_steps must be a positive int",
	}
	for src, want := range cases {
		_, err, stderr := runSrc(t, src)
		if err == nil {
			t.Errorf("%s: no error", src)
			continue
		}
		if got := err.Error() + stderr; !strings.Contains(got, want) {
			t.Errorf("%s: got %q, want it to contain %q", src, got, want)
		}
	}
}

// An llm node's prompt function must give a string.
func TestLLMPromptMustBeString(t *testing.T) {
	_, err, stderr := runSrc(t, `
llm_mock("x")
workflow_execute(workflow_graph({nodes: [{id: "l", kind: "llm", prompt: { s -> 5 }}]}), nil)
`)
	if err == nil || !strings.Contains(err.Error()+stderr, `llm node "l": prompt must give a string, got int`) {
		t.Fatalf("got %v %s", err, stderr)
	}
}
