// Package tool owns the ToolRegistry contract (docs/spec/registry.md): it turns a
// registry value built by a script into normalized entries (every R and
// C rule of docs/spec/registry.md §3), writes and reads the harn-tools/2.0 catalog,
// and prepares a registry once for the adapters.
//
// The flow is one way:
//
//	registry value (vm dict) ──Normalize──▶ *Registry ──Prepare──▶ *Prepared
//	                                            │                    │
//	                              CatalogFor ◀──┘        CLI tree, MCP documents,
//	                        (harn tool schema)           validators, Invoke
//
// A *Registry holds the catalog form of every tool (the Go types of
// catalog.go, which are also the source of the published JSON Schema and
// TypeScript artifacts) plus the runtime parts the catalog leaves out
// (handler closures, executors). A *Prepared adds what every adapter
// needs and must never rebuild per request: compiled input, output and
// application-error validators, name lookup, the command tree with its
// argument rules, and the MCP tools/list documents of both protocol
// profiles. PreparedTool.Invoke calls a handler in its VM and classifies
// the outcome (docs/spec/registry.md §6) so that no adapter ever renders an
// undeclared thrown value.
//
// ParseCatalog is the reader for serialized catalogs: structural checks
// driven by the same type model as the artifacts, then the semantic
// checks. Embedded JSON Schemas are jsonv values and keep their key
// order; catalogs are byte-for-byte stable.
package tool

//go:generate go run ./internal/gen -root ..
