"""Running jq programs in a child process (``child.py``), bounded in time, memory and output.

jq's C engine holds the GIL while it runs: in-process, ``last(range(1e12))`` would
freeze the TUI's event loop and make the CLI deaf to ctrl+c. In the child it burns
its own CPU until its CPU limit (``cpu_limit`` seconds per batch, enforced by the
kernel) kills it, and the caller gets ``QueryStopped`` with one line saying why; the
next call starts a fresh child. A caller on another thread can ``close()`` to stop a
run at once (a stale query in the TUI).

The API is blocking (thread workers in the TUI, the CLI's own thread): ``match``
says per frame whether the expression matches, ``outputs`` returns what it yields.
Frames go in batches (``BATCH_FRAMES`` / ``BATCH_BYTES``), so 200k frames cost a few
hundred round trips, not 200k.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .expression import MATCH_ERROR, QueryError, check_expression, clean_error, match_text

T = TypeVar("T")

CHILD = Path(__file__).with_name("child.py")
CPU_LIMIT = 10.0  # CPU seconds a batch may take before the child is stopped
BATCH_FRAMES = 512
BATCH_BYTES = 4 << 20
MAX_OUTPUTS = 10_000  # outputs kept per frame (or per result)
MAX_OUTPUT_BYTES = 16 << 20  # bytes of outputs kept per frame
MAX_FRAME = 256 << 20  # a frame longer than this is not queried (counted as an error)


class QueryStopped(Exception):
    """The child was stopped (CPU limit, out of memory, closed): ``str()`` is one line."""


@dataclass
class FrameOutputs:
    """What the expression yielded on one frame (or one result)."""

    outputs: list[str] = field(default_factory=list)  # each output as compact JSON text
    cut: str | None = None  # "count" or "bytes" when outputs were left out ("bytes": the last is a prefix)
    error: str | None = None  # jq's runtime error (one line), after the outputs before it

    @property
    def matched(self) -> bool:
        """At least one output that is not false or null (the filter's rule)."""
        return any(text not in ("false", "null") for text in self.outputs)

    def values(self) -> list[Any]:
        """The outputs as Python values (a byte-cut last output stays a string)."""
        out = []
        for index, text in enumerate(self.outputs):
            if self.cut == "bytes" and index == len(self.outputs) - 1:
                out.append(text)
            else:
                out.append(json.loads(text))
        return out


def batches(
    frames: Iterable[bytes], max_frames: int = BATCH_FRAMES, max_bytes: int = BATCH_BYTES
) -> Iterator[list[bytes]]:
    """Frames grouped for one round trip each (a frame bigger than ``max_bytes`` goes alone)."""
    batch: list[bytes] = []
    size = 0
    for frame in frames:
        if batch and (len(batch) >= max_frames or size + len(frame) > max_bytes):
            yield batch
            batch, size = [], 0
        batch.append(frame)
        size += len(frame)
    if batch:
        yield batch


class QuerySandbox:
    """A child process that runs jq; one request at a time (a lock), restarted after a stop."""

    def __init__(
        self, cpu_limit: float = CPU_LIMIT, wall_limit: float | None = None, memory_limit: int | None = None
    ) -> None:
        self.cpu_limit = cpu_limit
        self.memory_limit = memory_limit  # bytes of the child's address space (None: child.MEMORY_LIMIT)
        # the kernel stops a looping child by CPU time; the wall clock only guards against a child
        # that stopped answering for another reason (it is generous: the machine may be busy)
        self.wall_limit = wall_limit if wall_limit is not None else 60 + cpu_limit * 10
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._closed_by: str | None = None

    # -- the public calls ---------------------------------------------------
    def match(self, expression: str, frames: Sequence[bytes]) -> list[int]:
        """Per frame: 1 (matches), 0 (does not) or -1 (the expression failed on it, or it is not JSON)."""
        program = match_text(check_expression(expression))
        results: list[int] = []
        for batch in batches(frames):
            sendable = [frame if len(frame) <= MAX_FRAME else b"" for frame in batch]
            codes = self._run({"mode": "match", "program": program}, sendable)
            results.extend(
                MATCH_ERROR if len(frame) > MAX_FRAME else code for frame, code in zip(batch, codes, strict=True)
            )
        return results

    def outputs(
        self,
        expression: str,
        frames: Sequence[bytes],
        max_outputs: int = MAX_OUTPUTS,
        max_bytes: int = MAX_OUTPUT_BYTES,
        member: str | None = None,
    ) -> list[FrameOutputs]:
        """What the expression yields on each frame (or on its ``member``), capped per frame."""
        program = check_expression(expression)
        if member is not None:
            program = f"{json.dumps(member)} as $m | .[$m] | ({program}\n)"
        found: list[FrameOutputs] = []
        header = {"mode": "outputs", "program": program, "max_outputs": max_outputs, "max_bytes": max_bytes}
        for batch in batches(frames):
            sendable = [frame if len(frame) <= MAX_FRAME else b"null" for frame in batch]
            for frame, (outputs, cut, error) in zip(batch, self._run(header, sendable), strict=True):
                if len(frame) > MAX_FRAME:
                    found.append(FrameOutputs(error=f"not queried: larger than {MAX_FRAME >> 20} MiB"))
                else:
                    found.append(FrameOutputs(outputs, cut, clean_error(error) if error is not None else None))
        return found

    def value_outputs(
        self,
        expression: str,
        text: str | bytes,
        max_outputs: int = MAX_OUTPUTS,
        max_bytes: int = MAX_OUTPUT_BYTES,
        member: str | None = None,
    ) -> FrameOutputs:
        """What the expression yields on one JSON text (a result); with ``member`` (``"result"``),
        on that member of it: a result is queried from its frame's bytes, never re-encoded here."""
        data = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
        return self.outputs(expression, [data], max_outputs, max_bytes, member)[0]

    def stream(
        self,
        expression: str,
        chunks: Iterable[list[T]],
        raw: Callable[[T], bytes],
        *,
        match: bool = True,
        max_outputs: int = MAX_OUTPUTS,
        max_bytes: int = MAX_OUTPUT_BYTES,
    ) -> Iterator[tuple[list[T], list[Any]]]:
        """(chunk, its results) for each chunk of items, pipelined: a thread reads the next chunk
        (``chunks`` may be a file being parsed) and sends it while the child works on the one before,
        so parsing and jq run at once. Results are ``match`` codes, else ``FrameOutputs``."""
        text = check_expression(expression)
        header = (
            {"mode": "match", "program": match_text(text)}
            if match
            else {"mode": "outputs", "program": text, "max_outputs": max_outputs, "max_bytes": max_bytes}
        )
        with self._lock:
            if self._closed_by == "closed":
                raise QueryStopped("the query was stopped")
            process = self._start()
            sent: queue.Queue[Any] = queue.Queue(maxsize=2)  # chunks sent whose replies are not read yet
            failure: list[BaseException] = []

            def send() -> None:
                try:
                    for chunk in chunks:
                        frames = [raw(item) for item in chunk]
                        frames = [frame if len(frame) <= MAX_FRAME else b"" for frame in frames]
                        sent.put(chunk)
                        self._write(process, header, frames)
                except OSError:
                    pass  # the child is gone: the reader says why
                except BaseException as exc:  # e.g. the file being read failed: raised to the caller
                    failure.append(exc)
                finally:
                    sent.put(None)

            writer = threading.Thread(target=send, name="query-writer", daemon=True)
            writer.start()
            finished = False
            try:
                while (chunk := sent.get()) is not None:
                    reply = self._read_reply(process)
                    if reply is None:
                        raise QueryStopped(self._why_stopped(process))
                    if "compile_error" in reply:
                        raise QueryError(clean_error(reply["compile_error"]))
                    results = reply["results"]
                    if not match:
                        results = [
                            FrameOutputs(outputs, cut, clean_error(error) if error is not None else None)
                            for outputs, cut, error in results
                        ]
                    yield chunk, results
                finished = True
            finally:
                if not finished and process.poll() is None:
                    process.kill()  # the writer, if blocked, gets a broken pipe
                while writer.is_alive():
                    with contextlib.suppress(queue.Empty):
                        sent.get(timeout=0.1)
                if not finished:
                    self._reap()
            if failure:
                raise failure[0]

    def close(self) -> None:
        """Stop the child for good (from any thread): a request waiting on it, and any later one,
        raises QueryStopped."""
        self._closed_by = "closed"  # first: a _start racing this sees it once its child is set
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    def __enter__(self) -> QuerySandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        with self._lock:
            self._reap()

    # -- the child ------------------------------------------------------------
    def _start(self) -> subprocess.Popen[bytes]:
        process = self._process
        if process is not None and process.poll() is None:
            return process
        self._reap()
        if self._closed_by == "closed":  # closed after the caller looked (close() takes no lock)
            raise QueryStopped("the query was stopped")
        # -E -s: none of this environment's PYTHON* settings; env={}: jq's $ENV shows nothing of ours
        self._process = subprocess.Popen(
            [sys.executable, "-E", "-s", str(CHILD), *([str(self.memory_limit)] if self.memory_limit else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={},
            close_fds=True,
        )
        if self._closed_by == "closed":  # close() ran while it started and may have missed it
            self._reap()
            raise QueryStopped("the query was stopped")
        return self._process

    def _reap(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        if process.poll() is None:
            process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)

    def _run(self, header: dict[str, Any], frames: list[bytes]) -> list[Any]:
        with self._lock:
            if self._closed_by == "closed":
                raise QueryStopped("the query was stopped")
            process = self._start()
            try:
                self._write(process, header, frames)
                reply = self._read_reply(process)
            except (OSError, ValueError):
                reply = None
            if reply is None:
                raise QueryStopped(self._why_stopped(process))
        if "compile_error" in reply:
            raise QueryError(clean_error(reply["compile_error"]))
        return reply["results"]

    def _write(self, process: subprocess.Popen[bytes], header: dict[str, Any], frames: list[bytes]) -> None:
        head = json.dumps({**header, "cpu": self.cpu_limit, "sizes": [len(frame) for frame in frames]}).encode()
        payload = b"".join([head, b"\n", *frames])
        process.stdin.write(len(payload).to_bytes(4, "big"))
        process.stdin.write(payload)
        process.stdin.flush()

    def _read_reply(self, process: subprocess.Popen[bytes]) -> dict[str, Any] | None:
        fd = process.stdout.fileno()
        deadline = time.monotonic() + self.wall_limit
        head = self._read(fd, 4, deadline)
        if head is None:
            return None
        body = self._read(fd, int.from_bytes(head, "big"), deadline)
        return None if body is None else json.loads(body)

    def _read(self, fd: int, size: int, deadline: float) -> bytes | None:
        chunks: list[bytes] = []
        while size:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self._process.kill() if self._process is not None else None
                self._closed_by = self._closed_by or "wall"
                return None
            chunk = os.read(fd, min(size, 1 << 20))
            if not chunk:
                return None
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def _why_stopped(self, process: subprocess.Popen[bytes]) -> str:
        try:
            code = process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            code = None
        why = self._closed_by
        if why != "closed":  # closed stays closed; a stop for another reason lets the next call start afresh
            self._closed_by = None
        self._reap()
        if why == "wall":
            return f"the query gave no answer in {self.wall_limit:g} s: stopped"
        if why is not None:
            return "the query was stopped" if why == "closed" else why
        if code == -signal.SIGXCPU:
            return f"the query ran for more than {self.cpu_limit:g} s of CPU (a loop that never ends?): stopped"
        if code in (-signal.SIGABRT, -signal.SIGSEGV, -signal.SIGKILL, 1, -signal.SIGBUS) or code is None:
            return "the query ran out of memory (or its process died): stopped"
        return f"the query process ended (exit {code}): stopped"
