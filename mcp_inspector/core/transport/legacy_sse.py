"""The 2024-11-05 HTTP+SSE transport (deprecated since 2025-03-26, still met in the wild).

GET the URL for an SSE stream; its first event, ``endpoint``, gives the URI to
POST messages to (resolved against the stream's URL). One on another origin than the URL
the user named is refused, in words naming both origins: the user's headers and tokens go
only there (``CredentialPolicy``), and a server whose stream was redirected elsewhere is
reached by naming that URL.
Every server message, responses included, arrives as a ``message`` event on
that stream; a POST only gets 202 (or 200) and its body is ignored. When the
stream ends the connection is over: ``Closed``.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any
from urllib.parse import urljoin

import anyio
import anyio.abc
import anyio.lowlevel
import httpx2

from ..base.errors import quote_line
from ..base.framing import MAX_LINE_BYTES
from ..base.masking import mask_url
from ..traffic.http_log import HttpExchange, HttpLog
from .base import Closed, Note, Received, Sink, TransportError, Undelivered
from .credentials import CredentialPolicy, origin_text
from .http_base import HttpTransportBase
from .http_util import (
    AuthHook,
    auth_refusal,
    check_url,
    content_type,
    describe_error,
    open_response,
    printable,
    quote_body,
    read_error_body,
    redact,
    status_text,
)
from .http_util import LazyEvent as _LazyEvent
from .sse_events import SseParser

ENDPOINT_TIMEOUT = 10.0
MAX_SIDE_POSTS = 64  # notifications/responses waiting to be sent before the stream pauses
ENDPOINT_QUOTE = 300  # characters of an endpoint URI quoted in a message


class LegacySseTransport(HttpTransportBase):
    kind = "sse"

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        client: httpx2.AsyncClient | None = None,
        verify: bool = True,
        connect_timeout: float = 10.0,
        read_timeout: float | None = 300.0,
        max_frame_bytes: int = MAX_LINE_BYTES,
        http_log: HttpLog | None = None,
        endpoint_timeout: float = ENDPOINT_TIMEOUT,
        auth: AuthHook | None = None,
        credentials: CredentialPolicy | None = None,
    ) -> None:
        super().__init__(
            url,
            headers=headers,
            client=client,
            verify=verify,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            max_frame_bytes=max_frame_bytes,
            http_log=http_log,
            auth=auth,
            credentials=credentials,
        )
        self.endpoint_timeout = endpoint_timeout
        self.endpoint: str | None = None
        self._ready = _LazyEvent()
        self._failure: str | None = None
        self._reader_scope: anyio.CancelScope | None = None  # made in start (needs a running loop)
        self.stream_exchange: HttpExchange | None = None

    @property
    def details(self) -> dict[str, Any]:
        info: dict[str, Any] = {"url": mask_url(self.url), "mode": "sse (HTTP+SSE, 2024-11-05)"}
        if self.endpoint:
            info["endpoint"] = mask_url(self.endpoint)
        if self.protocol_version:
            info["protocol version"] = self.protocol_version
        return info

    # -- the SSE stream ------------------------------------------------------
    async def start(self, task_group: anyio.abc.TaskGroup, sink: Sink) -> None:
        """Open the stream and wait (bounded) for the ``endpoint`` event."""
        client = self._begin(task_group, sink)
        self._reader_scope = anyio.CancelScope()
        task_group.start_soon(self._reader, self._reader_scope)
        with anyio.move_on_after(self.endpoint_timeout):
            await self._ready.wait()
        while self.endpoint is None and not self._ready.is_set() and getattr(self.auth, "authorizing", False):
            with anyio.move_on_after(self.endpoint_timeout):  # a person authorizing: the flow has its own limit
                await self._ready.wait()
        if self.endpoint is None:
            self._reader_scope.cancel()
            reason = redact(
                self._failure or f"no endpoint event on the SSE stream within {self.endpoint_timeout:g} s",
                self._secrets,
            )
            if self.owns_client:
                with anyio.CancelScope(shield=True):
                    await client.aclose()
            self._closed = True
            self._closed_event.set()
            raise TransportError(f"HTTP+SSE: {reason}")

    async def _reader(self, scope: anyio.CancelScope) -> None:
        try:
            await self._read_stream(scope)
        except Exception as exc:  # a last resort: report it as the end of the stream, not a crash
            why = f"the HTTP+SSE stream failed: {exc.__class__.__name__}: {exc}"
            if self.endpoint is None:
                self._failure = why
                self._ready.set()
            elif not self._closing:
                self._report_closed(why)

    async def _read_stream(self, scope: anyio.CancelScope) -> None:
        assert self.client is not None
        headers = dict(self.user_headers)
        headers["Accept"] = "text/event-stream"
        error: str | None = None
        with scope:
            try:
                response, exchange, final_url = await open_response(
                    self.client,
                    "GET",
                    self.url,
                    headers,
                    self.credentials,
                    http_log=self.http_log,
                    note="HTTP+SSE stream",
                    read_timeout=None,
                    auth=self.auth,
                )
            except (httpx2.HTTPError, TransportError, OSError) as exc:
                self._failure = describe_error(exc, self.url)
                self._ready.set()
                return
            self.stream_exchange = exchange
            try:
                if not response.is_success or content_type(response) != "text/event-stream":
                    body, size = await read_error_body(response)
                    if self.http_log is not None and exchange is not None:
                        self.http_log.body(exchange, size)
                    self._failure = (
                        f"GET {mask_url(self.url)} answered {status_text(response)}"
                        f"{'' if response.is_success else ': ' + quote_body(body, self._secrets)}"
                        + (
                            f" with content type {content_type(response)!r}, not an SSE stream"
                            if response.is_success
                            else ""
                        )
                    )
                    self._finish(exchange, self._failure)
                    self._ready.set()
                    return
                error = await self._pump(response, exchange, final_url)
            finally:
                with anyio.CancelScope(shield=True), anyio.move_on_after(2.0):
                    await response.aclose()
            if self._failure is not None:
                self._finish(exchange, self._failure)
                self._ready.set()
                return
            self._finish(exchange, error)
        if self._closing:
            return
        if self.endpoint is None:
            self._failure = f"the SSE stream ended before its endpoint event{': ' + error if error else ''}"
            self._ready.set()
            return
        self._report_closed(f"the server closed the SSE stream{': ' + error if error else ''}")

    async def _pump(self, response: httpx2.Response, exchange: HttpExchange | None, stream_url: str) -> str | None:
        parser = SseParser(self.max_frame_bytes)
        status = response.status_code
        try:
            async for chunk in response.aiter_bytes():
                for event in parser.feed(chunk):
                    if self.http_log is not None and exchange is not None:
                        self.http_log.event(exchange, event.event, event.id, event.size, event.retry)
                    if event.event == "endpoint":
                        if not self._on_endpoint(event.data, stream_url, event.problem):
                            return None
                    elif event.event == "message" and (event.data or event.problem):
                        meta: dict[str, Any] = {
                            "exchange": exchange.id if exchange else None,
                            "status": status,
                            "request_id": None,
                            "sse_id": event.id,
                        }
                        if event.problem is not None:
                            meta.update(truncated=True, size=event.size, cap=self.max_frame_bytes)
                        self.emit(Received(event.data, meta, event.problem))
                # Answers to the server's requests go one at a time: while 64 wait, read no further
                # (a flood of requests must not queue answers without bound).
                await anyio.lowlevel.checkpoint()
                while self._side_posts >= MAX_SIDE_POSTS and not self._closing:
                    self._side_room = _LazyEvent()
                    await self._side_room.wait()
        except (httpx2.HTTPError, OSError) as exc:
            return describe_error(exc, self.url)
        dropped = parser.finish()
        return f"it ended in the middle of an event ({dropped} bytes lost)" if dropped else None

    def _on_endpoint(self, data: bytes, stream_url: str, problem: str | None = None) -> bool:
        """Take the POST endpoint; False (and a failure) when it cannot be used."""
        text = data.decode("utf-8", errors="replace").strip()
        shown = quote_line(printable(mask_url(text)), ENDPOINT_QUOTE)  # server text: bounded, no control characters
        if self.endpoint is not None:
            self.emit(Note(f"HTTP+SSE: a second endpoint event ({shown}) was ignored"))
            return True
        if problem is not None:
            self._failure = f"the endpoint event is {problem}: refused"
            self._ready.set()
            return False
        try:
            resolved = urljoin(stream_url, text)
            same = self.credentials.allows(resolved)  # the origin the user named, not where a redirect went
            if same and text:
                check_url(resolved)  # what httpx cannot send (control characters, too long) fails here, in words
        except (ValueError, TransportError) as exc:
            why = f" (too long: {len(text)} characters)" if "too long" in str(exc) else ""
            self._failure = f"the endpoint event's URI is not valid: {shown}{why}"
            self._ready.set()
            return False
        if not text or not same:
            if not text:
                self._failure = "the endpoint event is empty"
            else:
                self._failure = self.credentials.refusal("the endpoint", resolved)
                if not self.credentials.allows(stream_url):
                    self._failure += (
                        f"; the SSE stream was redirected to {origin_text(stream_url)}:"
                        " connect to that URL if you trust it"
                    )
            self._ready.set()
            return False
        self.endpoint = resolved
        self.emit(Note(f"HTTP+SSE: messages go to {mask_url(resolved)}", {"endpoint": mask_url(resolved)}))
        self._ready.set()
        return True

    def _finish(self, exchange: HttpExchange | None, error: str | None = None) -> None:
        if self.http_log is not None and exchange is not None and exchange.state == "open":
            self.http_log.finish(exchange, redact(error, self._secrets) if error else error)

    def _report_closed(self, reason: str) -> None:
        if self._closed:
            return
        if self.emit_closed and self._sink is not None:
            self._sink(Closed(redact(reason, self._secrets), expected=self._closing))
        self._closed = True
        self._closed_event.set()

    # -- sending ---------------------------------------------------------------
    async def send(self, data: bytes, meta: dict[str, Any] | None = None) -> None:
        if self._closing or self._closed:
            raise TransportError("the connection is closed")
        if self._tg is None or self.endpoint is None:
            raise TransportError("the HTTP+SSE transport has no endpoint yet")
        try:
            message = json.loads(data)
        except (ValueError, RecursionError):
            message = None
        method = message.get("method") if isinstance(message, dict) else None
        msg_id = message.get("id") if isinstance(message, dict) and isinstance(method, str) else None
        is_request = isinstance(message, dict) and isinstance(method, str) and "id" in message
        previous = self._barrier
        done: anyio.Event | None = None
        if not is_request:
            done = anyio.Event()
            self._barrier = done
            self._side_posts += 1  # until its task ends (the stream waits while there are many)
        extra = (meta or {}).get("headers") or {}
        frame_seq = (meta or {}).get("seq")  # the traffic entry of this frame: linked to its exchange
        self._tg.start_soon(
            self._post_task, data, method if isinstance(method, str) else None, msg_id, extra, previous, done, frame_seq
        )

    async def _post_task(
        self,
        data: bytes,
        method: str | None,
        msg_id: Any,
        extra: dict[str, Any],
        previous: anyio.Event | None,
        done: anyio.Event | None,
        frame_seq: int | None = None,
    ) -> None:
        scope = anyio.CancelScope()
        self._tasks.add(scope)
        try:
            with scope:
                if self._closing:
                    return
                if previous is not None:
                    with anyio.move_on_after(self.connect_timeout * 3):
                        await previous.wait()
                try:
                    await self._post(data, method, msg_id, extra, done, frame_seq)
                except Exception as exc:  # a last resort: a failure here must not end the whole connection
                    self._undelivered(msg_id, f"the HTTP transport failed: {exc.__class__.__name__}: {exc}", None, None)
        finally:
            if done is not None:
                done.set()
                self._side_posts -= 1
                if self._side_posts < MAX_SIDE_POSTS:
                    self._side_room.set()
            self._tasks.discard(scope)

    async def _post(
        self,
        data: bytes,
        method: str | None,
        msg_id: Any,
        extra: dict[str, Any],
        done: anyio.Event | None,
        frame_seq: int | None = None,
    ) -> None:
        assert self.client is not None and self.endpoint is not None
        headers = dict(self.user_headers)
        headers["Content-Type"] = "application/json"
        for name, value in extra.items():
            headers[str(name)] = str(value)
        try:
            response, exchange, _ = await open_response(
                self.client,
                "POST",
                self.endpoint,
                headers,
                self.credentials,
                content=data,
                http_log=self.http_log,
                rpc_method=method,
                rpc_id=msg_id,
                auth=self.auth,
                frame_seq=frame_seq,
            )
        except (httpx2.HTTPError, TransportError, OSError) as exc:
            self._undelivered(msg_id, describe_error(exc, self.endpoint), None, getattr(exc, "exchange", None))
            return
        if done is not None:
            done.set()
        try:
            body, size = await read_error_body(response)
        except (httpx2.HTTPError, OSError) as exc:
            body, size = b"", 0
            if not response.is_success:
                self._finish(exchange, describe_error(exc, self.endpoint))
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(2.0):
                await response.aclose()
        if self.http_log is not None and exchange is not None:
            self.http_log.body(exchange, size)
        if response.is_success:
            self._finish(exchange)
            return
        self._finish(exchange, status_text(response))
        self._undelivered(
            msg_id,
            f"{status_text(response)}: {quote_body(body, self._secrets)}{auth_refusal(response)}",
            response.status_code,
            exchange,
        )

    def _undelivered(self, msg_id: Any, reason: str, status: int | None, exchange: HttpExchange | None) -> None:
        if self._closing:
            return
        self.emit(
            Undelivered(
                msg_id, reason, {"status": status, "exchange": exchange.id if exchange else None, "legacy_hint": False}
            )
        )

    async def close(self) -> None:
        if self._closing:
            await self._closed_event.wait()
            return
        self._closing = True
        with anyio.CancelScope(shield=True):
            if self._reader_scope is not None:
                self._reader_scope.cancel()
            for scope in list(self._tasks):
                scope.cancel()
            await anyio.lowlevel.checkpoint()
            self._finish(self.stream_exchange)
            if self.owns_client and self.client is not None:
                with contextlib.suppress(Exception):
                    await self.client.aclose()
            self._report_closed("the client closed the connection")
