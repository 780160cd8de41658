// The official TypeScript SDK client against `harn serve mcp` over stdio.
// HARN_BIN names the harn binary.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const harn = process.env.HARN_BIN ?? path.join(here, "../../bin/harn");
let client;

before(async () => {
  client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: harn, args: ["serve", "mcp", path.join(here, "server.harn")], stderr: "ignore" }));
});

after(async () => {
  await client.close();
});

test("initialize negotiates and identifies the server", () => {
  assert.deepEqual(client.getServerVersion(), { name: "widgets", version: "1.0.0" });
  assert.equal(client.getInstructions(), "Widget integration");
  assert.ok(client.getServerCapabilities().tools);
});

test("tools/list exposes only MCP-audience tools with standalone schemas", async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["lookup", "count"]);
  const lookup = tools[0];
  assert.deepEqual(lookup.outputSchema, {
    type: "object",
    $ref: "#/$defs/Widget",
    $defs: { Widget: { additionalProperties: false, properties: { id: { type: "integer" }, label: { type: "string" } }, required: ["id", "label"], type: "object" } },
  });
  assert.equal(lookup.annotations.readOnlyHint, true);
  assert.deepEqual(lookup._meta["com.harnlang/toolContract"].errorSchema.required, ["variant"]);
  assert.deepEqual(tools[1].outputSchema, { type: "object", properties: { result: { type: "integer" } }, required: ["result"], additionalProperties: false });
});

test("a valid call returns structured content the SDK validates", async () => {
  const res = await client.callTool({ name: "lookup", arguments: { id: 42 } });
  assert.equal(res.isError, false);
  assert.deepEqual(res.structuredContent, { id: 42, label: "widget 42" });
  const count = await client.callTool({ name: "count", arguments: {} });
  assert.deepEqual(count.structuredContent, { result: 3 });
});

test("invalid arguments are an invalid-params error", async () => {
  await assert.rejects(client.callTool({ name: "lookup", arguments: { id: 0 } }), (e) => {
    assert.ok(e instanceof McpError);
    assert.equal(e.code, -32602);
    assert.match(e.message, /input violates its declared schema/);
    return true;
  });
});

test("a tool outside the MCP audience cannot be called", async () => {
  await assert.rejects(client.callTool({ name: "operator_only", arguments: {} }), (e) => e.code === -32602 && /Unknown tool: operator_only/.test(e.message));
});

test("a declared failure is an isError result with typed data", async () => {
  const res = await client.callTool({ name: "lookup", arguments: { id: 9 } });
  assert.equal(res.isError, true);
  assert.equal(res.content[0].text, 'tool "lookup" failed: declared application error');
  assert.deepEqual(res._meta["com.harnlang/toolContract"].applicationError, { tool: "lookup", data: { variant: "NotFound" } });
  assert.equal(res.structuredContent, undefined);
});

test("an undeclared throw never renders the thrown value", async () => {
  const res = await client.callTool({ name: "lookup", arguments: { id: 13 } });
  assert.equal(res.isError, true);
  assert.doesNotMatch(JSON.stringify(res), /secret/);
  assert.equal(res._meta?.["com.harnlang/toolContract"]?.applicationError, undefined);
});

test("ping answers", async () => {
  assert.deepEqual(await client.ping(), {});
});

// Boolean schemas (docs/mcp.md): the SDK validates every tool's
// inputSchema/outputSchema root and properties as objects, and rejects
// the whole tools/list otherwise; harn spells true as {} and false as
// {"not":{}} on the wire, and validation still follows the booleans.
test("a registry with boolean schemas lists and calls through the SDK", async () => {
  const c = new Client({ name: "ts-sdk-test", version: "1.0.0" });
  await c.connect(new StdioClientTransport({ command: harn, args: ["serve", "mcp", path.join(here, "booleans.harn")], stderr: "ignore" }));
  try {
    const { tools } = await c.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["anyarg", "anything", "nested", "titled"]);
    assert.deepEqual(tools[0].inputSchema.properties, { never: { not: {} }, payload: {} });
    assert.deepEqual(tools[1].outputSchema.properties, { result: {} });
    assert.deepEqual(tools[2].outputSchema.properties, { deep: { properties: { x: { not: {} } }, type: "object" }, r: {} });
    assert.equal(tools[2].outputSchema.additionalProperties, false);
    assert.equal(tools[3].title, "Entry Title");
    assert.deepEqual(tools[3].annotations, { title: "Annot Title", readOnlyHint: true });
    const ok = await c.callTool({ name: "anyarg", arguments: { payload: [1, { a: null }] } });
    assert.equal(ok.isError, false);
    await assert.rejects(c.callTool({ name: "anyarg", arguments: { payload: 1, never: 1 } }), (e) => e.code === -32602);
    const any = await c.callTool({ name: "anything", arguments: {} });
    assert.deepEqual(any.structuredContent, { result: [1, "two"] });
  } finally {
    await c.close();
  }
});

// The exports surface (docs/spec/mcp-projection.md §4.1, §5; docs/mcp.md
// "Released outputSchema"): struct, enum and recursive types travel as
// $defs, outputs that guarantee an object only through $ref/oneOf get a
// root type "object" (the SDK rejects tools/list otherwise), and the SDK
// validates every structuredContent against its outputSchema.
test("public functions list and call through the SDK", async () => {
  const c = new Client({ name: "ts-sdk-test", version: "1.0.0" });
  await c.connect(new StdioClientTransport({ command: harn, args: ["serve", "mcp", "--surface", "exports", path.join(here, "exports.harn")], stderr: "ignore" }));
  try {
    const { tools } = await c.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(tools.map((t) => t.name), ["chain", "describe", "get", "many", "maybe", "shape"]);
    assert.ok(!JSON.stringify(tools).includes("#/components/"));
    assert.equal(byName.get.outputSchema.type, "object");
    assert.equal(byName.get.outputSchema.$ref, "#/$defs/Widget");
    assert.equal(byName.shape.outputSchema.type, "object");
    assert.equal(byName.shape.outputSchema.$defs.Shape.oneOf.length, 2);
    assert.deepEqual(byName.chain.outputSchema.$defs.Node.properties.next, { anyOf: [{ $ref: "#/$defs/Node" }, { type: "null" }] });
    assert.deepEqual(byName.maybe.outputSchema.properties.result.anyOf, [{ $ref: "#/properties/result/$defs/Widget" }, { type: "null" }]);
    assert.deepEqual(byName.describe.inputSchema.properties.w, { $ref: "#/$defs/Widget" });

    assert.deepEqual((await c.callTool({ name: "get", arguments: { id: 4 } })).structuredContent, { id: 4, label: "w4" });
    assert.deepEqual((await c.callTool({ name: "maybe", arguments: { id: 4 } })).structuredContent, { result: null });
    assert.deepEqual((await c.callTool({ name: "chain", arguments: {} })).structuredContent, { value: 1, next: { value: 2 } });
    assert.deepEqual((await c.callTool({ name: "shape", arguments: { big: true } })).structuredContent, { enum: "Shape", variant: "Circle", fields: [2.5] });
    assert.deepEqual((await c.callTool({ name: "shape", arguments: { big: false } })).structuredContent, { enum: "Shape", variant: "Dot", fields: [] });
    assert.deepEqual((await c.callTool({ name: "many", arguments: {} })).structuredContent, { result: [{ id: 1, label: "a" }] });
    const d = await c.callTool({ name: "describe", arguments: { w: { id: 1, label: "x" } } });
    assert.deepEqual(d.content, [{ type: "text", text: "struct" }]);
    await assert.rejects(c.callTool({ name: "describe", arguments: { w: { id: 1 } } }), (e) => {
      assert.equal(e.code, -32602);
      assert.match(e.message, /tool "describe" input violates its declared schema: \/\* failed required \("label" is required\)/);
      return true;
    });
  } finally {
    await c.close();
  }
});
