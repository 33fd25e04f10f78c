"""What the task tests share: the frames sent, waiting for a condition, and cancelling a call
that is being followed to its result (as the TUI's ctrl+k and the CLI's Ctrl-C do)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
from waiting import until  # noqa: F401  (re-exported: the task tests import it from here)

from mcp_inspector.core.base.errors import TaskCancelled
from mcp_inspector.core.traffic.entry import Direction


def sent(store, method: str) -> list[dict]:
    """The messages of ``method`` the client sent, decoded."""
    return [json.loads(e.raw) for e in store if e.direction is Direction.OUT and e.method == method]


async def cancel_followed(
    session, pending, reason: str, ready: Callable[[], Any] | None = None, seconds: float = 30.0
) -> list[TaskCancelled]:
    """Follow ``pending`` (a begun tools/call) to its end while cancelling it with ``reason`` once
    ``ready()`` holds (by default: the session knows a task and the call can be cancelled as one);
    the TaskCancelled errors the follower got (one, when the cancel worked)."""
    caught: list[TaskCancelled] = []

    async def follow() -> None:
        try:
            await session.finish_tool_call(pending)
        except TaskCancelled as exc:
            caught.append(exc)

    async with anyio.create_task_group() as group:
        group.start_soon(follow)
        await until(ready or (lambda: bool(session.tasks) and pending.cancel_hook is not None), seconds)
        await pending.cancel(reason)
    return caught
