"""A small configurable HTTP server on 127.0.0.1 for the discovery and registration tests.

``DocServer`` serves, per path (query included when the route has one), a canned answer:
``json(doc)``, ``raw(status, body, content_type)``, or ``HANG`` (accepts the request and
never answers: for timeouts). Unknown paths are 404. Every request is recorded
(``requests``: method, path, headers, parsed JSON body). Runs in a daemon thread; use it
as a context manager. ``url`` is ``http://127.0.0.1:<port>``.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HANG = "hang"


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def json_answer(doc: Any, status: int = 200, **headers: str) -> Answer:
    return Answer(status, json.dumps(doc).encode(), "application/json", dict(headers))


def raw(status: int, body: bytes | str = b"", content_type: str = "text/plain", **headers: str) -> Answer:
    return Answer(status, body.encode() if isinstance(body, str) else body, content_type, dict(headers))


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


Route = Answer | str | Callable[["Seen"], Answer]


class DocServer:
    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], Route] = {}
        self.requests: list[Seen] = []
        self._release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed-ACK stall

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("content-length") or 0)
                data = self.rfile.read(length) if length else b""
                try:
                    body: Any = json.loads(data) if data else None
                except ValueError:
                    body = data.decode("utf-8", "replace")
                seen = Seen(method, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                outer.requests.append(seen)
                route = outer.routes.get((method, self.path))
                if route is None:
                    route = outer.routes.get((method, self.path.split("?", 1)[0]))
                if route == HANG:
                    outer._release.wait(30)
                    return
                if callable(route):
                    route = route(seen)
                answer = route if isinstance(route, Answer) else raw(404, "Not Found")
                self.send_response(answer.status)
                self.send_header("Content-Type", answer.content_type)
                self.send_header("Content-Length", str(len(answer.body)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(answer.body)

            def do_GET(self) -> None:  # noqa: N802 - http.server calls this name
                self._serve("GET")

            def do_POST(self) -> None:  # noqa: N802 - http.server calls this name
                self._serve("POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def get(self, path: str, route: Route) -> None:
        self.routes[("GET", path)] = route

    def post(self, path: str, route: Route) -> None:
        self.routes[("POST", path)] = route

    def paths(self, method: str = "GET") -> list[str]:
        return [seen.path for seen in self.requests if seen.method == method]

    def __enter__(self) -> DocServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._release.set()
        self.server.shutdown()
        self.server.server_close()


def as_metadata(issuer: str, base: str | None = None, **extra: Any) -> dict[str, Any]:
    """An RFC 8414 document for ``issuer`` with endpoints under ``base`` (default: the issuer)."""
    base = base or issuer
    doc = {
        "issuer": issuer,
        "authorization_endpoint": f"{base}/authorize",
        "token_endpoint": f"{base}/token",
        "registration_endpoint": f"{base}/register",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    }
    doc.update(extra)
    return {k: v for k, v in doc.items() if v is not None}
