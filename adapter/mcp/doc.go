// Package mcp is the MCP projection of a prepared tool catalog: the
// server behind `harn serve mcp` (docs/spec/mcp-projection.md).
//
// The model has two parts.
//
// A Surface is what is served: a prepared catalog (tool.Prepared, whose
// MCP documents, validators and outcome classification are package
// tool's), a Runtime that invokes its entries, and the resources,
// resource templates, prompts and identity published next to it. The
// script surface (LoadScript) runs a .harn file through tool/load; the
// exports surface (LoadExports) reads a module's public functions
// through tool/exports. Both run handlers on their program's VM
// (VMRuntime).
//
// A Server serves a surface through the protocol layer (package
// mcp/protocol), which owns JSON-RPC, both lifecycles, tasks,
// pagination, cancellation and the HTTP transport. The server is its
// Provider: tools/list documents per profile, tools/call through the
// Runtime with the outcome shaped into a CallToolResult (the
// structured-output rule of the profile), resources, templates,
// prompts, completion candidates, and the capabilities of the surface.
// Handler calls run on the protocol layer's executor, one at a time
// across all connections (a script's handlers share one VM); the
// in-handler builtins reach the served request through a
// stdlib.MCPHandler wrapping the protocol.Call.
//
// Schema bundling, validators and the classification of handler
// outcomes are package tool's; the in-handler builtins
// (mcp_report_progress, mcp_elicit, …) are stdlib's.
package mcp
