"""2025-11-25 tasks against the demo server (``python -m mcp_inspector.demo``) over stdio:
the endings server-everything has not (a failed task's JSON-RPC error from tasks/result,
an isError result of a failed task), progress on the call's token while the task runs,
an optional tool called plainly or as a task, and tasks/list over several pages
(core/session/tasks.py)."""

from __future__ import annotations

import itertools

import pytest
from conftest import demo_server_command
from task_helpers import sent

from mcp_inspector.core.base.errors import RpcError
from mcp_inspector.core.session.events import TaskUpdated
from mcp_inspector.core.traffic.entry import Direction

pytestmark = pytest.mark.anyio
DEMO = demo_server_command() + ["--task-poll-interval", "50", "--tasks-page-size", "1"]
QUICK = {"steps": 3, "duration_seconds": 0.3}


def sent_seq(store, method):
    return next(e.seq for e in store if e.direction is Direction.OUT and e.method == method)


async def test_a_failed_task_raises_the_json_rpc_error_tasks_result_returns(connect):
    async with connect(DEMO) as c:
        await c.session.list_tools()
        with pytest.raises(RpcError, match="long_job failed on purpose") as caught:
            await c.session.call_tool("long_job", {**QUICK, "outcome": "protocol_error"})
        assert caught.value.code == -32603 and caught.value.data["steps"] == 3
        (record,) = c.session.tasks.values()
        assert record.status == "failed" and record.error is caught.value and record.tool == "long_job"
        assert c.of_type(TaskUpdated)[-1].source == "result"


async def test_an_is_error_result_of_a_failed_task_is_returned_not_raised(connect):
    async with connect(DEMO) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool("long_job", {**QUICK, "outcome": "tool_error"})
        assert outcome.is_error and "failure on purpose" in outcome.result["content"][0]["text"]
        assert c.session.tasks[outcome.task_id].status == "failed"


async def test_progress_on_the_call_token_stays_linked_while_the_task_runs(connect):
    async with connect(DEMO) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool("long_job", QUICK)
        assert outcome.result["structuredContent"]["steps"] == 3 and not outcome.is_error
        pending = outcome.request
        assert pending.progress_count == 3 and pending.progress.message == "step 3/3"
        progress = [e for e in c.store if e.method == "notifications/progress"]
        assert len(progress) == 3
        result_reply = next(e for e in c.store if e.reply_to == sent_seq(c.store, "tasks/result"))
        assert result_reply.problem is None  # the demo's tasks/result carries related-task
        assert all(e.problem is None and e.reply_to == pending.entry.seq for e in progress)
        assert len(sent(c.store, "tasks/get")) >= 2  # pollInterval 50 ms, clamped to 100 ms
        assert c.session.connection.by_token == {}  # unlinked once the task ended


async def test_an_optional_tool_goes_plainly_unless_asked(connect):
    async with connect(DEMO) as c:
        await c.session.list_tools()
        assert c.session.task_support("generate_report") == "optional"
        arguments = {"topic": "tides", "sections": 2, "duration_seconds": 0.2}
        plain = await c.session.call_tool("generate_report", arguments)
        assert plain.task_id is None and "task" not in sent(c.store, "tools/call")[0]["params"]
        as_task = await c.session.call_tool("generate_report", arguments, as_task=True, task_ttl=60000)
        assert as_task.task_id is not None and as_task.result["structuredContent"] == {"topic": "tides", "sections": 2}
        assert sent(c.store, "tools/call")[1]["params"]["task"] == {"ttl": 60000}
        assert as_task.result["content"] == plain.result["content"]


async def test_tasks_list_reads_every_page(connect):
    async with connect(DEMO) as c:
        await c.session.list_tools()
        first = await c.session.call_tool("long_job", {"steps": 1, "duration_seconds": 0})
        second = await c.session.call_tool("generate_report", {"sections": 1, "duration_seconds": 0}, as_task=True)
        listed = await c.session.list_tasks()
        assert {r.task_id for r in listed} == {first.task_id, second.task_id}
        assert len(sent(c.store, "tasks/list")) >= 2  # one task per page
        assert {r.tool for r in listed} == {"long_job", "generate_report"}  # known from the calls


async def test_status_notifications_do_not_make_the_polls_faster_than_the_poll_interval(connect):
    """The demo sends notifications/tasks/status at each of 6 steps (every 0.25 s); they
    update the task at once, but polls stay at the task's pollInterval (1 s)."""
    async with connect(demo_server_command() + ["--task-poll-interval", "1000"]) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool("long_job", {"steps": 6, "duration_seconds": 1.5})
        assert not outcome.is_error
        statuses = [e for e in c.store if e.method == "notifications/tasks/status"]
        assert len(statuses) >= 6
        polls = [e.ts for e in c.store if e.direction is Direction.OUT and e.method == "tasks/get"]
        assert 1 <= len(polls) <= 2 and all(b - a >= 0.9 for a, b in itertools.pairwise(polls)), polls
        assert "notification" in [e.source for e in c.of_type(TaskUpdated)]


async def test_progress_sent_at_once_after_the_task_is_created_is_linked_to_the_call(connect):
    """A task's first progress can follow its CreateTaskResult in the same read: the call's token
    must stay linked from the reply on, not only once the follow of the task has started (under
    load that gap was long enough for the live checks to call it "progress for no request")."""
    async with connect(DEMO) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool("long_job", {"steps": 3, "duration_seconds": 0})
        pending = outcome.request
        progress = [e for e in c.store if e.method == "notifications/progress"]
        assert len(progress) == 3 and pending.progress_count == 3
        assert [(e.problem, e.reply_to) for e in progress] == [(None, pending.entry.seq)] * 3
        assert c.session.connection.by_token == {}  # unlinked once the task ended
