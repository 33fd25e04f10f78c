"""Streamable HTTP probes: what ``check --url`` asks of the transport itself (each a few mild
requests of its own, no load).

- :class:`HttpTrafficProbe` judges the exchanges the session already made (no request of its
  own, but one GET when the session opened none): ``http-notification-status`` (a POST of a
  notification or response not answered 202 with no body), ``http-content-type`` (a request
  answered 2xx with a body that is neither ``application/json`` nor ``text/event-stream``),
  ``http-get`` (the GET stream answered with something else than SSE or 405).
- :class:`HttpOriginProbe`: ``http-origin``: an initialize (2026-07-28: server/discover) with a
  foreign ``Origin`` (and, for a server on a loopback address, a foreign ``Host``: DNS
  rebinding) must not be served. It carries none of the user's credentials.
- :class:`HttpSessionProbe`: ``http-session-unknown`` (a made-up session id, and one terminated
  by DELETE, must get 404) and ``http-session-id`` (visible ASCII, not short, not sequential).
- :class:`HttpProtocolVersionProbe`: ``http-protocol-version``: a request whose
  ``MCP-Protocol-Version`` header names a version nobody has must get 400.

Every request goes through ``http_util.open_response`` with the session's ``CredentialPolicy``
(the user's headers and tokens only to the user's origin) and is recorded in the session's
HttpLog, so each finding names its exchange.
"""

from __future__ import annotations

import json
import re
import secrets
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2

from ..base.jsonrpc import Kind
from ..transport.base import TransportError
from ..transport.http_headers import standard_headers
from ..transport.http_util import make_client, open_response, read_bounded
from .catalog import RULES, SPEC_MODERN, finding
from .model import Severity, cut
from .probes import ProbeContext

BODY_CAP = 64 << 10  # what is kept of an answer's body
BODY_LIMIT = 1 << 20  # what is read of it at most
FOREIGN_HOST = "evil.example.com"  # the conformance suite's (dns-rebinding-protection)
BOGUS_VERSION = "1999-01-01"
MODERN_VERSION_HEADER = (
    f"{SPEC_MODERN}/basic/transports/streamable-http#protocol-version-header (a version the server does not "
    "implement: it MUST respond with 400 Bad Request and an UnsupportedProtocolVersionError)"
)
HEADER_VERSIONS_FROM = "2025-06-18"  # MCP-Protocol-Version on every request from this revision on
MIN_SESSION_ID = 16  # characters: shorter ids are guessable (a UUID has 36, 128 random bits in hex 32)
SEQUENTIAL_GAP = 1000  # two ids differing only by a trailing number this close are sequential
MAX_FINDINGS = 3  # per rule from the exchanges already made (the rest are counted)
_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")
_TRAILING_NUMBER = re.compile(r"(.*?)(\d+)")
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def streamable_http(ctx: ProbeContext) -> Any:
    """The session's HTTP transport when it speaks Streamable HTTP (not stdio, not HTTP+SSE)."""
    transport = ctx.session.transport
    if getattr(transport, "kind", "") != "http" or not hasattr(transport, "credentials"):
        return None
    return transport


def is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return host in LOOPBACK or host.startswith("127.")


def media_type(value: str | None) -> str:
    return (value or "").split(";", 1)[0].strip().lower()


def _json_type(kind: str) -> bool:
    return kind == "application/json" or kind.endswith("+json")


@dataclass
class Answer:
    """One exchange of a probe: status, headers, the head of the body, its HttpLog id."""

    status: int
    headers: httpx2.Headers
    body: bytes
    exchange: int | None
    method: str
    what: str  # "POST ping", "GET", "DELETE"

    @property
    def kind(self) -> str:
        return media_type(self.headers.get("content-type"))

    @property
    def where(self) -> str:
        return f"HTTP exchange {self.exchange}" if self.exchange is not None else self.what

    def evidence(self, sent: str = "") -> str:
        kind = self.headers.get("content-type")
        body = cut(" ".join(self.body.decode("utf-8", "replace").split()), 160)
        head = f"{self.what}{sent} -> HTTP {self.status}" + (f" ({kind})" if kind else "")
        return f"{head}: {body}" if body else head


class Wire:
    """The probes' own HTTP client, beside the session's: the transport's URL, TLS setting,
    credential policy, OAuth client and HttpLog."""

    def __init__(self, ctx: ProbeContext, transport: Any) -> None:
        self.ctx = ctx
        self.transport = transport
        self.url: str = transport.url
        self.timeout = ctx.options.timeout or 30.0
        self.http_log = getattr(ctx.store, "http_log", None)
        self.client = make_client(getattr(transport, "verify", True), self.timeout, self.timeout)

    async def close(self) -> None:
        await self.client.aclose()

    def headers(
        self, *, credentials: bool = True, session: str | None = None, version: str | None = None
    ) -> dict[str, str]:
        """The user's headers (``credentials``), a session id and a protocol version header."""
        headers = dict(getattr(self.transport, "headers", {}) or {}) if credentials else {}
        if session is not None:
            headers["Mcp-Session-Id"] = session
        if version is not None:
            headers["MCP-Protocol-Version"] = version
        return headers

    async def send(
        self,
        method: str,
        headers: dict[str, str],
        message: dict[str, Any] | None = None,
        *,
        note: str,
        credentials: bool = True,
        read: bool = True,
    ) -> Answer | None:
        """One request; the body read (bounded, in ``timeout``) unless ``read`` is False (a stream).
        None when it could not be sent or answered (said in the notes)."""
        content = None
        rpc_method = None
        if message is not None:
            content = json.dumps(message).encode()
            rpc_method = message.get("method")
            headers = {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **standard_headers(message, None),
                **headers,
            }
        what = f"{method} {rpc_method}" if rpc_method else method
        response = exchange = None
        try:
            with anyio.fail_after(self.timeout):
                response, exchange, _ = await open_response(
                    self.client,
                    method,
                    self.url,
                    headers,
                    self.transport.credentials,
                    content=content,
                    http_log=self.http_log,
                    rpc_method=rpc_method,
                    rpc_id=message.get("id") if message else None,
                    note=f"check: {note}",
                    auth=getattr(self.transport, "auth", None) if credentials else None,
                )
                body = b""
                size = 0
                if read:
                    body, size = await _read_answer(response)
        except (httpx2.HTTPError, TransportError, TimeoutError, OSError) as exc:
            if response is not None:
                await response.aclose()
            self._finish(exchange, 0, f"{type(exc).__name__}: {exc}")
            reason = "no answer in time" if isinstance(exc, TimeoutError) else str(exc) or type(exc).__name__
            self.ctx.note(f"{note}: {what} failed: {cut(reason, 200)}")
            return None
        await response.aclose()
        self._finish(exchange, size, None)
        return Answer(response.status_code, response.headers, body, exchange.id if exchange else None, method, what)

    def _finish(self, exchange: Any, size: int, error: str | None) -> None:
        if self.http_log is not None and exchange is not None:
            self.http_log.body(exchange, size)
            self.http_log.finish(exchange, error)


async def _read_answer(response: httpx2.Response) -> tuple[bytes, int]:
    """A JSON body whole (bounded); an SSE stream up to its first event with data (a server keeps
    a stream open as long as it likes)."""
    if media_type(response.headers.get("content-type")) != "text/event-stream":
        return await read_bounded(response, BODY_CAP, BODY_LIMIT)
    parts: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        parts.append(chunk[: max(0, BODY_CAP - sum(map(len, parts)))])
        text = b"".join(parts).replace(b"\r\n", b"\n")
        if re.search(rb"(^|\n)data:[^\n]*\S[^\n]*\n\n", text) or size >= BODY_LIMIT:
            break
    return b"".join(parts), size


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def _new_id() -> str:
    return f"mcp-inspector-check-{secrets.token_hex(4)}"


def initialize_message(ctx: ProbeContext) -> dict[str, Any]:
    """The request that opens a session (legacy) or asks who the server is (2026-07-28)."""
    if ctx.era == "modern":
        meta = dict(ctx.session.request_meta() or {})
        return {"jsonrpc": "2.0", "id": _new_id(), "method": "server/discover", "params": {"_meta": meta}}
    from ..protocol.versions import LATEST_LEGACY

    params = {
        "protocolVersion": ctx.session.protocol_version or LATEST_LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "mcp-inspector-check", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": _new_id(), "method": "initialize", "params": params}


def _legacy_version_header(ctx: ProbeContext) -> str | None:
    version = ctx.session.protocol_version
    return version if version and version >= HEADER_VERSIONS_FROM else None


class HttpTrafficProbe:
    """``http-notification-status``, ``http-content-type``, ``http-get``: the session's own
    exchanges, judged from the HttpLog (one GET of its own when the session opened none)."""

    rules = ("http-notification-status", "http-content-type", "http-get")

    async def run(self, ctx: ProbeContext) -> None:
        transport = streamable_http(ctx)
        log = getattr(ctx.store, "http_log", None)
        if transport is None or log is None:
            return
        side: list[Any] = []  # (exchange, what) of notification/response POSTs answered wrongly
        typed: list[Any] = []
        gets = []
        for exchange in list(log.exchanges):
            if exchange.status is None or exchange.status in (401, 403) or 300 <= exchange.status < 400:
                continue
            if exchange.method == "GET" and exchange.resumes is None and (exchange.note or "").startswith("stand"):
                gets.append(exchange)
            if exchange.method != "POST" or exchange.sent_seq is None:
                continue
            entry = ctx.store.get(exchange.sent_seq)
            kind = getattr(entry, "kind", None)
            if kind in (Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR):
                if exchange.status != 202 or exchange.response_size or exchange.event_count:
                    side.append(exchange)
            elif kind is Kind.REQUEST and 200 <= exchange.status < 300 and exchange.status != 202:
                media = media_type(exchange.content_type)
                if media != "text/event-stream" and not _json_type(media) and (exchange.response_size or media):
                    typed.append(exchange)
        self._side(ctx, side)
        self._typed(ctx, typed)
        if "http-get" not in ctx.options.ignore:
            await self._get(ctx, transport, gets)

    def _side(self, ctx: ProbeContext, found: list[Any]) -> None:
        for exchange in found[:MAX_FINDINGS]:
            body = f", {exchange.response_size} bytes of body" if exchange.response_size else ", with a body"
            body = body if exchange.response_size or exchange.event_count else ""
            kind = f" ({exchange.content_type})" if exchange.content_type else ""
            more = f" (and {len(found) - MAX_FINDINGS} more)" if len(found) > MAX_FINDINGS else ""
            ctx.add(
                finding(
                    "http-notification-status",
                    f"POST of {exchange.rpc_method or 'a response'} answered HTTP {exchange.status}{body}, "
                    f"not 202 Accepted with no body{more}",
                    where=f"HTTP exchange {exchange.id}",
                    exchange=exchange.id,
                    seq=exchange.sent_seq,
                    evidence=f"POST {exchange.rpc_method or 'response'} -> HTTP {exchange.status}{kind}",
                )
            )

    def _typed(self, ctx: ProbeContext, found: list[Any]) -> None:
        for exchange in found[:MAX_FINDINGS]:
            kind = exchange.content_type
            said = f"Content-Type {kind!r}" if kind else "no Content-Type"
            more = f" (and {len(found) - MAX_FINDINGS} more)" if len(found) > MAX_FINDINGS else ""
            ctx.add(
                finding(
                    "http-content-type",
                    f"{exchange.rpc_method or 'a request'} was answered HTTP {exchange.status} with {said}, "
                    f"not application/json or text/event-stream{more}",
                    where=f"HTTP exchange {exchange.id}",
                    exchange=exchange.id,
                    seq=exchange.sent_seq,
                    evidence=f"POST {exchange.rpc_method} -> HTTP {exchange.status}, {said}, "
                    f"{exchange.response_size} bytes",
                )
            )

    async def _get(self, ctx: ProbeContext, transport: Any, gets: list[Any]) -> None:
        if gets:
            first = gets[0]
            status, kind, exchange_id = first.status, media_type(first.content_type), first.id
            evidence = f"GET (the session's stream) -> HTTP {status}" + (f" ({first.content_type})" if kind else "")
        else:
            wire = Wire(ctx, transport)
            try:
                version = ctx.session.protocol_version if ctx.era == "modern" else _legacy_version_header(ctx)
                headers = wire.headers(session=transport.session_id, version=version)
                headers["Accept"] = "text/event-stream"
                answer = await wire.send("GET", headers, note="GET stream", read=False)
            finally:
                await wire.close()
            if answer is None:
                return
            status, kind, exchange_id, evidence = answer.status, answer.kind, answer.exchange, answer.evidence()
        if status == 405 or (200 <= status < 300 and kind == "text/event-stream") or status in (401, 403):
            return
        what = f"HTTP {status}" + (f" with {kind}" if kind else "")
        ctx.add(
            finding(
                "http-get",
                f"GET (the stream for server messages) was answered {what}, not an SSE stream or 405",
                where=f"HTTP exchange {exchange_id}",
                exchange=exchange_id,
                evidence=evidence,
            )
        )


class HttpOriginProbe:
    """``http-origin``: a request from a foreign origin (for a loopback server also a foreign Host,
    the DNS rebinding case) is refused. Sent without the user's headers, token or session."""

    rules = ("http-origin",)

    async def run(self, ctx: ProbeContext) -> None:
        transport = streamable_http(ctx)
        if transport is None:
            return
        local = is_loopback(transport.url)
        wire = Wire(ctx, transport)
        try:
            message = initialize_message(ctx)
            headers = {"Origin": f"http://{FOREIGN_HOST}"}
            if local:
                headers["Host"] = FOREIGN_HOST
            if ctx.era == "modern":
                headers["MCP-Protocol-Version"] = ctx.session.protocol_version or ""
            answer = await wire.send("POST", headers, message, note="foreign Origin", credentials=False)
            if answer is None or not 200 <= answer.status < 300:
                return
            session = answer.headers.get("mcp-session-id")
            if session and _VISIBLE_ASCII.fullmatch(session):  # the session it opened is ended
                await wire.send("DELETE", wire.headers(session=session), note="end the foreign-Origin session")
        finally:
            await wire.close()
        sent = f" with Host {FOREIGN_HOST} and" if local else " with"
        if local:
            message_text = (
                f"{_a(message['method'])} request{sent} Origin http://{FOREIGN_HOST} was served (HTTP "
                f"{answer.status}): a web page can reach this local server through the browser (DNS rebinding)"
            )
        else:
            message_text = (
                f"{_a(message['method'])} request{sent} Origin http://{FOREIGN_HOST} was served (HTTP "
                f"{answer.status}): the server does not check the Origin header (fine only if any web page may use it)"
            )
        ctx.add(
            finding(
                "http-origin",
                message_text,
                severity=None if local else Severity.WARNING,
                where=answer.where,
                exchange=answer.exchange,
                evidence=answer.evidence(f"{sent} Origin http://{FOREIGN_HOST}"),
            )
        )


class HttpSessionProbe:
    """Legacy sessions: ``http-session-unknown`` (a made-up id, then one ended by DELETE, get 404)
    and ``http-session-id`` (the ids the server gives: visible ASCII, long, not sequential)."""

    rules = ("http-session-unknown", "http-session-id")

    async def run(self, ctx: ProbeContext) -> None:
        transport = streamable_http(ctx)
        if transport is None or ctx.era == "modern" or not transport.session_id:
            return
        version = _legacy_version_header(ctx)
        wire = Wire(ctx, transport)
        ids = [transport.session_id]
        try:
            made_up = str(uuid.uuid4())
            ping = {"jsonrpc": "2.0", "id": _new_id(), "method": "ping"}
            answer = await wire.send(
                "POST", wire.headers(session=made_up, version=version), ping, note="unknown session"
            )
            if answer is not None and answer.status != 404:
                self._unknown(ctx, answer, "an unknown session id (never issued)")
            opened = await wire.send("POST", wire.headers(), initialize_message(ctx), note="a second session")
            second = opened.headers.get("mcp-session-id") if opened is not None else None
            if opened is not None and second is not None:
                ids.append(second)
                if not self._visible(ctx, opened, second):
                    return
                await self._terminated(ctx, wire, second, version)
        finally:
            await wire.close()
        self._guessable(ctx, ids, opened)

    async def _terminated(self, ctx: ProbeContext, wire: Wire, session: str, version: str | None) -> None:
        headers = wire.headers(session=session, version=version)
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await wire.send("POST", headers, initialized, note="a second session")
        ended = await wire.send("DELETE", headers, note="end the second session")
        if ended is None or not 200 <= ended.status < 300:
            if ended is not None and ended.status == 405:
                ctx.note("the server does not end sessions on DELETE (405): a terminated session id was not tried")
            return
        ping = {"jsonrpc": "2.0", "id": _new_id(), "method": "ping"}
        answer = await wire.send("POST", headers, ping, note="terminated session")
        if answer is not None and answer.status != 404:
            self._unknown(ctx, answer, f"a session id ended by DELETE (HTTP {ended.status})")

    def _unknown(self, ctx: ProbeContext, answer: Answer, what: str) -> None:
        ctx.add(
            finding(
                "http-session-unknown",
                f"a request with {what} was answered HTTP {answer.status}, not 404 Not Found: "
                "a client cannot tell that its session is gone and start a new one",
                where=answer.where,
                exchange=answer.exchange,
                evidence=answer.evidence(" (Mcp-Session-Id of no live session)"),
            )
        )

    def _visible(self, ctx: ProbeContext, opened: Answer, session: str) -> bool:
        if _VISIBLE_ASCII.fullmatch(session):
            return True
        ctx.add(
            finding(
                "http-session-id",
                f"the server's Mcp-Session-Id is not visible ASCII (0x21-0x7E): {ascii(session)[:80]}; "
                "clients cannot send it back in a header",
                where=opened.where,
                exchange=opened.exchange,
                evidence=f"Mcp-Session-Id: {ascii(session)[:120]}",
            )
        )
        return False

    def _guessable(self, ctx: ProbeContext, ids: list[str], opened: Answer | None) -> None:
        where = opened.where if opened is not None else "session"
        exchange = opened.exchange if opened is not None else None
        problem = guessable(ids)
        if problem is None:
            return
        ctx.add(
            finding(
                "http-session-id",
                f"the session ids are guessable: {problem}",
                where=where,
                exchange=exchange,
                evidence=", ".join(cut(session, 60) for session in ids),
            )
        )


def guessable(ids: list[str]) -> str | None:
    """Why a server's session ids (two in a row when it gave two) could be guessed, or None."""
    for session in ids:
        if len(session) < MIN_SESSION_ID:
            return f"{session!r} is {len(session)} characters (under {MIN_SESSION_ID}: too few to be random enough)"
        if len(set(session)) < 6:
            return f"{cut(session, 60)!r} uses only {len(set(session))} distinct characters"
    if len(ids) >= 2:
        first, second = (_TRAILING_NUMBER.fullmatch(session) for session in ids[:2])
        if first and second and first.group(1) == second.group(1):
            gap = abs(int(second.group(2)) - int(first.group(2)))
            if gap <= SEQUENTIAL_GAP:
                return f"two sessions in a row got ids that differ by {gap} in their trailing number (sequential)"
    return None


class HttpProtocolVersionProbe:
    """``http-protocol-version``: an ``MCP-Protocol-Version`` header naming a version nobody has
    (the body agreeing, for 2026-07-28) gets 400 Bad Request."""

    rules = ("http-protocol-version",)

    async def run(self, ctx: ProbeContext) -> None:
        transport = streamable_http(ctx)
        if transport is None:
            return
        if ctx.era == "modern":
            message = initialize_message(ctx)
            message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = BOGUS_VERSION
            session = None
        elif _legacy_version_header(ctx) is not None:
            message = {"jsonrpc": "2.0", "id": _new_id(), "method": "ping"}
            session = transport.session_id
        else:
            return  # before 2025-06-18 there is no such header
        wire = Wire(ctx, transport)
        try:
            headers = wire.headers(session=session, version=BOGUS_VERSION)
            answer = await wire.send("POST", headers, message, note="unsupported protocol version")
        finally:
            await wire.close()
        if answer is None or answer.status == 400:
            return
        served = 200 <= answer.status < 300
        spec = MODERN_VERSION_HEADER if ctx.era == "modern" else RULES["http-protocol-version"].source
        ctx.add(
            finding(
                "http-protocol-version",
                f"{_a(message['method'])} request with MCP-Protocol-Version: {BOGUS_VERSION} (a version no revision "
                f"has) was answered HTTP {answer.status}, not 400 Bad Request"
                + (": the server went on as if it spoke that version" if served else ""),
                where=answer.where,
                exchange=answer.exchange,
                evidence=answer.evidence(f" (MCP-Protocol-Version: {BOGUS_VERSION})"),
                spec=spec,
            )
        )


def http_probes() -> list[Any]:
    """In order: the session's exchanges first (before the probes add their own)."""
    return [HttpTrafficProbe(), HttpOriginProbe(), HttpSessionProbe(), HttpProtocolVersionProbe()]
