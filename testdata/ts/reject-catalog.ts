// The declarations are closed: each line below must be a type error.
import type { ToolCatalog, ToolCatalogEntry } from "../../spec/protocol-artifacts/harn-tools";

// @ts-expect-error version 1 catalogs are rejected
export const v1: ToolCatalog = { schema_version: "harn-tools/1.0", tools: [] };

// @ts-expect-error unknown top-level keys are rejected
export const extra: ToolCatalog = { schema_version: "harn-tools/2.0", tools: [], extra: 1 };

export const badAudience: ToolCatalogEntry = {
  name: "x",
  inputSchema: { type: "object" },
  // @ts-expect-error audiences are a closed set
  governance: { audiences: ["desktop"] },
  cli: { command: ["x"], aliases: [], hidden: false, arguments: {} },
  deferLoading: false,
};
