from datetime import timedelta
from types import TracebackType
from typing import Any

from typing_extensions import Self

from mcp.types import CallToolResult, InitializeResult

class ClientSession:
    def __init__(
        self,
        read_stream: Any,
        write_stream: Any,
        read_timeout_seconds: timedelta | None = None,
        sampling_callback: Any | None = None,
        elicitation_callback: Any | None = None,
        list_roots_callback: Any | None = None,
        logging_callback: Any | None = None,
        message_handler: Any | None = None,
        client_info: Any | None = None,
    ) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None: ...
    async def initialize(self) -> InitializeResult: ...
    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: timedelta | None = None,
        progress_callback: Any | None = None,
    ) -> CallToolResult: ...
