from __future__ import annotations

from typing import Any


def streamablehttp_client(url: str, headers: dict[str, str] | None = None, **_: Any) -> Any:
    raise NotImplementedError("the test stand-in of mcp speaks stdio only")
