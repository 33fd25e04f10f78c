"""``HttpTransport``: the one HTTP transport callers use.

``mode="streamable-http"`` speaks Streamable HTTP (both eras, see
``streamable_http``); ``mode="sse"`` the 2024-11-05 HTTP+SSE transport (see
``legacy_sse``); ``mode="auto"`` starts with Streamable HTTP and lets the
session switch the same object to HTTP+SSE (``fall_back_to_sse``) when its first
request gets 400/404/405 without a JSON-RPC body: the spec's
backwards-compatibility procedure. One ``httpx2.AsyncClient`` serves both.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import httpx2

from ..base.framing import MAX_LINE_BYTES
from ..base.masking import mask_url
from ..traffic.http_log import HttpLog
from .base import Note, Sink, Transport, TransportError
from .credentials import CredentialPolicy
from .http_util import AuthHook, check_url, make_client
from .streamable_http import StreamableHttpTransport

if TYPE_CHECKING:
    from .legacy_sse import LegacySseTransport

MODES = ("auto", "streamable-http", "sse")


class HttpTransport(Transport):
    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        mode: str = "auto",
        verify: bool = True,
        connect_timeout: float = 10.0,
        read_timeout: float | None = 300.0,
        max_frame_bytes: int = MAX_LINE_BYTES,
        http_log: HttpLog | None = None,
        auth: AuthHook | None = None,
    ) -> None:
        if mode not in MODES:
            raise TransportError(f"unknown HTTP mode {mode!r} (use one of {', '.join(MODES)})")
        self.url = check_url(url)
        self.headers = dict(headers or {})
        #: where the user's headers, the OAuth token and the session id may go (both inner transports)
        self.credentials = CredentialPolicy(self.url, self.headers)
        self.mode = mode
        self.verify = verify
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_frame_bytes = max_frame_bytes
        self.http_log = http_log
        #: The OAuth client (core/auth/manager.OAuthManager), or None: no authorization.
        self.auth = auth
        self.client: httpx2.AsyncClient | None = None
        self._sink: Sink | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._protocol_version: str | None = None
        self.fell_back = False
        self.inner: StreamableHttpTransport | LegacySseTransport = self._make(
            "sse" if mode == "sse" else "streamable-http"
        )
        self.on_session_expired = None

    def _make(self, kind: str) -> StreamableHttpTransport | LegacySseTransport:
        cls: type[StreamableHttpTransport | LegacySseTransport] = StreamableHttpTransport
        if kind == "sse":  # (--transport sse, or a fall-back: its module is not loaded otherwise)
            from .legacy_sse import LegacySseTransport

            cls = LegacySseTransport
        inner = cls(
            self.url,
            headers=self.headers,
            client=self.client,
            verify=self.verify,
            connect_timeout=self.connect_timeout,
            read_timeout=self.read_timeout,
            max_frame_bytes=self.max_frame_bytes,
            http_log=self.http_log,
            auth=self.auth,
            credentials=self.credentials,
        )
        inner.owns_client = False  # the client is ours, shared across a fallback
        inner.on_session_expired = self._session_expired
        if self._protocol_version is not None:
            inner.set_protocol_version(self._protocol_version)
        return inner

    def _session_expired(self) -> None:
        callback = self.on_session_expired
        if callback is not None:
            callback()

    # -- facts -----------------------------------------------------------------
    @property
    def kind(self) -> str:  # type: ignore[override]  # a property where the base has a plain attribute
        return self.inner.kind

    @property
    def description(self) -> str:
        return mask_url(self.url)

    @property
    def details(self) -> dict[str, Any]:
        info = dict(self.inner.details)
        info["mode"] = (
            f"{self.mode}: {info.get('mode', self.inner.kind)}" if self.mode == "auto" else info.get("mode", self.mode)
        )
        if self.fell_back:
            info["fallback"] = "HTTP+SSE after Streamable HTTP failed"
        return info

    @property
    def session_id(self) -> str | None:
        return getattr(self.inner, "session_id", None)

    @property
    def can_fall_back(self) -> bool:
        """True in mode "auto" while Streamable HTTP has had no successful exchange."""
        return (
            self.mode == "auto"
            and not self.fell_back
            and isinstance(self.inner, StreamableHttpTransport)
            and self.inner.successes == 0
        )

    # -- the Transport interface ------------------------------------------------
    async def start(self, task_group: anyio.abc.TaskGroup, sink: Sink) -> None:
        self._tg = task_group
        self._sink = sink
        if self.client is None:
            self.client = make_client(self.verify, self.connect_timeout, self.read_timeout)
        if self.auth is not None:
            self.auth.attach(self.client)
        self.inner.client = self.client
        try:
            await self.inner.start(task_group, sink)
        except BaseException:
            await self._close_client()
            raise

    async def send(self, data: bytes, meta: dict[str, Any] | None = None) -> None:
        if self.auth is not None and getattr(self.auth, "protocol_version", "") is None:
            self.auth.protocol_version = _proposed_version(data)
        await self.inner.send(data, meta)

    @property
    def authorizing(self) -> bool:
        """An OAuth flow is running (a person may be in a browser): request timeouts wait."""
        return bool(getattr(self.auth, "authorizing", False))

    def set_protocol_version(self, version: str | None) -> None:
        self._protocol_version = version
        self.inner.set_protocol_version(version)
        if self.auth is not None and version:
            self.auth.protocol_version = version

    async def cancel_request(self, msg_id: Any) -> str | None:
        return await self.inner.cancel_request(msg_id)

    async def abandon_request(self, msg_id: Any) -> None:
        await self.inner.abandon_request(msg_id)

    async def close(self) -> None:
        try:
            await self.inner.close()
        finally:
            await self._close_client()

    async def _close_client(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            with anyio.CancelScope(shield=True):
                with contextlib.suppress(Exception):
                    await client.aclose()

    async def fall_back_to_sse(self, reason: str) -> None:
        """Switch to the 2024-11-05 HTTP+SSE transport at the same URL.

        Raises TransportError when the server does not offer it either (no SSE
        stream, no endpoint event in time): then the server speaks neither."""
        if self._tg is None or self._sink is None or self.client is None:
            raise TransportError("the transport is not started")
        if not isinstance(self.inner, StreamableHttpTransport):  # HTTP+SSE already
            return
        self._sink(Note(f"falling back to the 2024-11-05 HTTP+SSE transport: {reason}", {"fallback": "sse"}))
        old = self.inner
        old.emit_closed = False
        await old.close()
        new = self._make("sse")
        new.client = self.client
        self.inner = new
        self.fell_back = True
        try:
            await new.start(self._tg, self._sink)
        except TransportError as exc:
            raise TransportError(f"the server speaks neither Streamable HTTP ({reason}) nor HTTP+SSE ({exc})") from None


def _proposed_version(data: bytes) -> str | None:
    """The protocol version a message proposes (initialize's ``protocolVersion``, or the
    2026-07-28 ``_meta``), for discovery's era-dependent fallbacks."""
    from .http_headers import body_protocol_version
    from .http_util import parse_json

    message = parse_json(data)
    if not isinstance(message, dict):
        return None
    params = message.get("params")
    if (
        message.get("method") == "initialize"
        and isinstance(params, dict)
        and isinstance(params.get("protocolVersion"), str)
    ):
        return params["protocolVersion"]
    return body_protocol_version(message)
