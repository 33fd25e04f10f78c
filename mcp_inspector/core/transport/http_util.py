"""Pieces shared by the HTTP transports: the client, requests with careful
redirects (recorded in the HttpLog), bounded body reads, and errors in words.

Redirects are followed here, not by httpx: at most ``MAX_REDIRECTS``. What each hop
carries is the ``CredentialPolicy``'s word: a hop to another origin than the server the
user named drops ``Authorization``, the session id and every header the user supplied (a
token for one server must not reach another), for the rest of the chain.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urljoin, urlsplit

import anyio
import httpx2

from ..base.errors import printable, quote_line
from ..base.masking import mask_url, mask_value
from .base import AUTH_FAILED, AuthHookError, TransportError
from .credentials import CredentialPolicy

if TYPE_CHECKING:
    from ..traffic.http_log import HttpExchange, HttpLog


class AuthHook(Protocol):
    """What ``open_response`` calls around a request (``core/auth/manager.OAuthManager``)."""

    protocol_version: str | None  # set by the transport: discovery's fallbacks depend on it

    def attach(self, client: httpx2.AsyncClient) -> None: ...

    async def prepare(
        self, method: str, url: str, headers: dict[str, str], *, state: dict[str, Any] | None = None
    ) -> None: ...

    async def challenged(
        self,
        method: str,
        url: str,
        status: int,
        headers: Any,
        attempt: int,
        *,
        sent: dict[str, str] | None = None,
        state: dict[str, Any] | None = None,
    ) -> bool: ...

    async def retried(self, method: str, url: str, status: int, exchange_id: int | None = None) -> None: ...


MAX_REDIRECTS = 5
MAX_AUTH_ATTEMPTS = 6  # sendings of one request around authorization (401, step-ups, DPoP nonces)
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
QUOTE_CHARS = 300
ERROR_BODY_CAP = 64 << 10  # what is kept of an error body (enough for a JSON-RPC error, bounded)
ERROR_BODY_LIMIT = 1 << 20  # what is read of an error body at most before the response is closed
LEGACY_HINT_STATUSES = (400, 404, 405)  # the statuses that may mean "an HTTP+SSE server"
MODERN_VERSION = "2026-07-28"
REPLY_PARSE_LIMIT = 1 << 20  # SSE events up to this size are parsed to tell a reply from a notification


class LazyEvent:
    """An ``anyio.Event`` made on first use, so a transport can be built outside an event loop."""

    __slots__ = ("_event", "_set")

    def __init__(self) -> None:
        self._event: anyio.Event | None = None
        self._set = False

    def set(self) -> None:
        self._set = True
        if self._event is not None:
            self._event.set()

    def is_set(self) -> bool:
        return self._set

    async def wait(self) -> None:
        if self._set:
            return
        if self._event is None:
            self._event = anyio.Event()
        await self._event.wait()


def is_modern(version: str | None) -> bool:
    """2026-07-28 and later revisions (dates compare as strings)."""
    return isinstance(version, str) and version >= MODERN_VERSION


def check_url(url: str) -> str:
    """A usable http(s) URL, or a TransportError saying what is wrong (masked)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - read for its ValueError on a port out of range
        httpx2.URL(url)  # raises for what httpx cannot send (spaces in the host, control characters)
    except (ValueError, httpx2.InvalidURL) as exc:
        raise TransportError(f"not a valid URL: {mask_url(url)} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TransportError(f"not an http(s) URL: {mask_url(url)}")
    return url


class _TlsOnFirstUse(httpx2.AsyncBaseTransport):
    """The https:// transport, built (with its SSL context) on the first https request: loading
    the CA store costs ~30 ms, a sixth of a cold ``--url http://... tools``, for nothing over http."""

    def __init__(self, verify: bool) -> None:
        self._verify = verify
        self._inner: httpx2.AsyncHTTPTransport | None = None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self._inner is None:
            self._inner = httpx2.AsyncHTTPTransport(verify=self._verify, http1=True, http2=False)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


def make_client(verify: bool, connect_timeout: float, read_timeout: float | None) -> httpx2.AsyncClient:
    """One client per transport: keep-alive pooling, HTTP/1.1, no automatic redirects.
    httpx's read timeout applies to each read, so it is an idle timeout between bytes.
    Plain http:// goes through a transport without TLS (``verify`` means nothing there);
    https:// (also after a redirect) through one that verifies unless ``verify`` is False."""
    # No pool timeout: a request waiting for one of the pool's connections (all busy with slow
    # calls or long streams) is bounded by its own request timeout, not failed after connect_timeout.
    timeout = httpx2.Timeout(connect=connect_timeout, read=read_timeout, write=connect_timeout * 3, pool=None)
    if any(os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        # httpx routes https through the proxy only when no https:// transport is mounted
        return httpx2.AsyncClient(verify=verify, timeout=timeout, follow_redirects=False, http1=True, http2=False)
    return httpx2.AsyncClient(
        transport=httpx2.AsyncHTTPTransport(verify=False, http1=True, http2=False),
        mounts={"https://": _TlsOnFirstUse(verify)},
        verify=verify,
        timeout=timeout,
        follow_redirects=False,
    )


def timeout_for(client: httpx2.AsyncClient, read: float | None) -> httpx2.Timeout:
    base = client.timeout
    return httpx2.Timeout(connect=base.connect, read=read, write=base.write, pool=base.pool)


def auth_challenge_status(response: httpx2.Response) -> bool:
    """Is this an answer the OAuth client handles: 401, 403 ``insufficient_scope``, or a DPoP
    ``use_dpop_nonce`` challenge (400/401 with a ``DPoP-Nonce``)?"""
    status = response.status_code
    if status == 401:
        return True
    if status == 403:
        return any("insufficient_scope" in value.lower() for value in response.headers.get_list("www-authenticate"))
    return status == 400 and "dpop-nonce" in response.headers


def auth_refusal(response: httpx2.Response) -> str:
    """What a 401 or a 403 with a challenge says, for an error message ("" for other answers)."""
    status = response.status_code
    challenge = ", ".join(response.headers.get_list("www-authenticate"))
    shown = f": WWW-Authenticate {printable(challenge[:200])}" if challenge else ""
    if status == 401:
        return f" (the server wants authorization{shown})"
    if status == 403 and "insufficient_scope" in challenge.lower():
        return f" (the token's scope is not enough{shown})"
    return ""


async def open_response(
    client: httpx2.AsyncClient,
    method: str,
    url: str,
    headers: dict[str, str],
    credentials: CredentialPolicy,
    *,
    content: bytes | None = None,
    http_log: HttpLog | None = None,
    rpc_method: str | None = None,
    rpc_id: Any = None,
    note: str | None = None,
    resumes: int | None = None,
    read_timeout: Any = "default",
    frame_seq: int | None = None,
    auth: AuthHook | None = None,
) -> tuple[httpx2.Response, HttpExchange | None, str]:
    """Send a request and return the streaming response (the caller closes it), its
    HttpLog exchange and the final URL. Raises ``httpx2.HTTPError`` for network
    failures and TransportError for a redirect that cannot be followed. ``credentials``
    says which headers may go to each hop (none of the user's, nor a token or session id,
    to another origin than the server the user named). ``frame_seq``: the traffic entry of
    the frame in the body (``Transport.send``'s ``meta["seq"]``), linked to each exchange.

    With ``auth`` (an ``OAuthManager``): ``auth.prepare`` adds the credentials before each
    sending; an answer it handles (``auth_challenge_status``) has its body read (bounded), its
    exchange finished, and ``auth.challenged`` decides whether the same request goes again
    (at most ``MAX_AUTH_ATTEMPTS`` sendings). When it does not, the answer is returned with
    the body already read (the caller reads it as usual). A challenge from another origin
    than the user's (after a redirect) is returned as it is. A failed authorization is a
    TransportError saying why."""
    if auth is None:
        return await _open_once(
            client,
            method,
            url,
            headers,
            credentials,
            content=content,
            http_log=http_log,
            rpc_method=rpc_method,
            rpc_id=rpc_id,
            note=note,
            resumes=resumes,
            read_timeout=read_timeout,
            frame_seq=frame_seq,
        )
    state: dict[str, Any] = {}  # the request's own, kept by the OAuth client (its step-ups)
    for attempt in range(1, MAX_AUTH_ATTEMPTS + 1):
        sent = dict(headers)
        try:
            await auth.prepare(method, url, sent, state=state)
        except AuthHookError as exc:
            raise TransportError(f"{AUTH_FAILED}{exc}") from None
        response, exchange, final = await _open_once(
            client,
            method,
            url,
            sent,
            credentials,
            content=content,
            http_log=http_log,
            rpc_method=rpc_method,
            rpc_id=rpc_id,
            note=note if attempt == 1 else f"{note or method} (after authorization)",
            resumes=resumes,
            read_timeout=read_timeout,
            frame_seq=frame_seq,
        )
        # a challenge from another origin (a redirect took the request there) is not ours to answer
        if not auth_challenge_status(response) or attempt == MAX_AUTH_ATTEMPTS or not credentials.allows(final):
            if attempt > 1:  # the flow's last step: how the request fared with the new credentials
                await auth.retried(method, url, response.status_code, exchange.id if exchange is not None else None)
            return response, exchange, final
        try:
            body, size = await read_error_body(response)
        finally:
            await response.aclose()
        if http_log is not None and exchange is not None:
            http_log.body(exchange, size)
            http_log.finish(exchange, f"HTTP {response.status_code}: handed to the OAuth client")
        try:
            again = await auth.challenged(
                method, url, response.status_code, response.headers, attempt, sent=sent, state=state
            )
        except AuthHookError as exc:
            raise TransportError(f"{AUTH_FAILED}{exc}") from None
        if not again:
            kept = [
                (name, value)
                for name, value in response.headers.multi_items()
                if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
            ]
            return (
                httpx2.Response(response.status_code, headers=kept, content=body, request=response.request),
                exchange,
                final,
            )
    raise AssertionError("unreachable")


async def _open_once(
    client: httpx2.AsyncClient,
    method: str,
    url: str,
    headers: dict[str, str],
    credentials: CredentialPolicy,
    *,
    content: bytes | None = None,
    http_log: HttpLog | None = None,
    rpc_method: str | None = None,
    rpc_id: Any = None,
    note: str | None = None,
    resumes: int | None = None,
    read_timeout: Any = "default",
    frame_seq: int | None = None,
) -> tuple[httpx2.Response, HttpExchange | None, str]:
    """One sending, following redirects (see ``open_response``)."""
    left = False  # a hop went to another origin: no credentials for the rest of the chain
    for hop in range(MAX_REDIRECTS + 1):
        left = left or not credentials.allows(url)
        if left:
            headers = credentials.strip(headers)
        exchange = None
        if http_log is not None:
            exchange = http_log.begin(
                method,
                url,
                headers,
                rpc_method=rpc_method,
                rpc_id=rpc_id,
                request_size=len(content or b""),
                resumes=resumes,
                note=note if hop == 0 else f"{note or method} (after redirect)",
                frame_seq=frame_seq,  # each hop carried the body
            )
        options: dict[str, Any] = {}
        if read_timeout != "default":
            options["timeout"] = timeout_for(client, read_timeout)
        try:
            request = client.build_request(method, url, content=content, headers=headers, **options)
        except (UnicodeEncodeError, httpx2.InvalidURL, ValueError) as exc:
            if http_log is not None and exchange is not None:
                http_log.finish(exchange, "not sent: the request cannot be built")
            bad = [name for name, value in headers.items() if not value.isascii() or not name.isascii()]
            what = f"header {', '.join(bad)} is not ASCII" if bad else f"{exc.__class__.__name__}: {exc}"
            raise TransportError(
                f"the request to {quote_line(printable(mask_url(url)), QUOTE_CHARS)} cannot be sent: "
                f"{quote_line(printable(what), QUOTE_CHARS)}"
            ) from None
        try:
            response = await client.send(request, stream=True)
        except BaseException as exc:
            if http_log is not None and exchange is not None:
                http_log.finish(exchange, describe_error(exc, url) if isinstance(exc, Exception) else "cancelled")
                with contextlib.suppress(AttributeError):  # for the caller's Undelivered
                    exc.exchange = exchange  # type: ignore[attr-defined]  # an ad-hoc attribute on any exception
            raise
        if http_log is not None and exchange is not None:
            http_log.response(
                exchange, response.status_code, response.reason_phrase, list(response.headers.multi_items())
            )
        if response.status_code not in REDIRECT_STATUSES or "location" not in response.headers:
            return response, exchange, url
        location = urljoin(url, response.headers["location"])
        await response.aclose()
        try:
            check_url(location)
        except TransportError:
            if http_log is not None and exchange is not None:
                http_log.finish(exchange, "redirect to an unusable URL")
            raise TransportError(f"the server redirected to an unusable URL: {mask_url(location)[:300]}") from None
        if http_log is not None and exchange is not None:
            http_log.finish(exchange)
        if hop == MAX_REDIRECTS:
            raise TransportError(f"too many redirects (more than {MAX_REDIRECTS}), the last to {mask_url(location)}")
        if urlsplit(location).scheme not in ("http", "https"):
            raise TransportError(f"redirected to a non-HTTP URL: {mask_url(location)}")
        if response.status_code == 303 and method != "GET":
            raise TransportError(
                f"the server answered {method} with 303 See Other to {mask_url(location)} (not followed: the message "
                "would be lost)"
            )
        url = location
    raise AssertionError("unreachable")


async def read_error_body(response: httpx2.Response) -> tuple[bytes, int]:
    """The head of an error (or ignored) body: ``ERROR_BODY_CAP`` kept, ``ERROR_BODY_LIMIT`` read at most."""
    return await read_bounded(response, ERROR_BODY_CAP, ERROR_BODY_LIMIT)


async def read_bounded(response: httpx2.Response, cap: int, limit: int | None = None) -> tuple[bytes, int]:
    """Read a body keeping at most ``cap`` bytes; returns (the bytes kept, the size read).

    With ``limit`` reading stops there (an error body: a server streaming an endless
    error page must not hold us); without it the whole body is read and counted."""
    parts: list[bytes] = []
    kept = 0
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if kept < cap:
            piece = chunk[: cap - kept]
            parts.append(piece)
            kept += len(piece)
        if limit is not None and size >= limit:
            break
    return b"".join(parts), size


async def read_capped(response: httpx2.Response, cap: int, head: int) -> tuple[bytes, int, bool]:
    """A body of at most ``cap`` bytes: (the body, its size, False). A longer one is
    (its first ``head`` bytes, the size read, True), and reading stops there: a body
    that never ends (or a bomb inflating to gigabytes) cannot hold the request, and
    memory stays at ``cap`` (the parts are not joined)."""
    parts: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        parts.append(chunk)
        if size > cap:
            kept: list[bytes] = []
            left = head
            for part in parts:
                if left <= 0:
                    break
                kept.append(part[:left])
                left -= len(kept[-1])
            return b"".join(kept), size, True
    return b"".join(parts), size, False


def head_id(head: bytes) -> Any:
    """The top-level ``id`` readable in the head of a cut frame (what the connection
    links a too-long frame by), or None."""
    from ..base import jsonrpc
    from ..base.json_text import loads_strict

    try:
        text = jsonrpc.raw_member(head, "id")
        return loads_strict(text) if text is not None else None
    except (ValueError, RecursionError):
        return None


def content_type(response: httpx2.Response) -> str:
    return response.headers.get("content-type", "").split(";", 1)[0].strip().lower()


_TAG = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>", re.S | re.I)


def quote_body(body: bytes, secrets: list[str] | None = None) -> str:
    """A response body as a short one-line quote; an HTML page reads as its text.
    ``secrets`` (``credentials.secret_values``) are masked before it is cut, so no part of one shows."""
    text = body[:ERROR_BODY_CAP].decode("utf-8", errors="replace").strip()
    if text[:1] == "<" and re.search(r"<(!doctype html|html|body|head|title|h1|p|pre)\b", text[:2048], re.I):
        import html  # (an HTML error page only)

        text = html.unescape(_TAG.sub(" ", text))
    text = printable(" ".join(text.split()))  # one line
    if secrets:
        text = redact(text, secrets)
    return quote_line(text, QUOTE_CHARS) if text else "(empty body)"


def redact(text: str, secrets: list[str]) -> str:
    """``text`` (server words going into a message) with each of ``secrets`` masked."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, mask_value(secret))
    return text


def jsonrpc_body(body: bytes) -> Any:
    """The body parsed, when it is a JSON-RPC message or a batch of them; else None."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and "jsonrpc" in value:
        return value
    if isinstance(value, list) and value and all(isinstance(item, dict) and "jsonrpc" in item for item in value):
        return value
    return None


def status_text(response: httpx2.Response) -> str:
    reason = response.reason_phrase
    return f"HTTP {response.status_code}{f' {reason}' if reason else ''}"


def describe_error(exc: BaseException, url: str) -> str:
    """A network failure in words (no traceback, URL masked)."""
    where = mask_url(url)
    chain: list[BaseException] = []
    cursor: BaseException | None = exc
    while cursor is not None and len(chain) < 8:
        chain.append(cursor)
        cursor = cursor.__cause__ or cursor.__context__
    for item in chain:
        if isinstance(item, ssl.SSLCertVerificationError):
            return (
                f"TLS certificate verification failed for {where}: {item.verify_message or item} "
                "(use --insecure to skip the check)"
            )
        if isinstance(item, ssl.SSLError):
            return f"TLS failure talking to {where}: {item.reason or item}"
    if isinstance(exc, httpx2.ConnectTimeout):
        return f"cannot connect to {where}: no answer within the connect timeout"
    if isinstance(exc, httpx2.ReadTimeout):
        return f"the server sent nothing for the read timeout ({where})"
    if isinstance(exc, httpx2.ConnectError):
        detail = str(exc)
        for item in chain:
            if isinstance(item, ConnectionRefusedError) or getattr(item, "errno", None) == 111:
                detail = "connection refused"
                break
            if isinstance(item, OSError) and item.strerror:
                detail = item.strerror
        if detail == "All connection attempts failed":
            detail = "connection refused or unreachable"
        return f"cannot connect to {where}: {detail}"
    if isinstance(exc, httpx2.RemoteProtocolError):
        return f"the connection to {where} broke: {str(exc) or 'the server disconnected'}"
    if isinstance(exc, (httpx2.ReadError, httpx2.WriteError, httpx2.CloseError)):
        return f"the connection to {where} was lost: {str(exc) or exc.__class__.__name__}"
    if isinstance(exc, httpx2.PoolTimeout):
        return f"no free connection to {where} within the pool timeout (all are busy)"
    if isinstance(exc, httpx2.HTTPError):
        return f"HTTP failure for {where}: {str(exc) or exc.__class__.__name__}"
    if isinstance(exc, TransportError):
        return str(exc)
    return f"{exc.__class__.__name__}: {exc}"


def id_key(msg_id: Any) -> str:
    return json.dumps(msg_id)


def parse_json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def set_header(headers: dict[str, str], name: str, value: str) -> None:
    """Set a header, replacing any spelling of the same name."""
    lower = name.lower()
    for key in [key for key in headers if key.lower() == lower]:
        del headers[key]
    headers[name] = value


def is_reply(data: bytes, request_id: Any) -> bool:
    """Is this event's data the JSON-RPC reply to ``request_id``? Big events are judged by their head."""
    if len(data) > REPLY_PARSE_LIMIT:
        head = data[:4096]
        if b'"method"' in head[:512]:
            return False
        named = head_id(head)  # a big reply to another id is not this request's reply
        return named is None or named == request_id
    value = parse_json(data)
    if isinstance(value, list):
        return any(
            isinstance(item, dict) and ("result" in item or "error" in item) and item.get("id") == request_id
            for item in value
        )
    if not isinstance(value, dict) or "method" in value or not ("result" in value or "error" in value):
        return False
    return value.get("id") == request_id or (value.get("id") is None and "error" in value)


@dataclass
class StreamState:
    """What a request's response stream(s) have shown so far."""

    request_id: Any  # None on the standalone stream
    status: int
    replied: bool = False
