"""Rewriting a host's config entry to go through the proxy (``proxy --wrap``), and back (``--unwrap``).

The entry is found with the readers the F7 screen uses (``config.servers.server_from_config``:
Claude Desktop, Claude Code, Cursor, VS Code, ``.mcp.json``...), so a name that screen would
not show is refused the same way. Wrapping a stdio entry makes its command ``mcp-inspector``
and its args ``proxy --name NAME [--record FILE] -- COMMAND ARGS...``; every other key (``env``,
``cwd``, ``type``...) stays. Unwrapping takes the server's command back from after the ``--``.

``--write`` changes only the bytes of that entry's value in the file: the rest stays byte for
byte as it was (comments aside: the readers take strict JSON). A copy of the file is kept
beside it first (``FILE.bak``, or ``FILE.bak-2``... if that exists), and the new file replaces
the old one in one rename, with its permissions.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..config.servers import ConfigError, server_from_config

PROXY_COMMAND = "mcp-inspector"


class WrapError(Exception):
    """The entry cannot be wrapped or unwrapped (one line for the user)."""


def _is_proxy(entry: dict[str, Any]) -> bool:
    args = entry.get("args")
    command = entry.get("command")
    return (
        isinstance(command, str)
        and os.path.basename(command).startswith(PROXY_COMMAND)
        and isinstance(args, list)
        and args[:1] == ["proxy"]
        and "--" in args
    )


def wrapped(
    entry: dict[str, Any], name: str, record: str | None = None, command: str = PROXY_COMMAND
) -> dict[str, Any]:
    """The entry going through the proxy (keys in the same order, ``command``/``args`` replaced)."""
    if "url" in entry and "command" not in entry:
        raise WrapError(
            f"{name!r} is a URL entry: run mcp-inspector proxy --listen 127.0.0.1:PORT --url URL and point "
            "the entry's url at it (the host does not start a URL server)"
        )
    if _is_proxy(entry):
        raise WrapError(f"{name!r} goes through the proxy already (--unwrap restores it)")
    original = entry.get("command")
    args = entry.get("args", [])
    if not isinstance(original, str) or not isinstance(args, list):
        raise WrapError(f"{name!r} has no command to wrap")
    own = ["proxy", "--name", name] + (["--record", record] if record else []) + ["--", original, *args]
    result = dict(entry)
    result["command"] = command
    result["args"] = own
    return result


def unwrapped(entry: dict[str, Any], name: str) -> dict[str, Any]:
    if not _is_proxy(entry):
        raise WrapError(f"{name!r} does not go through the proxy: nothing to unwrap")
    args = entry["args"]
    rest = args[args.index("--") + 1 :]
    if not rest or not isinstance(rest[0], str):
        raise WrapError(f"{name!r}: no server command after -- in its args")
    result = dict(entry)
    result["command"] = rest[0]
    if rest[1:] or "args" in entry:
        result["args"] = rest[1:]
    return result


# -- finding the entry's bytes -------------------------------------------------------


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _value_end(text: str, pos: int) -> int:
    """The end of the JSON value starting at ``pos`` (strict JSON: the reader accepted the file)."""
    _, end = json.JSONDecoder().raw_decode(text, pos)
    return end


def _members(text: str, start: int) -> list[tuple[str, int, int]]:
    """(key, value start, value end) of the object starting at ``start``."""
    decoder = json.JSONDecoder()
    found = []
    pos = _skip_ws(text, start + 1)
    while pos < len(text) and text[pos] != "}":
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        pos = _skip_ws(text, pos + 1)  # the colon
        end = _value_end(text, pos)
        found.append((key, pos, end))
        pos = _skip_ws(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return found


def entry_span(text: str, name: str) -> tuple[int, int]:
    """Where the entry's value is in ``text`` (a config file the readers accepted)."""
    top = _skip_ws(text, 0)
    members = _members(text, top)
    for section in ("mcpServers", "servers", "mcp"):
        for key, start, _ in members:
            if key != section or text[start] != "{":
                continue
            inner = _members(text, start)
            if section == "mcp":
                servers = next((s for k, s, _ in inner if k == "servers" and text[s] == "{"), None)
                if servers is None:
                    continue
                inner = _members(text, servers)
            last = None
            for entry_key, entry_start, entry_end in inner:
                if entry_key == name:
                    last = (entry_start, entry_end)  # a duplicate key: the last wins, as for the reader
            if last is not None:
                return last
    raise WrapError(f"cannot find the entry {name!r} in the file's text")


def _indent_of(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    line = text[line_start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _render(value: dict[str, Any], text: str, start: int, end: int) -> str:
    """The new value, laid out like the old one: one line if it was, else indented to its place."""
    old = text[start:end]
    if "\n" not in old:
        return json.dumps(value, ensure_ascii=False)
    base = _indent_of(text, start)
    inner = _indent_of(text, _skip_ws(text, start + 1))
    step = inner[len(base) :] if inner.startswith(base) and len(inner) > len(base) else "  "
    rendered = json.dumps(value, ensure_ascii=False, indent=step)
    newline = "\r\n" if "\r\n" in old else "\n"  # the file's line endings
    return rendered.replace("\n", newline + base)


def rewrite(path: Path, name: str, unwrap: bool = False, record: str | None = None) -> tuple[str, dict[str, Any]]:
    """(the file's new text, the new entry). The entry is looked up by the F7 screen's readers."""
    try:
        server_from_config(path, name)
    except ConfigError as exc:
        raise WrapError(str(exc)) from None
    text = path.read_bytes().decode("utf-8")  # not read_text: its newline translation would change CRLF files
    start, end = entry_span(text, name)
    entry = json.loads(text[start:end])
    if not isinstance(entry, dict):
        raise WrapError(f"{name!r} is not an object")
    new = unwrapped(entry, name) if unwrap else wrapped(entry, name, record)
    return text[:start] + _render(new, text, start, end) + text[end:], new


def write_with_backup(path: Path, text: str) -> Path:
    """Keep a copy of ``path`` beside it, then replace it with ``text`` in one rename; the copy's path."""
    backup = path.with_name(path.name + ".bak")
    number = 1
    while backup.exists():
        number += 1
        backup = path.with_name(f"{path.name}.bak-{number}")
    shutil.copy2(path, backup)
    mode = os.stat(path).st_mode & 0o7777
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return backup
