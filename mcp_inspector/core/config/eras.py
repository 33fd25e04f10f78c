"""The protocol era each server spoke at its last connection, so the next one skips the probe.

The file is ``$XDG_STATE_HOME/mcp-inspector/eras.json`` (state: losing it costs one probe):
``{"eras": {"sha256:DIGEST": "legacy" | "modern"}}``, the digest of the server's key: never its
command line or URL, whose arguments may hold a secret the user gave (older entries keyed by
the command itself are dropped at the next write). With ``--era auto`` a server known to be
legacy gets ``initialize`` at once instead of ``server/discover`` first (one round trip less
before the tools show); if it rejects that, the probe runs as usual (core/session/era.py). A
modern server is probed anyway (the probe is its handshake). A file that cannot be read is
ignored; writes are atomic and merge with what is on disk.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..base.files import state_dir, write_atomic
from ..base.json_text import loads_strict

ERAS = ("legacy", "modern")
MAX_SERVERS = 500  # entries kept: the oldest go first
DIGEST_PREFIX = "sha256:"


def default_path() -> Path:
    return state_dir() / "eras.json"


def _read(path: Path) -> dict[str, str]:
    try:
        data = loads_strict(path.read_bytes())
    except (OSError, ValueError):
        return {}
    eras = data.get("eras") if isinstance(data, dict) else None
    if not isinstance(eras, dict):
        return {}
    return {key: era for key, era in eras.items() if isinstance(key, str) and era in ERAS}


def file_key(server_key: str) -> str:
    """What the file keeps for a server: a digest of its key, not the key."""
    import hashlib  # (~1 ms: only here, on the cold path of a stdio command)

    return DIGEST_PREFIX + hashlib.sha256(server_key.encode("utf-8", "surrogatepass")).hexdigest()


def hint_applies(era: str | None, url: str | None, protocol_version: str | None) -> bool:
    """Whether a remembered era may spare the probe: ``--era auto`` (or none given), no protocol
    version pinned, over stdio. Over HTTP a refused initialize falls back to HTTP+SSE, not to the
    probe: never there. The CLI and the TUI both ask this, before reading and before writing."""
    return (era or "auto") == "auto" and not url and protocol_version is None


def remembered(server_key: str, path: Path | None = None) -> str | None:
    """The era the server spoke last time, if known."""
    return _read(path or default_path()).get(file_key(server_key))


def remember(server_key: str, era: str, path: Path | None = None) -> None:
    """Keep the era a server spoke (no write when it is what the file says already)."""
    if era not in ERAS:
        return
    path = path or default_path()
    key = file_key(server_key)
    on_disk = _read(path)
    eras = {name: value for name, value in on_disk.items() if name.startswith(DIGEST_PREFIX)}
    if eras.get(key) == era and len(eras) == len(on_disk):
        return
    eras.pop(key, None)
    eras[key] = era
    while len(eras) > MAX_SERVERS:
        eras.pop(next(iter(eras)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # a cache (a lost write costs one probe): no fsync before a cold command can exit
        write_atomic(path, json.dumps({"eras": eras}, ensure_ascii=False).encode("utf-8"), durable=False)
    except OSError:
        pass  # state: a next connection just probes again
