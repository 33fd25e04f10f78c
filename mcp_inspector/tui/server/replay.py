"""Rebuilding what the views need from a recorded session (``--open FILE``).

The recording holds frames only, so the server facts come from the recorded
``initialize`` response, the tool list from the ``tools/list`` responses (pages
joined; every complete fetch kept, so the last change can be shown as a diff),
and the result of a tool from its last recorded ``tools/call``.

:class:`ReplayBuilder` is fed every entry while the file loads, so a recording
larger than the store's memory cap is read once, and what it keeps is bounded
(the last call per tool, the requests still waiting for their reply). Frames
come from a file: they are parsed by ``json_text.loads_strict`` and any shape
is tolerated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...core.base.errors import RpcError
from ...core.base.json_text import loads_strict
from ...core.base.jsonrpc import Kind
from ...core.config.drafts import DraftStore
from ...core.config.servers import ServerSpec
from ...core.session.mcp_session import ToolCallOutcome
from ...core.session.results import analyze_tool_result
from ...core.traffic.entry import Direction, TrafficEntry
from ...core.traffic.store import TrafficStore
from ..messages import ServerFacts


@dataclass
class Replay:
    facts: ServerFacts | None = None
    tool_lists: list[list[dict[str, Any]]] = field(default_factory=list)
    calls: dict[str, tuple[TrafficEntry, TrafficEntry | None]] = field(default_factory=dict)  # tool -> last call

    @property
    def tools(self) -> list[dict[str, Any]]:
        return self.tool_lists[-1] if self.tool_lists else []


def _json(entry: TrafficEntry | None) -> Any:
    if entry is None:
        return None
    try:
        return loads_strict(entry.raw)
    except ValueError:
        return None


class ReplayBuilder:
    """Rebuilds a :class:`Replay` from entries in file order (see the module doc)."""

    WATCHED = ("initialize", "server/discover", "tools/list", "tools/call")

    def __init__(self) -> None:
        self.replay = Replay()
        self._current: list[dict[str, Any]] | None = None  # tools/list pages joined so far
        self._waiting: dict[int, tuple[str, dict[str, Any]]] = {}  # request seq -> (method, params)
        self._calls: dict[str, TrafficEntry] = {}  # tool -> its last call request
        self._replies: dict[str, TrafficEntry] = {}  # tool -> the reply to that request

    def feed(self, entry: TrafficEntry) -> None:
        if entry.direction is Direction.OUT and entry.kind is Kind.REQUEST:
            if entry.method in self.WATCHED:
                self._request(entry)
        elif entry.kind in (Kind.RESPONSE, Kind.ERROR) and entry.reply_to is not None:
            waiting = self._waiting.pop(entry.reply_to, None)
            if waiting is not None:
                self._reply(entry, *waiting)

    def _request(self, entry: TrafficEntry) -> None:
        request = _json(entry)
        if not isinstance(request, dict):
            return
        params = request.get("params") if isinstance(request.get("params"), dict) else {}
        if entry.method == "tools/call":
            name = params.get("name")
            if not isinstance(name, str):
                return
            previous = self._calls.get(name)
            if previous is not None:
                self._waiting.pop(previous.seq, None)
            self._calls[name] = entry
            self._replies.pop(name, None)
        self._waiting[entry.seq] = (entry.method, params)

    def _reply(self, reply: TrafficEntry, method: str, params: dict[str, Any]) -> None:
        if method == "tools/call":
            self._replies[params["name"]] = reply
            return
        message = _json(reply)
        result = message.get("result") if isinstance(message, dict) else None
        if not isinstance(result, dict):
            return
        if method == "initialize":
            self.replay.facts = ServerFacts(
                result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else {},
                result.get("protocolVersion") if isinstance(result.get("protocolVersion"), str) else None,
                result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {},
                result.get("instructions") if isinstance(result.get("instructions"), str) else None,
                era="legacy",
                era_reason="the recording has the initialize handshake",
            )
        elif method == "server/discover":
            self.replay.facts = discover_facts(result, params)
        elif method == "tools/list" and isinstance(result.get("tools"), list):
            page = [t for t in result["tools"] if isinstance(t, dict)]
            if "cursor" not in params or self._current is None:
                self._current = []
            self._current.extend(page)
            if not result.get("nextCursor"):
                self.replay.tool_lists.append(self._current)
                self._current = None

    def finish(self) -> Replay:
        self.replay.calls = {name: (entry, self._replies.get(name)) for name, entry in self._calls.items()}
        self._waiting.clear()
        return self.replay


SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


def discover_facts(result: dict[str, Any], params: dict[str, Any]) -> ServerFacts:
    """What a recorded ``server/discover`` answer says (2026-07-28): the version is the one the
    request carried in ``_meta``, else the first the server supports."""
    meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
    request_meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    version = request_meta.get(PROTOCOL_VERSION_KEY)
    supported = result.get("supportedVersions")
    if not isinstance(version, str) and isinstance(supported, list) and supported and isinstance(supported[0], str):
        version = supported[0]
    cache = {key: result[key] for key in ("ttlMs", "cacheScope") if key in result}
    return ServerFacts(
        meta.get(SERVER_INFO_KEY) if isinstance(meta.get(SERVER_INFO_KEY), dict) else {},
        version if isinstance(version, str) else None,
        result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {},
        result.get("instructions") if isinstance(result.get("instructions"), str) else None,
        era="modern",
        era_reason="the recording has server/discover answered with a DiscoverResult",
        cache_info={"server/discover": cache} if cache else {},
    )


def recorded_spec(name: str, server: str) -> ServerSpec | None:
    """The server a recording's header names: a command line, or ``<transport> <url>`` (its secrets
    were masked when it was written)."""
    import shlex

    transport, _, url = server.partition(" ")
    if transport in ("http", "sse", "streamable-http") and url.startswith(("http://", "https://")):
        return ServerSpec(name, url=url, transport=transport)
    if server.startswith(("http://", "https://")):
        return ServerSpec(name, url=server, transport="http")
    try:
        return ServerSpec(name, shlex.split(server))
    except ValueError:
        return None


def reconstruct(store: TrafficStore) -> Replay:
    """The replay of every entry in the store (those that left memory read back from its file)."""
    builder = ReplayBuilder()
    for entry in store.iter_all():
        builder.feed(entry)
    return builder.finish()


def recorded_outcome(replay: Replay, store: TrafficStore, name: str) -> ToolCallOutcome | BaseException | None:
    """The last recorded call of a tool as an outcome (or the error it got), or None."""
    found = replay.calls.get(name)
    if found is None:
        return None
    request_entry, reply = found
    request = _json(request_entry)
    params = request.get("params") if isinstance(request, dict) and isinstance(request.get("params"), dict) else {}
    arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
    message = _json(reply)
    if not isinstance(message, dict):
        return RpcError(0, "the recording has no response to this call")
    if isinstance(message.get("error"), dict):
        error = message["error"]
        code = error.get("code")
        return RpcError(
            code if isinstance(code, int) and not isinstance(code, bool) else 0,
            str(error.get("message", "")),
            error.get("data"),
            error,
        )
    result = message.get("result") if isinstance(message.get("result"), dict) else {}
    tool = next((t for t in replay.tools if t.get("name") == name), None)
    return ToolCallOutcome(
        name,
        arguments,
        result,
        analyze_tool_result(result, tool),
        [],
        reply.latency_ms or 0.0 if reply is not None else 0.0,
        None,
    )


class RecordedArguments(DraftStore):
    """The composer's drafts for a read-only recording: a tool's "draft" is the
    arguments of its last recorded call, and nothing is ever written to disk."""

    def __init__(self) -> None:  # deliberately no file: super().__init__ would read drafts.json
        self.path = None
        self.warning = None
        self.replay: Replay | None = None
        self.store: TrafficStore | None = None

    def get(self, server_key: str, tool_name: str) -> dict[str, Any] | None:
        if self.replay is None or tool_name not in self.replay.calls:
            return None
        request = _json(self.replay.calls[tool_name][0])
        params = request.get("params") if isinstance(request, dict) else None
        arguments = params.get("arguments") if isinstance(params, dict) else None
        return dict(arguments) if isinstance(arguments, dict) else None

    def put(self, server_key: str, tool_name: str, arguments: dict[str, Any]) -> None:
        pass

    def delete(self, server_key: str, tool_name: str) -> None:
        pass

    def tools_with_drafts(self, server_key: str) -> list[str]:
        return sorted(self.replay.calls) if self.replay is not None else []
