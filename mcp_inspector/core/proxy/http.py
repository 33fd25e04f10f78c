"""The HTTP reverse proxy: a host talks to us as its MCP server's URL; we pass every exchange upstream.

``mcp-inspector proxy --listen 127.0.0.1:PORT --url UPSTREAM``. Each request the host makes
(POST, GET, DELETE, whatever the path) goes to the upstream's origin with the same path and
query, its headers as they came (``Authorization``, ``Mcp-Session-Id``, ``Last-Event-ID``,
``MCP-Protocol-Version``...) but the hop-by-hop ones; the response comes back the same way,
its body streamed chunk by chunk as it arrives (an SSE stream is never held back). Bodies are
not re-encoded: only ``Accept-Encoding`` is dropped upstream, so what is recorded is what the
host reads. Legacy HTTP+SSE: an ``endpoint`` event naming the upstream's origin is rewritten to
ours, so the host's POSTs come through us too.

Recorded (``recorder.put_frame``): each request body the host sent (``out``), each JSON
response body and each SSE event's data (``in``), with the exchange's method, path, status and
headers in ``meta``, ``Authorization`` and the like masked (``masking.mask_headers``; the values
are remembered as secrets, so a body echoing one is masked in the recording too). What happens
to each exchange (begun, answered, each SSE event, ended) goes to the live view too (``http_feed``),
so a viewer's HTTP view shows the host's exchanges.

HTTP/1.1 by ``h11`` (the HTTP client's own parser) on an ``anyio`` listener; one request at a
time per connection, as h11 serves them.
"""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.abc
import h11
import httpx2

from ..base.masking import mask_headers, remember_secret
from ..traffic.entry import Direction
from ..transport.sse_events import SseParser
from . import http_feed
from .recorder import FrameRecorder

MAX_BODY = 64 << 20  # bytes of a request body the host may send
MAX_RECORDED_BODY = 64 << 20  # bytes of a JSON response kept for the recording (all of it is forwarded)
READ_SIZE = 1 << 16
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "accept-encoding",
    }
)
SECRET_HEADERS = ("authorization", "proxy-authorization", "cookie", "x-api-key")


class ListenError(Exception):
    """The listen address is not usable (one line for the user)."""


@dataclass(slots=True)
class ListenAddress:
    host: str
    port: int
    loopback: bool


def parse_listen(text: str) -> ListenAddress:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6); ListenError if it is not one."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ListenError(f"--listen {text!r}: give HOST:PORT, e.g. 127.0.0.1:8765")
    host = host.removeprefix("[").removesuffix("]") or "127.0.0.1"
    if host == "localhost":
        loopback = True
    else:
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            raise ListenError(f"--listen {text!r}: HOST must be an IP address or localhost") from None
    return ListenAddress(host, int(port_text), loopback)


class HttpProxy:
    """Serve ``address``; pass each exchange to ``upstream``'s origin; record through ``recorder``."""

    def __init__(
        self,
        upstream: str,
        address: ListenAddress,
        recorder: FrameRecorder,
        on_listening: Callable[[str], None] | None = None,
    ) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ListenError(f"--url {upstream!r}: give the server's http:// or https:// URL")
        self.upstream = upstream
        self.upstream_origin = f"{parts.scheme}://{parts.netloc}"
        self.address = address
        self.recorder = recorder
        self.on_listening = on_listening
        self.origin = ""  # ours, once listening
        self._exchanges = itertools.count(1)

    async def serve(self) -> None:
        try:
            listener = await anyio.create_tcp_listener(local_host=self.address.host, local_port=self.address.port)
        except OSError as exc:
            raise ListenError(
                f"cannot listen on {self.address.host}:{self.address.port}: {exc.strerror or exc}"
            ) from None
        sockname = listener.extra(anyio.abc.SocketAttribute.local_address)
        host = f"[{sockname[0]}]" if ":" in sockname[0] else sockname[0]
        self.origin = f"http://{host}:{sockname[1]}"
        path = urlsplit(self.upstream).path or "/"
        if self.on_listening is not None:
            self.on_listening(self.origin + path)
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=None), follow_redirects=False) as client:
            self._client = client
            await listener.serve(self._connection)

    async def _connection(self, stream: anyio.abc.SocketStream) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=1 << 20)
        async with stream:
            while True:
                try:
                    request, body = await self._read_request(conn, stream)
                except (h11.RemoteProtocolError, anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    return
                except _BodyTooLarge:
                    await _send_simple(conn, stream, 413, b"request body too large")
                    return
                if request is None:
                    return
                try:
                    await self._exchange(conn, stream, request, body)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError, h11.LocalProtocolError):
                    return
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    return
                try:
                    conn.start_next_cycle()
                except h11.LocalProtocolError:
                    return

    async def _read_request(
        self, conn: h11.Connection, stream: anyio.abc.SocketStream
    ) -> tuple[h11.Request | None, bytes]:
        request: h11.Request | None = None
        body: list[bytes] = []
        size = 0
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                try:
                    data = await stream.receive(READ_SIZE)
                except anyio.EndOfStream:
                    data = b""
                conn.receive_data(data)
                continue
            if isinstance(event, h11.Request):
                request = event
            elif isinstance(event, h11.Data):
                size += len(event.data)
                if size > MAX_BODY:
                    raise _BodyTooLarge
                body.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                return request, b"".join(body)
            elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
                return None, b""

    async def _exchange(self, conn: h11.Connection, stream: Any, request: h11.Request, body: bytes) -> None:
        exchange = next(self._exchanges)
        method = request.method.decode("ascii", "replace")
        target = request.target.decode("ascii", "replace")
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers]
        for name, value in headers:
            if name.lower() in SECRET_HEADERS:
                remember_secret(value, value.split(" ", 1)[-1])
        upstream_headers = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP]
        meta: dict[str, Any] = {
            "exchange": exchange,
            "http": {"method": method, "path": target, "headers": dict(mask_headers(headers))},
        }
        self.recorder.http(http_feed.begin(exchange, method, self.upstream_origin + target, headers, len(body)))
        if body:
            self.recorder.put_frame(Direction.OUT, body, meta)
        else:
            self.recorder.note(f"{method} {target} (exchange {exchange})", **meta)
        upstream_request = self._client.build_request(
            method, self.upstream_origin + target, headers=upstream_headers, content=body or None
        )
        try:
            response = await self._client.send(upstream_request, stream=True)
        except httpx2.HTTPError as exc:
            text = f"the upstream {self.upstream_origin} did not answer: {exc.__class__.__name__}"
            self.recorder.note(text, exchange=exchange, upstream_error=True)
            self.recorder.http(http_feed.finish(exchange, text))
            await _send_simple(conn, stream, 502, text.encode())
            return
        error: str | None = "the host went away"
        try:
            await self._relay(conn, stream, response, exchange, method, target)
            error = None
        except _HostLeft:
            error = None  # the host closed its stream: that is how a stream ends
            raise
        finally:
            self.recorder.http(http_feed.finish(exchange, error))
            await response.aclose()

    async def _relay(
        self, conn: h11.Connection, stream: Any, response: httpx2.Response, exchange: int, method: str, target: str
    ) -> None:
        kind = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        out_headers = [
            (k, v)
            for k, v in response.headers.multi_items()
            if k.lower() not in HOP_BY_HOP or k.lower() == "content-length"
        ]
        meta: dict[str, Any] = {
            "exchange": exchange,
            "http": {"status": response.status_code, "headers": dict(mask_headers(out_headers))},
        }
        rewrite = kind == "text/event-stream"
        if rewrite:  # a rewritten endpoint changes the length: the body goes chunked
            out_headers = [(k, v) for k, v in out_headers if k.lower() != "content-length"]
        self.recorder.http(
            http_feed.response(
                exchange, response.status_code, response.reason_phrase, list(response.headers.multi_items())
            )
        )
        await stream.send(conn.send(h11.Response(status_code=response.status_code, headers=out_headers)))
        if response.status_code >= 400 or kind not in ("application/json", "text/event-stream"):
            self.recorder.note(f"{method} {target} -> {response.status_code} {kind}".rstrip(), **meta)
        parser = SseParser() if kind == "text/event-stream" else None
        kept: list[bytes] = []

        body_size = 0

        async def body() -> None:
            nonlocal body_size
            kept_size = 0
            async for chunk in response.aiter_raw():
                if rewrite and b"endpoint" in chunk:
                    chunk = chunk.replace(self.upstream_origin.encode(), self.origin.encode())
                await stream.send(conn.send(h11.Data(data=chunk)))
                if parser is not None:
                    for event in parser.feed(chunk):
                        self.recorder.http(http_feed.event(exchange, event.event, event.id, event.size, event.retry))
                        if event.data and event.event in ("message", ""):
                            self.recorder.put_frame(Direction.IN, event.data, {**meta, "sse_id": event.id})
                        elif event.event == "endpoint":
                            text = event.data.decode("utf-8", "replace")
                            self.recorder.note(f"legacy SSE endpoint: {text}", **meta)
                else:
                    body_size += len(chunk)
                    if kind == "application/json" and kept_size < MAX_RECORDED_BODY:
                        kept.append(chunk)
                        kept_size += len(chunk)
            await stream.send(conn.send(h11.EndOfMessage()))

        if parser is None:
            await body()
        elif await _unless_host_leaves(conn, stream, body):
            self.recorder.note(
                f"the host closed its {method} {target} stream (exchange {exchange}): closed upstream too",
                exchange=exchange,
                host_gone=True,
            )
            raise _HostLeft  # this connection is over
        if body_size:
            self.recorder.http(http_feed.body(exchange, body_size))
        if kept:
            self.recorder.put_frame(Direction.IN, b"".join(kept)[:MAX_RECORDED_BODY], meta)


async def _unless_host_leaves(conn: h11.Connection, stream: Any, body: Callable[[], Any]) -> bool:
    """Run ``body`` (an SSE stream, which may stay quiet for long) while watching the host's side:
    True if the host went away first (``body`` is then cancelled, so the upstream stream is closed
    now, not at its next event)."""
    gone = False
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            nonlocal gone
            while True:
                try:
                    data = await stream.receive(READ_SIZE)
                except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    data = b""
                if not data:
                    gone = True
                    group.cancel_scope.cancel()
                    return
                conn.receive_data(data)  # a pipelined request: h11 keeps it for the next cycle

        async def relay() -> None:
            await body()
            group.cancel_scope.cancel()

        group.start_soon(watch)
        group.start_soon(relay)
    return gone


class _BodyTooLarge(Exception):
    pass


class _HostLeft(anyio.BrokenResourceError):
    """The host closed an SSE stream it had open (the connection is over)."""


async def _send_simple(conn: h11.Connection, stream: Any, status: int, text: bytes) -> None:
    with contextlib.suppress(Exception):
        headers = [("content-type", "text/plain; charset=utf-8"), ("content-length", str(len(text)))]
        await stream.send(conn.send(h11.Response(status_code=status, headers=headers)))
        await stream.send(conn.send(h11.Data(data=text)))
        await stream.send(conn.send(h11.EndOfMessage()))
