// The MCP Inspector's CLI (@modelcontextprotocol/inspector 2.x, built on
// the TypeScript SDK v2) in its modern protocol era (2026-07-28:
// server/discover, per-request _meta, session-free HTTP) against every
// server of ../mcp-targets.json, over stdio and HTTP. Targets that are not
// built yet are skipped. Run with the Node 22 this package installs.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { targets, stdioCommand, startHTTP } from "../mcp-targets/targets.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const inspector = path.join(here, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
// The Inspector keeps a catalog and client config under $HOME.
const home = mkdtempSync(path.join(tmpdir(), "harn-inspector-home-"));
process.on("exit", () => rmSync(home, { recursive: true, force: true }));

const expect = {
  serve: { tool: "test_simple_text", args: [], text: "This is a simple text response for testing.", prompt: ["test_prompt_with_arguments", "arg1=a", "arg2=b"], resource: "test://static-text" },
  orchestrator: { tool: "harn.trigger.list", args: [], prompt: ["review", "code=x", "language=go"], resource: "harn://manifest" },
};

// inspect runs one Inspector CLI invocation and resolves to its JSON result.
function inspect(server, ...args) {
  const argv = [inspector, "--cli", "--protocol-era", "modern", "--format", "json", "--quiet", "--connect-timeout", "60000"];
  // An HTTP server goes in an option (variadic options such as
  // --prompt-args would swallow a positional URL); a stdio command is
  // the trailing positional target.
  if (server.url) argv.push("--transport", "http", "--server-url", server.url, ...args);
  else argv.push(...args, "--cwd", server.cwd, "--", server.command, ...server.args);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { env: { ...process.env, HOME: home }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120000);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`inspector ${args.join(" ")} exited ${code}\nstdout: ${out}\nstderr: ${err}`));
      try {
        resolve(JSON.parse(out).result);
      } catch (e) {
        reject(new Error(`inspector ${args.join(" ")}: stdout is not JSON: ${out}\nstderr: ${err}`));
      }
    });
  });
}

for (const t of targets()) {
  const want = expect[t.name];
  for (const transport of ["stdio", "http"]) {
    describe(`${t.name} over ${transport}`, { skip: t.available ? false : `${t.title} is not built yet (${t.reason})` }, () => {
      let server, http;
      before(async () => {
        if (transport === "http") {
          http = await startHTTP(t.name);
          server = { url: http.url };
        } else {
          server = stdioCommand(t.name);
        }
      });
      after(async () => {
        await http?.stop();
      });

      test("tools/list in the modern era", async () => {
        const res = await inspect(server, "--method", "tools/list");
        assert.ok(res.tools.some((x) => x.name === want.tool), JSON.stringify(res.tools.map((x) => x.name)));
      });

      test("tools/call answers with a 2026-07-28 result envelope", async () => {
        const res = await inspect(server, "--method", "tools/call", "--tool-name", want.tool, ...want.args);
        assert.equal(res.resultType, "complete");
        assert.equal(res.isError, false, JSON.stringify(res));
        if (want.text) assert.equal(res.content[0].text, want.text);
      });

      test("resources and prompts", async () => {
        const list = await inspect(server, "--method", "resources/list");
        assert.ok(Array.isArray(list.resources));
        const read = await inspect(server, "--method", "resources/read", "--uri", want.resource);
        assert.ok(read.contents.length >= 1, JSON.stringify(read));
        const prompts = await inspect(server, "--method", "prompts/list");
        assert.ok(prompts.prompts.some((p) => p.name === want.prompt[0]));
        const prompt = await inspect(server, "--method", "prompts/get", "--prompt-name", want.prompt[0], "--prompt-args", ...want.prompt.slice(1));
        assert.ok(prompt.messages.length >= 1);
      });
    });
  }
}
