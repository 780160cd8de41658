package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeServeScript(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "server.harn")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const serveWidget = `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  println("loading")
  harness.tools.mcp_tools(tool_registry_from([
    {name: "lookup_widget", description: "Fetch.", handler: {x -> {id: 1}}},
  ], {info: {name: "widgets", version: "1.0.0"}}))
}
`

func TestServeMCPStdio(t *testing.T) {
	p := writeServeScript(t, serveWidget)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup_widget"}}
`)
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "mcp", "--surface", "script", p}, in, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"serverInfo":{"name":"widgets","version":"1.0.0"}`) || !strings.Contains(lines[1], `"isError":false`) {
		t.Errorf("stdout:\n%s", out.String())
	}
	// The script's output and the startup line go to stderr.
	if !strings.Contains(errb.String(), "loading\n") || !strings.Contains(errb.String(), "[harn] serve mcp: serving 1 tool as 'widgets'\n") {
		t.Errorf("stderr: %q", errb.String())
	}
}

func TestServeMCPWatchLine(t *testing.T) {
	p := writeServeScript(t, serveWidget)
	var out, errb bytes.Buffer
	run([]string{"serve", "mcp", "--watch", p}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(errb.String(), "serving 1 tool as 'widgets' with source reload") {
		t.Errorf("stderr: %q", errb.String())
	}
}

func TestServeMCPLoadFailures(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"fn main(harness: Harness) {}\n", "pipeline did not publish a tool registry"},
		{`import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "t", description: "T.", returns: {"$anchor": "x", type: "integer"}, handler: {x -> 1}},
  ], {components: {schemas: {C: {type: "string"}}}}))
}
`, "cannot project tool schema through MCP components: $anchor changes JSON Schema resource scope"},
		// The argument rules run over every tool, MCP-only ones included
		// (docs/spec/registry.md §2.6; acceptance 121, 276).
		{`import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "t", governance: {audiences: ["mcp"]}, inputSchema: {type: "object", properties: {a: {type: "string"}}}, cli: {arguments: {b: {}}}, handler: {x -> x}},
  ]))
}
`, `tool "t" CLI argument metadata names unknown input property "b"`},
		{`import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "t", governance: {audiences: ["mcp"]}, inputSchema: {type: "object", properties: {"a.b": {}}}, handler: {x -> x}},
  ]))
}
`, `tool "t" property "a.b" has invalid CLI spelling --a.b`},
		// An MCP-audience tool with no local handler stops the server
		// from loading (docs/spec/registry.md §5).
		{`import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "ok", handler: {x -> x}},
    {name: "files", executor: "host_bridge", host_capability: "fs.read", governance: {audiences: ["mcp"]}},
  ]))
}
`, `error: invalid tool registry: tool "files" has no local handler (executor "host_bridge") but is exposed to the mcp audience; leave "mcp" out of its governance.audiences`},
	} {
		var out, errb bytes.Buffer
		code := run([]string{"serve", "mcp", "--surface", "script", writeServeScript(t, c.src)}, strings.NewReader(""), &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), c.msg) || out.Len() != 0 {
			t.Errorf("exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
		}
	}
}

// Tools with no local handler outside the MCP audience never block the
// server (docs/spec/registry.md §5): it serves and lists the rest.
func TestServeMCPIgnoresHandlerlessToolsOutsideMCP(t *testing.T) {
	p := writeServeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "model_side", executor: "provider_native", governance: {audiences: ["agent"]}},
    {name: "remote", executor: "mcp_server", mcp_server: "github", governance: {audiences: ["cli", "catalog"]}},
    {name: "ok", handler: {x -> "fine"}},
  ]))
}
`)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ok"}}
`)
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "mcp", "--surface", "script", p}, in, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || strings.Count(lines[1], `"name":`) != 1 || !strings.Contains(lines[1], `"name":"ok"`) || !strings.Contains(lines[2], `"isError":false`) {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// A $ref the generated command-line parser cannot follow stops
// `harn tool run` (testdata/tool_run/refuse_p26_unresolved_ref.txt) but
// never the MCP server: P26 is a parser-construction check only
// (docs/spec/cli-projection.md §4; acceptance 125).
func TestServeMCPIgnoresParserOnlyRefusal(t *testing.T) {
	p := writeServeScript(t, `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "t", inputSchema: {type: "object", "$defs": {Count: {"$anchor": "count", type: "integer"}}, properties: {a: {"$ref": "#count"}}}, handler: {x -> x}},
  ]))
}
`)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"a":3}}}
`)
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "mcp", "--surface", "script", p}, in, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 2 || !strings.Contains(lines[1], `"isError":false`) {
		t.Errorf("stdout:\n%s", out.String())
	}
}

func TestServeMCPUsage(t *testing.T) {
	p := writeServeScript(t, serveWidget)
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "mcp", "--watch", "--transport", "http", p}, strings.NewReader(""), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "--watch requires the stdio transport and the script surface") {
		t.Errorf("exit %d: %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"serve", "mcp", "--surface", "nope", p}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("bad surface: exit %d", code)
	}
	errb.Reset()
	if code := run([]string{"serve", "mcp"}, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "missing FILE") {
		t.Errorf("no file: exit %d %q", code, errb.String())
	}
}

// A key list that holds no key is refused rather than served without
// authentication, from the flag (a usage error) and from the environment.
func TestServeMCPEmptyAPIKeys(t *testing.T) {
	p := writeServeScript(t, serveWidget)
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", "--api-key", " ,, ", p}, strings.NewReader(""), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), `error: --api-key holds no API key (" ,, "); give one or more keys separated by commas`) {
		t.Errorf("--api-key: exit %d: %q", code, errb.String())
	}
	errb.Reset()
	t.Setenv("HARN_SERVE_API_KEY", ",")
	if code := run([]string{"serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", p}, strings.NewReader(""), &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), `error: HARN_SERVE_API_KEY holds no API key (","); give one or more keys separated by commas`) {
		t.Errorf("HARN_SERVE_API_KEY: exit %d: %q", code, errb.String())
	}
}

// `--surface auto` on a module with public functions serves the exports
// surface, and with it the project context next to the module: the
// README as a resource, the .harn.prompt file as a prompt that
// prompts/get renders (docs/spec/mcp-projection.md §14).
func TestServeMCPExportsProjectContext(t *testing.T) {
	p := writeServeScript(t, "pub fn add(a: int, b: int) -> int {\n  return a + b\n}\n")
	dir := filepath.Dir(p)
	for name, text := range map[string]string{
		"README.md":         "# Adder\n",
		"greet.harn.prompt": "Hello {{ who }}!\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"resources/list"}
{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet","arguments":{"who":"world"}}}
`)
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "mcp", p}, in, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"prompts":{}`) || !strings.Contains(lines[0], `"resources":{`) ||
		!strings.Contains(lines[1], `"name":"README.md"`) || !strings.Contains(lines[1], `"name":"greet.harn.prompt"`) ||
		!strings.Contains(lines[2], `"text":"Hello world!\n"`) {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
}

// mixedModule has a public function and a main that publishes a registry:
// --surface auto serves its exports and never runs main.
const mixedModule = `import { tool_registry_from } from "std/tools"
pub fn helper(x: int) -> int { return x }
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([{name: "scripted", handler: {a -> 1}}]))
}
`

// TestServeMCPWatchRefusalNamesAuto: --watch on a module auto resolves to
// exports says why and how to get the script surface (docs/exports.md).
func TestServeMCPWatchRefusalNamesAuto(t *testing.T) {
	p := writeServeScript(t, mixedModule)
	var out, errb bytes.Buffer
	code := run([]string{"serve", "mcp", "--watch", p}, strings.NewReader(""), &out, &errb)
	// the message of docs/spec/mcp-projection.md §1, then why
	want := "error: --watch requires the stdio transport and the script surface: --surface auto resolved to exports because " + p +
		" has public functions. Use --surface script to serve the registry the script publishes.\n"
	if code != 2 || errb.String() != want || out.Len() != 0 {
		t.Errorf("exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
	errb.Reset()
	code = run([]string{"serve", "mcp", "--watch", "--surface", "exports", p}, strings.NewReader(""), &out, &errb)
	if code != 2 || errb.String() != "error: --watch requires the stdio transport and the script surface\n" {
		t.Errorf("explicit exports: exit %d stderr %q", code, errb.String())
	}
}

// TestServeMCPNotesAutoSkipsMain: serving a module with pub fn and main
// under auto writes the note once on stderr and serves the exports.
func TestServeMCPNotesAutoSkipsMain(t *testing.T) {
	p := writeServeScript(t, mixedModule)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "mcp", p}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	note := "note: --surface auto chose exports because " + p + " has public functions; its main was not run."
	if strings.Count(errb.String(), note) != 1 {
		t.Errorf("stderr: %q", errb.String())
	}
	if !strings.Contains(out.String(), `"helper"`) || strings.Contains(out.String(), "scripted") || strings.Contains(out.String(), "note:") {
		t.Errorf("stdout: %s", out.String())
	}
}
