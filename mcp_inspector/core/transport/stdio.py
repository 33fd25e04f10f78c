"""stdio transport: the server is a child process speaking newline-delimited JSON.

The child gets its own process group and pipes for all three streams, so it
never touches the inspector's terminal and a signal can reach its children too.
Framing is done on bytes (see ``framing``), non-JSON lines are passed on for the
session to record, stderr is captured line by line, and the exit code or signal
is reported. Shutdown follows the spec: close stdin, wait, SIGTERM, SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel

from .. import reaping
from ..base.errors import quote_line
from ..base.framing import MAX_LINE_BYTES, LineFramer, OverlongLine, is_blank
from ..started import StartedServer, start_server
from .adopted import AdoptedProcess, adopt
from .base import TORN_BY_SHUTDOWN, Closed, Note, Received, Sink, StderrLine, Transport, TransportError

READ_CHUNK = 1 << 20
YIELD_EVERY = 100  # frames delivered between two yields to the event loop
STDERR_TAIL = 50
EXIT_DRAIN = 1.0  # seconds to wait for stdout to end once the process has exited
IDLE_CLOSE_GRACE = 0.2  # seconds for a server with no work of ours in flight to exit on stdin EOF
ESCAPED_TERM_GRACE = 0.5  # seconds for a server's orphaned descendant to go after SIGTERM
REAP_POLL = 0.01
MAX_STDERR_LINE_BYTES = 1 << 20  # stderr is for people: a longer line is cut (its size kept)


class StdioTransport(Transport):
    kind = "stdio"

    def __init__(
        self,
        command: Sequence[str],
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        inherit_env: bool = True,
        close_grace: float = 2.0,
        idle_close_grace: float = IDLE_CLOSE_GRACE,
        term_grace: float = 2.0,
        started: StartedServer | None = None,
        write_stall: float = 30.0,
        max_line_bytes: int = MAX_LINE_BYTES,
        max_stderr_line_bytes: int = MAX_STDERR_LINE_BYTES,
    ) -> None:
        """``started``: a process already running this command (core/started.py), adopted
        (``adopted``) and from then on shut down by this transport.
        ``write_stall``: how long a write may wait for a server that does not read its input.
        ``max_line_bytes``: the longest stdout frame read whole; a longer one is recorded as
        invalid ("too long") from its head while the rest is discarded as it arrives.
        ``max_stderr_line_bytes``: the same for stderr lines (cut, their size noted)."""
        if not command:
            raise TransportError("no server command given")
        self.command = [str(part) for part in command]
        self.env = dict(env or {})
        self.cwd = cwd
        self._started = started
        #: the mark in the server's environment that finds its descendants (reaping.py)
        self.tag: str | None = started.tag if started is not None else reaping.new_tag()
        self.write_stall = write_stall
        self.inherit_env = inherit_env
        self.close_grace = close_grace
        self.idle_close_grace = idle_close_grace
        self.term_grace = term_grace
        self.process: AdoptedProcess | None = None
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self.returncode: int | None = None
        self._sink: Sink | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._closing = False
        #: Set once we signal the server (shutdown, or the CLI's second stop signal): an unterminated
        #: last stdout line is then ours to explain (TORN_BY_SHUTDOWN), not the server's invalid output.
        self.stopped_by_us = False
        self._closed_event = anyio.Event()
        self._stdout_done = anyio.Event()
        self._stderr_done = anyio.Event()
        self.max_line_bytes = max_line_bytes
        self.max_stderr_line_bytes = max_stderr_line_bytes
        self.stdout_framer = LineFramer(max_line_bytes)
        self.stderr_framer = LineFramer(max_stderr_line_bytes)
        self._drained = False  # the exit watcher already gave the readers their time
        #: After close(): whether the server exited within ``close_grace`` of its stdin closing
        #: (True), had to be signalled (False), or was gone before (None). The check's exit-on-eof.
        self.exited_on_eof: bool | None = None

    @property
    def description(self) -> str:
        return subprocess.list2cmdline(self.command)

    @property
    def details(self) -> dict[str, Any]:
        info: dict[str, Any] = {"command": self.command}
        if self.process is not None:
            info["pid"] = self.process.pid
        if self.cwd:
            info["cwd"] = self.cwd
        return info

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    async def start(self, task_group: anyio.abc.TaskGroup, sink: Sink) -> None:
        self._sink = sink
        if self._started is None:
            self._started = self._spawn()
        self._started.claimed = True
        self.process = await adopt(self._started.process)
        self._writer = self.process.stdin
        sink(
            Note(
                f"started {self.description} (pid {self.process.pid})",
                {"pid": self.process.pid, "command": self.command},
            )
        )
        task_group.start_soon(self._read_stdout)
        task_group.start_soon(self._read_stderr)
        task_group.start_soon(self._watch_exit)

    def _spawn(self) -> StartedServer:
        """Start the server (core/started.py: the one way every stdio server starts)."""
        executable = self.command[0]
        import shutil  # here, not at import: an adopted (early-started) server never needs it

        path = self.env.get("PATH", os.environ.get("PATH") if self.inherit_env else None)
        if os.sep not in executable and shutil.which(executable, path=path) is None:
            raise TransportError(f"command not found: {executable}")
        if self.cwd is not None and not os.path.isdir(self.cwd):
            raise TransportError(f"working directory does not exist: {self.cwd}")
        try:
            return start_server(self.command, self.env, self.cwd, inherit_env=self.inherit_env, tag=self.tag)
        except FileNotFoundError:
            raise TransportError(f"command not found: {executable}") from None
        except PermissionError as exc:  # the program, or the working directory: name the one denied
            denied = exc.filename or executable
            what = "working directory " if self.cwd is not None and denied == self.cwd else ""
            raise TransportError(f"permission denied: {what}{denied}") from None
        except OSError as exc:
            raise TransportError(f"cannot start {executable}: {exc.strerror or exc}") from None

    async def send(self, data: bytes, meta: dict[str, Any] | None = None) -> None:
        writer = self._writer
        if self.process is None or writer is None or self._closed_event.is_set():
            raise TransportError("the server process is not running")
        # One write() call queues the whole frame atomically, so no lock is needed, and no
        # task switch either: the loop is entered only when the pipe is full.
        await anyio.lowlevel.checkpoint_if_cancelled()
        try:
            writer.write(data + b"\n")
            if writer.transport.get_write_buffer_size():
                # The pipe is full: the server is not reading. Wait, but not forever.
                with anyio.move_on_after(self.write_stall) as waited:
                    await writer.drain()
                if waited.cancelled_caught:
                    raise TransportError(f"the server has not read its input for {self.write_stall:g} s")
        except (RuntimeError, OSError) as exc:
            raise TransportError(f"cannot write to the server: {exc.__class__.__name__}") from None

    async def _read_stdout(self) -> None:
        """Lines go to the sink as they are read, inside the pipe's callback (adopted.py)."""
        assert self.process is not None
        sink = self._sink

        cap = self.max_line_bytes

        def on_line(line: bytes, terminated: bool) -> None:
            if type(line) is OverlongLine:
                meta = {"truncated": True, "size": line.size, "cap": cap}
                if not terminated:
                    meta["unterminated"] = True
                sink(Received(bytes(line), meta, f"too long: {line.size} bytes (cap {cap})"))
            elif terminated:
                if not is_blank(line):
                    sink(Received(line))
            elif self.stopped_by_us:
                # Our signal cut this line short (a server flooding stdout at shutdown): kept, not its fault.
                sink(Received(line, {"unterminated": True, "torn_by_shutdown": True}, TORN_BY_SHUTDOWN))
            elif not is_blank(line):
                sink(Received(line, {"unterminated": True}))

        try:
            await self.process.stdout.run(self.stdout_framer, on_line)
        finally:
            self._stdout_done.set()

    async def _read_stderr(self) -> None:
        assert self.process is not None
        sink = self._sink

        cap = self.max_stderr_line_bytes

        def on_line(line: bytes, terminated: bool) -> None:
            text = quote_line(line.decode("utf-8", errors="replace"))
            if type(line) is OverlongLine:
                text += f" [line of {line.size} bytes, over the {cap}-byte cap]"
                self.stderr_tail.append(text)
                sink(StderrLine(bytes(line), {"truncated": True, "size": line.size, "cap": cap}))
            else:
                self.stderr_tail.append(text)
                sink(StderrLine(line))

        await _pump(self.process.stderr, on_line, self._stderr_done, self.stderr_framer)

    async def _watch_exit(self) -> None:
        """Report Closed when stdout ends or the process exits, whichever comes first.

        Watching the exit too matters when a grandchild (``sh -c "... &"``, a wrapper's
        helper) inherited stdout: the pipe then stays open after the server died, and
        calls in flight must fail now, not when their timeout runs out.
        """
        assert self.process is not None
        process = self.process
        async with anyio.create_task_group() as watchers:

            async def after_exit() -> None:
                await process.wait()
                # Let what it wrote before exiting arrive first.
                with anyio.move_on_after(EXIT_DRAIN):
                    await self._stdout_done.wait()
                watchers.cancel_scope.cancel()

            async def after_stdout() -> None:
                await self._stdout_done.wait()
                # The server may close stdout without exiting ("shut down by closing stdout").
                with anyio.move_on_after(2.0 if not self._closing else None):
                    await process.wait()
                watchers.cancel_scope.cancel()

            watchers.start_soon(after_exit)
            watchers.start_soon(after_stdout)
        # Let stderr drain (a grandchild might hold it open, so don't wait forever).
        with anyio.move_on_after(0.5):
            await self._stderr_done.wait()
        self._drained = True
        self._report_closed()

    def _report_closed(self) -> None:
        if self._closed_event.is_set():
            return
        self._closed_event.set()
        assert self.process is not None
        code = self.process.returncode
        self.returncode = code
        exit_code: int | None = None
        sig: int | None = None
        if code is None:
            reason = "the server closed its stdout"
        elif code < 0:
            sig = -code
            reason = f"the server was killed by signal {sig} ({_signal_name(sig)})"
        else:
            exit_code = code
            reason = f"the server exited with code {code}"
        if self._sink is not None:
            self._sink(Closed(reason, exit_code, sig, list(self.stderr_tail)[-10:], expected=self._closing))

    async def close(self) -> None:
        """Close stdin, wait, then SIGTERM, then SIGKILL the process group; reap it.

        The wait is ``close_grace`` while the server has work of ours in flight, else at most
        ``idle_close_grace``: a server that ignores EOF (server-everything once the client
        declared roots) must not hold up an exit whose output is already printed."""
        process = self.process
        if process is None or self._closing:
            if process is not None:
                await self._closed_event.wait()
            return
        self._closing = True
        with anyio.CancelScope(shield=True):
            running = process.returncode is None
            process.close_stdin()
            grace = self.close_grace
            if self.work_in_flight is not None and not self.work_in_flight():
                # Nothing of ours left to finish: a server that ignores EOF is not waited for long.
                grace = min(grace, self.idle_close_grace)
            escaped: set[reaping.Process] = set()
            exited = await _wait(process, grace)
            self.exited_on_eof = exited if running else None
            if not exited:
                # Descendants that left the group (setsid) get the same signals (reaping.py).
                escaped = reaping.escaped(process.pid, self.tag)
                self.stopped_by_us = True
                _signal_group(process.pid, signal.SIGTERM)
                reaping.signal_all(escaped, signal.SIGTERM)
                if not await _wait(process, self.term_grace):
                    _signal_group(process.pid, signal.SIGKILL)
                    await process.wait()
            # Also end anything left in the group (e.g. a wrapper's child), and whatever left it:
            # orphans reparented to us (we may be their subreaper) are found by the server's mark.
            _signal_group(process.pid, signal.SIGKILL)
            await self._end_escaped(process.pid, escaped)
            with anyio.move_on_after(3.0):
                await self._closed_event.wait()
            # Once the group is gone the pipes reach EOF: let the readers finish with them
            # (unless the exit watcher already waited for that).
            if not self._drained:
                with anyio.move_on_after(1.0):
                    await self._stdout_done.wait()
                    await self._stderr_done.wait()
            if not self._closed_event.is_set():
                self._report_closed()
            # A detached grandchild (its own session, out of reach of our signals) may
            # still hold the pipes open: close our ends now, while the loop runs, or
            # asyncio's transport closes them from __del__ after the loop is gone
            # ("Event loop is closed" traceback at exit).
            process.close_pipes()
            await anyio.lowlevel.checkpoint()

    async def _end_escaped(self, pid: int, signalled: set[reaping.Process]) -> None:
        """SIGKILL the descendants already sent SIGTERM with the group; those found only now
        (orphans of a server that exited) get SIGTERM and a short wait first. Reap our own."""
        late = reaping.escaped(pid, self.tag) - signalled
        reaping.signal_all(signalled, signal.SIGKILL)
        if late:
            reaping.signal_all(late, signal.SIGTERM)
            with anyio.move_on_after(min(self.term_grace, ESCAPED_TERM_GRACE)):
                while late := reaping.reap(late):
                    await anyio.sleep(REAP_POLL)
            reaping.signal_all(late, signal.SIGKILL)
        left = signalled | late
        with anyio.move_on_after(1.0):
            while left := reaping.reap(left):
                await anyio.sleep(REAP_POLL)


async def _pump(
    stream: Any, on_line: Callable[[bytes, bool], None], done: anyio.Event, framer: LineFramer | None = None
) -> None:
    """Read a pipe to its end, handing each line to ``on_line`` (with False for an unterminated tail).

    Lines over the framer's cap come as :class:`OverlongLine` (their head), having
    held no more than the cap while they arrived."""
    if framer is None:
        framer = LineFramer()
    try:
        while True:
            try:
                chunk = await stream.receive(READ_CHUNK)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                break
            for count, line in enumerate(framer.feed(chunk), start=1):
                on_line(line, True)
                if count % YIELD_EVERY == 0:
                    # A flood arrives as full chunks, so reading never waits; let
                    # the rest of the loop (a UI, other requests) run in between.
                    await anyio.lowlevel.checkpoint()
        tail = framer.flush()
        if tail:
            on_line(tail, False)
    finally:
        done.set()


async def _wait(process: AdoptedProcess, seconds: float) -> bool:
    with anyio.move_on_after(seconds):
        await process.wait()
        return True
    return process.returncode is not None


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return "unknown"
