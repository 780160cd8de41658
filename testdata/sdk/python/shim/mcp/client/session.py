"""A sequential MCP client session: one request at a time, released profile."""

from __future__ import annotations

import json
from typing import Any

from mcp.shared.exceptions import McpError
from mcp.types import CallToolResult, ErrorData, InitializeResult, TextContent


class ClientSession:
    def __init__(self, read_stream: Any, write_stream: Any, *_: Any, **__: Any) -> None:
        self._read = read_stream
        self._write = write_stream
        self._next_id = 0

    async def __aenter__(self) -> ClientSession:
        return self

    async def __aexit__(self, *_: Any) -> None:
        return None

    async def _send(self, message: dict[str, Any]) -> None:
        self._write.write((json.dumps(message) + "\n").encode())
        await self._write.drain()

    async def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        await self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        while True:
            line = await self._read.readline()
            if not line:
                raise McpError(ErrorData(-32000, "connection closed"))
            msg = json.loads(line)
            if msg.get("id") != self._next_id or "method" in msg:
                continue
            if "error" in msg:
                raise McpError(ErrorData(msg["error"]["code"], msg["error"]["message"], msg["error"].get("data")))
            result: dict[str, Any] = msg["result"]
            return result

    async def initialize(self) -> InitializeResult:
        result = await self._request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcp-stand-in", "version": "0"}},
        )
        await self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return InitializeResult(result["protocolVersion"], result.get("serverInfo", {}))

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *_: Any, **__: Any) -> CallToolResult:
        result = await self._request("tools/call", {"name": name, "arguments": arguments or {}})
        content = [TextContent(c["text"]) if c.get("type") == "text" else c for c in result.get("content", [])]
        return CallToolResult(content, result.get("structuredContent"), bool(result.get("isError", False)), result.get("_meta"))
