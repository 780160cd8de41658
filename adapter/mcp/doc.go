// Package mcp is the MCP projection of a prepared tool catalog: the
// server behind `harn serve mcp` (mcp-projection.md).
//
// The model has three parts.
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
// A Server speaks JSON-RPC 2.0 for one connection. Every request is
// answered in one of two profiles: the released profile of clients that
// sent `initialize` (2024-11-05 … 2025-11-25), or the 2026-07-28
// profile of requests carrying per-request `_meta` (and every
// `server/discover`), whose results are enveloped with resultType,
// ttlMs and cacheScope. The profile decides the tools/list documents,
// the structured-output rule and whether tasks and multi-round-trip
// input exist.
//
// Requests are read by one goroutine, which answers everything that
// does not run Harn code (lifecycle, lists, tasks, errors, cancellation,
// responses to the server's own requests). Handler calls — tools/call,
// task work, template reads and prompts — go to one executor goroutine
// in arrival order: a script's handlers run on its single VM one at a
// time, while the reader stays free to take cancellations and the
// client's answers to elicitation or sampling requests. One writer
// serializes every outgoing line.
//
// The package owns the protocol only. Schema bundling, validators and
// the classification of handler outcomes are package tool's; the
// in-handler builtins (mcp_report_progress, mcp_elicit, …) are
// stdlib's and reach the served request through stdlib.MCPHandler.
package mcp
