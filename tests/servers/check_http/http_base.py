"""A small raw Streamable HTTP MCP server (stdlib ``http.server``) that the HTTP check fixtures
bend, one defect each. The MCP surface is tests/servers/check/base.py's (clean); this adds the
transport: POST answered with JSON, 202 with no body for notifications and responses, GET 405,
random session ids, 404 for an unknown or terminated session, 400 for an unsupported
MCP-Protocol-Version, 403 for a foreign Origin or Host. Raw on purpose: an SDK would not let a
fixture make these mistakes.

Run: ``python3 fixture.py`` (fixtures import this as ``http_base``); it binds 127.0.0.1 on a
free port and prints ``PORT <n>`` on stdout.
A fixture subclasses :class:`Handler` and overrides one method, then calls ``run(Handler)``.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "check"))

from base import VERSIONS, Server  # noqa: E402  (tests/servers/check/base.py)

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def host_name(host_port: str) -> str:
    """``127.0.0.1:8080`` -> ``127.0.0.1``; ``[::1]:80`` -> ``[::1]``."""
    if host_port.startswith("["):
        return host_port.split("]", 1)[0] + "]"
    return host_port.rsplit(":", 1)[0] if ":" in host_port else host_port


class Surface(Server):
    """The check fixtures' clean server, its frames collected instead of written to stdout."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def write_line(self, text: str) -> None:
        self.lines.append(text)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    surface = Surface()
    lock = threading.Lock()
    sessions: set[str] = set()
    issued = 0

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- what fixtures override -------------------------------------------------------------
    def new_session_id(self) -> str:
        return secrets.token_hex(16)

    def origin_allowed(self) -> bool:
        """DNS rebinding protection: a local Host, and a local Origin when there is one."""
        origin = self.headers.get("Origin")
        if host_name(self.headers.get("Host") or "") not in LOCAL_HOSTS:
            return False
        return origin is None or host_name(origin.split("://", 1)[-1]) in LOCAL_HOSTS

    def unknown_session_status(self) -> int:
        return 404

    def version_supported(self, version: str) -> bool:
        return version in VERSIONS

    def accepted(self) -> None:
        """A notification or a response: 202, no body."""
        self.answer(202, b"", None)

    def reply_content_type(self) -> str | None:
        return "application/json"

    def do_GET(self) -> None:
        self.answer(405, b"", None, {"Allow": "POST, DELETE"})

    # -- the transport ----------------------------------------------------------------------
    def answer(self, status: int, body: bytes, kind: str | None, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        if kind:
            self.send_header("Content-Type", kind)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error_body(self, status: int, code: int, message: str) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}).encode()
        self.answer(status, body, "application/json")

    def do_DELETE(self) -> None:
        if not self.origin_allowed():
            self.error_body(403, -32000, "Forbidden origin")
            return
        session = self.headers.get("Mcp-Session-Id")
        if session not in self.sessions:
            self.error_body(self.unknown_session_status(), -32001, "Session not found")
            return
        self.sessions.discard(session)
        self.answer(200, b"", None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.origin_allowed():
            self.error_body(403, -32000, "Forbidden origin")
            return
        try:
            message = json.loads(raw)
        except ValueError:
            self.error_body(400, -32700, "Parse error")
            return
        if not isinstance(message, dict):
            self.error_body(400, -32600, "Invalid Request")
            return
        method = message.get("method")
        extra: dict[str, str] = {}
        if method == "initialize":
            session = self.new_session_id()
            type(self).issued += 1
            self.sessions.add(session)
            extra["Mcp-Session-Id"] = session
        else:
            session = self.headers.get("Mcp-Session-Id")
            if session is None:
                self.error_body(400, -32000, "Bad Request: no session id")
                return
            if session not in self.sessions:
                self.error_body(self.unknown_session_status(), -32001, "Session not found")
                return
            version = self.headers.get("MCP-Protocol-Version")
            if version is not None and not self.version_supported(version):
                self.error_body(400, -32000, f"Unsupported protocol version: {version}")
                return
        if "id" not in message or not isinstance(method, str):
            self.accepted()
            return
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        with self.lock:
            self.surface.lines.clear()
            self.surface.handle(message["id"], method, params)
            lines = list(self.surface.lines)
        body = (lines[-1] if lines else "{}").encode()
        self.answer(200, body, self.reply_content_type(), extra)


def run(handler: type[Handler]) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    run(Handler)
