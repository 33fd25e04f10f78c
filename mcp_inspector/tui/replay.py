"""Rebuilding what the views need from a recorded session (``--open FILE``).

The recording holds frames only, so the server facts come from the recorded
``initialize`` response, the tool list from the ``tools/list`` responses (pages
joined; every complete fetch kept, so the last change can be shown as a diff),
and the result of a tool from its last recorded ``tools/call``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..core.drafts import DraftStore
from ..core.errors import RpcError
from ..core.jsonrpc import Kind
from ..core.results import analyze_tool_result
from ..core.session import ToolCallOutcome
from ..core.traffic import Direction, TrafficEntry, TrafficStore
from .messages import ServerFacts


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
        return json.loads(entry.raw)
    except ValueError:
        return None


def reconstruct(store: TrafficStore) -> Replay:
    replay = Replay()
    current: list[dict[str, Any]] | None = None
    for entry in store:
        if entry.direction is not Direction.OUT or entry.kind is not Kind.REQUEST:
            continue
        request = _json(entry)
        if not isinstance(request, dict):
            continue
        params = request.get("params") if isinstance(request.get("params"), dict) else {}
        reply = store.get(entry.reply_seq) if entry.reply_seq is not None else None
        message = _json(reply)
        result = message.get("result") if isinstance(message, dict) else None
        if entry.method == "initialize" and isinstance(result, dict):
            replay.facts = ServerFacts(
                result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else {},
                result.get("protocolVersion") if isinstance(result.get("protocolVersion"), str) else None,
                result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {},
                result.get("instructions") if isinstance(result.get("instructions"), str) else None,
            )
        elif entry.method == "tools/list" and isinstance(result, dict) and isinstance(result.get("tools"), list):
            page = [t for t in result["tools"] if isinstance(t, dict)]
            if "cursor" not in params or current is None:
                current = []
            current.extend(page)
            if not result.get("nextCursor"):
                replay.tool_lists.append(current)
                current = None
        elif entry.method == "tools/call" and isinstance(params.get("name"), str):
            replay.calls[params["name"]] = (entry, reply)
    return replay


def recorded_outcome(replay: Replay, store: TrafficStore, name: str) -> ToolCallOutcome | BaseException | None:
    """The last recorded call of a tool as an outcome (or the error it got), or None."""
    found = replay.calls.get(name)
    if found is None:
        return None
    request_entry, reply = found
    request = _json(request_entry) or {}
    params = request.get("params") or {}
    arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
    message = _json(reply)
    if not isinstance(message, dict):
        return RpcError(0, "the recording has no response to this call")
    if isinstance(message.get("error"), dict):
        error = message["error"]
        return RpcError(error.get("code", 0), str(error.get("message", "")), error.get("data"), error)
    result = message.get("result") if isinstance(message.get("result"), dict) else {}
    tool = next((t for t in replay.tools if t.get("name") == name), None)
    return ToolCallOutcome(name, arguments, result, analyze_tool_result(result, tool), [],
                           reply.latency_ms or 0.0 if reply is not None else 0.0, None)


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
        request = _json(self.replay.calls[tool_name][0]) or {}
        arguments = (request.get("params") or {}).get("arguments")
        return dict(arguments) if isinstance(arguments, dict) else None

    def put(self, server_key: str, tool_name: str, arguments: dict[str, Any]) -> None:
        pass

    def delete(self, server_key: str, tool_name: str) -> None:
        pass

    def tools_with_drafts(self, server_key: str) -> list[str]:
        return sorted(self.replay.calls) if self.replay is not None else []
