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
time per connection, as h11 serves them. Upstream: one raw keep-alive connection per host
connection, ``h11`` too (``http_upstream``). The recording is off the forward path: see
:class:`HttpProxy`.
"""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
import ssl
import time
from collections.abc import Callable, Iterable
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
from .http_upstream import ERRORS as UPSTREAM_ERRORS
from .http_upstream import Upstream
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
HOP_BY_HOP_BYTES = frozenset(name.encode() for name in HOP_BY_HOP)
SECRET_HEADER_NAMES = frozenset(name.encode() for name in SECRET_HEADERS)
WAKE_DELAY = 0.005  # seconds after a stream's chunk before the recorder is woken (one wake for a burst)


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
    """Serve ``address``; pass each exchange to ``upstream``'s origin; record through ``recorder``.

    The forward path comes first: the upstream is reached on a raw connection of the host
    connection's own (``http_upstream``: the request in one send, each read of the answer passed
    on in one send; httpx's layers cost ~0.5 ms an exchange here, httpcore's pool and per-event
    sends ~1 ms), and the recorder is *held* (``FrameRecorder.held``): each record is queued in
    order as it happens, its headers masked later in the recorder's thread, and the thread is
    woken once the exchange has been forwarded (a stream's chunk: within ``WAKE_DELAY``)."""

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
        try:
            port = parts.port
        except ValueError:
            raise ListenError(f"--url {upstream!r}: the port is not a number") from None
        if not parts.hostname:
            raise ListenError(f"--url {upstream!r}: give the server's http:// or https:// URL")
        self.upstream = upstream
        self.upstream_origin = f"{parts.scheme}://{parts.netloc}"
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = port or (443 if parts.scheme == "https" else 80)
        self._ssl_context: ssl.SSLContext | None = None
        # the Host header the upstream expects: its netloc without any userinfo
        self._host_header = parts.netloc.rpartition("@")[2].encode("idna")
        self.address = address
        self.recorder = recorder
        self.on_listening = on_listening
        self.origin = ""  # ours, once listening
        self._exchanges = itertools.count(1)
        self._wake_soon: anyio.Event | None = None  # set: wake the recorder soon (made in serve)
        self._stream_records = False  # a stream's records are queued that no wake-up has handed over yet

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
        if self._scheme == "https":
            context = httpx2.create_ssl_context()  # what httpx verified with: system CAs, SSL_CERT_FILE
            context.set_alpn_protocols(["http/1.1"])
            self._ssl_context = context
        self._wake_soon = anyio.Event()
        self.recorder.held = True
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._waker)
                await listener.serve(self._connection)
        finally:
            self.recorder.held = False
            self.recorder.wake()

    async def _waker(self) -> None:
        """Wake the recorder ``WAKE_DELAY`` after a stream's chunk was forwarded (not per chunk)."""
        while self._wake_soon is not None:
            await self._wake_soon.wait()
            await anyio.sleep(WAKE_DELAY)
            self._wake_soon = anyio.Event()
            if self._stream_records:  # not handed over already by an exchange's end
                self._wake()

    def _wake(self) -> None:
        self._stream_records = False
        self.recorder.wake()

    async def _connection(self, stream: anyio.abc.SocketStream) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=1 << 20)
        upstream = Upstream(self._host, self._port, self._ssl_context, self._host)
        async with stream:
            try:
                await self._serve_host(conn, stream, upstream)
            finally:
                with anyio.CancelScope(shield=True):
                    await upstream.aclose()

    async def _serve_host(self, conn: h11.Connection, stream: anyio.abc.SocketStream, upstream: Upstream) -> None:
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
                await self._exchange(conn, stream, upstream, request, body)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError, h11.LocalProtocolError):
                return
            finally:
                self._wake()  # this exchange is forwarded: now record it
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

    async def _exchange(
        self, conn: h11.Connection, stream: Any, upstream: Upstream, request: h11.Request, body: bytes
    ) -> None:
        exchange = next(self._exchanges)
        recorder = self.recorder
        raw_headers = request.headers  # h11's: names lowercased, checked
        for name, value in raw_headers:
            if name in SECRET_HEADER_NAMES:  # remembered now: a body echoing it is masked in the recording
                text = value.decode("latin-1")
                remember_secret(text, text.split(" ", 1)[-1])
        upstream_headers = [(k, v) for k, v in raw_headers if k not in HOP_BY_HOP_BYTES]
        upstream_headers.insert(0, (b"host", self._host_header))
        if body:
            upstream_headers.append((b"content-length", b"%d" % len(body)))
        method = request.method.decode("ascii", "replace")
        target = request.target.decode("ascii", "replace")
        url = self.upstream_origin + target
        size = len(body)

        def request_meta() -> dict[str, Any]:
            headers = _text_headers(raw_headers)
            return {
                "exchange": exchange,
                "http": {"method": method, "path": target, "headers": dict(mask_headers(headers))},
            }

        recorder.http(lambda: http_feed.begin(exchange, method, url, _text_headers(raw_headers), size))
        if body:
            recorder.put_frame(Direction.OUT, body, request_meta)
        else:
            recorder.note_with(f"{method} {target} (exchange {exchange})", request_meta)
        try:
            await upstream.send_request(
                h11.Request(method=request.method, target=request.target, headers=upstream_headers), body
            )
            first = await upstream.next_events()
        except UPSTREAM_ERRORS as exc:
            text = f"the upstream {self.upstream_origin} did not answer: {exc.__class__.__name__}"
            recorder.note(text, exchange=exchange, upstream_error=True)
            recorder.http(http_feed.finish(exchange, text))
            await upstream.aclose()  # in no state for another exchange: the next one opens a new connection
            await _send_simple(conn, stream, 502, text.encode())
            return
        error: str | None = "the host went away"
        try:
            await self._relay(conn, stream, upstream, first, exchange, method, target)
            error = None
        except _HostLeft:
            error = None  # the host closed its stream: that is how a stream ends
            raise
        except UPSTREAM_ERRORS as exc:  # mid-body: the host's response cannot be finished
            error = f"the upstream {self.upstream_origin} broke off: {exc.__class__.__name__}"
            recorder.note(error, exchange=exchange, upstream_error=True)
            raise _UpstreamBroke from None
        finally:
            recorder.http(http_feed.finish(exchange, error))
            if error is not None:
                with anyio.CancelScope(shield=True):
                    await upstream.aclose()

    async def _relay(
        self,
        conn: h11.Connection,
        stream: Any,
        upstream: Upstream,
        first: list[h11.Event],
        exchange: int,
        method: str,
        target: str,
    ) -> None:
        """Pass the upstream's answer on: each read of it in one send to the host (the head with
        whatever of the body came with it), recorded once sent."""
        recorder = self.recorder
        response = first[0]
        assert isinstance(response, h11.Response)
        status = response.status_code
        all_headers = response.headers.raw_items()  # as the upstream spelled them
        kind = b""
        out_headers = []
        for name, value in all_headers:
            lower = name.lower()
            if lower == b"content-type":
                kind = value.split(b";", 1)[0].strip().lower()
            if lower not in HOP_BY_HOP_BYTES or lower == b"content-length":
                out_headers.append((name, value))
        reason = response.reason
        kind_text = kind.decode("latin-1")
        sse = kind == b"text/event-stream"

        def response_meta() -> dict[str, Any]:
            return {
                "exchange": exchange,
                "http": {"status": status, "headers": dict(mask_headers(_text_headers(out_headers)))},
            }

        if sse:  # a rewritten endpoint changes the length: the body goes chunked
            out_headers = [(k, v) for k, v in out_headers if k.lower() != b"content-length"]
        recorder.http(
            lambda: http_feed.response(
                exchange, status, reason.decode("latin-1", "replace"), _text_headers(all_headers)
            )
        )
        head = conn.send(h11.Response(status_code=status, headers=out_headers, reason=reason)) or b""
        if status >= 400 or kind not in (b"application/json", b"text/event-stream"):
            recorder.note_with(f"{method} {target} -> {status} {kind_text}".rstrip(), response_meta)
        parser = SseParser() if sse else None
        kept: list[bytes] = []
        body_size = 0
        upstream_origin = self.upstream_origin.encode()
        origin = self.origin.encode()

        async def body() -> None:
            nonlocal body_size
            kept_size = 0
            out = [head]
            events = first[1:]
            while True:
                chunks: list[bytes] = []
                ended = False
                for event in events:
                    if isinstance(event, h11.Data):
                        chunk = bytes(event.data)
                        if sse and b"endpoint" in chunk:
                            chunk = chunk.replace(upstream_origin, origin)
                        out.append(conn.send(h11.Data(data=chunk)) or b"")
                        chunks.append(chunk)
                    elif isinstance(event, h11.EndOfMessage):
                        out.append(conn.send(h11.EndOfMessage()) or b"")
                        ended = True
                if out:
                    await stream.send(b"".join(out) if len(out) > 1 else out[0])
                    out = []
                if parser is not None and chunks:
                    now = time.time()
                    for chunk in chunks:
                        for item in parser.feed(chunk):
                            recorder.http(http_feed.event(exchange, item.event, item.id, item.size, item.retry))
                            if item.data and item.event in ("message", ""):
                                recorder.put_frame(Direction.IN, item.data, _with_sse_id(response_meta, item.id), now)
                            elif item.event == "endpoint":
                                text = item.data.decode("utf-8", "replace")
                                recorder.note_with(f"legacy SSE endpoint: {text}", response_meta)
                    if not ended:
                        self._stream_records = True
                        if self._wake_soon is not None:
                            self._wake_soon.set()  # a stream may stay open: its events are recorded soon
                elif chunks:
                    for chunk in chunks:
                        body_size += len(chunk)
                        if kind == b"application/json" and kept_size < MAX_RECORDED_BODY:
                            kept.append(chunk)
                            kept_size += len(chunk)
                if ended:
                    return
                events = await upstream.next_events()

        if parser is None or method != "GET":
            # a POST's stream is its answer (and the notifications before it): a host leaving it
            # is seen at its next event; watching costs a task group and a read of the host per call
            await body()
        elif await _unless_host_leaves(conn, stream, body):
            recorder.note(
                f"the host closed its {method} {target} stream (exchange {exchange}): closed upstream too",
                exchange=exchange,
                host_gone=True,
            )
            raise _HostLeft  # this connection is over
        if body_size:
            recorder.http(http_feed.body(exchange, body_size))
        if kept:
            recorder.put_frame(Direction.IN, b"".join(kept)[:MAX_RECORDED_BODY], response_meta)


def _text_headers(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in headers]


def _with_sse_id(meta: Callable[[], dict[str, Any]], sse_id: str | None) -> Callable[[], dict[str, Any]]:
    return lambda: {**meta(), "sse_id": sse_id}


async def _unless_host_leaves(conn: h11.Connection, stream: Any, body: Callable[[], Any]) -> bool:
    """Run ``body`` (a GET's SSE stream, which may stay quiet for long) while watching the host's side:
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


class _UpstreamBroke(anyio.BrokenResourceError):
    """The upstream broke off a response already begun to the host (the connection is over)."""


async def _send_simple(conn: h11.Connection, stream: Any, status: int, text: bytes) -> None:
    with contextlib.suppress(Exception):
        headers = [("content-type", "text/plain; charset=utf-8"), ("content-length", str(len(text)))]
        await stream.send(conn.send(h11.Response(status_code=status, headers=headers)))
        await stream.send(conn.send(h11.Data(data=text)))
        await stream.send(conn.send(h11.EndOfMessage()))
