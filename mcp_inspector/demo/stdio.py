"""Newline-delimited JSON over stdin/stdout: a reader thread and a plain writer.

A thread (rather than ``loop.connect_read_pipe``) reads stdin so it works the
same for pipes, files, ttys and sockets. It reads the raw file descriptor with
``os.read`` so it never holds the interpreter's stdin lock, which would make a
blocked daemon thread crash interpreter shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from typing import BinaryIO


class StdioTransport:
    """Feeds input lines into an asyncio queue and writes one JSON object per line."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._queue: asyncio.Queue[bytes | None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False  # set once stdout is gone

    def start(self) -> asyncio.Queue[bytes | None]:
        """Start reading; the queue yields raw lines, then ``None`` at EOF."""
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        thread = threading.Thread(target=self._read_forever, name="demo-stdin", daemon=True)
        thread.start()
        return self._queue

    def write(self, message: dict) -> None:
        """Send one message. ASCII-only JSON so no client line splitter can be confused."""
        if self.closed:
            return
        data = json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"
        try:
            self._stdout.write(data)
            self._stdout.flush()
        except (BrokenPipeError, OSError, ValueError):
            self.closed = True
            self._push(None)  # the client is gone: stop the server loop

    # -- reader thread -------------------------------------------------------

    def _read_forever(self) -> None:
        try:
            for line in self._lines():
                self._push(line)
        except Exception:  # noqa: BLE001 - any read failure is treated as EOF
            pass
        self._push(None)

    def _lines(self):
        try:
            fd = self._stdin.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None
        if fd is None:  # in-memory streams (tests, embedding)
            yield from iter(self._stdin.readline, b"")
            return
        pending = bytearray()
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            pending += chunk
            if b"\n" in chunk:  # only split when this chunk completed a line
                *lines, rest = bytes(pending).split(b"\n")
                pending = bytearray(rest)
                yield from lines
        if pending:
            yield bytes(pending)

    def _push(self, item: bytes | None) -> None:
        loop, queue = self._loop, self._queue
        if loop is None or queue is None:
            return
        with contextlib.suppress(RuntimeError):  # loop already closed
            loop.call_soon_threadsafe(queue.put_nowait, item)
