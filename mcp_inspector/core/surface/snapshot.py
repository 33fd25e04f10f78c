"""The canonical snapshot: deterministic JSON of what a server offers, made to diff well in git.

Two formats, both read here. ``snapshotFormat: 1`` is one era's surface (``snapshot``, or
``snapshot --era legacy|modern``): serverInfo, protocolVersion, era, capabilities, instructions
and the four lists at the top level. ``snapshotFormat: 2`` (``snapshot --era both``) holds the
surface as each protocol era sees it: ``eras`` maps ``legacy`` and/or ``modern`` to a format-1
body (without its own ``snapshotFormat``), and ``erasNotSpoken`` lists the eras the server was
asked in and did not speak; each era is in exactly one of the two (core/surface/eras.py compares
them era by era).
"""

from __future__ import annotations

import json
import os
from typing import Any

from ..base.files import FileReadError, read_bounded

FORMAT = 1
FORMAT_ERAS = 2  # snapshot --era both: one format-1 body per era
ERAS = ("legacy", "modern")
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


def build_eras(surfaces: dict[str, dict[str, Any]], not_spoken: list[str]) -> dict[str, Any]:
    """The two-era document: each era's :func:`build` body (its ``snapshotFormat`` left out), and
    the eras the server did not speak."""
    return {
        "snapshotFormat": FORMAT_ERAS,
        "eras": {era: {k: v for k, v in body.items() if k != "snapshotFormat"} for era, body in surfaces.items()},
        "erasNotSpoken": sorted(not_spoken),
    }


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
    version = document["snapshotFormat"]
    if version == FORMAT and not isinstance(version, bool):
        _check_body(document, "")
    elif version == FORMAT_ERAS and not isinstance(version, bool):
        _check_eras(document)
    else:
        raise SnapshotError(
            f"snapshotFormat {json.dumps(version)[:40]} is not one this mcp-inspector reads "
            f"({FORMAT} or {FORMAT_ERAS}): a newer version's file, or not a snapshot"
        )
    return document


def _check_body(body: Any, where: str) -> None:
    if not isinstance(body, dict):
        raise SnapshotError(f"{where} is not an object")
    for name, _field in LISTS:
        if not isinstance(body.get(name, []), list):
            raise SnapshotError(f"{where}{'/' if where else ''}{name} is not a list")
    if not isinstance(body.get("capabilities", {}), dict):
        raise SnapshotError(f"{where}{'/' if where else ''}capabilities is not an object")


def _check_eras(document: dict[str, Any]) -> None:
    """A two-era file accounts for each era: recorded in ``eras`` or listed in ``erasNotSpoken``."""
    eras, not_spoken = document.get("eras"), document.get("erasNotSpoken", [])
    if not isinstance(eras, dict):
        raise SnapshotError(f"snapshotFormat {FORMAT_ERAS} needs an eras object (legacy, modern)")
    if not isinstance(not_spoken, list) or not all(isinstance(era, str) for era in not_spoken):
        raise SnapshotError("erasNotSpoken is not a list of era names")
    for era in [*eras, *not_spoken]:
        if era not in ERAS:
            raise SnapshotError(f"unknown era {json.dumps(era)[:40]} (the eras are legacy and modern)")
    for era in ERAS:
        if era in eras and era in not_spoken:
            raise SnapshotError(f"the {era} era is both recorded and listed as not spoken")
        if era not in eras and era not in not_spoken:
            raise SnapshotError(
                f"the {era} era is missing: neither in eras nor in erasNotSpoken (a two-era file records both)"
            )
    if not eras:
        raise SnapshotError("no era is recorded (the server spoke neither): nothing to compare")
    for era, body in eras.items():
        _check_body(body, f"eras/{era}")
        if body.get("era", era) != era:
            raise SnapshotError(f"eras/{era} says its era is {json.dumps(body.get('era'))[:40]}")


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
