"""The standalone GET stream of legacy Streamable HTTP (2025-03-26 … 2025-11-25).

After ``notifications/initialized`` the client opens ``GET`` with ``Accept:
text/event-stream`` for messages the server starts on its own. A 405 means the
server offers none (noted once, not retried); a stream that ends is reopened
with ``Last-Event-ID`` after the server's ``retry`` delay, backing off while it
brings no events. :class:`StandaloneStream` belongs to one ``StreamableHttpTransport``
(``transport.standalone``); what it needs of it is :class:`StandaloneHost`.
"""

from __future__ import annotations

from typing import Protocol

import anyio
import anyio.abc
import httpx2

from .base import Note, TransportError
from .http_streams import DEFAULT_RETRY_MS, MIN_RETRY_MS, ResponseStreams, StreamHost
from .http_util import LazyEvent, StreamState, content_type, describe_error, read_error_body, status_text
from .http_util import set_header as _set
from .sse_events import SseParser

STANDALONE_FAILURES = 3  # standalone GET failures in a row before it is left closed


class StandaloneHost(StreamHost, Protocol):
    """What the standalone stream needs of its transport (streamable_http.py imports this module)."""

    @property
    def closing(self) -> bool: ...
    @property
    def streams(self) -> ResponseStreams: ...


class StandaloneStream:
    """The standalone GET stream of one transport: opened after initialized, reopened, stopped."""

    def __init__(self, host: StandaloneHost) -> None:
        self.host = host
        self._scope: anyio.CancelScope | None = None
        self.ready = LazyEvent()  # set once the standalone GET has its answer (or failed)
        self._noted = False  # the refusal is said once
        #: Why the standalone stream was given up after failures (the server unreachable, or closing
        #: it again and again), else None: what the server starts on its own cannot arrive any more.
        self.gone: str | None = None
        #: Why the server offers no standalone stream (GET answered 405, or refused), else None.
        self.refused: str | None = None

    def open(self, task_group: anyio.abc.TaskGroup) -> None:
        """Open it in ``task_group`` (once: nothing happens while one runs or the transport closes)."""
        if self.host.closing or self._scope is not None:
            return
        self._scope = anyio.CancelScope()
        self.gone = self.refused = None
        self.ready = LazyEvent()
        task_group.start_soon(self._loop, self._scope)

    def stop(self) -> None:
        """Close it (the session it belonged to ended, or the transport closes)."""
        if self._scope is not None:
            self._scope.cancel()
            self._scope = None

    async def _loop(self, scope: anyio.CancelScope) -> None:
        try:
            await self._stream(scope)
        except Exception as exc:  # a last resort: the stream is optional, the connection goes on
            self.host.emit(Note(f"standalone SSE stream failed: {exc.__class__.__name__}: {exc}"))
        finally:
            self.ready.set()

    async def _stream(self, scope: anyio.CancelScope) -> None:
        host = self.host
        with scope:
            failures = 0
            last_id: str | None = None
            retry: int | None = None
            while not host.closing:
                headers = host.base_headers()
                _set(headers, "Accept", "text/event-stream")
                if last_id:
                    _set(headers, "Last-Event-ID", last_id)
                try:
                    response, exchange = await host.open_exchange(
                        "GET", headers, note="standalone stream", read_timeout=None
                    )
                except (httpx2.HTTPError, TransportError, OSError) as exc:
                    self.ready.set()
                    failures += 1
                    if failures >= STANDALONE_FAILURES:
                        self.gone = f"standalone SSE stream: {describe_error(exc, host.url)}; not retried"
                        host.emit(Note(self.gone))
                        return
                    await anyio.sleep(min(2**failures, 30))
                    continue
                self.ready.set()
                try:
                    status = response.status_code
                    if status == 405 or not response.is_success or content_type(response) != "text/event-stream":
                        body, size = await read_error_body(response)
                        host.note_body(exchange, size)
                        host.finish_exchange(exchange, None if status == 405 else status_text(response))
                        if status == 404 and headers.get("Mcp-Session-Id"):
                            host.session_gone(None, exchange, headers.get("Mcp-Session-Id"))
                        elif not self._noted:
                            self._noted = True
                            what = (
                                "the server offers no standalone SSE stream (GET answered 405)"
                                if status == 405
                                else f"standalone SSE stream refused: {status_text(response)}: "
                                f"{host.quote(body)}; not retried"
                            )
                            host.emit(Note(what, {"exchange": exchange.id if exchange else None, "status": status}))
                        if not (status == 404 and headers.get("Mcp-Session-Id")):
                            self.refused = (
                                "the server offers no standalone SSE stream (GET answered 405)"
                                if status == 405
                                else f"standalone SSE stream refused: {status_text(response)}"
                            )
                        return
                    parser = SseParser(host.max_frame_bytes)
                    parser.last_event_id, parser.retry = last_id, retry
                    error = await host.streams.pump(
                        response, exchange, parser, StreamState(None, status), throttle=True
                    )
                    parser.finish()
                    host.finish_exchange(exchange, error)
                    last_id, retry = parser.last_event_id, parser.retry
                    failures = 0 if parser.events_seen else failures + 1
                finally:
                    with anyio.CancelScope(shield=True), anyio.move_on_after(2.0):
                        await response.aclose()
                if failures >= STANDALONE_FAILURES * 2:
                    self.gone = "standalone SSE stream: the server keeps closing it without events; not reopened"
                    host.emit(Note(self.gone))
                    return
                delay = max(MIN_RETRY_MS, min(retry if retry is not None else DEFAULT_RETRY_MS, host.max_retry_ms))
                await anyio.sleep(delay / 1000 * (2 ** min(failures, 5)))
