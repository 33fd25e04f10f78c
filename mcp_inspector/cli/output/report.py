"""Messages on stderr: errors are one line (plus the server's last stderr lines), never a traceback."""

from __future__ import annotations

import re
import sys
from typing import TextIO

from ...core.base.masking import scrub

PROGRAM = "mcp-inspector"
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # all but tab and newline
_TTY: dict[int, bool] = {}


def visible_controls(text: str) -> str:
    """``text`` with its control characters shown, not obeyed: C0 as their Control Pictures (ESC is
    ␛, CR ␍), DEL as ␡, C1 as ``\\x9b``; a server's text cannot retitle, clear or rewrite the terminal."""

    def show(match: re.Match[str]) -> str:
        code = ord(match.group(0))
        return chr(0x2400 + code) if code < 0x20 else "\u2421" if code == 0x7F else f"\\x{code:02x}"

    return _CONTROLS.sub(show, text)


def is_terminal(stream: TextIO) -> bool:
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return False
    if fd not in _TTY:
        try:
            _TTY[fd] = stream.isatty()
        except (OSError, ValueError):
            _TTY[fd] = False
    return _TTY[fd]


def for_stream(text: str, stream: TextIO) -> str:
    """What to write to ``stream``: control characters made visible on a terminal; exactly ``text``
    into a pipe or a file (``read URI > file`` keeps the contents as sent)."""
    return visible_controls(text) if is_terminal(stream) and _CONTROLS.search(text) else text


def write_err(text: str) -> None:
    try:
        sys.stderr.write(
            for_stream(scrub(text), sys.stderr) + "\n"
        )  # a secret this process holds, echoed by a server, is masked
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def error(message: str, tail: list[str] | None = None) -> None:
    write_err(f"{PROGRAM}: error: {message}")
    if tail:
        write_err("last lines the server wrote to stderr:")
        for line in tail[-10:]:
            write_err(f"  {line}")


def warn(message: str) -> None:
    write_err(f"{PROGRAM}: warning: {message}")
