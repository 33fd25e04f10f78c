"""The stdio transport's pipes (core/transport/adopted.py), over real OS pipes and processes:
stdout lines are handed over inside the read's own callback, a flood yields to the loop every
YIELD_EVERY lines, and a process's exit is seen through a pidfd instead of polling."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import anyio
import pytest

from mcp_inspector.core.base.framing import LineFramer
from mcp_inspector.core.transport.adopted import YIELD_EVERY, ExitWatch, LineProtocol

pytestmark = pytest.mark.anyio


async def _pipe_protocol() -> tuple[LineProtocol, int]:
    """A LineProtocol on the read end of a fresh pipe; returns it and the write end."""
    read_fd, write_fd = os.pipe()
    loop = asyncio.get_running_loop()
    _, protocol = await loop.connect_read_pipe(lambda: LineProtocol(loop), os.fdopen(read_fd, "rb", buffering=0))
    return protocol, write_fd


async def test_lines_are_delivered_inside_the_read_and_a_flood_yields_to_the_loop() -> None:
    protocol, write_fd = await _pipe_protocol()
    loop = asyncio.get_running_loop()
    passes = [0]

    def tick() -> None:  # one call per loop pass, for as long as the test runs
        passes[0] += 1
        loop.call_soon(tick)

    seen: list[tuple[bytes, bool, int]] = []
    count = 2 * YIELD_EVERY + 50
    os.write(write_fd, b"".join(b"%d\n" % i for i in range(count)) + b"tail")  # one chunk, then no newline
    os.close(write_fd)
    loop.call_soon(tick)
    with anyio.fail_after(10):
        await protocol.run(LineFramer(), lambda line, terminated: seen.append((line, terminated, passes[0])))
    assert [line for line, _, _ in seen] == [b"%d" % i for i in range(count)] + [b"tail"]
    assert [terminated for _, terminated, _ in seen] == [True] * count + [False]
    # each batch of YIELD_EVERY lines within one pass, the next batch in a later pass
    lines = seen[:count]  # the unterminated tail comes with the end of file, later
    batches = [{p for _, _, p in lines[i : i + YIELD_EVERY]} for i in range(0, count, YIELD_EVERY)]
    assert all(len(batch) == 1 for batch in batches), batches
    assert [min(b) for b in batches] == sorted({min(b) for b in batches}), "the batches came in later passes"


async def test_what_the_line_callback_raises_ends_the_reading_with_it() -> None:
    protocol, write_fd = await _pipe_protocol()
    os.write(write_fd, b"one\ntwo\n")

    def on_line(line: bytes, terminated: bool) -> None:
        if line == b"two":
            raise ValueError("refused")

    try:
        with anyio.fail_after(10), pytest.raises(ValueError, match="refused"):
            await protocol.run(LineFramer(), on_line)
    finally:
        os.close(write_fd)


async def test_the_exit_of_a_process_is_seen_through_a_pidfd() -> None:
    if not hasattr(os, "pidfd_open"):
        pytest.skip("no pidfd here: the exit is polled")
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    watch = ExitWatch.of(asyncio.get_running_loop(), process.pid)
    assert watch is not None
    try:
        assert not watch.exited.is_set()
        assert process.stdin is not None
        process.stdin.close()  # EOF: it exits
        with anyio.fail_after(30):
            await watch.exited.wait()
        assert process.poll() == 0
    finally:
        watch.close()
        if process.poll() is None:
            process.kill()
            process.wait()
