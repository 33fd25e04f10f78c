"""2025-11-25 tasks against tests/servers/hostile_tasks_server.py over real pipes: hostile
poll intervals (0, negative, 1e12, a string, a 400-digit integer, Infinity), a task that
disappears, a tasks/result that errors, a server that ignores tasks/cancel, an unknown
status (core/session/tasks.py, task_follow.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from task_helpers import cancel_followed
from waiting import until

from mcp_inspector.core.base.errors import MalformedTask, RpcError
from mcp_inspector.core.session.task_model import poll_interval
from mcp_inspector.core.traffic.entry import Direction, Kind

pytestmark = pytest.mark.anyio
SERVER = [sys.executable, str(Path(__file__).parents[1] / "servers" / "hostile_tasks_server.py")]


def sent(store, method):
    return [e for e in store if e.direction is Direction.OUT and e.method == method]


def notes(store):
    return [e.raw.decode() for e in store if e.kind is Kind.EVENT]


@pytest.mark.parametrize(
    "tool", ["poll_zero", "poll_negative", "poll_huge", "poll_string", "poll_bigint", "poll_infinity"]
)
async def test_a_hostile_poll_interval_still_reaches_the_result(connect, tool):
    """0 and -5 are polled at 0.1 s, "fast" at the default 1 s, 1e12, 10**400 and Infinity at
    30 s (a status notification ends them at once; a 400-digit integer was an OverflowError)."""
    async with connect(SERVER) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool(tool, {})
        assert outcome.result["content"][0]["text"] == f"done {tool}"
        assert c.session.tasks[outcome.task_id].status == "completed"


def test_poll_intervals_are_clamped_whatever_the_number():
    assert poll_interval({"pollInterval": 10**400}, False) == 30.0
    assert poll_interval({"pollInterval": -(10**400)}, False) == 0.1
    assert poll_interval({"pollIntervalMs": 10**400}, True) == 30.0
    assert poll_interval({"pollInterval": float("inf")}, False) == 30.0
    assert poll_interval({"pollInterval": float("nan")}, False) == 1.0


async def test_a_task_that_disappears_ends_the_call_with_the_servers_error(connect):
    async with connect(SERVER) as c:
        await c.session.list_tools()
        with pytest.raises(RpcError, match="Task not found") as caught:
            await c.session.call_tool("vanishes", {})
        assert caught.value.code == -32602
        # the follow ended while the task was not terminal: a (bounded) tasks/cancel, which fails too
        assert [e.method for e in sent(c.store, "tasks/cancel")] == ["tasks/cancel"]


async def test_a_tasks_result_that_errors_raises_that_error(connect):
    async with connect(SERVER) as c:
        await c.session.list_tools()
        with pytest.raises(RpcError, match="result store broken"):
            await c.session.call_tool("result_error", {})
        (record,) = c.session.tasks.values()
        assert record.status == "completed" and isinstance(record.error, RpcError)


async def test_an_unknown_status_is_a_clear_error(connect):
    async with connect(SERVER) as c:
        await c.session.list_tools()
        with pytest.raises(MalformedTask, match="unknown status 'paused'"):
            await c.session.call_tool("unknown_status", {})


async def test_a_server_that_ignores_tasks_cancel_is_said_to_still_run_the_task(connect):
    async with connect(SERVER) as c:
        await c.session.list_tools()
        pending = await c.session.begin_tool_call("ignores_cancel", {})
        caught = await cancel_followed(c.session, pending, "enough")
        (error,) = caught
        assert "enough" in str(error) and "tasks/cancel was sent" in str(error)
        assert "still reports the task 'working'" in str(error)
        assert len(sent(c.store, "tasks/cancel")) == 1

        # a caller that stops waiting: the bounded tasks/cancel, and a note that the task lives on
        pending = await c.session.begin_tool_call("ignores_cancel", {})
        with anyio.move_on_after(0.5):
            await c.session.finish_tool_call(pending)
        assert len(sent(c.store, "tasks/cancel")) == 2
        assert any("still reports the task 'working': it may go on running" in n for n in notes(c.store))


async def test_tasks_announced_only_by_notifications_are_kept_up_to_a_limit(connect):
    """strangers_storm: 20,000 status notifications, each about a task no call made."""
    from mcp_inspector.core.session.tasks import STRANGER_LIMIT

    async with connect(SERVER) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool("strangers_storm", {})
        assert outcome.result["content"][0]["text"] == "done strangers_storm"
        await until(lambda: not (c.store.method_counts["notifications/tasks/status"] < 20_000))
        assert len(c.session.tasks) == STRANGER_LIMIT + 1  # the call's own task is kept whatever the count
        assert c.session.tasks[outcome.task_id].status == "completed"
        assert sum("later ones are not kept" in n for n in notes(c.store)) == 1
