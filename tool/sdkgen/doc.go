// Package sdkgen writes typed client packages for a harn-tools/2.0
// catalog (`harn tool sdk`, docs/sdk.md): TypeScript, Go and Python,
// each calling the tools through its ecosystem's official MCP SDK.
//
// Generation has two stages. Build reads a prepared catalog
// (tool.Prepared, the one object every adapter reads) into a Model that
// knows no language: the named types (every components.schemas entry,
// each tool's input, output and error type, and the objects and enums
// nested in them, hoisted under stable names), and the callable tools
// with their standalone MCP input schemas. A type is an expression tree
// (Type) over a small closed set of kinds; a Harn enum — the
// `{enum, variant, fields}` oneOf the exports surface emits — is one
// kind of its own, so every language renders it as a discriminated
// union. The emitters (ts.go, golang.go, python.go) then render that
// Model with a fixed layout plus a runtime file of their own (under
// runtime/) that owns transport, client-side validation and the error
// classes. Nothing is read from maps in random order and nothing
// depends on time or the machine, so the same catalog always gives the
// same bytes.
package sdkgen
