"""Small MCP servers over HTTP on 127.0.0.1, one per port (two of them are two origins), for the
tests of where credentials go (test_credential_origins.py) and of the HTTP+SSE transport.

``OriginServer`` runs in a daemon thread (a context manager); ``url`` is ``http://127.0.0.1:<port>``.
Every request is kept in ``requests`` (method, path, lower-cased headers). Paths:

- ``GET /sse``: a 2024-11-05 HTTP+SSE stream; its ``endpoint`` event is ``endpoint`` (default
  ``/messages``, relative: this origin). ``POST /messages`` is answered 202, the reply on the stream.
  ``initialize`` gets the version the client proposed when it is in ``versions``, else the first.
- ``GET /to/<url>`` and ``POST /to/<url>``: 307 to ``<url>`` (another origin's URL, say).
- ``POST /mcp``: Streamable HTTP (JSON replies); ``initialize`` sets ``Mcp-Session-Id: session-a``;
  with ``redirect_after_initialize`` every later POST is answered 307 to it.
- ``POST /401``: 401 with a Bearer challenge.

Methods: ``initialize``, ``ping``, ``tools/list`` (``echo``, ``echo_headers``), ``tools/call``
(``echo_headers`` answers the request's headers as JSON text: a server echoing our secrets);
any other is -32601.
"""

from __future__ import annotations

import json
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


class OriginServer:
    def __init__(self, *, endpoint: str = "/messages", versions: tuple[str, ...] = ("2024-11-05",)) -> None:
        self.endpoint = endpoint
        self.versions = versions
        self.redirect_after_initialize: str | None = None
        self.requests: list[dict[str, Any]] = []
        self.proposed: list[str] = []  # the protocolVersion of each initialize received
        self._streams: list[queue.Queue] = []
        self._stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes = b"", kind: str = "application/json", **headers: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.end_headers()
                self.wfile.write(body)

            def _seen(self) -> bytes:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                outer.requests.append({"method": self.command, "path": self.path, "headers": headers})
                return body

            def do_GET(self) -> None:  # noqa: N802 - http.server calls this name
                self._seen()
                if self.path.startswith("/to/"):
                    self._send(307, Location=self.path[len("/to/") :])
                elif self.path == "/sse":
                    self._stream()
                else:
                    self._send(404, b"Not Found", "text/plain")

            def _stream(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                messages: queue.Queue = queue.Queue()
                outer._streams.append(messages)
                try:
                    self.wfile.write(f"event: endpoint\ndata: {outer.endpoint}\n\n".encode())
                    self.wfile.flush()
                    while not outer._stop.is_set():
                        try:
                            data = messages.get(timeout=0.1)
                        except queue.Empty:
                            continue
                        self.wfile.write(b"event: message\ndata: " + data + b"\n\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    self.close_connection = True

            def do_POST(self) -> None:  # noqa: N802 - http.server calls this name
                body = self._seen()
                if self.path.startswith("/to/"):
                    self._send(307, Location=self.path[len("/to/") :])
                    return
                if self.path == "/401":
                    self._send(401, b"", WWW_Authenticate='Bearer realm="mcp"')
                    return
                try:
                    message = json.loads(body)
                except ValueError:
                    self._send(400, b"not JSON", "text/plain")
                    return
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = outer.answer(message, headers) if isinstance(message, dict) and "id" in message else None
                if self.path.startswith("/messages"):
                    self._send(202, b"Accepted", "text/plain")
                    if reply is not None and outer._streams:
                        outer._streams[-1].put(json.dumps(reply).encode())
                    return
                if self.path.split("?", 1)[0] == "/mcp":
                    if outer.redirect_after_initialize and message.get("method") != "initialize":
                        self._send(307, Location=outer.redirect_after_initialize)
                    elif reply is None:
                        self._send(202)
                    else:
                        self._send(200, json.dumps(reply).encode(), Mcp_Session_Id="session-a")
                    return
                self._send(404, b"Not Found", "text/plain")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def answer(self, message: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        method = message.get("method")
        result: dict[str, Any] = {}
        if method not in ("initialize", "tools/list", "tools/call", "ping"):
            return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}}
        if method == "initialize":
            proposed = (message.get("params") or {}).get("protocolVersion")
            self.proposed.append(proposed)
            result = {
                "protocolVersion": proposed if proposed in self.versions else self.versions[0],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "origin", "version": "1"},
            }
        elif method == "tools/list":
            result = {"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in ("echo", "echo_headers")]}
        elif method == "tools/call" and (message.get("params") or {}).get("name") == "echo_headers":
            result = {"content": [{"type": "text", "text": json.dumps(headers)}]}  # a server echoing secrets
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "ok"}]}
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}

    def seen(self, method: str | None = None) -> list[dict[str, Any]]:
        return [r for r in self.requests if method is None or r["method"] == method]

    def __enter__(self) -> OriginServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
