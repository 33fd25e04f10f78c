"""The CLI's side of an OAuth flow (``core/auth/opener.AuthUi``): what to say goes to stderr,
and ``--oauth-open print`` reads the pasted redirect URL from the terminal (``/dev/tty``, so
that ``pipe``'s stdin stays the protocol's), else from stdin when it is a terminal. Without a
terminal it says what to use instead, never waits for input that cannot come. The line is read
in a daemon thread: a flow that ends without it (time limit, ctrl+c) does not keep the process.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

import anyio
import anyio.lowlevel

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
        from ..core.auth.model import AuthError  # (the model: loaded by a flow, not by every --url command)

        reader = _terminal()
        if reader is None:
            raise AuthError("no terminal to paste the redirect URL into: use --oauth-open fetch or browser")
        self.say("Redirect URL: ")
        # A daemon thread of our own, not anyio's worker: a flow that ends without a paste
        # (--oauth-timeout, ctrl+c) leaves it blocked in readline, and the process must still exit.
        from anyio import from_thread  # (only when a URL is pasted: not on every --url command, ~1-2 ms)

        send, receive = anyio.create_memory_object_stream[str | None](1)
        token = anyio.lowlevel.current_token()

        def read() -> None:
            try:
                line = _read_line(reader)
            except (OSError, ValueError):
                line = None
            with contextlib.suppress(RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError):
                from_thread.run_sync(send.send_nowait, line, token=token)

        threading.Thread(target=read, name="redirect-url", daemon=True).start()
        async with receive:
            line = await receive.receive()
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
