"""Waiting for a condition outside Pilot (core, integration and CLI tests).

The one place a non-Pilot test waits: it polls the condition and fails with what it waited for
after ``timeout``, a bound for a broken program, not a speed check (two xdist workers beside other
jobs can take seconds for what takes milliseconds). Pilot tests use
``mcp_inspector.tui.pilot_steps.wait_for``, which also lets the app run between looks.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

STEP = 0.01  # seconds between two looks: the loop runs other tasks meanwhile


async def until(condition: Callable[[], Any], timeout: float = 30.0, what: str = "the condition") -> None:
    """In async code: return once ``condition()`` is true; AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await anyio.sleep(STEP)


async def until_async(
    condition: Callable[[], Awaitable[Any]], timeout: float = 30.0, what: str = "the condition"
) -> None:
    """As ``until``, for a condition that has to await (a request to a server)."""
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await anyio.sleep(STEP)


def until_sync(condition: Callable[[], Any], timeout: float = 30.0, what: str = "the condition") -> None:
    """In plain code (a subprocess, a thread, a file): the same wait, blocking."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(STEP)
