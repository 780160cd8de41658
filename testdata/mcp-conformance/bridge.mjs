// A Streamable HTTP front for `harn serve mcp`: the conformance suite tests
// servers over HTTP only, so each HTTP session gets its own
// `harn serve mcp` child speaking newline-delimited JSON-RPC on stdio. The
// official TypeScript SDK's server transport handles sessions, SSE streams
// and resumption; the bridge only moves messages between the two.
//
//   node bridge.mjs HARN_BIN SCRIPT PORT     (PORT 0: any free port, announced on stderr)
import http from "node:http";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import readline from "node:readline";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";

const [harn, script, port] = process.argv.slice(2);
// Filled in once listening: PORT may be 0 (any free port).
let allowedHosts = new Set();
const sessions = new Map();

function startSession() {
  const child = spawn(harn, ["serve", "mcp", "--surface", "script", script], { stdio: ["pipe", "pipe", "inherit"] });
  // Requests forwarded to harn and not yet answered, oldest first: a
  // server-initiated message belongs to the handler harn is running.
  const outstanding = [];
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore: new InMemoryEventStore(),
    retryInterval: 1000,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  transport.onmessage = (msg) => {
    if (msg.id !== undefined && msg.method) outstanding.push(msg);
    child.stdin.write(JSON.stringify(msg) + "\n");
  };
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    child.stdin.end();
  };
  const lines = readline.createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.method === undefined) {
      const i = outstanding.findIndex((r) => r.id === msg.id);
      if (i >= 0) outstanding.splice(i, 1);
      transport.send(msg).catch(() => {});
      return;
    }
    let related;
    const token = msg.params?.progressToken;
    if (token !== undefined) related = outstanding.find((r) => r.params?._meta?.progressToken === token);
    related ??= outstanding.find((r) => ["tools/call", "prompts/get", "resources/read"].includes(r.method));
    transport.send(msg, related ? { relatedRequestId: related.id } : undefined).catch(() => {});
  });
  child.on("exit", () => transport.close().catch(() => {}));
  transport.start();
  return transport;
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch {
        resolve(undefined);
      }
    });
  });
}

function reject(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }));
}

const server = http.createServer(async (req, res) => {
  // DNS-rebinding protection: only local Host and Origin headers.
  const host = req.headers.host;
  if (!allowedHosts.has(host)) return reject(res, 403, `Invalid Host header: ${host}`);
  const origin = req.headers.origin;
  if (origin && !allowedHosts.has(origin.replace(/^https?:\/\//, ""))) return reject(res, 403, `Invalid Origin header: ${origin}`);
  if (!req.url.startsWith("/mcp")) return reject(res, 404, "Not found");
  const body = req.method === "POST" ? await readBody(req) : undefined;
  const id = req.headers["mcp-session-id"];
  let transport = id ? sessions.get(id) : undefined;
  if (!transport) {
    if (id) return reject(res, 404, "Session not found");
    const isInit = (m) => m && m.method === "initialize";
    if (req.method !== "POST" || !(isInit(body) || (Array.isArray(body) && body.some(isInit)))) {
      return reject(res, 400, "Bad Request: no valid session");
    }
    transport = startSession();
  }
  await transport.handleRequest(req, res, body);
});

server.listen(Number(port), "127.0.0.1", () => {
  const actual = server.address().port;
  allowedHosts = new Set([`127.0.0.1:${actual}`, `localhost:${actual}`, `[::1]:${actual}`]);
  console.error(`bridge: listening on 127.0.0.1:${actual}`);
});
process.on("SIGTERM", () => {
  for (const t of sessions.values()) t.close().catch(() => {});
  server.close();
  process.exit(0);
});
