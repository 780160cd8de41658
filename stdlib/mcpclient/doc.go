// Package mcpclient is the library's MCP client (docs/mcp-client.md): the
// mcp_connect family of builtins (docs/spec/builtins.md §5, names only; the
// semantics are this implementation's). A client speaks JSON-RPC 2.0 to one
// server, over stdio to a subprocess or over Streamable HTTP, negotiates the
// protocol (initialize with a released version, or the session-free
// 2026-07-28 profile of Harn's own HTTP servers), follows list pagination
// and bounds each request by a timeout. mcp_ensure_active, mcp_release,
// mcp_registry_status and mcp_bootstrap keep a per-run registry of named
// servers with reference counts (registry.go, bootstrap.go), whose HTTP
// servers may get their credentials from an auth function that
// mcp_reauth_expired calls again once they expire (auth.go); the
// mcp_host_* builtins supervise stdio servers, restarting them when their
// process exits (host.go), and find declared ones (discover.go);
// mcp_server_card fetches an HTTP server's discovery document. What a run
// started stops when its VM closes.
//
// The package is upstream of mcp/ in the dependency order, so it speaks
// the protocol itself rather than reusing mcp/protocol (which is a server).
package mcpclient
