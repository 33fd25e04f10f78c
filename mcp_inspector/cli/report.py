"""Messages on stderr: errors are one line (plus the server's last stderr lines), never a traceback."""

from __future__ import annotations

import sys

from ..core.traffic.masking import scrub

PROGRAM = "mcp-inspector"


def write_err(text: str) -> None:
    try:
        sys.stderr.write(scrub(text) + "\n")  # a secret this process holds, echoed by a server, is masked
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
