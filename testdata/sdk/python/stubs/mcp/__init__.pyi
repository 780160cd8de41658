# Type stubs of the subset of the `mcp` package (the official MCP Python
# SDK, 1.x) that generated Harn clients use, with the SDK's signatures.
# They let mypy --strict check generated packages where the SDK itself
# cannot be installed (it is not packaged for Debian).
from .client.session import ClientSession as ClientSession
from .client.stdio import StdioServerParameters as StdioServerParameters
