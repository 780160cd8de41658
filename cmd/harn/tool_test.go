package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/tool/tooltest"
)

// runHarn runs the command in-process.
func runHarn(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// TestToolSchemaGolden runs `harn tool schema` on every registry under
// testdata/tool_schema and compares the pretty catalog byte for byte
// with NAME.json (go test ./cmd/harn -run ToolSchemaGolden -update
// rewrites them). Each catalog must also validate against the generated
// JSON Schema artifact and read back through the ToolCatalog reader.
func TestToolSchemaGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/tool_schema/*.harn")
	if len(files) < 16 {
		t.Fatalf("expected at least 16 golden registries, found %d", len(files))
	}
	artifact := tooltest.ArtifactSchema(t)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".harn")
		t.Run(name, func(t *testing.T) {
			pretty, stderr, code := runHarn("tool", "schema", f, "--pretty")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden := strings.TrimSuffix(f, ".harn") + ".json"
			if *update {
				os.WriteFile(golden, []byte(pretty), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if pretty != string(want) {
				t.Errorf("--pretty output differs from %s:\n%s", golden, pretty)
			}
			compact, _, code := runHarn("tool", "schema", f)
			if code != 0 || strings.Count(compact, "\n") != 1 || !strings.HasSuffix(compact, "\n") {
				t.Fatalf("compact output is not one line: %q", compact)
			}
			again, _, _ := runHarn("tool", "schema", f)
			if again != compact {
				t.Error("output differs between runs")
			}
			v, err := jsonv.Parse([]byte(pretty))
			if err != nil {
				t.Fatal(err)
			}
			if string(jsonv.Marshal(v))+"\n" != compact {
				t.Error("compact and pretty outputs disagree")
			}
			tooltest.CheckCatalog(t, artifact, []byte(strings.TrimSuffix(compact, "\n")))
			if strings.Contains(compact, "handler") {
				t.Error("catalog mentions a handler")
			}
		})
	}
}

func TestToolSchemaFailures(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(src), 0o644)
		return p
	}
	cases := []struct {
		src, want string
		code      int
	}{
		{`fn main(harness: Harness) { println("hi") }`, "error: pipeline did not publish a tool registry\nhint: call harness.tools.mcp_tools(tools) from main\n", 1},
		{`fn main(harness: Harness) { harness.tools.mcp_tools({tools: []}) }`, `mcp_tools: argument must be a tool registry (created with tool_registry())`, 1},
		{`throw "secret value"`, `Runtime error: tool threw an undeclared value`, 1},
		{`let r = tool_define(tool_registry(), "a", "", {handler: {x -> x}, params: {}})`, `tool_define: use 'parameters', not 'params'`, 1},
		{`exit(3)`, ``, 3},
		{`let x = `, `error`, 1},
		// what tool schema writes, the catalog reader must accept (P23/P24 rules on cli.commands)
		{"import { tool_registry_from } from \"std/tools\"\n" + `mcp_tools(tool_registry_from([{name: "a", cli: {command: ["g", "a"]}, handler: {x -> 1}}], {cli: {commands: [{command: ["g"], title: " "}]}}))`, `error: invalid tool catalog: cli.commands[0]: CLI command title must not be empty`, 1},
		{"import { tool_registry_from } from \"std/tools\"\n" + `mcp_tools(tool_registry_from([{name: "a", cli: {command: ["g", "a"]}, handler: {x -> 1}}], {cli: {commands: [{command: ["g"], description: ""}]}}))`, `CLI command description must not be empty`, 1},
		{"import { tool_registry_from } from \"std/tools\"\n" + `mcp_tools(tool_registry_from([{name: "a", cli: {command: ["g", "a"]}, handler: {x -> 1}}], {cli: {commands: [{command: ["g"], aliases: ["b", "b"]}]}}))`, `error: invalid tool catalog: cli.commands[0].aliases lists "b" twice`, 1},
		{"import { tool_registry_from } from \"std/tools\"\n" + `mcp_tools(tool_registry_from([{name: "a", cli: {command: ["g", "a"]}, handler: {x -> 1}}], {cli: {commands: [{command: ["g"], aliases: ["bad alias"]}]}}))`, `CLI command spelling "bad alias" is not a portable command component`, 1},
	}
	for i, c := range cases {
		p := write("s.harn", c.src)
		out, stderr, code := runHarn("tool", "schema", p)
		if code != c.code || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("case %d: exit %d stdout %q stderr %q; want exit %d and %q", i, code, out, stderr, c.code, c.want)
		}
		if strings.Contains(stderr, "secret value") {
			t.Errorf("case %d leaked a thrown value", i)
		}
	}
	// a publication from an earlier load in the same process does not count
	good := write("good.harn", `mcp_tools(tool_registry())`)
	if _, stderr, code := runHarn("tool", "schema", good); code != 0 {
		t.Fatal(stderr)
	}
	none := write("none.harn", `println("nothing")`)
	if _, stderr, code := runHarn("tool", "schema", none); code != 1 || !strings.Contains(stderr, "did not publish") {
		t.Errorf("second load: exit %d %q", code, stderr)
	}
	// script output goes to stderr, never stdout
	noisy := write("noisy.harn", `println("noise")
mcp_tools(tool_registry())`)
	out, stderr, _ := runHarn("tool", "schema", noisy)
	if strings.Contains(out, "noise") || !strings.Contains(stderr, "noise") {
		t.Errorf("script output: stdout %q stderr %q", out, stderr)
	}
	if _, _, code := runHarn("tool", "schema"); code != 2 {
		t.Error("missing FILE is not a usage error")
	}
	if _, _, code := runHarn("tool", "schema", good, "--surface", "bogus"); code != 2 {
		t.Error("unknown surface is not a usage error")
	}
}

// TestToolRunVMErrorKeepsItsMessage: a handler's runtime error reaches
// `harn tool run` as the VM error's own message (docs/spec/registry.md §6,
// docs/tool-run.md), not relabelled as a script-side callback failure is
// (docs/spec/language.md §8.2).
func TestToolRunVMErrorKeepsItsMessage(t *testing.T) {
	f := writeModule(t, "div.harn", `fn main(harness: Harness) {
  let reg = tool_define(tool_registry(), "vmerr", "Divide", {parameters: {a: "int", b: "int"}, handler: { args ->
    args.a / args.b
  }})
  harness.tools.mcp_tools(reg)
}
`)
	out, stderr, code := runHarn("tool", "run", f, "vmerr", "--a", "1", "--b", "0")
	if code != 1 || out != "" || stderr != "error: tool \"vmerr\" failed: Division by zero\n" {
		t.Fatalf("exit %d out %q stderr %q", code, out, stderr)
	}
}
