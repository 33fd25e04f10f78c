"""The canonical snapshot: deterministic JSON of what a server offers, made to diff well in git."""

from __future__ import annotations

import json
from typing import Any

FORMAT = 1
LISTS = (("tools", "name"), ("resources", "uri"), ("resourceTemplates", "uriTemplate"), ("prompts", "name"))


def _key(item: Any, field: str) -> tuple[str, str]:
    if isinstance(item, dict):
        return (str(item.get(field, "")), canonical_text(item))
    return ("", canonical_text(item))


def build(
    *,
    server_info: Any,
    protocol_version: Any,
    era: Any,
    capabilities: Any,
    instructions: Any,
    lists: dict[str, list[Any]],
) -> dict[str, Any]:
    """The snapshot document; each list sorted by its identifying field (names, URIs)."""
    document: dict[str, Any] = {
        "snapshotFormat": FORMAT,
        "serverInfo": server_info or {},
        "protocolVersion": protocol_version,
        "era": era,
        "capabilities": capabilities or {},
        "instructions": instructions,
    }
    for name, field in LISTS:
        document[name] = sorted(lists.get(name) or [], key=lambda item, f=field: _key(item, f))
    return document


def canonical_text(document: Any) -> str:
    return json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dumps(document: dict[str, Any]) -> str:
    """Sorted keys, two-space indent, one list item per block, a final newline."""
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


class SnapshotError(ValueError):
    """A file that is not a snapshot."""


def loads(text: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise SnapshotError(f"not JSON: {exc}") from None
    if not isinstance(document, dict) or "snapshotFormat" not in document:
        raise SnapshotError("not a snapshot (no snapshotFormat member): make one with mcp-inspector snapshot")
    for name, _field in LISTS:
        if not isinstance(document.get(name, []), list):
            raise SnapshotError(f"{name} is not a list")
    if not isinstance(document.get("capabilities", {}), dict):
        raise SnapshotError("capabilities is not an object")
    return document
