// Runs the official MCP conformance suite in its 2026-07-28 mode over
// session-free Streamable HTTP, straight against each server of
// testdata/mcp-targets.json (no bridge): every server scenario of the suite
// (--suite all), with the known deviations of expected/<target>.yml.
// A target whose command is not built yet is skipped with a message.
//
//   node http.mjs        (env HARN_BIN, MCP_TARGETS)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startHTTP, targets } from "../mcp-targets/targets.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const suite = path.join(here, "node_modules", "conformance-2026", "dist", "index.js");
let failed = false;
for (const t of targets()) {
  if (!t.available) {
    console.log(`mcp-conformance 2026-07-28 (${t.name}): skipped, ${t.title} is not built yet (${t.reason})`);
    continue;
  }
  const server = await startHTTP(t.name);
  const out = mkdtempSync(path.join(tmpdir(), "harn-conformance-"));
  const baseline = path.join(here, "expected", `${t.name}.yml`);
  const args = [suite, "server", "--url", server.url, "--spec-version", "2026-07-28", "--suite", "all", "-o", out];
  if (existsSync(baseline)) args.push("--expected-failures", baseline);
  const run = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 15 * 60 * 1000, env: { ...process.env, NO_COLOR: "1" } });
  await server.stop();
  const text = (run.stdout ?? "") + (run.stderr ?? "");
  const passed = (text.match(/^✓ /gm) ?? []).length;
  const known = (text.match(/^✗ /gm) ?? []).length;
  rmSync(out, { recursive: true, force: true });
  if (run.status !== 0) {
    failed = true;
    console.log(`mcp-conformance 2026-07-28 (${t.name}): FAILED against ${server.url} (full output below)\n${text}\nserver stderr:\n${server.stderr()}`);
    continue;
  }
  const entries = existsSync(baseline) ? readFileSync(baseline, "utf8").match(/^\s+- /gm)?.length ?? 0 : 0;
  console.log(`mcp-conformance 2026-07-28 (${t.name}): ${passed} scenarios pass; ${known} scenarios with known deviations (${entries} entries in expected/${t.name}.yml)`);
}
process.exit(failed ? 1 : 0);
