"""Active probes: what ``mcp-inspector check`` sends to a server to judge it (the live rules
judge the frames meanwhile). A :class:`Probe` is an object with the ``rules`` it may draw and an
async ``run(ctx)``; ``runner.py`` runs them in order, each bounded in time, skipping one whose
rules are all ignored. The HTTP probes (checks/http, built on this) have the same shape.

No probe calls a real tool unless ``--call`` asked (``CallProbe``): the unknown-tool probe calls a
name no server has.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..base import jsonrpc
from ..base.errors import ConnectionLost, InspectorError, RequestTimeout, RpcError
from ..base.jsonrpc import Kind
from ..session.mcp_session import McpSession
from ..traffic.entry import Direction
from .catalog import finding
from .frames import exchange_of
from .model import Finding, Severity, cut

STARTUP_LIMIT = 5.0  # seconds from start to the handshake's answer (startup-slow)
EOF_WAIT = (
    2.0  # seconds a stdio server gets to exit after its stdin closed (exit-on-eof): the inspector's own close_grace
)
NOT_JSON_LINE = b"mcp-inspector check: this line is not JSON"
UNKNOWN_METHOD = "mcp-inspector/no-such-method"


@dataclass
class CheckOptions:
    timeout: float | None = 10.0  # per request
    token_budget: int = 15_000
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # --call TOOL k=v...
    ignore: set[str] = field(default_factory=set)
    max_reads: int = 20  # resources read, prompts got, arguments completed
    era: str | None = None  # the era tag of findings (--era both)


@dataclass
class ProbeContext:
    """What a probe works with: the session (connected), its store, the options, the findings."""

    session: McpSession
    options: CheckOptions
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was not checked, and why (shown as info lines)
    lists: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # what the list probe fetched

    @property
    def store(self) -> Any:
        return self.session.store

    @property
    def stdio(self) -> bool:
        return getattr(self.session.transport, "kind", "") == "stdio"

    @property
    def era(self) -> str | None:
        return self.session.era

    def add(self, item: Finding) -> None:
        if item.rule in self.options.ignore:
            return
        if item.era is None:
            item.era = self.options.era
        if item.exchange is None and item.seq is not None and not self.stdio:
            item.exchange = exchange_of(self.store, item.seq)
        self.findings.append(item)

    def note(self, text: str) -> None:
        self.notes.append(text)

    async def request(self, method: str, params: dict[str, Any] | None = None) -> tuple[Any, Any]:
        """(result or the RpcError, the reply entry or None). Timeouts and a lost server raise."""
        pending = await self.session.begin_request(method, params)
        try:
            result: Any = await self.session.finish_request(pending)
        except RpcError as exc:
            result = exc
        return result, _last(pending).reply


def _last(pending: Any) -> Any:
    while getattr(pending, "successor", None) is not None:
        pending = pending.successor
    return pending


class Probe(Protocol):
    """One active check. ``rules``: the ids it may draw (all ignored: not run)."""

    rules: tuple[str, ...]

    async def run(self, ctx: ProbeContext) -> None: ...


def entry_seq(entry: Any) -> int | None:
    return entry.seq if entry is not None else None


def entry_text(entry: Any) -> str:
    return cut(entry.text, 200) if entry is not None else ""


class StartupProbe:
    """``startup-slow``: from the server's start (the first entry) to the handshake's answer."""

    rules = ("startup-slow",)

    async def run(self, ctx: ProbeContext) -> None:
        first = None
        answer = None
        for entry in ctx.store.iter_all() if hasattr(ctx.store, "iter_all") else []:
            if first is None:
                first = entry
            if entry.direction is Direction.OUT and entry.method in ("initialize", "server/discover"):
                reply = ctx.store.get(entry.reply_seq) if entry.reply_seq is not None else None
                if reply is not None and reply.kind is Kind.RESPONSE:
                    answer = reply
                    break
        if first is None or answer is None:
            return
        seconds = answer.ts - first.ts
        if seconds > STARTUP_LIMIT:
            ctx.add(
                finding(
                    "startup-slow",
                    f"the handshake was answered {seconds:.1f} s after the server started (over {STARTUP_LIMIT:g} s)",
                    where=f"frame #{answer.seq}",
                    seq=answer.seq,
                    evidence=f"started at {first.ts:.3f}, answered at {answer.ts:.3f}",
                )
            )


class PingProbe:
    """``ping``: answered with {} (legacy; 2026-07-28 has no ping)."""

    rules = ("ping",)

    async def run(self, ctx: ProbeContext) -> None:
        if ctx.era == "modern":
            return
        try:
            result, reply = await ctx.request("ping")
        except RequestTimeout as exc:
            ctx.add(finding("ping", f"no answer to ping within {exc.seconds:g} s", where="ping"))
            return
        if isinstance(result, RpcError):
            ctx.add(
                finding(
                    "ping",
                    f"ping answered with an error: {result}",
                    where="ping",
                    seq=entry_seq(reply),
                    evidence=entry_text(reply),
                )
            )
        elif result != {}:
            ctx.add(
                finding(
                    "ping",
                    f"ping answered with a result that is not empty: {cut(json.dumps(result), 80)}",
                    severity=Severity.WARNING,
                    where="ping",
                    seq=entry_seq(reply),
                    evidence=entry_text(reply),
                )
            )


class UnknownMethodProbe:
    """``unknown-method``: a made-up method gets -32601."""

    rules = ("unknown-method",)

    async def run(self, ctx: ProbeContext) -> None:
        try:
            result, reply = await ctx.request(UNKNOWN_METHOD)
        except RequestTimeout as exc:
            ctx.add(
                finding(
                    "unknown-method",
                    f"no answer to {UNKNOWN_METHOD} within {exc.seconds:g} s (clients wait for ever)",
                    severity=Severity.ERROR,
                    where=UNKNOWN_METHOD,
                )
            )
            return
        if isinstance(result, RpcError) and result.code == jsonrpc.METHOD_NOT_FOUND:
            return
        what = f"error {result.code}" if isinstance(result, RpcError) else "a result"
        ctx.add(
            finding(
                "unknown-method",
                f"{UNKNOWN_METHOD} (a method no server has) was answered with {what}, not -32601",
                where=UNKNOWN_METHOD,
                seq=entry_seq(reply),
                evidence=entry_text(reply),
            )
        )


class UnknownToolProbe:
    """``unknown-tool``: tools/call of a name no server has gets JSON-RPC error -32602."""

    rules = ("unknown-tool",)

    async def run(self, ctx: ProbeContext) -> None:
        if not ctx.session.supports("tools"):
            return
        name = f"mcp-inspector-no-such-tool-{secrets.token_hex(3)}"
        try:
            result, reply = await ctx.request("tools/call", {"name": name, "arguments": {}})
        except RequestTimeout as exc:
            ctx.add(
                finding(
                    "unknown-tool",
                    f"no answer to tools/call of an unknown tool within {exc.seconds:g} s",
                    severity=Severity.ERROR,
                    where=f"tool {name}",
                )
            )
            return
        if isinstance(result, RpcError) and result.code == jsonrpc.INVALID_PARAMS:
            return
        if isinstance(result, RpcError):
            what = f"error {result.code} ({cut(result.message, 80)})"
        elif isinstance(result, dict) and result.get("isError") is True:
            what = "a tool result with isError: true"
        else:
            what = "a successful result"
        ctx.add(
            finding(
                "unknown-tool",
                f"tools/call of {name!r} (no such tool) was answered with {what}, not -32602",
                severity=Severity.ERROR if what == "a successful result" else None,
                where=f"tool {name}",
                seq=entry_seq(reply),
                evidence=entry_text(reply),
            )
        )


class MalformedInputProbe:
    """``malformed-input`` (stdio): a line that is not JSON gets -32700 and the server still answers."""

    rules = ("malformed-input",)

    async def run(self, ctx: ProbeContext) -> None:
        if not ctx.stdio:
            return
        entry, _ = await ctx.session.connection.send_raw(NOT_JSON_LINE)
        alive_method = "ping" if ctx.era != "modern" else "tools/list"
        try:
            if alive_method == "tools/list" and not ctx.session.supports("tools"):
                alive_method = UNKNOWN_METHOD
            await ctx.request(alive_method)
        except ConnectionLost as exc:
            ctx.add(
                finding(
                    "malformed-input",
                    f"the server died after reading a line that is not JSON ({exc.reason})",
                    where=f"frame #{entry.seq}",
                    seq=entry.seq,
                    evidence=NOT_JSON_LINE.decode(),
                )
            )
            raise
        except RequestTimeout as exc:
            ctx.add(
                finding(
                    "malformed-input",
                    f"after a line that is not JSON the server no longer answers "
                    f"({alive_method}: nothing in {exc.seconds:g} s)",
                    where=f"frame #{entry.seq}",
                    seq=entry.seq,
                    evidence=NOT_JSON_LINE.decode(),
                )
            )
            return
        reply = ctx.store.get(entry.reply_seq) if entry.reply_seq is not None else None
        if reply is None or reply.error_code != jsonrpc.PARSE_ERROR:
            what = "no answer" if reply is None else f"error {reply.error_code}" if reply.error_code else "an answer"
            ctx.add(
                finding(
                    "malformed-input",
                    f"a line that is not JSON got {what}, not a -32700 Parse error (the server still answers)",
                    severity=Severity.WARNING,
                    where=f"frame #{entry.seq}",
                    seq=entry.seq if reply is None else reply.seq,
                    evidence=NOT_JSON_LINE.decode() if reply is None else entry_text(reply),
                )
            )


class UnsupportedVersionProbe:
    """2026-07-28 ``unsupported-version``: a request naming a version nobody has gets -32022 with
    data.supported."""

    rules = ("unsupported-version",)

    async def run(self, ctx: ProbeContext) -> None:
        if ctx.era != "modern":
            return
        if not ctx.stdio:
            # over HTTP the MCP-Protocol-Version header would contradict the body (-32020): the
            # header handling is the HTTP probes' (http-protocol-version)
            return
        meta = dict(ctx.session.request_meta() or {})
        meta["io.modelcontextprotocol/protocolVersion"] = "1999-01-01"
        msg_id = f"check-version-{secrets.token_hex(3)}"
        frame = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "server/discover", "params": {"_meta": meta}})
        _, pending = await ctx.session.connection.send_raw(frame.encode())
        assert pending is not None, "a request frame sent by hand is registered"
        try:
            await pending.wait()
            result: Any = None
        except RpcError as exc:
            result = exc
        except RequestTimeout as exc:
            ctx.add(
                finding(
                    "unsupported-version",
                    f"no answer within {exc.seconds:g} s to a request of version 1999-01-01",
                    where="server/discover",
                )
            )
            return
        reply = pending.reply
        data = result.data if isinstance(result, RpcError) else None
        supported = data.get("supported") if isinstance(data, dict) else None
        if isinstance(result, RpcError) and result.code == -32022 and isinstance(supported, list) and supported:
            return
        what = (
            "a result"
            if result is None
            else f"error {result.code} without data.supported"
            if result.code == -32022
            else f"error {result.code}"
        )
        ctx.add(
            finding(
                "unsupported-version",
                f"a request of protocol version 1999-01-01 was answered with {what}",
                where="server/discover",
                seq=entry_seq(reply),
                evidence=entry_text(reply),
            )
        )


class ExitOnEofProbe:
    """``exit-on-eof`` (stdio, the last probe): the session is closed; did the server exit when its
    stdin closed, or did it need a signal?"""

    rules = ("exit-on-eof",)

    async def run(self, ctx: ProbeContext) -> None:
        transport = ctx.session.transport
        if not ctx.stdio or not hasattr(transport, "exited_on_eof"):
            return
        # the wait is what is checked; a transport with exited_on_eof (stdio) has these graces
        transport.close_grace = transport.idle_close_grace = EOF_WAIT  # type: ignore[attr-defined]  # stdio transports (exited_on_eof) have these graces
        await ctx.session.close()
        if transport.exited_on_eof is False:
            ctx.add(
                finding(
                    "exit-on-eof",
                    f"the server was still running {EOF_WAIT:g} s after its stdin closed (it was sent SIGTERM)",
                    where="process",
                )
            )


def lost(ctx: ProbeContext, probe: Probe, exc: InspectorError) -> None:
    """A probe stopped on an error it did not handle: no answer in time or the server gone (a
    finding of the probe's first rule), or an answer the session refused (a note: the live rules
    judge that frame, e.g. schema-violation)."""
    rule_id = probe.rules[0]
    if isinstance(exc, RequestTimeout):
        ctx.add(finding(rule_id, f"{exc.method}: no answer within {exc.seconds:g} s", where=type(probe).__name__))
    elif isinstance(exc, ConnectionLost):
        ctx.add(finding(rule_id, f"the server went away during this check: {exc}", where=type(probe).__name__))
    else:
        ctx.note(f"{type(probe).__name__} stopped: {exc}")
