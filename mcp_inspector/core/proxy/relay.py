"""The stdio proxy's recording, in a process of its own (``sink``): the forward path keeps the GIL to itself.

In one process the recorder thread (classifying, writing, publishing each frame) holds the GIL
while the forward threads wait for it between two syscalls: a flood went through 7-27x slower
than direct (bench/bench_proxy.py). Here the pumps tee each chunk into a pipe to the recorder
process, which does the rest. The recorder process runs in a session of its own (a terminal's
ctrl+c does not cut the recording short) and ends when the pipe does, after recording all of
it, also when the proxy itself was killed.

The tee (:meth:`RecordPipe.put`) is one non-blocking ``writev`` into that pipe (made 1 MiB
where the system allows) by the forwarding thread itself, before it forwards the chunk: no
thread to wake, and a chunk that went on is already in the kernel, so a SIGKILL of the proxy
loses none of it. Only when the pipe is full (the recorder that far behind) do records wait in
a queue, in order, for a writer thread to drain; the forward path waits only when that queue
passes ``backlog`` bytes (rather than lose a frame from the recording).

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
import select
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
WRITE_BATCH = 1 << 20  # bytes per write to the recorder process (a full pipe's queue)
PIPE_SIZE = 1 << 20  # the pipe's capacity we ask for (Linux's default limit for a user)
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
        _grow_pipe(self._fd)
        os.set_blocking(self._fd, False)  # the tee never waits for the recorder: a full pipe queues
        self.backlog = backlog
        self._queue: deque[bytes] = deque()  # records the pipe had no room for, in order
        self._queued = 0
        self._cond = threading.Condition()  # held around every write to the pipe: records never interleave
        self._closing = False
        self._closed = False  # the pipe's fd is closed (its number may be another file's now)
        self.broken = False  # the recorder process went away: forwarding goes on, unrecorded
        self.waited = 0  # times the forward path waited for the recorder (the queue past ``backlog``)
        self.queued_ever = 0  # records that found the pipe full
        self._thread = threading.Thread(target=self._drain, name="proxy-record-pipe", daemon=True)
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
        head = RECORD.pack(what, ts or time.time(), len(payload))
        with self._cond:
            if self.broken or self._closed:
                return
            if not self._queue:  # the fast path: straight into the pipe
                try:
                    written = os.writev(self._fd, (head, payload))
                except BlockingIOError:
                    written = 0
                except OSError:
                    self._break()
                    return
                if written == len(head) + len(payload):
                    return
                record = (head + payload)[written:]
            else:
                record = head + payload
            self.queued_ever += 1
            if self._queued + len(record) > self.backlog and self._queue:
                self.waited += 1
                while self._queued + len(record) > self.backlog and self._queue and not self.broken:
                    self._cond.wait()
                if self.broken:
                    return
            self._queue.append(record)
            self._queued += len(record)
            self._cond.notify_all()

    def _break(self) -> None:
        """The recorder process is gone (lock held): nothing more is recorded, nothing waits."""
        self.broken = True
        self._queue.clear()
        self._queued = 0
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

    def _drain(self) -> None:
        """The writer thread: what the pipe had no room for, as room comes; at the end, closes the pipe."""
        poller = select.poll()
        poller.register(self._fd, select.POLLOUT)
        while True:
            with self._cond:
                while not self._queue and not self._closing and not self.broken:
                    self._cond.wait()
                if not self._queue or self.broken:
                    break
            with contextlib.suppress(InterruptedError):
                poller.poll()  # room in the pipe, or its reader gone (then the write fails)
            with self._cond:
                while self._queue:
                    batch: list[bytes] = []
                    size = 0
                    while self._queue and size < WRITE_BATCH:
                        batch.append(self._queue.popleft())
                        size += len(batch[-1])
                    data = b"".join(batch)
                    try:
                        written = os.write(self._fd, data)
                    except BlockingIOError:
                        written = 0
                    except OSError:
                        self._break()
                        break
                    self._queued -= written
                    if written < len(data):
                        self._queue.appendleft(data[written:])
                        break
                self._cond.notify_all()
        with self._cond:
            self._closed = True
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


def _grow_pipe(fd: int) -> None:
    """Room for ``PIPE_SIZE`` bytes in the pipe (Linux; up to the system's limit), so that the tee
    rarely finds it full while the recorder process catches up."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    except (ImportError, AttributeError, OSError):
        pass
