"""Spawn a server and exchange newline-delimited JSON-RPC over its stdio."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StdioServerParameters:
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None


@asynccontextmanager
async def stdio_client(server: StdioServerParameters, errlog: Any = None) -> AsyncIterator[tuple[Any, Any]]:
    proc = await asyncio.create_subprocess_exec(
        server.command,
        *server.args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=server.env if server.env is not None else dict(os.environ),
        cwd=server.cwd,
        limit=1 << 24,
    )
    try:
        yield proc.stdout, proc.stdin
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
