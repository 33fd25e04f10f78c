"""The CLI's side of an OAuth flow (``core/auth/opener.AuthUi``): what to say goes to stderr,
and ``--oauth-open print`` reads the pasted redirect URL from the terminal (``/dev/tty``, so
that ``pipe``'s stdin stays the protocol's), else from stdin when it is a terminal. Without a
terminal it says what to use instead, never waits for input that cannot come.
"""

from __future__ import annotations

import os
import sys

import anyio

from ..core.auth.model import AuthError

LINE_LIMIT = 64 << 10  # characters of a pasted URL


class CliAuthUi:
    def __init__(self, stream=None) -> None:
        self.stream = stream

    def say(self, text: str) -> None:
        stream = self.stream or sys.stderr
        try:
            stream.write(text.rstrip("\n") + "\n")
            stream.flush()
        except (OSError, ValueError):
            pass

    async def ask_redirect_url(self, url: str) -> str:
        reader = _terminal()
        if reader is None:
            raise AuthError("no terminal to paste the redirect URL into: use --oauth-open fetch or browser")
        self.say("Redirect URL: ")
        try:
            line = await anyio.to_thread.run_sync(_read_line, reader, abandon_on_cancel=True)
        finally:
            pass
        if line is None:
            raise AuthError("no redirect URL was given (end of input)")
        return line


def _terminal():
    """A text stream to read the user's line from, or None."""
    if os.name == "posix":
        try:
            return open("/dev/tty", encoding="utf-8", errors="replace")  # noqa: SIM115 - closed by _read_line
        except OSError:
            pass
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            return sys.stdin
    except (OSError, ValueError):
        pass
    return None


def _read_line(reader) -> str | None:
    try:
        line = reader.readline(LINE_LIMIT)
    finally:
        if reader is not sys.stdin:
            reader.close()
    return line.strip() if line else None
