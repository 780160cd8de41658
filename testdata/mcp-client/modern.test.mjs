// The official TypeScript SDK v2 client (@modelcontextprotocol/client,
// the 2026-07-28 line) against every server of ../mcp-targets.json, over
// stdio (version negotiation 'auto': a server/discover probe, then
// per-request _meta) and over session-free Streamable HTTP (pinned to
// 2026-07-28). Targets that are not built yet are skipped.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import path from "node:path";
import { targets, stdioCommand, startHTTP, startHTTPServer, harnBin, testdataDir } from "../mcp-targets/targets.mjs";

// What each target serves, for the checks that name tools.
const expect = {
  serve: {
    name: "harn-conformance",
    tool: { name: "test_simple_text", arguments: {}, text: "This is a simple text response for testing." },
    progressTool: "test_tool_with_progress",
    elicitTool: { name: "test_elicitation", arguments: { message: "Who?" } },
    prompt: { name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } },
    unknownToolError: true, // -32602 Unknown tool: <name> (docs/spec/mcp-projection.md §6)
  },
  orchestrator: {
    name: "harn-orchestrator",
    tool: { name: "harn.trigger.list", arguments: {} },
    progressTool: "harn.trigger.fire",
    progressArguments: { trigger_id: "manual-ok", payload: {} },
    prompt: { name: "review", arguments: { code: "x := 1", language: "go" } },
    unknownToolError: false, // an isError result (docs/spec/orchestrator.md §5)
  },
};

// tapWire records, in order, every message a connected client's transport
// sends and delivers: {dir: "out" | "in", msg}. It wraps the client's own
// callbacks (the transport looks onmessage and send up at each message),
// so the log sees the wire order, before the SDK dispatches anything.
function tapWire(transport) {
  const log = [];
  const deliver = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    log.push({ dir: "in", msg });
    deliver(msg, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (msg, options) => {
    log.push({ dir: "out", msg });
    return send(msg, options);
  };
  return log;
}

function newClient() {
  const client = new Client({ name: "ts-sdk-v2-test", version: "2.4.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { username: "ada", email: "ada@example.com" } }));
  return client;
}

for (const t of targets()) {
  const want = expect[t.name];
  for (const transport of ["stdio", "http"]) {
    describe(`${t.name} over ${transport}`, { skip: t.available ? false : `${t.title} is not built yet (${t.reason})` }, () => {
      let client, server, wire;
      before(async () => {
        client = newClient();
        let tr;
        if (transport === "stdio") {
          const cmd = stdioCommand(t.name);
          client.setVersionNegotiation({ mode: "auto" });
          tr = new StdioClientTransport({ ...cmd, stderr: "ignore" });
        } else {
          server = await startHTTP(t.name);
          client.setVersionNegotiation({ mode: { pin: "2026-07-28" } });
          tr = new StreamableHTTPClientTransport(new URL(server.url));
        }
        await client.connect(tr);
        wire = tapWire(tr);
      });
      after(async () => {
        await client?.close();
        await server?.stop();
      });

      test("negotiates the 2026-07-28 era through server/discover", () => {
        assert.equal(client.getProtocolEra(), "modern");
        assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
        assert.equal(client.getServerVersion().name, want.name);
        assert.ok(client.getServerCapabilities().tools);
      });

      test("lists tools, resources, templates and prompts", async () => {
        const { tools } = await client.listTools();
        assert.ok(tools.some((x) => x.name === want.tool.name), tools.map((x) => x.name).join(","));
        assert.equal(new Set(tools.map((x) => x.name)).size, tools.length);
        for (const x of tools) assert.equal(x.inputSchema.type, "object", x.name);
        await client.listResources();
        await client.listResourceTemplates();
        const { prompts } = await client.listPrompts();
        assert.ok(prompts.some((p) => p.name === want.prompt.name), prompts.map((p) => p.name).join(","));
      });

      test("calls a tool", async () => {
        const res = await client.callTool({ name: want.tool.name, arguments: want.tool.arguments });
        assert.equal(res.isError, false, JSON.stringify(res));
        if (want.tool.text) assert.equal(res.content[0].text, want.tool.text);
      });

      // The progress is read off the wire, not from onprogress alone: the
      // SDK runs notification handlers on a microtask but answers a
      // response at once, dropping the request's progress handler, so a
      // notification that arrives in the same read as the response (every
      // one of them when the client is slow to read, as under load) is
      // reported to onerror as "unknown token" and never reaches
      // onprogress. What onprogress saw is checked to be a prefix of it.
      test("streams progress for a request with a progress token", async () => {
        const seen = [];
        const from = wire.length;
        const res = await client.callTool(
          { name: want.progressTool, arguments: want.progressArguments ?? {} },
          { onprogress: (p) => seen.push(p.progress) },
        );
        assert.equal(res.isError, false, JSON.stringify(res));
        const log = wire.slice(from);
        const req = log.find((x) => x.dir === "out" && x.msg.method === "tools/call");
        const token = req.msg.params._meta.progressToken;
        assert.notEqual(token, undefined, JSON.stringify(req.msg));
        const answer = log.findIndex((x) => x.dir === "in" && x.msg.id === req.msg.id && x.msg.method === undefined);
        assert.ok(answer >= 0, "no response on the wire");
        const progressOf = (xs) =>
          xs.filter((x) => x.dir === "in" && x.msg.method === "notifications/progress" && x.msg.params.progressToken === token).map((x) => x.msg.params.progress);
        const sent = progressOf(log.slice(0, answer));
        assert.ok(sent.length >= 1, "no progress notifications before the response");
        for (let i = 1; i < sent.length; i++) assert.ok(sent[i] > sent[i - 1], `progress not increasing: ${sent}`);
        assert.deepEqual(progressOf(log.slice(answer)), [], "progress after the response");
        assert.deepEqual(seen, sent.slice(0, seen.length), "onprogress saw what was not sent");
      });

      test("gets a prompt", async () => {
        const res = await client.getPrompt(want.prompt);
        assert.ok(res.messages.length >= 1);
      });

      if (want.elicitTool) {
        test("answers an input_required elicitation and retries", async () => {
          const res = await client.callTool(want.elicitTool);
          assert.equal(res.isError, false, JSON.stringify(res));
          assert.match(res.content[0].text, /action=accept/);
          assert.match(res.content[0].text, /ada@example.com/);
        });
      }

      test("an unknown tool is refused", async () => {
        const call = client.callTool({ name: "no_such_tool", arguments: {} });
        if (!want.unknownToolError) {
          const res = await call;
          assert.equal(res.isError, true);
          assert.equal(res.content[0].text, "unknown tool 'no_such_tool'");
          return;
        }
        await assert.rejects(call, (e) => {
          assert.equal(e.code, -32602);
          assert.match(e.message, /Unknown tool: no_such_tool/);
          return true;
        });
      });
    });
  }
}

// Boolean schemas (docs/mcp.md): the 2026-07-28 profile lists an
// unwrapped output schema, which the client requires to be an object;
// harn spells true as {} and false as {"not":{}} on the wire.
describe("serve with boolean schemas over stdio", () => {
  let client;
  before(async () => {
    client = newClient();
    client.setVersionNegotiation({ mode: "auto" });
    await client.connect(new StdioClientTransport({ command: harnBin(), args: ["serve", "mcp", path.join(testdataDir, "mcp-client", "booleans.harn")], stderr: "ignore" }));
  });
  after(async () => {
    await client?.close();
  });

  test("lists every tool with object schemas", async () => {
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name), ["anyarg", "anything", "nested", "titled"]);
    assert.deepEqual(tools[0].inputSchema.properties, { never: { not: {} }, payload: {} });
    assert.deepEqual(tools[1].outputSchema, {});
    assert.deepEqual(tools[2].outputSchema.properties.r, {});
    assert.deepEqual(tools[3].annotations, { title: "Annot Title", readOnlyHint: true });
  });

  test("calls keep the booleans' meaning", async () => {
    const res = await client.callTool({ name: "anything", arguments: {} });
    assert.equal(res.isError, false, JSON.stringify(res));
    assert.deepEqual(res.structuredContent, [1, "two"]);
    await assert.rejects(client.callTool({ name: "anyarg", arguments: {} }), (e) => e.code === -32602);
  });
});

// Over HTTP the client puts the prompt name or resource URI in the
// Mcp-Name header, Base64-wrapped when it is not plain ASCII
// (docs/mcp.md, "--transport http").
describe("serve with non-ASCII names over HTTP", () => {
  let client, server;
  before(async () => {
    server = await startHTTPServer("unicode", ["serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", path.join("mcp-client", "unicode.harn")], "listening on (http://\\S+)");
    client = newClient();
    client.setVersionNegotiation({ mode: { pin: "2026-07-28" } });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });

  test("gets a prompt named résumé", async () => {
    const res = await client.getPrompt({ name: "résumé" });
    assert.equal(res.messages[0].content.text, "write it");
  });

  test("reads test://café", async () => {
    const res = await client.readResource({ uri: "test://café" });
    assert.equal(res.contents[0].text, "coffee");
  });
});
