"""What the stdio transport reads from anyio's private internals: ALL of it lives here, each
checked by tests/core/test_anyio_compat.py, which fails loudly when an upgrade of anyio moves it.

- ``stream_writer``: anyio's asyncio ``Process.stdin`` wraps an ``asyncio.StreamWriter`` (in
  ``_stream``); the transport writes to it directly so a frame is buffered without a task switch,
  and drains only when the pipe's buffer is full.
- ``close_pipes``: anyio's asyncio ``Process`` wraps asyncio's (``_process``), whose pipe
  transport (``_transport``) is closed by hand when the child is gone, so no file descriptor is
  left to the garbage collector.

Either returns/does nothing when the internals are absent (another backend): the transport
then falls back to anyio's public ``send`` and lets anyio close the pipes.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


def stream_writer(stdin: Any) -> asyncio.StreamWriter | None:
    """The asyncio StreamWriter under anyio's stdin wrapper, or None."""
    stream = getattr(stdin, "_stream", None)
    return stream if isinstance(stream, asyncio.StreamWriter) else None


def close_pipes(process: Any) -> bool:
    """Close the pipe transports under an anyio (asyncio backend) process; False if it has none."""
    inner = getattr(process, "_process", None)
    transport = getattr(inner, "_transport", None)
    if transport is None or not hasattr(transport, "close"):
        return False
    with contextlib.suppress(Exception):
        transport.close()
    return True
