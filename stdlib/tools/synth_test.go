package tools_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/tool/load"
)

// runHarn runs src as `harn run` does and returns its stdout.
func runHarn(tb testing.TB, src string) string {
	tb.Helper()
	var errb bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{Stderr: &errb})
	if r.Err != nil {
		tb.Fatalf("run failed: %v\n%s", r.Err, errb.String())
	}
	return string(r.Stdout)
}

const published = `import { tool_registry_from } from "std/tools"

fn main(harness: Harness) {
  let base = tool_registry_from([
    {name: "add", parameters: {a: {type: "int", required: true}, b: {type: "int", required: true}}, returns: {type: "integer"}, handler: {args -> args.a + args.b}},
    {name: "fail", parameters: {code: {type: "string", required: true}}, handler: {args -> throw {code: args.code}}},
    {name: "leak", parameters: {}, handler: {args -> throw "s3cret-token"}},
  ])
  let inc = tool_bind(tool_ref(base, "add"), {b: 1}, "inc")
  let twice = tool_synthesize(base, {
    name: "twice",
    steps: [{tool: "add", args: {a: "$input.n", b: "$input.n"}}],
  })
  let checked = tool_synthesize(base, {
    name: "checked",
    error_schema: {type: "object", properties: {code: {type: "string"}}, required: ["code"]},
    steps: [{tool: "fail", args: {code: "$input.why"}}],
  })
  let leaky = tool_synthesize(base, {name: "leaky", steps: [{tool: "leak"}]})
  harness.tools.mcp_tools(tool_registry_from([inc, twice, checked, leaky]))
}
`

// The tool values run through an adapter's prepared catalog exactly as
// hand-written tools do: validated, classified, value-free summaries.
func TestToolValuesThroughAnAdapter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.harn")
	if err := os.WriteFile(path, []byte(published), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := load.Load(path, load.Options{Stderr: &bytes.Buffer{}})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if ws := s.Registry.Warnings(); len(ws) > 0 {
		t.Errorf("tool values must not draw misspelt-key warnings: %v", ws)
	}
	p, err := tool.Prepare(s.Registry)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	call := func(name, args string) *tool.Outcome {
		t.Helper()
		pt, ok := p.Tool(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		a, err := jsonv.Parse([]byte(args))
		if err != nil {
			t.Fatal(err)
		}
		return pt.Invoke(s.Thread(), a)
	}
	if o := call("inc", `{"a": 41}`); o.Kind != tool.Success || string(jsonv.Marshal(o.Result)) != "42" {
		t.Errorf("inc: %+v", o)
	}
	if o := call("inc", `{}`); o.Kind != tool.InvalidInput || !strings.Contains(o.Summary, `"a" is required`) {
		t.Errorf("inc without a: %+v", o)
	}
	if o := call("twice", `{"n": 21}`); o.Kind != tool.Success || string(jsonv.Marshal(o.Result)) != "42" {
		t.Errorf("twice: %+v", o)
	}
	if o := call("twice", `{"n": "x"}`); o.Kind != tool.InvalidInput {
		t.Errorf("twice with a string: %+v", o)
	}
	o := call("checked", `{"why": "nope"}`)
	if o.Kind != tool.ApplicationError || string(jsonv.Marshal(o.Data)) != `{"code":"nope"}` {
		t.Errorf("checked: a step's throw matching the synthesized error_schema is an application error: %+v", o)
	}
	o = call("leaky", `{}`)
	if o.Kind != tool.RuntimeFailure || o.Summary != tool.SummaryUndeclaredThrow || strings.Contains(o.FailureText(), "s3cret") {
		t.Errorf("leaky: an undeclared throw stays value-free: %+v", o)
	}
}

// Tool values are used from many tasks at once: the prepared-tool and
// synthesis caches are shared by the VM's threads.
func TestToolValuesConcurrently(t *testing.T) {
	out := runHarn(t, `import { tool_registry_from } from "std/tools"

let reg = tool_registry_from([
  {name: "add", parameters: {a: {type: "int", required: true}, b: {type: "int", required: true}}, handler: {args -> args.a + args.b}},
])
let sums = parallel 16 { i ->
  let s = tool_synthesize(reg, {name: "plus" + to_string(i % 4), steps: [{tool: "add", args: {a: "$input.n", b: i % 4}}]})
  let inc = tool_bind(tool_ref(reg, "add"), {b: 1})
  tool_synth_invoke(s, {n: i}) + inc.handler({a: i})
}
println(sums)
println(len(tool_synthesis_cache()))
`)
	sums := make([]string, 16)
	for i := range sums {
		sums[i] = strconv.Itoa(i + i%4 + i + 1)
	}
	want := "[" + strings.Join(sums, ", ") + "]\n4\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}
