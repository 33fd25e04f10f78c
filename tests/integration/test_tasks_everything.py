"""2025-11-25 experimental tasks against @modelcontextprotocol/server-everything over stdio:
``simulate-research-query`` (``execution.taskSupport: "required"``) goes as a task
without being asked, completes through ``tasks/get`` polls and ``tasks/result``; its
ambiguous variant is input_required and the elicitation it sends through tasks/result is
answered by the headless handler (the clarification is in the report); cancel ends it
with ``tasks/cancel``; ``tasks/list`` lists it (core/session/tasks.py)."""

from __future__ import annotations

import itertools
import json

import pytest
from task_helpers import cancel_followed, sent

from mcp_inspector.core.session.answers import build_handlers
from mcp_inspector.core.session.events import TaskUpdated
from mcp_inspector.core.traffic.entry import Direction

pytestmark = pytest.mark.anyio
TOOL = "simulate-research-query"
RELATED = "io.modelcontextprotocol/related-task"


async def test_a_required_task_tool_goes_as_a_task_and_completes(connect, server_everything):
    async with connect(server_everything, timeout=20.0) as c:
        await c.session.list_tools()
        assert c.session.task_support(TOOL) == "required" and c.session.task_support("echo") == "forbidden"
        initialize = sent(c.store, "initialize")[0]
        assert initialize["params"]["capabilities"]["tasks"] == {}  # receives no task itself
        outcome = await c.session.call_tool(TOOL, {"topic": "x"})  # no as_task: required -> a task
        text = outcome.result["content"][0]["text"]
        assert "# Research Report: x" in text and "Stage 4: Generating report ✓" in text
        assert outcome.result["_meta"][RELATED] == {"taskId": outcome.task_id}
        call = sent(c.store, "tools/call")[0]
        assert call["params"]["task"] == {}
        polls = [e.ts for e in c.store if e.direction is Direction.OUT and e.method == "tasks/get"]
        assert len(polls) >= 2  # polled at the server's pollInterval (1 s), status notifications or not
        assert all(b - a >= 0.9 for a, b in itertools.pairwise(polls)), polls
        assert [r["params"]["taskId"] for r in sent(c.store, "tasks/result")] == [outcome.task_id]
        record = c.session.tasks[outcome.task_id]
        assert record.status == "completed" and record.tool == TOOL and record.result == outcome.result
        assert record.first_seq == outcome.request.entry.seq
        events = [e for e in c.of_type(TaskUpdated) if e.task["taskId"] == outcome.task_id]
        assert "created" in [e.source for e in events] and events[-1].source == "result"
        assert events[-1].task["status"] == "completed"
        # tasks/list lists it
        assert c.session.can_list_tasks()
        listed = await c.session.list_tasks()
        assert outcome.task_id in [r.task_id for r in listed]
        assert c.of_type(TaskUpdated)[-1].source == "list"
        # and its result can be fetched again
        assert (await c.session.task_result(outcome.task_id))["content"][0]["text"] == text


async def test_the_input_required_elicitation_is_answered(connect, server_everything, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"interpretation": "historical"}))
    handlers = build_handlers(elicitation=f"@{answers}")
    async with connect(server_everything, timeout=20.0, handlers=handlers) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool(TOOL, {"topic": "x", "ambiguous": True})
        text = outcome.result["content"][0]["text"]
        assert "# Research Report: x (historical)" in text and "**Clarification**: historical" in text
        elicitation = next(
            json.loads(e.raw) for e in c.store if e.direction is Direction.IN and e.method == "elicitation/create"
        )
        assert elicitation["params"]["_meta"][RELATED] == {"taskId": outcome.task_id}
        statuses = [e.task["status"] for e in c.of_type(TaskUpdated) if e.task["taskId"] == outcome.task_id]
        assert "input_required" in statuses and statuses[-1] == "completed"


async def test_cancel_mid_way_ends_it_as_cancelled(connect, server_everything):
    async with connect(server_everything, timeout=20.0) as c:
        await c.session.list_tools()
        pending = await c.session.begin_tool_call(TOOL, {"topic": "x"})
        caught = await cancel_followed(c.session, pending, "enough")
        task_id = caught[0].task_id
        assert "enough" in str(caught[0])
        assert [r["params"]["taskId"] for r in sent(c.store, "tasks/cancel")] == [task_id]
        record = c.session.tasks[task_id]
        assert record.status == "cancelled"  # the Task tasks/cancel answered
        assert c.of_type(TaskUpdated)[-1].source in ("cancel", "notification")
        assert (await c.session.get_task(task_id)).status == "cancelled"


async def test_as_task_false_on_a_required_tool_is_refused_by_the_server(connect, server_everything):
    async with connect(server_everything, timeout=20.0) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool(TOOL, {"topic": "x"}, as_task=False)
        assert outcome.is_error and outcome.task_id is None
        assert "requires task augmentation" in outcome.result["content"][0]["text"]
        assert "task" not in sent(c.store, "tools/call")[0]["params"]
        assert not c.session.tasks


async def test_over_streamable_http_the_elicitation_comes_on_the_tasks_result_stream(everything_http_url, tmp_path):
    from mcp_inspector.core.session.mcp_session import McpSession
    from mcp_inspector.core.traffic.store import TrafficStore
    from mcp_inspector.core.transport.http import HttpTransport

    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"interpretation": "snake"}))
    store = TrafficStore()
    transport = HttpTransport(everything_http_url, mode="auto", http_log=store.http_log)
    session = McpSession(
        transport,
        store=store,
        timeout=20.0,
        era="legacy",
        auto_refresh=False,
        handlers=build_handlers(elicitation=f"@{answers}"),
    )
    async with session:
        await session.initialize()
        await session.list_tools()
        outcome = await session.call_tool(TOOL, {"topic": "python", "ambiguous": True})
        assert "# Research Report: python (snake)" in outcome.result["content"][0]["text"]
        assert session.tasks[outcome.task_id].status == "completed"
