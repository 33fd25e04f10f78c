"""A small hand-written stdio MCP server (stdlib only) that the check fixtures bend, one defect each.

As it is, it is clean: every rule of ``mcp-inspector check`` passes. A fixture subclasses
:class:`Server` and overrides one thing (a list, an answer, what it does on EOF...), then calls
``run(ServerSubclass)``. Raw JSON-RPC on purpose: an SDK would not let a fixture make most of
these mistakes.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from typing import Any

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


class Server:
    name = "check-fixture"

    def __init__(self) -> None:
        self.out = sys.stdout.buffer
        self.listings = 0

    # -- the surface (overridden by fixtures) -------------------------------------------------
    def capabilities(self) -> dict[str, Any]:
        return {
            "tools": {"listChanged": True},
            "resources": {},
            "prompts": {},
            "completions": {},
            "logging": {},
        }

    def tools(self) -> list[dict[str, Any]]:
        return [
            {
                "name": "add",
                "description": "Add two numbers and return the sum.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                    "required": ["a", "b"],
                },
                "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]},
                "annotations": {"readOnlyHint": True, "idempotentHint": True},
            },
            {
                "name": "lookup.code",
                "description": "Look a code up (letters and digits).",
                "inputSchema": {
                    "type": "object",
                    "properties": {"code": {"type": "string", "pattern": "^[A-Z0-9]{2,8}$"}},
                },
            },
        ]

    def resources(self) -> list[dict[str, Any]]:
        return [
            {"uri": "fixture://readme", "name": "readme", "mimeType": "text/plain"},
            {"uri": "fixture://pixel", "name": "pixel", "mimeType": "image/png"},
        ]

    def templates(self) -> list[dict[str, Any]]:
        return [{"uriTemplate": "fixture://notes/{id}{?lang}", "name": "note"}]

    def prompts(self) -> list[dict[str, Any]]:
        return [
            {"name": "greet", "description": "A greeting."},
            {"name": "review", "arguments": [{"name": "language", "required": True}]},
        ]

    def read(self, uri: str) -> dict[str, Any] | None:
        if uri == "fixture://readme":
            return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "hello"}]}
        if uri == "fixture://pixel":
            return {"contents": [{"uri": uri, "mimeType": "image/png", "blob": PNG_1PX}]}
        if uri.startswith("fixture://notes/"):
            return {"contents": [{"uri": uri, "text": "a note"}]}
        return None

    def get_prompt(self, name: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        if name == "greet":
            return {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello!"}}]}
        if name == "review":
            return {"messages": [{"role": "user", "content": {"type": "text", "text": f"Review {arguments}"}}]}
        return None

    def complete(self, ref: dict[str, Any], argument: dict[str, Any]) -> list[Any]:
        return ["python", "rust"] if argument.get("name") == "language" else ["1", "2"]

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        if name == "add":
            total = arguments.get("a", 0) + arguments.get("b", 0)
            return {
                "content": [{"type": "text", "text": json.dumps({"sum": total})}],
                "structuredContent": {"sum": total},
            }
        if name == "lookup.code":
            return {"content": [{"type": "text", "text": "found"}]}
        return None

    # -- the protocol --------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        self.write_line(json.dumps({"jsonrpc": "2.0", **message}))

    def write_line(self, text: str) -> None:
        self.out.write(text.encode() + b"\n")
        self.out.flush()

    def reply(self, msg_id: Any, result: dict[str, Any]) -> None:
        self.send({"id": msg_id, "result": result})

    def error(self, msg_id: Any, code: int, message: str) -> None:
        self.send({"id": msg_id, "error": {"code": code, "message": message}})

    def initialize(self, msg_id: Any, params: dict[str, Any]) -> None:
        offered = params.get("protocolVersion")
        version = offered if offered in VERSIONS else VERSIONS[-1]
        self.reply(
            msg_id,
            {
                "protocolVersion": version,
                "capabilities": self.capabilities(),
                "serverInfo": {"name": self.name, "version": "1.0.0"},
            },
        )

    def paged(self, key: str, items: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
        return {key: items}

    def handle(self, msg_id: Any, method: str, params: dict[str, Any]) -> None:
        """One request; None ids are notifications (already filtered out)."""
        if method == "initialize":
            self.initialize(msg_id, params)
        elif method == "ping" or method == "logging/setLevel":
            self.reply(msg_id, {})
        elif method == "tools/list":
            self.listings += 1
            self.reply(msg_id, self.paged("tools", self.tools(), params))
        elif method == "resources/list":
            self.reply(msg_id, self.paged("resources", self.resources(), params))
        elif method == "resources/templates/list":
            self.reply(msg_id, self.paged("resourceTemplates", self.templates(), params))
        elif method == "prompts/list":
            self.reply(msg_id, self.paged("prompts", self.prompts(), params))
        elif method == "resources/read":
            result = self.read(str(params.get("uri")))
            if result is None:
                self.error(msg_id, -32002, f"Resource not found: {params.get('uri')}")
            else:
                self.reply(msg_id, result)
        elif method == "prompts/get":
            result = self.get_prompt(str(params.get("name")), params.get("arguments") or {})
            if result is None:
                self.error(msg_id, -32602, f"Unknown prompt: {params.get('name')}")
            else:
                self.reply(msg_id, result)
        elif method == "completion/complete":
            values = self.complete(params.get("ref") or {}, params.get("argument") or {})
            self.reply(msg_id, {"completion": {"values": values, "hasMore": False}})
        elif method == "tools/call":
            result = self.call(str(params.get("name")), params.get("arguments") or {})
            if result is None:
                self.unknown_tool(msg_id, str(params.get("name")))
            else:
                self.reply(msg_id, result)
        else:
            self.unknown_method(msg_id, method)

    def unknown_tool(self, msg_id: Any, name: str) -> None:
        self.error(msg_id, -32602, f"Unknown tool: {name}")

    def unknown_method(self, msg_id: Any, method: str) -> None:
        self.error(msg_id, -32601, f"Method not found: {method}")

    def notification(self, method: str, params: dict[str, Any]) -> None:
        """A client notification (notifications/initialized, cancelled...)."""

    def parse_error(self, line: bytes) -> None:
        self.send({"id": None, "error": {"code": -32700, "message": "Parse error"}})

    def on_eof(self) -> None:
        sys.exit(0)

    def start(self) -> None:
        """Before reading anything (a banner, a slow start)."""

    def serve(self) -> None:
        self.start()
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                self.parse_error(line)
                continue
            if not isinstance(message, dict):
                self.send({"id": None, "error": {"code": -32600, "message": "Invalid Request"}})
                continue
            method = message.get("method")
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            if not isinstance(method, str):
                continue  # a response to something we never asked
            if "id" not in message:
                self.notification(method, params)
                continue
            self.handle(message["id"], method, params)
        self.on_eof()


MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"


class ModernServer(Server):
    """The same surface in the 2026-07-28 era only: server/discover, the version in every
    request's _meta (-32022 with data.supported for another), resultType and _meta serverInfo
    on every result, no initialize, ping or logging."""

    def capabilities(self) -> dict[str, Any]:
        return {"tools": {"listChanged": True}, "resources": {}, "prompts": {}, "completions": {}}

    def reply(self, msg_id: Any, result: dict[str, Any]) -> None:
        meta = dict(result.get("_meta") or {})
        meta.setdefault(SERVER_INFO_KEY, {"name": self.name, "version": "1.0.0"})
        self.send({"id": msg_id, "result": {**self.cache(result), "resultType": "complete", **result, "_meta": meta}})

    def cache(self, result: dict[str, Any]) -> dict[str, Any]:
        """ttlMs and cacheScope, which discover, list and read results carry (SEP-2549)."""
        cacheable = ("supportedVersions", "tools", "prompts", "resources", "resourceTemplates", "contents")
        return {"ttlMs": 0, "cacheScope": "private"} if any(key in result for key in cacheable) else {}

    def discover(self, msg_id: Any) -> None:
        self.reply(msg_id, {"supportedVersions": [MODERN], "capabilities": self.capabilities()})

    def unsupported(self, msg_id: Any, requested: Any) -> None:
        self.send(
            {
                "id": msg_id,
                "error": {
                    "code": -32022,
                    "message": f"Unsupported protocol version: {requested}",
                    "data": {"supported": [MODERN], "requested": requested},
                },
            }
        )

    def handle(self, msg_id: Any, method: str, params: dict[str, Any]) -> None:
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        requested = meta.get(VERSION_KEY)
        if method in ("initialize", "ping", "logging/setLevel"):
            self.unknown_method(msg_id, method)
        elif requested != MODERN:
            self.unsupported(msg_id, requested)
        elif method == "server/discover":
            self.discover(msg_id)
        else:
            super().handle(msg_id, method, params)


def run(cls: type[Server]) -> None:
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        cls().serve()


def sleep(seconds: float) -> None:
    time.sleep(seconds)


if __name__ == "__main__":
    run(Server)
