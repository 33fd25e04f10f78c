"""The canonical snapshot: deterministic JSON of what a server offers, made to diff well in git."""

from __future__ import annotations

import json
import os
from typing import Any

from ..base.files import FileReadError, read_bounded

FORMAT = 1
MAX_BYTES = 64 * 1024 * 1024  # a snapshot file larger than this is not read
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
    except RecursionError:  # a crafted file: json's decoder recurses once per nesting level
        raise SnapshotError("nested too deeply to read: not a snapshot") from None
    if not isinstance(document, dict) or "snapshotFormat" not in document:
        raise SnapshotError("not a snapshot (no snapshotFormat member): make one with mcp-inspector snapshot")
    for name, _field in LISTS:
        if not isinstance(document.get(name, []), list):
            raise SnapshotError(f"{name} is not a list")
    if not isinstance(document.get("capabilities", {}), dict):
        raise SnapshotError("capabilities is not an object")
    return document


def read_file(path: str | os.PathLike[str], limit: int = MAX_BYTES) -> dict[str, Any]:
    """The snapshot in the file at ``path``, read bounded (at most ``limit`` bytes); any file that
    is not one raises :class:`SnapshotError` with the whole message (it names the path). The CLI
    (``diff``, ``check --baseline``) and the TUI ("compare with a snapshot") read them here."""
    try:
        data = read_bounded(path, limit)
    except FileReadError as exc:
        raise SnapshotError(
            exc.words(
                missing=f"no such snapshot file: {path}",
                too_large=f"{path} is over {limit // (1024 * 1024)} MiB: not a snapshot",
                unreadable=f"cannot read {path}" + (f": {exc.reason}" if exc.reason else ""),
                directory=f"{path} is a directory, not a snapshot file",
            )
        ) from None
    try:
        return loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise SnapshotError(f"{path} is not UTF-8 text: not a snapshot") from None
    except SnapshotError as exc:
        raise SnapshotError(f"{path}: {exc}") from None
