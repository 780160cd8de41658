from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Literal, TextIO

class StdioServerParameters:
    command: str
    args: list[str]
    env: dict[str, str] | None
    cwd: str | Path | None
    def __init__(
        self,
        *,
        command: str,
        args: list[str] = ...,
        env: dict[str, str] | None = ...,
        cwd: str | Path | None = ...,
        encoding: str = ...,
        encoding_error_handler: Literal["strict", "ignore", "replace"] = ...,
    ) -> None: ...

def stdio_client(server: StdioServerParameters, errlog: TextIO = ...) -> AbstractAsyncContextManager[tuple[Any, Any]]: ...
