"""Drive a server process that was started before the event loop existed.

The CLI starts the server first thing, so that the server's own start-up
(often hundreds of milliseconds for Node) overlaps our imports. This module
gives such a ``subprocess.Popen`` the small part of anyio's Process interface
that ``StdioTransport`` uses, over asyncio pipe transports; everything else
(framing, recording, shutdown order) stays in the one stdio transport.
"""

from __future__ import annotations

import asyncio
import subprocess

import anyio

PIPE_LIMIT = 1 << 20  # read buffer before asyncio pauses the pipe
EXIT_POLL = 0.005  # seconds between exit checks (we hold no child watcher for it)


class _PipeReader:
    def __init__(self, reader: asyncio.StreamReader, transport: asyncio.BaseTransport | None = None) -> None:
        self._reader = reader
        self._transport = transport

    async def receive(self, max_bytes: int = 65536) -> bytes:
        data = await self._reader.read(max_bytes)
        if not data:
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        return None

    def close_pipe(self) -> None:
        """Close our end (a detached grandchild may hold the other end open forever)."""
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()


class _PipeWriter:
    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._stream = writer  # the same attribute name anyio uses: StdioTransport writes to it directly

    async def send(self, data: bytes) -> None:
        self._stream.write(data)
        await self._stream.drain()

    async def aclose(self) -> None:
        self._stream.close()


class AdoptedProcess:
    """A started Popen seen through anyio's Process interface (the parts we use)."""

    def __init__(
        self, popen: subprocess.Popen[bytes], stdin: _PipeWriter, stdout: _PipeReader, stderr: _PipeReader
    ) -> None:
        self._popen = popen
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def wait(self) -> int:
        while self._popen.poll() is None:
            await anyio.sleep(EXIT_POLL)
        return self._popen.returncode

    def close_pipes(self) -> None:
        self.stdout.close_pipe()
        self.stderr.close_pipe()


async def adopt(popen: subprocess.Popen[bytes]) -> AdoptedProcess:
    """Connect asyncio to the three pipes of a running process."""
    if popen.stdin is None or popen.stdout is None or popen.stderr is None:
        raise ValueError("the process must have been started with stdin, stdout and stderr pipes")
    loop = asyncio.get_running_loop()

    async def reader(pipe) -> _PipeReader:
        stream = asyncio.StreamReader(limit=PIPE_LIMIT, loop=loop)
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream, loop=loop), pipe)
        return _PipeReader(stream, transport)

    stdout = await reader(popen.stdout)
    stderr = await reader(popen.stderr)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop), popen.stdin
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return AdoptedProcess(popen, _PipeWriter(writer), stdout, stderr)
