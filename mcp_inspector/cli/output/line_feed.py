"""Stdout for a stream of lines (``subscribe``) that never blocks the event loop.

A blocking ``sys.stdout.write`` on the event loop stalls everything when nobody reads
stdout (a full pipe): ``--for``, ``--count`` and Ctrl-C wait for the reader, and the
server's frames are not read. Here a daemon thread writes the lines to the file
descriptor with ``os.write`` (no Python lock held while it blocks, so exiting with it
stuck is safe); the loop only queues them. At most ``limit`` lines wait: past that a
line is refused (the caller counts it as dropped). ``drain`` waits, for a while, until
everything queued is written.
"""

from __future__ import annotations

import os
import sys
import threading

import anyio

from .report import visible_controls


class LineFeed:
    def __init__(self, limit: int, fd: int | None = None) -> None:
        sys.stdout.flush()  # what was printed before goes first
        self.fd = sys.stdout.fileno() if fd is None else fd
        try:
            self.terminal = os.isatty(self.fd)  # control characters shown, not obeyed (report.visible_controls)
        except OSError:
            self.terminal = False
        self.limit = limit
        self.broken = False  # the reader went away (EPIPE)
        self._chunks: list[bytes] = []
        self._counts: list[int] = []  # lines in each chunk
        self._waiting = 0  # lines queued or being written
        self._lock = threading.Condition()
        self._closed = False
        threading.Thread(target=self._run, name="stdout-lines", daemon=True).start()

    def put(self, text: str, lines: int = 1) -> bool:
        """Queue ``text`` (``lines`` lines); False when it would exceed the limit or stdout is gone."""
        with self._lock:
            if self.broken or self._closed or self._waiting + lines > self.limit:
                return False
            if self.terminal:
                text = visible_controls(text)
            self._chunks.append(text.encode("utf-8", "replace"))
            self._waiting += lines
            self._counts.append(lines)
            self._lock.notify()
            return True

    @property
    def waiting(self) -> int:
        """Lines queued and not yet written."""
        return self._waiting

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._chunks and not self._closed:
                    self._lock.wait()
                if not self._chunks:
                    return
                data, self._chunks = b"".join(self._chunks), []
                lines, self._counts = sum(self._counts), []
            try:
                view = memoryview(data)
                while view:
                    written = os.write(self.fd, view)
                    view = view[written:]
            except OSError:  # EPIPE and the like: nobody reads any more
                with self._lock:
                    self.broken = True
                    self._chunks, self._counts, self._waiting = [], [], 0
                return
            with self._lock:
                self._waiting -= lines

    async def drain(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the queued lines to be written; True when they were."""
        with anyio.move_on_after(seconds):
            while self._waiting and not self.broken:
                await anyio.sleep(0.01)
        with self._lock:
            self._closed = True
            self._lock.notify()
        return not self._waiting or self.broken
