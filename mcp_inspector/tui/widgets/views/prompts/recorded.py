"""What a recording (``--open FILE``) says about prompts: the last complete ``prompts/list``
(pages joined) and the last recorded ``prompts/get`` result of each prompt. Read from the
traffic store's entries in memory; any shape is tolerated (nothing found: None)."""

from __future__ import annotations

from typing import Any

from .....core.base.json_text import loads_strict
from .....core.base.jsonrpc import Kind
from .....core.traffic.entry import Direction, TrafficEntry
from .....core.traffic.store import TrafficStore


def _message(entry: TrafficEntry | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    try:
        message = loads_strict(entry.raw)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _params(message: dict[str, Any] | None) -> dict[str, Any]:
    params = (message or {}).get("params")
    return params if isinstance(params, dict) else {}


def recorded_prompts(store: TrafficStore) -> tuple[list[dict[str, Any]] | None, dict[str, Any]]:
    """(the last complete prompts/list, or None; prompt name -> its last prompts/get result)."""
    listed: list[dict[str, Any]] | None = None
    current: list[dict[str, Any]] | None = None
    got: dict[str, Any] = {}
    for entry in list(store):
        if entry.direction is not Direction.OUT or entry.kind is not Kind.REQUEST or entry.reply_seq is None:
            continue
        if entry.method not in ("prompts/list", "prompts/get"):
            continue
        request = _message(entry)
        reply = _message(store.get(entry.reply_seq))
        result = (reply or {}).get("result")
        if not isinstance(result, dict):
            continue
        params = _params(request)
        if entry.method == "prompts/get":
            if isinstance(params.get("name"), str):
                got[params["name"]] = result
            continue
        page = result.get("prompts")
        if not isinstance(page, list):
            continue
        if "cursor" not in params or current is None:
            current = []
        current.extend(p for p in page if isinstance(p, dict))
        if not result.get("nextCursor"):
            listed, current = current, None
    return listed, got
