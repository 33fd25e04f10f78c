"""The live frame rules (see live.py): cheap per entry; schema and content checks deferred.

Most rules read what the rpc layer already found on the entry (``problem``: a reply to no
request, a duplicate, progress for an unknown token, a request before initialization, a line
that is not JSON); a few parse the frames they need (the handshake, progress). ``Handshake``
runs first: it keeps the state (revision, era, capabilities) the other rules read.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..base.jsonrpc import Kind, parse_json
from ..protocol.versions import LEGACY_VERSIONS, MODERN_VERSIONS
from ..traffic.entry import Direction, TrafficEntry
from .catalog import finding
from .frames import Emit, LiveState
from .model import Severity, cut
from .schema_check import ContentCheck, ModernResultCheck, SchemaCheck

KNOWN_VERSIONS = (*LEGACY_VERSIONS, *MODERN_VERSIONS)
LIST_CHANGED = {
    "notifications/tools/list_changed": "tools",
    "notifications/prompts/list_changed": "prompts",
    "notifications/resources/list_changed": "resources",
}
MODERN_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


def _message(entry: TrafficEntry) -> Any:
    try:
        return parse_json(entry.raw)[0]
    except ValueError:
        return None


def _where(entry: TrafficEntry) -> str:
    return f"frame #{entry.seq}"


class Handshake:
    """Keeps the state: the version offered and chosen, the era, the capabilities, initialized.
    Judges ``initialize-version``."""

    kinds = frozenset(
        {(Direction.OUT, Kind.REQUEST), (Direction.OUT, Kind.NOTIFICATION), (Direction.IN, Kind.RESPONSE)}
    )

    def observe(self, entry: TrafficEntry, state: LiveState, emit: Emit) -> None:
        kind = entry.kind
        if entry.direction is Direction.OUT:
            if kind is Kind.NOTIFICATION and entry.method == "notifications/initialized":
                state.initialized = True
            elif kind is Kind.REQUEST and entry.method == "initialize":
                message = _message(entry)
                params = message.get("params") if isinstance(message, dict) else None
                version = params.get("protocolVersion") if isinstance(params, dict) else None
                state.requested_version = version if isinstance(version, str) else None
            elif kind is Kind.REQUEST and entry.method == "server/discover":
                message = _message(entry)
                params = message.get("params") if isinstance(message, dict) else None
                meta = params.get("_meta") if isinstance(params, dict) else None
                version = meta.get(MODERN_VERSION_KEY) if isinstance(meta, dict) else None
                state.requested_version = version if isinstance(version, str) else None
            return
        if kind is Kind.RESPONSE and (not state.handshake_seen or state.transport != "stdio"):
            # the answer to initialize / server/discover (until a handshake is seen; over HTTP a
            # session may be initialized again)
            request = state.request_of(entry)
            method = request.method if request is not None else None
            if method == "initialize":
                self._initialized(entry, state, emit)
            elif method == "server/discover" and state.era is None:
                self._discovered(entry, state)

    def _initialized(self, entry: TrafficEntry, state: LiveState, emit: Emit) -> None:
        message = _message(entry)
        result = message.get("result") if isinstance(message, dict) else None
        if not isinstance(result, dict):
            return
        state.handshake_seen = True
        state.era = "legacy"
        capabilities = result.get("capabilities")
        state.capabilities = capabilities if isinstance(capabilities, dict) else {}
        info = result.get("serverInfo")
        state.server_info = info if isinstance(info, dict) else {}
        version = result.get("protocolVersion")
        offered = state.requested_version
        if not isinstance(version, str):
            emit(
                finding(
                    "initialize-version",
                    "the initialize result has no protocolVersion (no negotiation)",
                    where=_where(entry),
                    seq=entry.seq,
                    evidence=cut(entry.text),
                )
            )
            return
        state.version = version if version in KNOWN_VERSIONS else offered
        if version != offered and version not in KNOWN_VERSIONS:
            emit(
                finding(
                    "initialize-version",
                    f"the server chose protocol version {version!r}: the client offered {offered!r} "
                    "and no revision of the spec has that name",
                    where=_where(entry),
                    seq=entry.seq,
                    evidence=f'"protocolVersion": "{cut(version, 80)}"',
                )
            )

    def _discovered(self, entry: TrafficEntry, state: LiveState) -> None:
        message = _message(entry)
        result = message.get("result") if isinstance(message, dict) else None
        if not isinstance(result, dict):
            return
        state.handshake_seen = True
        state.era = "modern"
        state.initialized = True  # no notifications/initialized in 2026-07-28
        state.version = state.requested_version if state.requested_version in MODERN_VERSIONS else MODERN_VERSIONS[-1]
        capabilities = result.get("capabilities")
        state.capabilities = capabilities if isinstance(capabilities, dict) else {}
        meta = result.get("_meta")
        info = meta.get("io.modelcontextprotocol/serverInfo") if isinstance(meta, dict) else None
        state.server_info = info if isinstance(info, dict) else {}


NOT_JSONRPC = ("not JSON", "not UTF-8", "not a JSON object")


class ServerOutput:
    """``stdout-not-jsonrpc`` (a stdio line that is not a JSON-RPC message), and the envelope
    and JSON-text part of ``schema-violation`` (an invalid envelope, a bare NaN, invalid UTF-8)."""

    kinds = frozenset((Direction.IN, kind) for kind in Kind if kind not in (Kind.STDERR, Kind.EVENT))
    problem_only = True

    def observe(self, entry: TrafficEntry, state: LiveState, emit: Emit) -> None:
        if entry.direction is not Direction.IN or entry.kind is Kind.STDERR or entry.kind is Kind.EVENT:
            return
        problem = entry.problem
        if problem is None:
            return
        if entry.kind is Kind.INVALID:
            if problem.startswith("too long") or (entry.meta is not None and entry.meta.get("torn_by_shutdown")):
                return  # the line cap is ours, not the server's fault; so is a line our shutdown cut short
            not_json = problem.startswith(NOT_JSONRPC)
            when = "after the handshake" if state.handshake_seen else "before the handshake"
            if not_json and state.transport == "stdio":
                emit(
                    finding(
                        "stdout-not-jsonrpc",
                        f"the server wrote a stdout line that is not a JSON-RPC message, {when}",
                        where=_where(entry),
                        seq=entry.seq,
                        evidence=cut(entry.text, 200),
                    )
                )
            else:
                emit(
                    finding(
                        "schema-violation",
                        f"an invalid JSON-RPC message ({problem}), {when}",
                        where=_where(entry),
                        seq=entry.seq,
                        evidence=cut(entry.text, 200),
                    )
                )
            return
        notes = [
            note
            for note in problem.split("; ")
            if "is not JSON (a bare token" in note or "invalid UTF-" in note or "encoded as " in note
        ]
        if notes:
            emit(
                finding(
                    "schema-violation",
                    f"not JSON text (read only by leniency; JSON.parse rejects it): {'; '.join(notes)}",
                    where=_where(entry),
                    seq=entry.seq,
                    evidence=cut(entry.text, 200),
                    hint="Serialize with a strict JSON encoder (Python: json.dumps(..., allow_nan=False)) in UTF-8.",
                )
            )
        if entry.kind is Kind.BATCH and "batching was removed" in problem:
            emit(
                finding("schema-violation", problem, where=_where(entry), seq=entry.seq, evidence=cut(entry.text, 200))
            )


class ResponseIds:
    """``response-id``: the rpc layer marks a reply to no request and a second reply to one."""

    kinds = frozenset({(Direction.IN, Kind.RESPONSE), (Direction.IN, Kind.ERROR)})
    problem_only = True

    def observe(self, entry: TrafficEntry, state: LiveState, emit: Emit) -> None:
        if entry.direction is not Direction.IN or not (entry.kind is Kind.RESPONSE or entry.kind is Kind.ERROR):
            return
        problem = entry.problem
        if problem is None or entry.late:
            return
        if problem.startswith("duplicate of #"):
            message = f"a second response to one request ({problem})"
        elif problem.startswith("reply to an id with no request in flight"):
            message = f"a response with id {entry.msg_id!r}, which no request has"
        else:
            return
        emit(finding("response-id", message, where=_where(entry), seq=entry.seq, evidence=cut(entry.text, 200)))


class Lifecycle:
    """``lifecycle``: a server request other than ping before notifications/initialized (legacy);
    any server request in 2026-07-28 (servers ask through MRTR results there)."""

    kinds = frozenset({(Direction.IN, Kind.REQUEST)})

    def observe(self, entry: TrafficEntry, state: LiveState, emit: Emit) -> None:
        if entry.direction is not Direction.IN or entry.kind is not Kind.REQUEST:
            return
        if state.era == "modern":
            emit(
                finding(
                    "lifecycle",
                    f"the server sent a request ({entry.method}), which 2026-07-28 forbids (MRTR results instead)",
                    severity=Severity.ERROR,
                    where=_where(entry),
                    seq=entry.seq,
                    evidence=cut(entry.text, 200),
                    hint="Ask the client through an input_required result (MRTR), not a request.",
                )
            )
        elif not state.initialized and entry.method not in ("ping",):
            emit(
                finding(
                    "lifecycle",
                    f"the server sent {entry.method} before the client's notifications/initialized",
                    where=_where(entry),
                    seq=entry.seq,
                    evidence=cut(entry.text, 200),
                )
            )


class ListChanged:
    """``list-changed-undeclared``: a */list_changed whose capability lacks listChanged: true."""

    kinds = frozenset({(Direction.IN, Kind.NOTIFICATION)})
    methods = frozenset(LIST_CHANGED)

    def observe(self, entry: TrafficEntry, state: LiveState, emit: Emit) -> None:
        if entry.direction is not Direction.IN or entry.kind is not Kind.NOTIFICATION:
            return
        capability = LIST_CHANGED.get(entry.method or "")
        if capability is None or not state.handshake_seen:
            return
        declared = state.capabilities.get(capability)
        if isinstance(declared, dict) and declared.get("listChanged") is True:
            return
        what = "not declared" if declared is None else "declared without listChanged: true"
        shown = cut(json.dumps(declared), 80) if declared is not None else "absent"
        emit(
            finding(
                "list-changed-undeclared",
                f"{entry.method} sent, but the {capability} capability is {what}",
                where=_where(entry),
                seq=entry.seq,
                evidence=f'"capabilities": {{"{capability}": {shown}}}',
            )
        )


class LoggingUndeclared:
    """``logging-undeclared``: a log notification without the logging capability (legacy; said once)."""

    kinds = frozenset({(Direction.IN, Kind.NOTIFICATION)})
    methods = frozenset({"notifications/message"})

    def __init__(self) -> None:
        self.said = False

    def observe(self, entry: TrafficEntry, state: LiveState, emit: Emit) -> None:
        if self.said or not state.handshake_seen or state.era != "legacy" or "logging" in state.capabilities:
            return
        self.said = True
        emit(
            finding(
                "logging-undeclared",
                "the server sends notifications/message but does not declare the logging capability (said once)",
                where=_where(entry),
                seq=entry.seq,
                evidence=cut(entry.text, 200),
            )
        )


_PROGRESS_KEY = b'"progress"'
_PROGRESS_NUMBER = re.compile(rb'"progress"\s*:\s*(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*[,}]')


def _progress_value(raw: bytes) -> Any:
    """params.progress of a progress notification. The key once in the frame, a plain number after
    it: read without parsing the frame (1 us, not 20: a progress flood is common); else parsed."""
    at = raw.find(_PROGRESS_KEY)
    if at >= 0 and raw.find(_PROGRESS_KEY, at + 10) < 0:
        match = _PROGRESS_NUMBER.match(raw, at)
        if match is not None:
            number = match.group(1)
            return float(number) if b"." in number or b"e" in number or b"E" in number else int(number)
    message = _message_of(raw)
    params = message.get("params") if isinstance(message, dict) else None
    return params.get("progress") if isinstance(params, dict) else None


def _message_of(raw: bytes) -> Any:
    try:
        return parse_json(raw)[0]
    except ValueError:
        return None


class ProgressRule:
    """``progress``, live part: a token of no request in flight (the rpc layer marks it). Whether the
    value increases is judged with the deferred checks (:class:`ProgressOrder`): a progress flood
    then costs observe nothing."""

    kinds = frozenset({(Direction.IN, Kind.NOTIFICATION)})
    methods = frozenset({"notifications/progress"})
    problem_only = True

    def observe(self, entry: TrafficEntry, state: LiveState, emit: Emit) -> None:
        if entry.problem and "progress for a token with no request in flight" in entry.problem:
            emit(
                finding(
                    "progress",
                    "progress for a token that no request in flight carries",
                    where=_where(entry),
                    seq=entry.seq,
                    evidence=cut(entry.text, 200),
                )
            )


class ProgressOrder:
    """``progress``, deferred part: a value that does not increase (the last value per request is
    kept, bounded). The queue keeps the frames' order, so this judges them in the order they came."""

    def __init__(self) -> None:
        self.last: dict[int, float] = {}  # request seq -> last progress value

    def check(self, entry: TrafficEntry, method: str | None, version: str | None, era: str | None, emit: Emit) -> None:
        if entry.kind is not Kind.NOTIFICATION or entry.method != "notifications/progress" or entry.reply_to is None:
            return
        value = _progress_value(entry.raw)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return  # the schema check says so
        progress = self.last
        last = progress.get(entry.reply_to)
        if last is not None and value <= last:
            emit(
                finding(
                    "progress",
                    f"progress went from {last:g} to {value:g} for request #{entry.reply_to} (it must increase)",
                    where=_where(entry),
                    seq=entry.seq,
                    evidence=cut(entry.text, 200),
                )
            )
        if len(progress) >= 10_000 and entry.reply_to not in progress:
            progress.pop(next(iter(progress)))
        progress[entry.reply_to] = float(value) if last is None or value > last else last


def default_rules() -> list[Any]:
    """The frame rules every session runs, Handshake first (the others read its state)."""
    return [Handshake(), ServerOutput(), ResponseIds(), Lifecycle(), ListChanged(), LoggingUndeclared(), ProgressRule()]


def default_deferred() -> list[Any]:
    """The deferred checks (fresh instances: some remember what they said once per session)."""
    return [SchemaCheck(), ContentCheck(), ModernResultCheck(), ProgressOrder()]
