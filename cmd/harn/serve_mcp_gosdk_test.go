package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// `harn serve mcp` (the real command, re-executed by TestMain) driven by
// the official Go SDK client over stdio and over session-free Streamable
// HTTP on 127.0.0.1, in a released session and in the 2026-07-28 profile
// (docs/spec/mcp-projection.md §4, §5, §6, §9; docs/mcp.md "Released
// outputSchema").

const serveExports = `struct Widget { id: int, label: string }
struct Node { value: int, next?: Node }

pub fn get(id: int) -> Widget { return Widget { id: id, label: "w" + to_string(id) } }
pub fn maybe(id: int) -> Widget? { return nil }
pub fn node() -> Node { return Node { value: 1 } }
pub fn describe(w: Widget) -> string { return type_of(w) }
pub fn many() -> list<Widget> { return [Widget { id: 1, label: "a" }] }
enum Shape { Circle(radius: float), Dot }
pub fn shape(big: bool) -> Shape {
  if big { return Shape.Circle(2.5) }
  return Shape.Dot
}
`

const servePresentation = `import { tool_registry_from } from "std/tools"
fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "a", annotations: {title: "Pretty A"}, handler: {x -> 1}},
    {name: "b", title: "Top B", annotations: {title: "Ann B", destructiveHint: true, openWorldHint: false}, handler: {x -> 1}},
    {name: "c", title: "Top C", description: "C.", icons: [{src: "https://example.com/i.png", mimeType: "image/png", sizes: ["48x48"]}], handler: {x -> 1}},
    {name: "d", description: "D.", annotations: {readOnlyHint: true, idempotentHint: true}, handler: {x -> 1}},
    {name: "e", description: "Operator only.", governance: {audiences: ["cli"]}, handler: {x -> 1}},
  ], {info: {name: "present", version: "3.1.0", description: "Presentation"}}))
}
`

type sdkCase struct{ transport, version string }

var sdkCases = []sdkCase{{"stdio", "2025-06-18"}, {"stdio", "2025-11-25"}, {"stdio", "2026-07-28"}, {"http", "2026-07-28"}}

// sdkServe connects the Go SDK client to `harn serve mcp FILE`; the
// server stops when the test ends (stdin closed, or the process killed).
func sdkServe(t *testing.T, c sdkCase, env []string, file string) *sdk.ClientSession {
	t.Helper()
	var transport sdk.Transport
	if c.transport == "stdio" {
		cmd := exec.Command(os.Args[0], "serve", "mcp", file)
		cmd.Env = append(append(os.Environ(), "HARN_TEST_MAIN=1"), env...)
		transport = &sdk.CommandTransport{Command: cmd}
	} else {
		p := startHarn(t, env, "serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", file)
		endpoint := p.waitLine(t, regexp.MustCompile(`^\[harn\] serve mcp: listening on (http://127\.0\.0\.1:\d+/mcp)$`))[1]
		transport = &sdk.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true, MaxRetries: -1}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-e2e", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: c.version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// sdkJSON is v as JSON with object keys sorted (the SDK decodes schemas
// into maps), so schemas compare by content.
func sdkJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(generic)
	return string(b)
}

// canon is a JSON text with object keys sorted.
func canon(t *testing.T, text string) string {
	t.Helper()
	var generic any
	if err := json.Unmarshal([]byte(text), &generic); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	b, _ := json.Marshal(generic)
	return string(b)
}

const widgetDefs = `"$defs":{"Widget":{"type":"object","properties":{"id":{"type":"integer"},"label":{"type":"string"}},"required":["id","label"],"additionalProperties":false}}`

func TestServeMCPGoSDKExports(t *testing.T) {
	file := writeServeScript(t, serveExports)
	for _, c := range sdkCases {
		t.Run(c.transport+"/"+c.version, func(t *testing.T) {
			released := c.version != "2026-07-28"
			// Two tools a page: the SDK follows nextCursor to the end.
			cs := sdkServe(t, c, []string{"HARN_MCP_LIST_PAGE_SIZE=2"}, file)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			first, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(first.Tools) != 2 || first.NextCursor != "Mg==" {
				t.Errorf("first page: %d tools, nextCursor %q", len(first.Tools), first.NextCursor)
			}
			tools := map[string]*sdk.Tool{}
			var names []string
			for tl, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				tools[tl.Name] = tl
				names = append(names, tl.Name)
			}
			if got := strings.Join(names, ","); got != "describe,get,many,maybe,node,shape" {
				t.Fatalf("tools %s", got)
			}
			for _, name := range names {
				if s := sdkJSON(t, tools[name].InputSchema) + sdkJSON(t, tools[name].OutputSchema); strings.Contains(s, "#/components/") {
					t.Errorf("%s refers to the catalog's components: %s", name, s)
				}
				if tools[name].Description != "Exported Harn function '"+name+"'." {
					t.Errorf("%s description %q", name, tools[name].Description)
				}
			}
			if got, want := sdkJSON(t, tools["describe"].InputSchema), canon(t, `{"type":"object","properties":{"w":{"$ref":"#/$defs/Widget"}},"required":["w"],`+widgetDefs+`}`); got != want {
				t.Errorf("describe inputSchema\n got %s\nwant %s", got, want)
			}
			// A struct output guarantees an object through $ref only: the
			// released profile adds the root type the MCP schema requires.
			wantGet := `{"$ref":"#/$defs/Widget",` + widgetDefs + `}`
			if released {
				wantGet = `{"type":"object","$ref":"#/$defs/Widget",` + widgetDefs + `}`
			}
			if got := sdkJSON(t, tools["get"].OutputSchema); got != canon(t, wantGet) {
				t.Errorf("get outputSchema\n got %s\nwant %s", got, wantGet)
			}
			wantMaybe := `{"anyOf":[{"$ref":"#/$defs/Widget"},{"type":"null"}],` + widgetDefs + `}`
			if released {
				wantMaybe = `{"type":"object","properties":{"result":{"anyOf":[{"$ref":"#/properties/result/$defs/Widget"},{"type":"null"}],` + widgetDefs + `}},"required":["result"],"additionalProperties":false}`
			}
			if got := sdkJSON(t, tools["maybe"].OutputSchema); got != canon(t, wantMaybe) {
				t.Errorf("maybe outputSchema\n got %s\nwant %s", got, wantMaybe)
			}
			// Enum variant fields are closed tuples, listed without
			// items:false next to prefixItems (docs/mcp.md "Closed
			// tuples"); a variant without fields keeps it (no items at
			// all, in every draft).
			circle := `{"type":"array","prefixItems":[{"type":"number","title":"radius"}],"minItems":1,"maxItems":1}`
			dot := `{"type":"array","items":false,"minItems":0,"maxItems":0}`
			if got := sdkJSON(t, tools["shape"].OutputSchema); !strings.Contains(got, canon(t, circle)) || !strings.Contains(got, canon(t, dot)) {
				t.Errorf("shape outputSchema %s", got)
			}
			if got := sdkJSON(t, tools["node"].OutputSchema); !strings.Contains(got, `"next":{"anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]}`) {
				t.Errorf("node outputSchema %s", got)
			}

			call := func(name string, args map[string]any) *sdk.CallToolResult {
				t.Helper()
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %+v", name, err, res)
				}
				return res
			}
			structured := func(res *sdk.CallToolResult) string {
				raw, _ := json.Marshal(res.StructuredContent)
				return string(raw)
			}
			if got := structured(call("get", map[string]any{"id": 4})); got != `{"id":4,"label":"w4"}` {
				t.Errorf("get structuredContent %s", got)
			}
			wantNil, wantMany := `null`, `[{"id":1,"label":"a"}]`
			if released {
				wantNil, wantMany = `{"result":null}`, `{"result":[{"id":1,"label":"a"}]}`
			}
			if got := structured(call("maybe", map[string]any{"id": 4})); got != wantNil {
				t.Errorf("maybe structuredContent %s, want %s", got, wantNil)
			}
			if got := structured(call("shape", map[string]any{"big": true})); got != canon(t, `{"enum":"Shape","variant":"Circle","fields":[2.5]}`) {
				t.Errorf("shape structuredContent %s", got)
			}
			if got := structured(call("many", map[string]any{})); got != wantMany {
				t.Errorf("many structuredContent %s, want %s", got, wantMany)
			}
			res := call("describe", map[string]any{"w": map[string]any{"id": 1, "label": "x"}})
			if tc, ok := res.Content[0].(*sdk.TextContent); !ok || tc.Text != "struct" || len(res.Content) != 1 {
				t.Errorf("describe content %+v", res.Content)
			}
			_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "describe", Arguments: map[string]any{"w": map[string]any{"id": 1}}})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != -32602 || werr.Message != `tool "describe" input violates its declared schema: /* failed required ("label" is required)` {
				t.Errorf("invalid struct argument: %v", err)
			}
			// ping is a released method (SEP-2575 drops it from 2026-07-28,
			// whose HTTP requests all need _meta); stdio answers it always.
			if c.transport == "stdio" {
				if err := cs.Ping(ctx, nil); err != nil {
					t.Errorf("ping: %v", err)
				}
			}
		})
	}
}

func TestServeMCPGoSDKPresentation(t *testing.T) {
	file := writeServeScript(t, servePresentation)
	for _, c := range sdkCases {
		t.Run(c.transport+"/"+c.version, func(t *testing.T) {
			cs := sdkServe(t, c, nil, file)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			init := cs.InitializeResult()
			if init.ServerInfo.Name != "present" || init.ServerInfo.Version != "3.1.0" || init.Instructions != "Presentation" {
				t.Errorf("server identity %+v, instructions %q", init.ServerInfo, init.Instructions)
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if list.NextCursor != "" || len(list.Tools) != 4 {
				t.Fatalf("tools %+v", list.Tools)
			}
			type view struct {
				Name, Title, AnnTitle  string
				Destructive, OpenWorld *bool
				ReadOnly, Idempotent   bool
			}
			var got []view
			for _, tl := range list.Tools {
				v := view{Name: tl.Name, Title: tl.Title}
				if tl.Annotations == nil {
					t.Fatalf("%s has no annotations", tl.Name)
				}
				v.AnnTitle = tl.Annotations.Title
				v.Destructive, v.OpenWorld = tl.Annotations.DestructiveHint, tl.Annotations.OpenWorldHint
				v.ReadOnly, v.Idempotent = tl.Annotations.ReadOnlyHint, tl.Annotations.IdempotentHint
				got = append(got, v)
			}
			yes, no := true, false
			want := []view{
				{Name: "a", Title: "Pretty A", AnnTitle: "Pretty A"},
				{Name: "b", Title: "Top B", AnnTitle: "Ann B", Destructive: &yes, OpenWorld: &no},
				{Name: "c", Title: "Top C", AnnTitle: "Top C"},
				{Name: "d", Title: "d", AnnTitle: "d", ReadOnly: true, Idempotent: true},
			}
			if sdkJSON(t, got) != sdkJSON(t, want) {
				t.Errorf("presentation\n got %s\nwant %s", sdkJSON(t, got), sdkJSON(t, want))
			}
			if ic := list.Tools[2].Icons; len(ic) != 1 || ic[0].Source != "https://example.com/i.png" || ic[0].MIMEType != "image/png" || sdkJSON(t, ic[0].Sizes) != `["48x48"]` {
				t.Errorf("icons %+v", ic)
			}
			// A tool without an output schema answers content only.
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "a", Arguments: map[string]any{}})
			if err != nil || res.IsError || res.StructuredContent != nil || len(res.Content) != 1 {
				t.Fatalf("a: %v %+v", err, res)
			}
			_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "e", Arguments: map[string]any{}})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != -32602 || werr.Message != "Unknown tool: e" {
				t.Errorf("operator-only tool: %v", err)
			}
		})
	}
}

// A call the Go SDK client gives up on (its context ends: a
// notifications/cancelled on stdio, a closed POST over HTTP) interrupts
// the handler, so the single script VM serves the next call at once
// (docs/spec/mcp-projection.md §13; docs/mcp.md "Cancellation over HTTP").
func TestServeMCPGoSDKCancel(t *testing.T) {
	for _, c := range []sdkCase{{"stdio", "2025-11-25"}, {"stdio", "2026-07-28"}, {"http", "2026-07-28"}} {
		t.Run(c.transport+"/"+c.version, func(t *testing.T) {
			cs := sdkServe(t, c, nil, "../../adapter/mcp/testdata/kitchen.harn")
			short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			_, err := cs.CallTool(short, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 60000}})
			cancel()
			if err == nil {
				t.Fatal("a cancelled call succeeded")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 1}})
			if err != nil || res.IsError {
				t.Fatalf("next call: %v %+v", err, res)
			}
			if tc, ok := res.Content[0].(*sdk.TextContent); !ok || tc.Text != "{done: 1}" {
				t.Errorf("next call content %+v", res.Content)
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("next call waited %s for the cancelled handler", d)
			}
		})
	}
}
