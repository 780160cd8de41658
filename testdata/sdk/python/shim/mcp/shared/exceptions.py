from __future__ import annotations

from mcp.types import ErrorData


class McpError(Exception):
    def __init__(self, error: ErrorData) -> None:
        super().__init__(error.message)
        self.error = error
