"""Streamable HTTP, both eras (2025-03-26 … 2025-11-25, and 2026-07-28).

Every message is its own POST, run in its own task so ``send`` returns at once
and many requests can be in flight. A reply comes as one JSON body or as an SSE
stream of frames (server notifications and requests first, the reply last).

Legacy era: the ``Mcp-Session-Id`` from the initialize response goes on every
later request, ``MCP-Protocol-Version`` once the session settled on a version;
after ``notifications/initialized`` a standalone GET stream carries
server-initiated messages; a POST stream that ends before its reply is resumed
by GET with ``Last-Event-ID`` after the server's ``retry`` delay; a 404 on a
request carrying the session id means the server ended the session; ``close``
sends DELETE.

2026-07-28 (a body whose ``_meta`` names that version, or
``set_protocol_version``): POST only, the standard headers from
``http_headers``, no session, no GET stream, no resumption; closing a request's
response stream is its cancellation (``cancel_request``). In the legacy era a request is
cancelled by ``notifications/cancelled``; its stream is closed after that
(``abandon_request``).

Every exchange goes to the HttpLog; failures become ``Undelivered`` (with
``legacy_hint`` on 400/404/405 without a JSON-RPC body, for era detection) or
frames (a non-2xx whose body is a JSON-RPC message), never a traceback.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel
import httpx2

from ..base.errors import quote_line
from ..base.framing import MAX_LINE_BYTES
from ..base.masking import mask_url
from ..traffic.http_log import HttpExchange, HttpLog
from .base import Closed, Note, Received, Sink, TransportError, Undelivered
from .credentials import CredentialPolicy
from .http_base import HttpTransportBase
from .http_headers import body_protocol_version, standard_headers
from .http_standalone import StandaloneStream
from .http_streams import DEFAULT_RETRY_MS, MAX_RETRY_MS, ResponseStreams
from .http_util import (
    ERROR_BODY_CAP,
    LEGACY_HINT_STATUSES,
    AuthHook,
    LazyEvent,
    auth_refusal,
    content_type,
    describe_error,
    is_modern,
    jsonrpc_body,
    open_response,
    quote_body,
    read_error_body,
    redact,
    status_text,
)
from .http_util import (
    id_key as _key,
)
from .http_util import (
    parse_json as _parse,
)
from .http_util import (
    set_header as _set,
)

_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")
RESUME_ATTEMPTS = 5  # GETs in a row without progress before a request is given up
DELETE_LIMIT = 5.0  # seconds the session DELETE may take at close
STANDALONE_WAIT = 1.0  # seconds later messages wait for the standalone GET's answer after initialized
MAX_SIDE_POSTS = 64  # notifications/responses waiting to be sent before the standalone stream pauses


class StreamableHttpTransport(HttpTransportBase):
    kind = "http"

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
        resume_attempts: int = RESUME_ATTEMPTS,
        default_retry_ms: int = DEFAULT_RETRY_MS,
        max_retry_ms: int = MAX_RETRY_MS,
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
        self.resume_attempts = resume_attempts
        self.default_retry_ms = default_retry_ms
        self.max_retry_ms = max_retry_ms
        self.session_id: str | None = None
        self.successes = 0  # 2xx answers so far (an HTTP+SSE fallback only makes sense before the first)
        self._inflight: dict[str, tuple[anyio.CancelScope, bool]] = {}  # request id -> (its task's scope, modern)
        self._live: set[HttpExchange] = set()  # exchanges whose response is still being read
        self.on_session_expired = None
        self.streams = ResponseStreams(self)  # reading SSE responses, resuming cut ones (http_streams.py)
        self.standalone = StandaloneStream(self)  # the legacy GET stream (http_standalone.py)

    # -- facts -------------------------------------------------------------
    @property
    def modern(self) -> bool:
        return is_modern(self.protocol_version)

    @property
    def standalone_gone(self) -> str | None:
        """Why the standalone stream was given up after failures, else None (http_standalone.py)."""
        return self.standalone.gone

    @property
    def standalone_refused(self) -> str | None:
        """Why the server offers no standalone stream, else None (http_standalone.py)."""
        return self.standalone.refused

    @property
    def details(self) -> dict[str, Any]:
        info: dict[str, Any] = {"url": mask_url(self.url), "mode": "streamable-http"}
        if self.session_id:
            info["session id"] = self.session_id
        if self.protocol_version:
            info["protocol version"] = self.protocol_version
        return info

    # -- lifecycle ---------------------------------------------------------
    async def start(self, task_group: anyio.abc.TaskGroup, sink: Sink) -> None:
        self._begin(task_group, sink)

    def undelivered(
        self, msg_id: Any, reason: str, status: int | None, exchange: HttpExchange | None, legacy_hint: bool = False
    ) -> None:
        if self._closing:
            return
        meta = {"status": status, "exchange": exchange.id if exchange is not None else None, "legacy_hint": legacy_hint}
        self.emit(Undelivered(msg_id, reason, meta))

    async def close(self) -> None:
        if self._closing:
            await self._closed_event.wait()
            return
        self._closing = True
        with anyio.CancelScope(shield=True):
            if self.session_id and not self.modern and self.client is not None:
                await self._delete_session()
            for scope in list(self._tasks):
                scope.cancel()
            self.standalone.stop()
            await anyio.lowlevel.checkpoint()
            for exchange in list(self._live):
                self.finish_exchange(exchange)  # streams the client closed: done, not failed
            if self.owns_client and self.client is not None:
                with contextlib.suppress(Exception):
                    await self.client.aclose()
            if self.emit_closed and self._sink is not None:
                self._sink(Closed("the client closed the connection", expected=True))
            self._closed = True
            self._closed_event.set()

    async def _delete_session(self) -> None:
        assert self.client is not None
        headers = self.base_headers()
        with anyio.move_on_after(DELETE_LIMIT):
            try:
                response, exchange = await self.open_exchange("DELETE", headers, note="session end")
            except (httpx2.HTTPError, TransportError, OSError) as exc:
                self.emit(Note(f"ending the session: {describe_error(exc, self.url)}"))
                return
            try:
                await read_error_body(response)
            except (httpx2.HTTPError, OSError):
                pass
            finally:
                await response.aclose()
            ok = response.is_success or response.status_code == 405
            if self.http_log is not None and exchange is not None:
                self.finish_exchange(exchange, None if ok else status_text(response))
            if response.status_code == 405:
                self.emit(
                    Note(
                        "the server does not let clients end sessions (DELETE answered 405)",
                        {"exchange": exchange.id if exchange else None},
                    )
                )

    # -- sending -----------------------------------------------------------
    async def send(self, data: bytes, meta: dict[str, Any] | None = None) -> None:
        if self._closing or self._closed:
            raise TransportError("the connection is closed")
        if self._tg is None or self.client is None:
            raise TransportError("the transport is not started")
        message = _parse(data)
        method = message.get("method") if isinstance(message, dict) else None
        method = method if isinstance(method, str) else None
        has_id = isinstance(message, dict) and "id" in message
        msg_id = message.get("id") if has_id else None
        is_request = method is not None and has_id
        version = body_protocol_version(message)
        modern = is_modern(version) or (version is None and self.modern)
        extra = (meta or {}).get("headers") or {}
        frame_seq = (meta or {}).get("seq")  # the traffic entry of this frame: linked to its exchange
        # The idle timeout between bytes: meta["read_timeout"] (None: none) overrides it; a
        # subscriptions/listen stream is meant to stay quiet for long, so it has none.
        read_timeout: Any = "default"
        if meta and "read_timeout" in meta:
            read_timeout = meta["read_timeout"]
        elif method == "subscriptions/listen":
            read_timeout = None
        # A batch with requests in it (2025-03-26), or bytes that are not JSON (the raw
        # composer), may get a reply too: its body is delivered, though no one request is named.
        if isinstance(message, list):
            expects_reply = any(
                isinstance(item, dict) and isinstance(item.get("method"), str) and "id" in item for item in message
            )
        else:
            expects_reply = is_request or message is None
        previous = self._barrier
        done: anyio.Event | None = None
        if not expects_reply:
            done = anyio.Event()
            self._barrier = done
            self._side_posts += 1  # until its task ends (the standalone stream waits while there are many)
        scope = anyio.CancelScope()
        if is_request:
            self._inflight[_key(msg_id)] = (scope, modern)
        self._tg.start_soon(
            self._post_task,
            data,
            message,
            method,
            msg_id if is_request else None,
            expects_reply,
            modern,
            extra,
            previous,
            done,
            scope,
            read_timeout,
            frame_seq,
        )

    def base_headers(self) -> dict[str, str]:
        headers = dict(self.user_headers)
        if self.session_id and not self.modern:
            _set(headers, "Mcp-Session-Id", self.session_id)
        if self.protocol_version:
            _set(headers, "MCP-Protocol-Version", self.protocol_version)
        return headers

    def _post_headers(self, message: Any, method: str | None, modern: bool, extra: dict[str, Any]) -> dict[str, str]:
        headers = dict(self.user_headers)
        _set(headers, "Accept", "application/json, text/event-stream")
        _set(headers, "Content-Type", "application/json")
        if modern:
            version = body_protocol_version(message) or self.protocol_version
        else:
            if self.session_id and method != "initialize":  # initialize starts a new session
                _set(headers, "Mcp-Session-Id", self.session_id)
            version = self.protocol_version if method != "initialize" else None
        # Mcp-Method/Mcp-Name are required from 2026-07-28 on; older servers ignore them.
        for name, value in standard_headers(message if isinstance(message, dict) else {}, version).items():
            _set(headers, name, value)
        for name, value in extra.items():
            _set(headers, str(name), str(value))
        return headers

    async def _post_task(
        self,
        data: bytes,
        message: Any,
        method: str | None,
        msg_id: Any,
        is_request: bool,
        modern: bool,
        extra: dict[str, Any],
        previous: anyio.Event | None,
        done: anyio.Event | None,
        scope: anyio.CancelScope,
        read_timeout: Any = "default",
        frame_seq: int | None = None,
    ) -> None:
        self._tasks.add(scope)
        exchange_box: list[HttpExchange | None] = [None]
        try:
            with scope:
                if self._closing:
                    return
                if previous is not None:
                    # Notifications keep their order: later messages go after its answer.
                    with anyio.move_on_after(self.connect_timeout * 3):
                        await previous.wait()
                try:
                    await self._post(
                        data,
                        message,
                        method,
                        msg_id,
                        is_request,
                        modern,
                        extra,
                        done,
                        exchange_box,
                        read_timeout,
                        frame_seq,
                    )
                except Exception as exc:  # a last resort: a failure here must not end the whole connection
                    self.finish_exchange(exchange_box[0], f"{exc.__class__.__name__}: {exc}")
                    self.undelivered(
                        msg_id, f"the HTTP transport failed: {exc.__class__.__name__}: {exc}", None, exchange_box[0]
                    )
            if scope.cancelled_caught:
                self.finish_exchange(exchange_box[0], "closed by the client (cancelled)" if not self._closing else None)
        finally:
            if done is not None:
                done.set()
            if not is_request:
                self._side_posts -= 1
                if self._side_posts < MAX_SIDE_POSTS:
                    self._side_room.set()
            self._tasks.discard(scope)
            if is_request:
                entry = self._inflight.get(_key(msg_id))
                if entry is not None and entry[0] is scope:
                    del self._inflight[_key(msg_id)]

    async def _post(
        self,
        data: bytes,
        message: Any,
        method: str | None,
        msg_id: Any,
        is_request: bool,
        modern: bool,
        extra: dict[str, Any],
        done: anyio.Event | None,
        exchange_box: list[Any],
        read_timeout: Any = "default",
        frame_seq: int | None = None,
    ) -> None:
        assert self.client is not None
        headers = self._post_headers(message, method, modern, extra)
        sent_session = headers.get("Mcp-Session-Id")  # the session this request belongs to, if any
        try:
            response, exchange = await self.open_exchange(
                "POST",
                headers,
                content=data,
                rpc_method=method,
                rpc_id=msg_id,
                read_timeout=read_timeout,
                frame_seq=frame_seq,
            )
        except (httpx2.HTTPError, TransportError, OSError) as exc:
            self.undelivered(msg_id, describe_error(exc, self.url), None, getattr(exc, "exchange", None))
            return
        exchange_box[0] = exchange
        opens_stream = method == "notifications/initialized" and not modern and response.is_success
        if done is not None and not opens_stream:
            done.set()  # later messages may go (for initialized: once the standalone stream is open)
        try:
            await self._on_response(response, exchange, message, method, msg_id, is_request, modern, sent_session, done)
        except (httpx2.HTTPError, OSError) as exc:
            why = describe_error(exc, self.url)
            self.finish_exchange(exchange, why)
            if is_request:
                self.undelivered(msg_id, why, response.status_code, exchange)
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(2.0):
                await response.aclose()

    async def open_exchange(
        self, method: str, headers: dict[str, str], **options: Any
    ) -> tuple[httpx2.Response, HttpExchange | None]:
        """``open_response`` on this transport's URL; the exchange is tracked until finished."""
        assert self.client is not None
        response, exchange, _ = await open_response(
            self.client,
            method,
            self.url,
            headers,
            self.credentials,
            http_log=self.http_log,
            auth=self.auth,
            **options,
        )
        if exchange is not None:
            self._live.add(exchange)
        return response, exchange

    def finish_exchange(self, exchange: HttpExchange | None, error: str | None = None) -> None:
        if exchange is None:
            return
        self._live.discard(exchange)
        if self.http_log is not None and exchange.state == "open":
            self.http_log.finish(exchange, redact(error, self._secrets) if error else error)

    async def _on_response(
        self,
        response: httpx2.Response,
        exchange: HttpExchange | None,
        message: Any,
        method: str | None,
        msg_id: Any,
        is_request: bool,
        modern: bool,
        sent_session: str | None,
        done: anyio.Event | None = None,
    ) -> None:
        status = response.status_code
        if response.is_success and not modern and method == "initialize":
            session = response.headers.get("mcp-session-id") or None
            if session is not None and not _VISIBLE_ASCII.fullmatch(session):
                # The spec allows visible ASCII only; anything else cannot be sent back in a header.
                self.emit(
                    Note(
                        f"the server's Mcp-Session-Id is not visible ASCII ({quote_line(ascii(session), 120)}): "
                        "ignored, later requests go without a session",
                        {"exchange": exchange.id if exchange else None},
                    )
                )
                session = None
            if session != self.session_id:
                self.standalone.stop()  # it belonged to the previous session
            self.session_id = session
        if status == 404 and sent_session:
            body, size = await read_error_body(response)
            self.note_body(exchange, size)
            self.finish_exchange(exchange, status_text(response))
            self.session_gone(msg_id, exchange, sent_session)
            return
        kind = content_type(response)
        if response.is_success:
            self.successes += 1
            if method == "notifications/initialized" and not modern:
                # The standalone stream opens before any later request goes out, so that what
                # the server sends there about those requests is not missed (bounded wait).
                if self._tg is not None:
                    self.standalone.open(self._tg)
                with anyio.move_on_after(STANDALONE_WAIT):
                    await self.standalone.ready.wait()
                if done is not None:
                    done.set()
            if kind == "text/event-stream":
                if not is_request:
                    await self.streams.read_notification_stream(response, exchange)
                    return
                await self.streams.read_post_stream(response, exchange, msg_id, modern)
                return
            await self.streams.read_json_body(response, exchange, msg_id, is_request, kind)
            return
        body, size = await read_error_body(response)
        self.note_body(exchange, size)
        self.finish_exchange(exchange, status_text(response))
        parsed = jsonrpc_body(body) if size <= ERROR_BODY_CAP else None
        if parsed is not None:
            meta = {
                "exchange": exchange.id if exchange else None,
                "status": status,
                "request_id": msg_id,
                "sse_id": None,
            }
            self.emit(Received(body, meta))
            answers = (
                isinstance(parsed, dict)
                and ("result" in parsed or "error" in parsed)
                and parsed.get("id") in (msg_id, None)
            )
            if is_request and not answers:
                self.undelivered(
                    msg_id, f"{status_text(response)}: the JSON-RPC body does not answer the request", status, exchange
                )
            return
        reason = f"{status_text(response)}: {self.quote(body)}"
        reason += auth_refusal(response)
        self.undelivered(msg_id, reason, status, exchange, legacy_hint=status in LEGACY_HINT_STATUSES)

    async def wait_for_side_posts(self) -> None:
        """While ``MAX_SIDE_POSTS`` notifications and responses wait to be sent (the standalone stream
        pauses reading then)."""
        await anyio.lowlevel.checkpoint()  # the connection's handlers answer what was just delivered
        while self._side_posts >= MAX_SIDE_POSTS and not self._closing:
            self._side_room = LazyEvent()
            await self._side_room.wait()

    def quote(self, body: bytes) -> str:
        """A server body quoted for a message, the user's secrets masked."""
        return quote_body(body, self._secrets)

    def note_body(self, exchange: HttpExchange | None, size: int) -> None:
        if self.http_log is not None and exchange is not None:
            self.http_log.body(exchange, size)

    def session_gone(self, msg_id: Any, exchange: HttpExchange | None, sent: str | None) -> None:
        """A 404 for a request that carried session ``sent``. Only the current session's
        end counts: a late 404 for one already replaced just fails its request."""
        if self._closing:
            return
        if sent != self.session_id:
            if msg_id is not None:
                self.undelivered(msg_id, f"HTTP 404: the server no longer knows session {sent}", 404, exchange)
            return
        had = self.session_id
        self.session_id = None
        self.standalone.stop()
        if had is not None:
            self.emit(
                Note(
                    f"the server ended the session {had} (HTTP 404): initialize again to continue",
                    {"exchange": exchange.id if exchange else None, "status": 404},
                )
            )
        if msg_id is not None:
            self.undelivered(msg_id, "HTTP 404: the server no longer knows this session", 404, exchange)
        if had is not None and self.on_session_expired is not None:
            try:
                self.on_session_expired()
            except Exception as exc:  # the session's callback must not break the transport
                self.emit(Note(f"session expiry handler failed: {exc.__class__.__name__}: {exc}"))

    # -- cancellation --------------------------------------------------------
    async def cancel_request(self, msg_id: Any) -> str | None:
        entry = self._inflight.get(_key(msg_id))
        modern = entry[1] if entry is not None else self.modern
        if not modern:
            if entry is not None and _key(msg_id) in self.streams.resuming:
                entry[0].cancel()  # no one waits for it any more: stop polling for its reply
            return None  # legacy era: a disconnect is not a cancellation; send notifications/cancelled
        if entry is not None:
            entry[0].cancel()
            return f"closed the response stream of request {msg_id!r} (the 2026-07-28 cancellation on HTTP)"
        return f"request {msg_id!r} has no open response stream (nothing to close)"

    async def abandon_request(self, msg_id: Any) -> None:
        """Legacy era, after ``notifications/cancelled``: the request's response stream (or its
        resumption) is of no use any more; closed, so it does not stay open for the server's time."""
        entry = self._inflight.get(_key(msg_id))
        if entry is not None:
            entry[0].cancel()
