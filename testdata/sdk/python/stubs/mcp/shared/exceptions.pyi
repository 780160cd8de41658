from mcp.types import ErrorData

class McpError(Exception):
    error: ErrorData
    def __init__(self, error: ErrorData) -> None: ...
