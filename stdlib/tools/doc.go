// Package tools owns the tool builtins that bind scripts to the
// ToolRegistry contract (package tool): tool_define, tool_registry, the
// registry hooks, and the MCP handler builtins (mcp_*, harness.tools).
package tools
