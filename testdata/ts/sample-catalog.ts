// A catalog as `harn tool schema` prints it (the seed's widget registry,
// docs/spec/registry.md §8.3) must satisfy the generated declarations.
import type { ToolCatalog, ToolCatalogEntry } from "../../spec/protocol-artifacts/harn-tools";
import { HARN_TOOLS_SCHEMA_VERSION } from "../../spec/protocol-artifacts/harn-tools";

export const widgets: ToolCatalog = {
  schema_version: "harn-tools/2.0",
  info: { name: "widgets", version: "1.0.0", description: "Widget integration" },
  cli: { commands: [{ command: ["widgets"], title: "Manage widgets", aliases: ["w"], hidden: false }] },
  tools: [
    {
      name: "lookup_widget",
      description: "Fetch one widget by numeric id.",
      inputSchema: {
        properties: { verbose: { type: "boolean" }, widget_id: { type: "integer" } },
        required: ["widget_id"],
        type: "object",
      },
      outputSchema: { $ref: "#/components/schemas/Widget" },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      governance: { audiences: ["cli", "mcp", "catalog", "dashboard", "agent"] },
      cli: {
        command: ["widgets", "get"],
        aliases: ["show"],
        hidden: false,
        arguments: {
          verbose: { short: "v", aliases: [], boolean_style: "value", repeatable: false, hidden: false, completions: [], help_group: "Display" },
          widget_id: { aliases: [], position: 0, value_name: "WIDGET_ID", help: "Numeric widget id", boolean_style: "value", repeatable: false, hidden: false, completions: [] },
        },
      },
      deferLoading: false,
      source: { kind: "openapi", id: "getWidget", binding: { method: "GET", path: "/widgets/{widget_id}" } },
      policy: { kind: "fetch", side_effect_level: "network" },
    },
  ],
  components: {
    schemas: {
      Widget: {
        additionalProperties: false,
        properties: { id: { type: "integer" }, label: { type: "string" } },
        required: ["id", "label"],
        type: "object",
      },
    },
  },
};

const version: typeof HARN_TOOLS_SCHEMA_VERSION = widgets.schema_version;
const first: ToolCatalogEntry | undefined = widgets.tools[0];
export const summary = `${version}: ${first?.name ?? "none"}`;
