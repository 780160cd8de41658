from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from typing import Any

def streamablehttp_client(
    url: str,
    headers: dict[str, str] | None = None,
    timeout: float | timedelta = ...,
    sse_read_timeout: float | timedelta = ...,
    terminate_on_close: bool = True,
    httpx_client_factory: Any = ...,
    auth: Any | None = None,
) -> AbstractAsyncContextManager[tuple[Any, Any, Callable[[], str | None]]]: ...
