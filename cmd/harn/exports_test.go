package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
)

const exportsGolden = "../../tool/exports/testdata/golden"

func writeModule(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestToolSchemaExports: `harn tool schema --surface exports` prints the
// exports catalog (the same bytes as tool/exports' golden files), never
// runs the module, and refuses unrepresentable types with a positioned
// error and exit 1.
func TestToolSchemaExports(t *testing.T) {
	for _, name := range []string{"structs", "recursive_struct", "enums", "throws_union", "doc_comments"} {
		f := filepath.Join(exportsGolden, name+".harn")
		out, stderr, code := runHarn("tool", "schema", f, "--surface", "exports", "--pretty")
		want, _ := os.ReadFile(filepath.Join(exportsGolden, name+".json"))
		if code != 0 || out != string(want) {
			t.Errorf("%s: exit %d stderr %q\n%s", name, code, stderr, out)
		}
		compact, _, _ := runHarn("tool", "schema", f, "--surface=exports")
		v, _ := jsonv.Parse(want)
		if compact != string(jsonv.Marshal(v))+"\n" {
			t.Errorf("%s: compact output differs: %s", name, compact)
		}
	}

	// main panics, the top level throws: the catalog is still built (acceptance 74, 83)
	lib := writeModule(t, "mylib.harn", `pub fn inspect(input: {id: string}) -> {id: string} { return input }
fn main(harness: Harness) { throw "main panics" }
throw "top level panics"
`)
	out, stderr, code := runHarn("tool", "schema", lib, "--surface", "exports")
	if code != 0 || !strings.HasPrefix(out, `{"schema_version":"harn-tools/2.0","info":{"name":"mylib"},"tools":[{"name":"inspect",`) {
		t.Fatalf("exit %d stderr %q stdout %s", code, stderr, out)
	}
	for _, frag := range []string{
		`"inputSchema":{"type":"object","properties":{"input":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}},"required":["input"]}`,
		`"source":{"kind":"harn","id":"inspect","binding":{"callableKind":"function"}}`,
		`"cli":{"command":["inspect"],"aliases":[],"hidden":false,"arguments":{}}`,
	} {
		if !strings.Contains(out, frag) {
			t.Errorf("catalog lacks %s:\n%s", frag, out)
		}
	}

	// the default surface is auto: a module with a pub fn gets the
	// exports catalog, as with --surface exports (issue 14); script stays
	// available explicitly
	if def, stderr, code := runHarn("tool", "schema", lib); code != 0 || def != out {
		t.Errorf("default surface: exit %d %q\n%s", code, stderr, def)
	}
	if _, stderr, code := runHarn("tool", "schema", lib, "--surface", "script"); code != 1 || !strings.Contains(stderr, "tool threw an undeclared value") {
		t.Errorf("script surface: exit %d %q", code, stderr)
	}

	// refusals stop publication: nothing on stdout, exit 1; located as a
	// checker diagnostic (docs/exports.md)
	src := "pub fn risky(x: int) -> int throws {retry: fn() -> int} { return x }"
	bad := writeModule(t, "bad.harn", src+"\n")
	out, stderr, code = runHarn("tool", "schema", bad, "--surface", "exports")
	want := `error: export "risky" declares a throws type that cannot be represented as JSON Schema: runtime-only Harn type "closure" (in field "retry")` + "\n" +
		"  --> " + bad + ":1:36\n  |\n1 | " + src + "\n  |" + strings.Repeat(" ", 36) + "^\n"
	if code != 1 || out != "" || stderr != want {
		t.Errorf("refusal: exit %d stdout %q stderr %q", code, out, stderr)
	}
	// a compile error renders its diagnostic
	broken := writeModule(t, "broken.harn", "pub fn f(x: int) -> int { return x + }\n")
	if out, stderr, code := runHarn("tool", "schema", broken, "--surface", "exports"); code != 1 || out != "" || !strings.Contains(stderr, "broken.harn:1:") {
		t.Errorf("compile error: exit %d stdout %q stderr %q", code, out, stderr)
	}
}

// TestToolSchemaAuto: --surface auto picks exports when the module has a
// public function, else the script surface.
func TestToolSchemaAuto(t *testing.T) {
	lib := writeModule(t, "lib.harn", "pub fn ping() -> string { return \"pong\" }\n")
	if out, stderr, code := runHarn("tool", "schema", lib, "--surface", "auto"); code != 0 || !strings.Contains(out, `"name":"ping"`) {
		t.Errorf("exports: exit %d %q %s", code, stderr, out)
	}
	script := writeModule(t, "script.harn", `fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_define(tool_registry(), "from_script", "", {handler: {args -> 1}}))
}
`)
	if out, stderr, code := runHarn("tool", "schema", script, "--surface", "auto"); code != 0 || !strings.Contains(out, `"name":"from_script"`) {
		t.Errorf("script: exit %d %q %s", code, stderr, out)
	}
	// re-exported functions count
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "impl.harn"), []byte("pub fn hello() -> string { return \"hi\" }\n"), 0o644)
	facade := filepath.Join(dir, "facade.harn")
	os.WriteFile(facade, []byte("pub import { hello } from \"./impl\"\n"), 0o644)
	if out, stderr, code := runHarn("tool", "schema", facade, "--surface", "auto"); code != 0 || !strings.Contains(out, `"name":"hello"`) {
		t.Errorf("re-export: exit %d %q %s", code, stderr, out)
	}
}

// mcpSession runs `harn serve mcp` over stdio with the given requests
// (after the initialize handshake) and returns the responses by id.
func mcpSession(t *testing.T, args []string, requests ...string) (map[string]*jsonv.Object, string, int) {
	t.Helper()
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + strings.Join(requests, "\n") + "\n"
	var out, errb bytes.Buffer
	code := run(append([]string{"serve", "mcp"}, args...), strings.NewReader(in), &out, &errb)
	byID := map[string]*jsonv.Object{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		v, err := jsonv.Parse([]byte(line))
		if err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		o := v.(*jsonv.Object)
		if id, ok := o.Get("id"); ok {
			byID[string(jsonv.Marshal(id))] = o
		}
	}
	return byID, errb.String(), code
}

func member(v any, path ...string) any {
	for _, k := range path {
		o, ok := v.(*jsonv.Object)
		if !ok {
			return nil
		}
		v, _ = o.Get(k)
	}
	return v
}

// TestServeMCPExports covers the exports surface over MCP: $defs
// bundling of components, hydrated struct arguments, input validation
// before the call, refusal to serve an unrepresentable module, and the
// auto surface (acceptance 81, 84, 263, 268).
func TestServeMCPExports(t *testing.T) {
	lib := writeModule(t, "lib.harn", `struct Widget { id: int, label: string }
struct Node { value: int, next?: Node }
pub fn describe(w: Widget) -> string { return type_of(w) }
pub fn walk(head: Node) -> int { return head.value }
fn main(harness: Harness) { throw "main must not run" }
`)
	res, stderr, code := mcpSession(t, []string{"--surface", "exports", lib},
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"describe","arguments":{"w":{"id":1,"label":"x"}}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"describe","arguments":{"w":{"id":1}}}}`,
	)
	if code != 0 || !strings.Contains(stderr, "serving 2 tools as 'lib'") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tools, _ := member(res["1"], "result", "tools").([]any)
	if len(tools) != 2 {
		t.Fatalf("tools/list: %s", jsonv.Marshal(res["1"]))
	}
	walk := string(jsonv.Marshal(member(tools[1], "inputSchema")))
	if !strings.Contains(walk, `"$defs":{"Node":`) || strings.Contains(walk, "#/components/") ||
		!strings.Contains(walk, `"next":{"anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]}`) {
		t.Errorf("walk input schema: %s", walk)
	}
	if got := jsonv.Marshal(member(res["2"], "result", "content")); string(got) != `[{"type":"text","text":"struct"}]` {
		t.Errorf("describe: %s", jsonv.Marshal(res["2"]))
	}
	if c := member(res["3"], "error", "code"); c == nil || string(jsonv.Marshal(c)) != "-32602" ||
		!strings.Contains(member(res["3"], "error", "message").(string), "input violates its declared schema") {
		t.Errorf("invalid input: %s", jsonv.Marshal(res["3"]))
	}

	// an unrepresentable throws type: exit 1 without serving (acceptance 81)
	bad := writeModule(t, "bad.harn", "pub fn risky(x: int) -> int throws fn(int) -> int { return x }\n")
	var out, errb bytes.Buffer
	code = run([]string{"serve", "mcp", "--surface", "exports", bad}, strings.NewReader(""), &out, &errb)
	if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), `export "risky" declares a throws type that cannot be represented as JSON Schema: runtime-only Harn type "closure"`) {
		t.Errorf("refusal: exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
	code = run([]string{"serve", "mcp", bad}, strings.NewReader(""), &out, &errb)
	if code != 1 || out.Len() != 0 {
		t.Errorf("auto refusal: exit %d stdout %q", code, out.String())
	}

	// auto (the default): exports for a module with a pub fn, else script (acceptance 84)
	res, stderr, code = mcpSession(t, []string{lib}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if code != 0 || len(member(res["1"], "result", "tools").([]any)) != 2 {
		t.Errorf("auto exports: exit %d %s", code, stderr)
	}
	script := writeModule(t, "script.harn", `fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_define(tool_registry(), "from_script", "", {handler: {args -> 1}}))
}
`)
	res, stderr, code = mcpSession(t, []string{"--surface", "auto", script}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	tools, _ = member(res["1"], "result", "tools").([]any)
	if code != 0 || len(tools) != 1 || member(tools[0], "name") != any("from_script") {
		t.Errorf("auto script: exit %d %s %s", code, stderr, jsonv.Marshal(res["1"]))
	}
}

// TestServeMCPExportsCapabilities: the exports surface advertises tools,
// and the tasks extension only when some export is a @job
// (docs/spec/mcp-projection.md §3.3).
func TestServeMCPExportsCapabilities(t *testing.T) {
	plain := writeModule(t, "plain.harn", "pub fn add(a: int, b: int) -> int { return a + b }\n")
	res, stderr, code := mcpSession(t, []string{"--surface", "exports", plain})
	caps := member(res["0"], "result", "capabilities")
	if code != 0 || member(caps, "tools") == nil || member(caps, "extensions") != nil || member(caps, "resources") != nil {
		t.Errorf("plain exports: exit %d %s caps %s", code, stderr, jsonv.Marshal(caps))
	}
	job := writeModule(t, "job.harn", "@job(\"nightly\")\npub fn sync(harness: Harness, event: dict) -> int { return 1 }\n")
	res, stderr, code = mcpSession(t, []string{"--surface", "exports", job})
	caps = member(res["0"], "result", "capabilities")
	if code != 0 || member(caps, "extensions", "io.modelcontextprotocol/tasks") == nil {
		t.Errorf("@job exports: exit %d %s caps %s", code, stderr, jsonv.Marshal(caps))
	}
}

// TestToolRunExports: `harn tool run --surface exports` projects a
// module's public functions into the generated CLI and calls them through
// export-backed dispatch: validated arguments, hydrated struct results,
// main never run (issue: export-backed dispatch "used by … the CLI").
func TestToolRunExports(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	lib := writeModule(t, "lib.harn", `struct Widget { id: int, label: string }
/** Fetch one widget. */
pub fn get_widget(id: int) -> Widget { return Widget { id: id, label: "w${id}" } }
pub fn fail(code: int) -> int throws {code: int} { throw {code: code} }
write_file("`+marker+`", "top level ran")
fn main(harness: Harness) { write_file("`+marker+`", "main ran") }
`)
	out, stderr, code := runHarn("tool", "run", "--surface", "exports", lib, "get_widget", "--id", "4")
	if code != 0 || out != `{"id":4,"label":"w4"}`+"\n" {
		t.Errorf("call: exit %d out %q stderr %q", code, out, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("main or top-level code ran")
	}
	out, stderr, code = runHarn("tool", "run", "--surface=auto", lib, "get_widget", "--id", "x")
	if code != 1 || out != "" || !strings.Contains(stderr, "--id expects an integer") {
		t.Errorf("bad argument: exit %d out %q stderr %q", code, out, stderr)
	}
	out, stderr, code = runHarn("tool", "run", "--surface", "exports", lib, "fail", "--code", "7")
	if code != 1 || out != `{"ok":false,"error":{"kind":"application","tool":"fail","data":{"code":7}}}`+"\n" {
		t.Errorf("declared failure: exit %d out %q stderr %q", code, out, stderr)
	}
	if _, stderr, code = runHarn("tool", "run", "--surface", "bogus", lib); code != 2 || !strings.Contains(stderr, "unsupported --surface") {
		t.Errorf("bad surface: exit %d stderr %q", code, stderr)
	}
	// every command that takes --surface refuses a bad one in the same words
	if _, stderr, code = runHarn("serve", "mcp", "--surface", "bogus", lib); code != 2 || !strings.Contains(stderr, `unsupported --surface "bogus" (available: script, exports, auto)`) {
		t.Errorf("serve mcp bad surface: exit %d stderr %q", code, stderr)
	}
	out, _, code = runHarn("tool", "completions", lib, "--shell", "bash", "--surface", "exports")
	if code != 0 || !strings.Contains(out, "get_widget") {
		t.Errorf("completions: exit %d", code)
	}
}
