"""The frames sent by hand, per server, kept on disk for the raw frame screen's history.

The file is ``$XDG_STATE_HOME/mcp-inspector/raw-frames.json`` (0600, written atomically,
merged with what is on disk so two inspectors do not wipe each other's). It stays bounded:
the last ``PER_SERVER`` frames of each of the last ``SERVERS`` servers, a frame of more
than ``MAX_FRAME_CHARS`` characters is not kept, and a file over ``MAX_FILE_BYTES`` is not
read. A corrupt file never stops the app: it is set aside and ``warning`` says so.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from ..base.files import FileReadError, read_bounded, set_aside, state_dir, write_atomic
from ..base.json_text import loads_strict

FORMAT_VERSION = 1
PER_SERVER = 50
SERVERS = 100
MAX_FRAME_CHARS = 64 * 1024
MAX_FILE_BYTES = 16 * 1024 * 1024


def default_history_path() -> Path:
    return state_dir() / "raw-frames.json"


class RawHistory:
    """``frames(server)`` oldest first; ``add`` writes the file at once (call it off the event loop)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_history_path()
        self.warning: str | None = None
        self._lock = threading.Lock()
        self._servers: dict[str, list[dict[str, Any]]] = self._read(report=True)

    def frames(self, server_key: str) -> list[dict[str, Any]]:
        """``{"text", "as_is", "sent_at"}`` dicts, oldest first."""
        with self._lock:
            return [dict(frame) for frame in self._servers.get(server_key, [])]

    def add(self, server_key: str, text: str, as_is: bool = False) -> str | None:
        """Keep a frame sent (the same text twice in a row is kept once); returns why it was not
        kept or the file not written, else None."""
        if len(text) > MAX_FRAME_CHARS:
            return f"not kept in the history: longer than {MAX_FRAME_CHARS:,} characters"
        frame = {"text": text, "as_is": bool(as_is), "sent_at": time.time()}
        with self._lock:
            frames = self._servers.setdefault(server_key, [])
            _push(frames, frame)
            try:
                self._write(server_key, frame)
            except OSError as exc:
                return f"the history file {self.path} was not written: {exc.strerror or exc}"
        return None

    # -- file ------------------------------------------------------------
    def _read(self, report: bool = False) -> dict[str, list[dict[str, Any]]]:
        try:
            data = read_bounded(self.path, MAX_FILE_BYTES)
        except FileReadError as exc:
            if report and exc.kind != "missing":
                self.warning = exc.words(
                    missing="",
                    too_large=f"the raw frame history {self.path} is over "
                    f"{MAX_FILE_BYTES // (1024 * 1024)} MiB: not read, starting empty",
                    unreadable=f"cannot read the raw frame history {self.path}: {exc.reason}",
                    directory=f"the raw frame history {self.path} is a directory",
                )
            return {}
        try:
            servers = loads_strict(data)["servers"]
            if not isinstance(servers, dict):
                raise ValueError("`servers` is not an object")
            clean = {
                str(key): [f for f in frames if _valid(f)][-PER_SERVER:]
                for key, frames in servers.items()
                if isinstance(frames, list)
            }
        except (ValueError, KeyError, TypeError) as exc:
            if report:
                kept = set_aside(self.path)
                self.warning = f"the raw frame history {self.path} is corrupt ({exc}); starting with none{kept}"
            return {}
        return clean

    def _write(self, server_key: str, frame: dict[str, Any]) -> None:
        on_disk = self._read()
        frames = on_disk.pop(server_key, [])
        _push(frames, frame)
        on_disk[server_key] = frames  # last: the most recently used server
        while len(on_disk) > SERVERS:
            on_disk.pop(next(iter(on_disk)))
        self._servers = {**on_disk}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"version": FORMAT_VERSION, "servers": on_disk}, indent=1, ensure_ascii=False)
        write_atomic(self.path, payload.encode("utf-8"), prefix=".raw-frames-")


def _valid(frame: Any) -> bool:
    return isinstance(frame, dict) and isinstance(frame.get("text"), str) and len(frame["text"]) <= MAX_FRAME_CHARS


def _push(frames: list[dict[str, Any]], frame: dict[str, Any]) -> None:
    if frames and frames[-1].get("text") == frame["text"] and frames[-1].get("as_is") == frame["as_is"]:
        frames[-1] = frame
    else:
        frames.append(frame)
    del frames[:-PER_SERVER]
