// Package tools owns the tool builtins that bind scripts to the
// ToolRegistry contract (package tool): tool_define, tool_registry, the
// registry queries and hooks, the tool values (tool_def, tool_ref,
// tool_bind) and tool synthesis (tool_synthesize, tool_synth_invoke and
// the synthesis cache), the text tool-calling protocol (tool_schema,
// tool_prompt, tool_parse_call, tool_format_result), and the MCP handler
// builtins (mcp_*, harness.tools).
package tools
