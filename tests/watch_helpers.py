"""Helpers for the watch tests (core, CLI, TUI): a temp copy of a small SDK server, edited for real."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

WATCHED_SERVER = Path(__file__).resolve().parent / "servers" / "watched_server.py"
BROKEN = "def broken(:  # a syntax error\n"


def watched_copy(tmp_path: Path) -> Path:
    """``tmp_path/srv/server.py``, a copy of tests/servers/watched_server.py (tool: echo)."""
    folder = tmp_path / "srv"
    folder.mkdir()
    target = folder / "server.py"
    shutil.copyfile(WATCHED_SERVER, target)
    return target


def server_command(script: Path) -> list[str]:
    return [sys.executable, str(script)]


def save(script: Path, text: str) -> None:
    """Save as an editor's safe-write does: a temporary file (``.tmp``, ignored) renamed over the
    script. One save is one change: ``write_text`` truncates, then writes, and a writer descheduled in
    between on a loaded machine let the watcher see (and run) an empty file as an edit of its own."""
    temporary = script.with_name(script.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, script)


def add_tool(script: Path, name: str, description: str) -> None:
    text = script.read_text()
    tool = (
        f'@server.tool(description="{description}", structured_output=False)\n'
        f"def {name}(text: str) -> str:\n    return text.upper()\n\n\n# more tools"
    )
    save(script, text.replace("# more tools", tool, 1))


def set_description(script: Path, old: str, new: str) -> None:
    text = script.read_text()
    assert f'description="{old}"' in text
    save(script, text.replace(f'description="{old}"', f'description="{new}"', 1))


def break_file(script: Path) -> None:
    save(script, script.read_text() + BROKEN)


def fix_file(script: Path) -> None:
    save(script, script.read_text().replace(BROKEN, ""))
