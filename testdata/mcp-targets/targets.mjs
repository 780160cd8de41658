// The MCP servers the real-client tests drive, read from
// testdata/mcp-targets.json, so every harness (TypeScript SDK, conformance,
// Inspector) starts them the same way.
//
//   import { targets, stdioCommand, startHTTP } from "../mcp-targets/targets.mjs";
//
// MCP_TARGETS (comma list, default: every target) narrows the set;
// HARN_BIN names the harn binary (default ../bin/harn from testdata/).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const testdataDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const table = JSON.parse(readFileSync(path.join(testdataDir, "mcp-targets.json"), "utf8"));

export function harnBin() {
  return path.resolve(process.env.HARN_BIN ?? path.join(testdataDir, "..", "bin", "harn"));
}

function fill(args, vars) {
  return args.map((a) => a.replace(/\{(\w+)\}/g, (_, k) => vars[k]));
}

// targets lists the selected targets: {name, title, available, reason}.
// A target whose probe command fails is unavailable (not built yet).
export function targets() {
  const wanted = (process.env.MCP_TARGETS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return Object.entries(table)
    .filter(([name]) => !name.startsWith("_") && (wanted.length === 0 || wanted.includes(name)))
    .map(([name, t]) => {
      const probe = spawnSync(harnBin(), t.probe, { cwd: testdataDir, encoding: "utf8", timeout: 60000 });
      const available = probe.status === 0;
      return { name, title: t.title, available, reason: available ? "" : `\`harn ${t.probe.join(" ")}\` exited ${probe.status}` };
    });
}

// stateDir is a fresh state directory removed at exit.
function stateDir() {
  const dir = mkdtempSync(path.join(tmpdir(), "harn-mcp-state-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// stdioCommand is {command, args, cwd} for a stdio client transport.
export function stdioCommand(name) {
  return { command: harnBin(), args: fill(table[name].stdio, { state: stateDir() }), cwd: testdataDir };
}

// startHTTP starts the target's HTTP server on a free port and resolves
// to {url, stop}; stderr is collected for failure messages.
export function startHTTP(name) {
  const t = table[name];
  return startHTTPServer(name, fill(t.http, { port: "0", state: stateDir() }), t.ready);
}

// startHTTPServer runs harn with args (relative to testdata/) and
// resolves as startHTTP does once stderr matches ready, whose first
// group is the endpoint URL.
export function startHTTPServer(name, args, readyPattern) {
  const child = spawn(harnBin(), args, { cwd: testdataDir, stdio: ["ignore", "ignore", "pipe"] });
  process.on("exit", () => child.kill("SIGKILL"));
  const ready = new RegExp(readyPattern);
  let stderr = "";
  let announced = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name}: no HTTP endpoint announced within 60s; stderr:\n${stderr}`)), 60000);
    function fail(err) {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(err);
    }
    child.on("exit", (code) => fail(new Error(`${name}: server exited (${code}) before listening; stderr:\n${stderr}`)));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const m = announced ? null : stderr.match(ready);
      if (m) {
        announced = true;
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({
          url: m[1],
          stderr: () => stderr,
          // stop sends SIGTERM, and SIGKILL if the server has not exited
          // 20 seconds later.
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              const force = setTimeout(() => child.kill("SIGKILL"), 20000);
              child.on("exit", () => {
                clearTimeout(force);
                done();
              });
              child.kill("SIGTERM");
            }),
        });
      }
    });
  });
}
