"""The stdio proxy's recording, in a process of its own (``sink``): the forward path keeps the GIL to itself.

In one process the recorder thread (classifying, writing, publishing each frame) holds the GIL
while the forward threads wait for it between two syscalls: a flood went through 7-27x slower
than direct (bench/bench_proxy.py). Here the pumps hand each chunk to :class:`RecordPipe` (a
deque append under a lock), and one writer thread ships batches down a pipe to the recorder
process, which does the rest. The recorder process runs in a session of its own (a terminal's
ctrl+c does not cut the recording short) and ends when the pipe does, after recording all of
it, also when the proxy itself was killed.

The pipe's records: ``!BdI`` (what, timestamp, payload length), then the payload: the chunk
(what 0-2: the host, the server's stdout, its stderr), the end of that stream (3, payload one
byte: which), a note (4, payload JSON ``{"text", "meta"}``), or a viewer's frame (5, payload JSON:
``{"dir" (host or server), "raw", "meta"}`` a frame to record, or ``{"viewer", "tag", "answer"}`` what to tell that
viewer). The other way, the recorder process's stdout: ``[viewer, tag, frame text]`` JSON lines,
the frames viewers send into the session (``inject``).
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from .recorder import BACKLOG, HOST, SERVER, STDERR

RECORD = struct.Struct("!BdI")
SOURCES = (HOST, SERVER, STDERR)
END, NOTE, INJECTED = 3, 4, 5
WRITE_BATCH = 1 << 20  # bytes per write to the recorder process
CLOSE_WAIT = 30.0  # seconds for the recorder process to finish once the session is over


class RecordPipe:
    """The forward threads' side: ``put``/``end``/``note`` as ``FrameRecorder`` has them."""

    def __init__(self, config: dict[str, Any], backlog: int = BACKLOG) -> None:
        """``config``: what ``sink.main`` needs (record path, name, header, quiet, live)."""
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcp_inspector.core.proxy.sink", json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,  # frames viewers send into the session (``inject``)
            start_new_session=True,
        )
        #: Called with (viewer, tag, frame text) for each frame a viewer sends (``StdioProxy.inject``).
        self.on_inject: Callable[[int, int, str], None] | None = None
        assert self.process.stdin is not None
        self._fd = self.process.stdin.fileno()
        self.backlog = backlog
        self._queue: deque[bytes] = deque()
        self._queued = 0
        self._cond = threading.Condition()
        self._closing = False
        self.broken = False  # the recorder process went away: forwarding goes on, unrecorded
        self.waited = 0
        self._thread = threading.Thread(target=self._write, name="proxy-record-pipe", daemon=True)
        self._thread.start()
        threading.Thread(target=self._viewer_frames, name="proxy-viewer-frames", daemon=True).start()

    def _viewer_frames(self) -> None:
        """The recorder process's stdout: one JSON line per frame a viewer sent (``sink``)."""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                viewer, tag, text = json.loads(line)
            except (ValueError, TypeError):
                continue
            if self.on_inject is not None:
                self.on_inject(viewer, tag, text)

    def _push(self, what: int, payload: bytes, ts: float | None) -> None:
        record = RECORD.pack(what, ts or time.time(), len(payload)) + payload
        with self._cond:
            if self._queued + len(record) > self.backlog and self._queue and not self.broken:
                self.waited += 1
                while self._queued + len(record) > self.backlog and self._queue and not self.broken:
                    self._cond.wait()
            if self.broken:
                return
            self._queue.append(record)
            self._queued += len(record)
            self._cond.notify_all()

    def put(self, source: str, data: bytes, ts: float | None = None) -> None:
        self._push(SOURCES.index(source), data, ts)

    def end(self, source: str, ts: float | None = None) -> None:
        self._push(END, bytes([SOURCES.index(source)]), ts)

    def note(self, text: str, ts: float | None = None, **meta: Any) -> None:
        self._push(NOTE, json.dumps({"text": text, "meta": meta}).encode("utf-8"), ts)

    def frame(self, source: str, raw: bytes, meta: dict[str, Any]) -> None:
        """A whole frame the proxy wrote (``source`` HOST: to the server) or took out of the server's
        stream (SERVER) itself: a viewer's (``inject``)."""
        record = {"dir": source, "raw": raw.decode("utf-8", "replace"), "meta": meta}
        self._push(INJECTED, json.dumps(record).encode("utf-8"), None)

    def answer(self, viewer: int, tag: int, **fields: Any) -> None:
        """What became of viewer ``viewer``'s frame ``tag``, for that viewer alone."""
        self._push(INJECTED, json.dumps({"viewer": viewer, "tag": tag, "answer": fields}).encode("utf-8"), None)

    def _write(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closing:
                    self._cond.wait()
                if not self._queue:
                    break
                batch: list[bytes] = []
                size = 0
                while self._queue and size < WRITE_BATCH:
                    record = self._queue.popleft()
                    batch.append(record)
                    size += len(record)
                self._queued -= size
                self._cond.notify_all()
            view = memoryview(b"".join(batch))
            try:
                while view:
                    view = view[os.write(self._fd, view) :]
            except OSError:
                with self._cond:
                    self.broken = True
                    self._queue.clear()
                    self._queued = 0
                    self._cond.notify_all()
                break
        with contextlib.suppress(OSError):
            assert self.process.stdin is not None
            self.process.stdin.close()

    def close(self, timeout: float = CLOSE_WAIT) -> None:
        """Ship what is queued, end the pipe, wait for the recorder process to finish."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
