"""The response bodies of Streamable HTTP: a JSON body read whole (up to the frame cap), an
SSE stream read and its events delivered, and resuming a request's stream cut before its reply
(legacy era: GET with ``Last-Event-ID`` after the server's ``retry`` delay, at most
``resume_attempts`` in a row that bring nothing).

:class:`ResponseStreams` belongs to one ``StreamableHttpTransport`` (streamable_http.py), which
opens the exchanges and owns the session; what the streams need of it is :class:`StreamHost`.
"""

from __future__ import annotations

from typing import Any, Protocol

import anyio
import httpx2

from ..base.framing import OVERLONG_HEAD
from ..traffic.http_log import HttpExchange, HttpLog
from .base import Note, Received, TransportError, TransportEvent
from .http_util import StreamState, content_type, describe_error, head_id, read_capped, read_error_body, status_text
from .http_util import id_key as _key
from .http_util import is_reply as _is_reply
from .http_util import set_header as _set
from .sse_events import SseEvent, SseParser

DEFAULT_RETRY_MS = 1000  # when a stream to reopen or resume gave no retry field
MAX_RETRY_MS = 30_000  # the longest ``retry`` honoured: a server asking for 10^12 ms must not park a request for ever
MIN_RETRY_MS = 100  # the shortest: ``retry: 0`` and a stream closed at once must not become a storm of GETs
REPLY_DRAIN = (
    1.0  # seconds a response stream is read on after its reply (connection reuse; 0.25 s was short under load)
)


class StreamHost(Protocol):
    """What the response streams need of their transport (streamable_http.py imports this module)."""

    url: str
    max_frame_bytes: int
    http_log: HttpLog | None
    resume_attempts: int
    default_retry_ms: int
    max_retry_ms: int

    def emit(self, event: TransportEvent) -> None: ...
    def quote(self, body: bytes) -> str: ...
    def base_headers(self) -> dict[str, str]: ...
    async def open_exchange(
        self, method: str, headers: dict[str, str], **options: Any
    ) -> tuple[httpx2.Response, HttpExchange | None]: ...
    def finish_exchange(self, exchange: HttpExchange | None, error: str | None = None) -> None: ...
    def note_body(self, exchange: HttpExchange | None, size: int) -> None: ...
    def undelivered(
        self, msg_id: Any, reason: str, status: int | None, exchange: HttpExchange | None, legacy_hint: bool = False
    ) -> None: ...
    def session_gone(self, msg_id: Any, exchange: HttpExchange | None, sent: str | None) -> None: ...
    async def wait_for_side_posts(self) -> None: ...


class ResponseStreams:
    """Reads the bodies and SSE streams of one transport's responses, and resumes cut streams."""

    def __init__(self, host: StreamHost) -> None:
        self.host = host
        self.stream_note = False  # said once: notifications get streams that stay open
        self.resuming: set[str] = set()  # requests whose cut stream is being resumed by GET

    async def pump(
        self,
        response: httpx2.Response,
        exchange: HttpExchange | None,
        parser: SseParser,
        stream: StreamState,
        throttle: bool = False,
    ) -> str | None:
        """Deliver a response's events until it ends (or, for a request, until its reply).
        Returns why it ended when that was a failure. With ``throttle`` (the standalone stream)
        reading pauses while ``MAX_SIDE_POSTS`` answers are waiting to be sent: a server flooding
        us with requests cannot queue answers without bound (memory, and the pool our calls need)."""
        host = self.host
        chunks = response.aiter_bytes()
        try:
            async for chunk in chunks:
                for event in parser.feed(chunk):
                    self._deliver(event, exchange, stream)
                if throttle:
                    await host.wait_for_side_posts()
                if stream.replied:
                    # The reply ends the exchange, and the server closes the stream right after it:
                    # read on briefly to the end, so httpx can keep the connection alive (closed
                    # unread, it was dropped: a new TCP connection for every legacy SSE call).
                    host.finish_exchange(exchange)
                    with anyio.move_on_after(REPLY_DRAIN):
                        async for chunk in chunks:
                            for event in parser.feed(chunk):
                                self._deliver(event, exchange, stream)
                    return None
        except (httpx2.HTTPError, OSError) as exc:
            return describe_error(exc, host.url)
        return None

    def _deliver(self, event: SseEvent, exchange: HttpExchange | None, stream: StreamState) -> None:
        host = self.host
        if host.http_log is not None and exchange is not None:
            host.http_log.event(exchange, event.event, event.id, event.size, event.retry)
        if not event.data and event.problem is None:
            return  # a priming event (an id, empty data) or an empty one: nothing to deliver
        meta: dict[str, Any] = {
            "exchange": exchange.id if exchange else None,
            "status": stream.status,
            "request_id": stream.request_id,
            "sse_id": event.id,
        }
        if event.event != "message":
            meta["sse_event"] = event.event
        if event.problem is not None:
            meta.update(truncated=True, size=event.size, cap=host.max_frame_bytes)
        if stream.request_id is not None and not stream.replied and _is_reply(event.data, stream.request_id):
            stream.replied = True
        host.emit(Received(event.data, meta, event.problem))

    async def read_notification_stream(self, response: httpx2.Response, exchange: HttpExchange | None) -> None:
        """A notification (or response) answered with an SSE stream instead of 202: what comes within
        ``REPLY_DRAIN`` is delivered, then it is closed (as the TypeScript SDK does at once), so streams
        that never end cannot take the whole connection pool, one notification at a time."""
        host = self.host
        parser = SseParser(host.max_frame_bytes)
        error = None
        with anyio.move_on_after(REPLY_DRAIN) as scope:
            error = await self.pump(response, exchange, parser, StreamState(None, response.status_code))
        if scope.cancelled_caught and not self.stream_note:
            self.stream_note = True
            host.emit(
                Note(
                    "the server answers notifications with SSE streams that stay open (the spec says 202 Accepted): "
                    f"each is closed after {REPLY_DRAIN:g} s",
                    {"exchange": exchange.id if exchange else None},
                )
            )
        host.finish_exchange(exchange, error)

    async def read_post_stream(
        self, response: httpx2.Response, exchange: HttpExchange | None, request_id: Any, modern: bool
    ) -> None:
        host = self.host
        stream = StreamState(request_id, response.status_code)
        parser = SseParser(host.max_frame_bytes)
        error = await self.pump(response, exchange, parser, stream)
        dropped = parser.finish()
        if request_id is None or stream.replied:
            host.finish_exchange(exchange, error)
            return
        why = error or "the server closed the stream"
        if dropped:
            why += f" in the middle of an event ({dropped} bytes lost)"
        host.finish_exchange(exchange, why)
        if not modern and parser.last_event_id:
            self.resuming.add(_key(request_id))
            try:
                await self._resume(request_id, parser, exchange, stream, why)
            finally:
                self.resuming.discard(_key(request_id))
            return
        reason = f"the response stream ended before the reply: {why}"
        if modern:
            reason += " (2026-07-28 streams cannot be resumed: send the request again)"
        host.undelivered(request_id, reason, stream.status, exchange)

    async def _resume(
        self, request_id: Any, parser: SseParser, exchange: HttpExchange | None, stream: StreamState, why: str
    ) -> None:
        """Resume a cut POST stream by GET with Last-Event-ID, after the server's retry delay."""
        host = self.host
        attempts = 0
        previous = exchange
        while attempts < host.resume_attempts:
            attempts += 1
            delay = max(
                MIN_RETRY_MS,
                min(parser.retry if parser.retry is not None else host.default_retry_ms, host.max_retry_ms),
            )
            await anyio.sleep(delay / 1000)
            headers = host.base_headers()
            _set(headers, "Accept", "text/event-stream")
            if parser.last_event_id:
                _set(headers, "Last-Event-ID", parser.last_event_id)
            try:
                response, ex = await host.open_exchange(
                    "GET",
                    headers,
                    rpc_id=request_id,
                    note="resume",
                    resumes=previous.id if previous is not None else None,
                )
            except (httpx2.HTTPError, TransportError, OSError) as exc:
                why = describe_error(exc, host.url)
                continue
            try:
                if response.status_code == 404 and headers.get("Mcp-Session-Id"):
                    _, size = await read_error_body(response)
                    host.note_body(ex, size)
                    host.finish_exchange(ex, status_text(response))
                    host.session_gone(request_id, ex, headers.get("Mcp-Session-Id"))
                    return
                if not response.is_success or content_type(response) != "text/event-stream":
                    body, size = await read_error_body(response)
                    host.note_body(ex, size)
                    why = f"resuming got {status_text(response)}: {host.quote(body)}"
                    host.finish_exchange(ex, why)
                    previous = ex
                    if response.status_code in (400, 404, 405):
                        break  # the server does not resume streams
                    continue
                again = SseParser(host.max_frame_bytes)
                again.last_event_id, again.retry = parser.last_event_id, parser.retry
                stream.status = response.status_code
                error = await self.pump(response, ex, again, stream)
                dropped = again.finish()
                previous = ex
                if stream.replied:
                    host.finish_exchange(ex, error)
                    return
                if again.events_seen or again.last_event_id != parser.last_event_id:
                    attempts = 0  # progress: the budget is for attempts in a row that bring nothing
                parser = again
                why = error or "the server closed the stream"
                if dropped:
                    why += f" in the middle of an event ({dropped} bytes lost)"
                host.finish_exchange(ex, why)
            finally:
                with anyio.CancelScope(shield=True), anyio.move_on_after(2.0):
                    await response.aclose()
        host.undelivered(
            request_id,
            f"the response stream ended before the reply and could not be resumed "
            f"({attempts} attempt{'s' if attempts != 1 else ''}): {why}",
            stream.status,
            previous,
        )

    async def read_json_body(
        self, response: httpx2.Response, exchange: HttpExchange | None, msg_id: Any, is_request: bool, kind: str
    ) -> None:
        """A 2xx answered with a body, not a stream: read up to the frame cap and delivered as one
        frame; a request it cannot answer (empty, another content type, not its reply, over the
        cap with no id in its head) is undelivered now rather than at its timeout."""
        host = self.host
        status = response.status_code
        body, size, over = await read_capped(response, host.max_frame_bytes, OVERLONG_HEAD)
        host.note_body(exchange, size)
        host.finish_exchange(
            exchange,
            f"the body is over the frame cap ({host.max_frame_bytes} bytes): not read further" if over else None,
        )
        if not is_request:
            return
        if not body.strip() and not over:
            host.undelivered(
                msg_id, f"{status_text(response)} with an empty body in answer to a request", status, exchange
            )
            return
        if kind and kind != "application/json" and not kind.endswith("+json"):
            host.undelivered(
                msg_id,
                f"{status_text(response)} with content type {kind!r} (expected application/json "
                f"or text/event-stream): {host.quote(body)}",
                status,
                exchange,
            )
            return
        meta = {
            "exchange": exchange.id if exchange else None,
            "status": status,
            "request_id": msg_id,
            "sse_id": None,
        }
        if over:
            meta.update(truncated=True, size=size, cap=host.max_frame_bytes)
            problem = (
                f"too long: more than {host.max_frame_bytes} bytes (cap {host.max_frame_bytes}); the rest was not read"
            )
            host.emit(Received(body, meta, problem))
            if msg_id is not None and head_id(body) != msg_id:
                # Its head does not name the request (the id comes late, or only whitespace so far),
                # so the frame cannot end it: this body is its answer, it fails now, not at its timeout.
                host.undelivered(msg_id, f"{status_text(response)}: the JSON reply is {problem}", status, exchange)
            return
        host.emit(Received(body, meta))
        if msg_id is not None and not _is_reply(body, msg_id):
            # Kept as a frame above; the request itself will get nothing more.
            host.undelivered(
                msg_id,
                f"{status_text(response)}: the JSON body does not answer the request: {host.quote(body)}",
                status,
                exchange,
            )
