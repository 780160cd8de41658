"""A test stand-in for the subset of the ``mcp`` package generated clients use.

The official MCP Python SDK is published on PyPI only, which the test
environment cannot reach, and Debian does not package it. This module
speaks the same JSON-RPC over stdio with the same API surface (see
../stubs for the types mypy checks against), so the end-to-end test can
run the generated client's own logic — argument validation, result
decoding, typed application errors — against a live ``harn serve mcp``.
It is used only when the real ``mcp`` package is not installed, and the
test says so.
"""

from .client.session import ClientSession
from .client.stdio import StdioServerParameters

__all__ = ["ClientSession", "StdioServerParameters"]
