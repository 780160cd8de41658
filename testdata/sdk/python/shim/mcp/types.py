"""The result types of the stand-in (attribute names as in mcp.types)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ErrorData:
    code: int
    message: str
    data: Any | None = None


@dataclass
class TextContent:
    text: str
    type: str = "text"


@dataclass
class InitializeResult:
    protocolVersion: str
    serverInfo: dict[str, Any] = field(default_factory=dict)


@dataclass
class CallToolResult:
    content: list[Any]
    structuredContent: Any = None
    isError: bool = False
    meta: dict[str, Any] | None = None
