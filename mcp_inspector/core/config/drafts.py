"""Argument drafts per (server, tool), kept on disk so they survive reconnects and restarts.

The file is ``$XDG_STATE_HOME/mcp-inspector/drafts.json`` (state, not config:
losing it is harmless). Writes are atomic (temp file + rename) and merge with
what is on disk, so two inspectors open at once do not wipe each other's
drafts. A corrupt file never stops the app: we start empty, keep the bad file
aside and say so in ``warning``.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from ..base.files import set_aside, state_dir, write_atomic
from ..base.json_text import loads_strict

FORMAT_VERSION = 1


def default_drafts_path() -> Path:
    return state_dir() / "drafts.json"


class DraftStore:
    """``get``/``put``/``delete`` drafts; ``put`` and ``delete`` write the file at once."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_drafts_path()
        self.warning: str | None = None  # set when the file on disk could not be read
        self._lock = threading.Lock()
        self._drafts: dict[str, dict[str, dict[str, Any]]] = self._read(report=True)

    def get(self, server_key: str, tool_name: str) -> dict[str, Any] | None:
        with self._lock:
            entry = self._drafts.get(server_key, {}).get(tool_name)
        arguments = entry.get("arguments") if isinstance(entry, dict) else None
        return dict(arguments) if isinstance(arguments, dict) else None

    def put(self, server_key: str, tool_name: str, arguments: dict[str, Any]) -> None:
        entry = {"arguments": arguments, "saved_at": time.time()}
        with self._lock:
            self._drafts.setdefault(server_key, {})[tool_name] = entry
            self._write(server_key, tool_name, entry)

    def delete(self, server_key: str, tool_name: str) -> None:
        with self._lock:
            self._drafts.get(server_key, {}).pop(tool_name, None)
            self._write(server_key, tool_name, None)

    def tools_with_drafts(self, server_key: str) -> list[str]:
        with self._lock:
            return sorted(self._drafts.get(server_key, {}))

    # -- file ------------------------------------------------------------
    def _read(self, report: bool = False) -> dict[str, dict[str, dict[str, Any]]]:
        try:
            text = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            if report:
                self.warning = (
                    f"cannot read the drafts file {self.path}: {exc.strerror or exc}; starting with no drafts"
                )
            return {}
        try:
            data = loads_strict(text)  # not UTF-8, too deep, NaN...: corrupt like any other bad JSON
            drafts = data["drafts"]
            if not isinstance(drafts, dict) or not all(isinstance(v, dict) for v in drafts.values()):
                raise ValueError("`drafts` is not an object of objects")
        except (ValueError, KeyError, TypeError) as exc:
            if report:
                kept = set_aside(self.path)
                self.warning = f"the drafts file {self.path} is corrupt ({exc}); starting with no drafts{kept}"
            return {}
        return drafts

    def _write(self, server_key: str, tool_name: str, entry: dict[str, Any] | None) -> None:
        """Merge this one change into the file's current content and replace it atomically."""
        on_disk = self._read()
        tools = on_disk.setdefault(server_key, {})
        if entry is None:
            tools.pop(tool_name, None)
            if not tools:
                on_disk.pop(server_key, None)
        else:
            tools[tool_name] = entry
        for key, server_tools in on_disk.items():  # pick up other instances' drafts too
            for name, other in server_tools.items():
                if (key, name) != (server_key, tool_name):
                    self._drafts.setdefault(key, {}).setdefault(name, other)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"version": FORMAT_VERSION, "drafts": on_disk}, indent=1, ensure_ascii=False)
        write_atomic(self.path, payload.encode("utf-8"), prefix=".drafts-")
