"""A started server process (core/started.py) driven by asyncio, for the stdio transport.

Every stdio server is a ``subprocess.Popen`` started by ``start_server``: by the CLI before
its imports (the server boots while we import), by the TUI before it paints, or by the
transport itself. This module connects asyncio to its three pipes:

* stdout through :class:`LineProtocol`: each chunk read is split into lines and every line
  handed to the transport's callback inside ``data_received``, so a reply reaches the
  request waiting for it in the same loop pass as the read (a reader task in between
  costs a pass per frame). A chunk of many frames pauses the pipe every ``YIELD_EVERY``
  lines to let the rest of the loop run; the framer's cap bounds what one line may hold.
* stderr as a stream (``receive``), read by a task: it is for people, not on any path.
* stdin as asyncio's StreamWriter: one ``write`` queues a frame without a task switch.

The exit is seen through a pidfd (Linux 5.3+) the loop watches, else by polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import subprocess
import sys
from collections.abc import Callable, Iterator

import anyio

from ..base.framing import LineFramer


def _library_var() -> contextvars.ContextVar[str | None] | None:
    """sniffio's "which async library runs" variable, where anyio uses sniffio (it imports it
    when installed): sniffio looks for a running task, which a protocol callback does not
    have. Without sniffio anyio asks asyncio for the running loop, which a callback has."""
    sniffio = sys.modules.get("sniffio")
    return getattr(sniffio, "current_async_library_cvar", None) if sniffio is not None else None


_LIBRARY = _library_var()


@contextlib.contextmanager
def _in_asyncio() -> Iterator[None]:
    """For what a line leads to inside a callback (a server request starts a task with anyio)."""
    token = _LIBRARY.set("asyncio") if _LIBRARY is not None else None
    try:
        yield
    finally:
        if token is not None and _LIBRARY is not None:
            _LIBRARY.reset(token)


PIPE_LIMIT = 1 << 20  # stderr's read buffer before asyncio pauses the pipe
EXIT_POLL = 0.005  # seconds between exit checks where no pidfd can be had
YIELD_EVERY = 100  # stdout lines delivered between two passes of the loop

OnLine = Callable[[bytes, bool], None]


class LineProtocol(asyncio.Protocol):
    """stdout: lines to ``on_line(line, terminated)`` as they are read (see the module's doc).

    Reading starts paused and begins with :meth:`run`, which returns at end of file (or
    raises what ``on_line`` raised: the pipe is then closed)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._transport: asyncio.ReadTransport | None = None
        self._framer = LineFramer()
        self._on_line: OnLine | None = None
        self._backlog: Iterator[bytes] | None = None
        self._eof = False
        self._done: asyncio.Future[None] = loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self._transport = transport
        transport.pause_reading()  # until run() says where the lines go

    async def run(self, framer: LineFramer, on_line: OnLine) -> None:
        self._framer, self._on_line = framer, on_line
        if self._transport is not None and not self._done.done():
            self._transport.resume_reading()
        await self._done

    def data_received(self, data: bytes) -> None:
        self._deliver(iter(self._framer.feed(data)))

    def _deliver(self, lines: Iterator[bytes]) -> None:
        assert self._on_line is not None and self._transport is not None
        on_line = self._on_line
        try:
            with _in_asyncio():  # no task runs a callback: anyio must still see asyncio
                for count, line in enumerate(lines, start=1):
                    on_line(line, True)
                    if count == YIELD_EVERY:
                        # A flood arrives as full chunks: let the rest of the loop (a UI, other
                        # requests) run before the next lines, and read no more meanwhile.
                        self._backlog = lines
                        self._transport.pause_reading()
                        self._loop.call_soon(self._resume)
                        return
            self._backlog = None
        except BaseException as exc:  # noqa: BLE001 - the transport's reader (run) raises it
            self._fail(exc)

    def _resume(self) -> None:
        if self._backlog is None or self._done.done():
            return
        self._deliver(self._backlog)
        if self._backlog is None and not self._done.done() and self._transport is not None:
            if self._eof:
                self._finish()
            else:
                self._transport.resume_reading()

    def eof_received(self) -> bool:
        self._eof = True
        if self._backlog is None:
            self._finish()
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self._eof = True
        if self._backlog is None:
            self._finish()

    def _finish(self) -> None:
        if self._done.done():
            return
        try:
            tail = self._framer.flush()
            if tail and self._on_line is not None:
                with _in_asyncio():
                    self._on_line(tail, False)
        except BaseException as exc:  # noqa: BLE001 - raised by run()
            self._fail(exc)
            return
        self._done.set_result(None)

    def _fail(self, exc: BaseException) -> None:
        self._backlog = None
        if not self._done.done():
            self._done.set_exception(exc)
        self.close()

    def close(self) -> None:
        """Close our end (a detached grandchild may hold the other end open forever)."""
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()


class PipeReader:
    """stderr: ``receive`` chunks as anyio's byte streams do."""

    def __init__(self, reader: asyncio.StreamReader, transport: asyncio.BaseTransport) -> None:
        self._reader = reader
        self._transport = transport

    async def receive(self, max_bytes: int = 65536) -> bytes:
        data = await self._reader.read(max_bytes)
        if not data:
            raise anyio.EndOfStream
        return data

    def close(self) -> None:
        """Close our end (a detached grandchild may hold the other end open forever)."""
        if not self._transport.is_closing():
            self._transport.close()


class ExitWatch:
    """An event set when a process exits, through a pidfd the loop watches (Linux 5.3+)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        self._loop = loop
        self._fd: int | None = fd
        self.exited = asyncio.Event()
        loop.add_reader(fd, self._on_exit)

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop, pid: int) -> ExitWatch | None:
        """None where there is no pidfd (another platform, an old kernel): the exit is polled."""
        try:
            fd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            return None
        try:
            return cls(loop, fd)
        except (NotImplementedError, OSError, ValueError):
            os.close(fd)
            return None

    def _on_exit(self) -> None:
        self.close()
        self.exited.set()

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = None


class AdoptedProcess:
    """A started Popen with asyncio on its pipes: what the stdio transport uses of a process."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stdin: asyncio.StreamWriter,
        stdout: LineProtocol,
        stderr: PipeReader,
        exit_watch: ExitWatch | None,
    ) -> None:
        self._popen = popen
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self._exit_watch = exit_watch

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def wait(self) -> int:
        if self._exit_watch is not None and self._popen.poll() is None:
            await self._exit_watch.exited.wait()
        while self._popen.poll() is None:  # polled (no pidfd)
            await anyio.sleep(EXIT_POLL)
        return self._popen.returncode

    def close_stdin(self) -> None:
        with contextlib.suppress(Exception):
            self.stdin.close()

    def close_pipes(self) -> None:
        """Our ends of stdout and stderr, and the exit watch (the loop may end before the process)."""
        self.stdout.close()
        self.stderr.close()
        if self._exit_watch is not None:
            self._exit_watch.close()


async def adopt(popen: subprocess.Popen[bytes]) -> AdoptedProcess:
    """Connect asyncio to the three pipes of a running process."""
    if popen.stdin is None or popen.stdout is None or popen.stderr is None:
        raise ValueError("the process must have been started with stdin, stdout and stderr pipes")
    loop = asyncio.get_running_loop()
    _, stdout = await loop.connect_read_pipe(lambda: LineProtocol(loop), popen.stdout)
    stream = asyncio.StreamReader(limit=PIPE_LIMIT, loop=loop)
    stderr_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(stream, loop=loop), popen.stderr
    )
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop), popen.stdin
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return AdoptedProcess(popen, writer, stdout, PipeReader(stream, stderr_transport), ExitWatch.of(loop, popen.pid))
