from typing import Any, Literal, TypeAlias

class ErrorData:
    code: int
    message: str
    data: Any | None

class TextContent:
    type: Literal["text"]
    text: str

class ImageContent:
    type: Literal["image"]
    data: str
    mimeType: str

class AudioContent:
    type: Literal["audio"]
    data: str
    mimeType: str

class ResourceLink:
    type: Literal["resource_link"]
    uri: str
    name: str

class EmbeddedResource:
    type: Literal["resource"]
    resource: Any

ContentBlock: TypeAlias = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource

class Implementation:
    name: str
    version: str

class InitializeResult:
    protocolVersion: str | int
    capabilities: Any
    serverInfo: Implementation
    instructions: str | None

class CallToolResult:
    meta: dict[str, Any] | None
    content: list[ContentBlock]
    structuredContent: dict[str, Any] | None
    isError: bool
