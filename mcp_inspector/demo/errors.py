"""JSON-RPC / MCP error codes and the exception handlers raise to send them.

Kept apart so tools, resources and prompts can fail with a protocol error
without importing the server loop.
"""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002  # legacy MCP (up to 2025-11-25)


class RpcError(Exception):
    """Raised by a request handler; the server turns it into a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict:
        error: dict = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class ClientRpcError(Exception):
    """The client answered one of our server->client requests with an error."""

    def __init__(self, error: object) -> None:
        error = error if isinstance(error, dict) else {}
        self.code = error.get("code")
        self.message = str(error.get("message", "unknown error"))
        self.data = error.get("data")
        super().__init__(f"[{self.code}] {self.message}")
