"""anyio's internals that core/transport/anyio_compat.py relies on are still where it looks.

If an anyio upgrade moves them, the stdio transport silently falls back (slower writes, pipes
left to the garbage collector): these tests fail instead, naming what moved.
"""

from __future__ import annotations

import asyncio
import sys

import anyio
import pytest

from mcp_inspector.core.transport.anyio_compat import close_pipes, stream_writer

pytestmark = pytest.mark.anyio


async def test_the_stdin_writer_and_the_pipes_are_where_the_compat_module_looks() -> None:
    echo = "import sys\nfor line in sys.stdin: print(line.strip().upper(), flush=True)"
    process = await anyio.open_process([sys.executable, "-c", echo])
    try:
        writer = stream_writer(process.stdin)
        assert isinstance(writer, asyncio.StreamWriter), "anyio's stdin no longer wraps a StreamWriter in _stream"
        writer.write(b"hello\n")
        await writer.drain()
        assert process.stdout is not None
        assert (await process.stdout.receive()).strip() == b"HELLO"
        writer.close()
        assert await process.wait() == 0
    finally:
        closed = close_pipes(process)
    assert closed, "anyio's Process no longer wraps asyncio's (_process) with its pipe transport (_transport)"


def test_an_object_without_the_internals_gets_the_fallbacks() -> None:
    assert stream_writer(object()) is None
    assert close_pipes(object()) is False
