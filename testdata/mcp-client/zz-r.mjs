import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as C1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as S1 } from "@modelcontextprotocol/sdk/client/stdio.js";
for (const [name, mk, Tr] of [["v2", () => { const c = new Client({ name: "t", version: "1" }, { capabilities: {} }); c.setVersionNegotiation({ mode: "auto" }); return c; }, StdioClientTransport], ["v1", () => new C1({ name: "t", version: "1" }, { capabilities: {} }), S1]]) {
  const client = mk();
  await client.connect(new Tr({ command: "/work/wt/mcp9/bin/harn", args: ["serve", "mcp", "é/m 1.harn"], cwd: "/tmp/mcp9/my proj", stderr: "ignore" }));
  try {
    const { resources } = await client.listResources();
    console.log(name, resources.map((r) => r.uri));
    for (const r of resources) { const x = await client.readResource({ uri: r.uri }); console.log(name, "read ok", x.contents[0].uri); }
  } catch (e) { console.log(name, "ERR", e.message.slice(0, 300)); }
  await client.close();
}
