"""The standalone GET stream of legacy Streamable HTTP (2025-03-26 … 2025-11-25).

After ``notifications/initialized`` the client opens ``GET`` with ``Accept:
text/event-stream`` for messages the server starts on its own. A 405 means the
server offers none (noted once, not retried); a stream that ends is reopened
with ``Last-Event-ID`` after the server's ``retry`` delay, backing off while it
brings no events. A mixin of ``StreamableHttpTransport``: it uses its
``_open``/``_pump``/``_finish``/``_emit`` helpers and session state.
"""

from __future__ import annotations

import anyio
import httpx2

from .base import Note, TransportError
from .http_util import (
    LazyEvent,
    StreamState,
    content_type,
    describe_error,
    quote_body,
    read_error_body,
    status_text,
)
from .http_util import (
    set_header as _set,
)
from .sse_events import SseParser

DEFAULT_RETRY_MS = 1000  # when a stream to reopen or resume gave no retry field
MAX_RETRY_MS = 30_000  # the longest ``retry`` honoured: a server asking for 10^12 ms must not park a request for ever
MIN_RETRY_MS = 100  # the shortest: ``retry: 0`` and a stream closed at once must not become a storm of GETs
STANDALONE_FAILURES = 3  # standalone GET failures in a row before it is left closed


class StandaloneStream:
    """The standalone-stream part of ``StreamableHttpTransport``."""

    _standalone: anyio.CancelScope | None
    _standalone_ready: LazyEvent
    _standalone_note: bool
    _secrets: list[str]
    max_retry_ms: int
    #: Why the standalone stream was given up after failures (the server unreachable, or closing
    #: it again and again), else None: what the server starts on its own cannot arrive any more.
    standalone_gone: str | None = None
    #: Why the server offers no standalone stream (GET answered 405, or refused), else None.
    standalone_refused: str | None = None

    def _open_standalone(self) -> None:
        if self._tg is None or self._closing or self._standalone is not None:
            return
        self._standalone = anyio.CancelScope()
        self.standalone_gone = self.standalone_refused = None
        self._standalone_ready = LazyEvent()
        self._tg.start_soon(self._standalone_loop, self._standalone)

    async def _standalone_loop(self, scope: anyio.CancelScope) -> None:
        assert self.client is not None
        try:
            await self._standalone_stream(scope)
        except Exception as exc:  # a last resort: the stream is optional, the connection goes on
            self._emit(Note(f"standalone SSE stream failed: {exc.__class__.__name__}: {exc}"))  # type: ignore[attr-defined]  # a mixin: self is the Streamable HTTP transport
        finally:
            self._standalone_ready.set()

    async def _standalone_stream(self, scope: anyio.CancelScope) -> None:
        assert self.client is not None
        with scope:
            failures = 0
            last_id: str | None = None
            retry: int | None = None
            while not self._closing:
                headers = self._base_headers()
                _set(headers, "Accept", "text/event-stream")
                if last_id:
                    _set(headers, "Last-Event-ID", last_id)
                try:
                    response, exchange = await self._open("GET", headers, note="standalone stream", read_timeout=None)
                except (httpx2.HTTPError, TransportError, OSError) as exc:
                    self._standalone_ready.set()
                    failures += 1
                    if failures >= STANDALONE_FAILURES:
                        self.standalone_gone = f"standalone SSE stream: {describe_error(exc, self.url)}; not retried"
                        self._emit(Note(self.standalone_gone))
                        return
                    await anyio.sleep(min(2**failures, 30))
                    continue
                self._standalone_ready.set()
                try:
                    status = response.status_code
                    if status == 405 or not response.is_success or content_type(response) != "text/event-stream":
                        body, size = await read_error_body(response)
                        self._body(exchange, size)
                        self._finish(exchange, None if status == 405 else status_text(response))
                        if status == 404 and headers.get("Mcp-Session-Id"):
                            self._session_gone(None, exchange, headers.get("Mcp-Session-Id"))
                        elif not self._standalone_note:
                            self._standalone_note = True
                            what = (
                                "the server offers no standalone SSE stream (GET answered 405)"
                                if status == 405
                                else f"standalone SSE stream refused: {status_text(response)}: "
                                f"{quote_body(body, self._secrets)}; not retried"
                            )
                            self._emit(Note(what, {"exchange": exchange.id if exchange else None, "status": status}))
                        if not (status == 404 and headers.get("Mcp-Session-Id")):
                            self.standalone_refused = (
                                "the server offers no standalone SSE stream (GET answered 405)"
                                if status == 405
                                else f"standalone SSE stream refused: {status_text(response)}"
                            )
                        return
                    parser = SseParser(self.max_frame_bytes)
                    parser.last_event_id, parser.retry = last_id, retry
                    error = await self._pump(response, exchange, parser, StreamState(None, status), throttle=True)
                    parser.finish()
                    self._finish(exchange, error)
                    last_id, retry = parser.last_event_id, parser.retry
                    failures = 0 if parser.events_seen else failures + 1
                finally:
                    with anyio.CancelScope(shield=True), anyio.move_on_after(2.0):
                        await response.aclose()
                if failures >= STANDALONE_FAILURES * 2:
                    self.standalone_gone = (
                        "standalone SSE stream: the server keeps closing it without events; not reopened"
                    )
                    self._emit(Note(self.standalone_gone))
                    return
                delay = max(MIN_RETRY_MS, min(retry if retry is not None else DEFAULT_RETRY_MS, self.max_retry_ms))
                await anyio.sleep(delay / 1000 * (2 ** min(failures, 5)))
