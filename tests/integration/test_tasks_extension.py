"""The io.modelcontextprotocol/tasks extension (2026-07-28) over real pipes and real HTTP,
against tests/servers/modern_raw_server.py's ``research`` tool: the task is created by
``tools/call`` (resultType "task"), polled with ``tasks/get``, its input_required round
answered once through ``tasks/update``, completed, failed, cancelled, bounded by
max_total; malformed tasks and a task on a request other than tools/call are clear errors
(core/session/tasks.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from conftest import PYTHON, SERVERS_DIR
from task_helpers import cancel_followed, sent, until

from mcp_inspector.core.base.errors import (
    InputDeclined,
    InspectorError,
    MalformedTask,
    ProtocolViolation,
    RpcError,
    TaskTimedOut,
)
from mcp_inspector.core.session.answers import build_handlers
from mcp_inspector.core.session.events import InputRequested, TaskUpdated
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.entry import Direction, Kind
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.http import HttpTransport

pytestmark = pytest.mark.anyio
MODERN = [PYTHON, str(SERVERS_DIR / "modern_raw_server.py")]
EXTENSION = "io.modelcontextprotocol/tasks"


def stderr_lines(store, prefix):
    return [e.raw.decode() for e in store if e.kind is Kind.STDERR and e.raw.decode().startswith(prefix)]


def historical_handler(calls):
    async def elicit(params, entry):
        calls.append(params)
        return {"action": "accept", "content": {"interpretation": "historical"}}

    return elicit


async def test_a_task_is_created_polled_and_completed(connect):
    async with connect(MODERN, era="auto", auto_refresh=False) as c:  # no listen stream: polls only
        await c.session.list_tools()
        assert c.session.task_support("research") == "optional"  # the server declares the extension; it decides
        outcome = await c.session.call_tool("research", {"topic": "tides"})
        assert outcome.task_id == "task-1" and not outcome.is_error
        assert outcome.result["content"][0]["text"] == "Report on tides"
        call = sent(c.store, "tools/call")[0]
        assert call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"] == {EXTENSION: {}}
        assert "task" not in call["params"]  # the server decides; nothing asks on the request
        polls = sent(c.store, "tasks/get")
        assert len(polls) == 2 and all(p["params"]["taskId"] == "task-1" for p in polls)
        sources = [e.source for e in c.of_type(TaskUpdated)]
        assert sources == ["created", "poll", "poll", "result"]
        assert [e.task["status"] for e in c.of_type(TaskUpdated)] == ["working", "working", "completed", "completed"]
        first_seq = outcome.request.entry.seq
        assert {e.first_seq for e in c.of_type(TaskUpdated)} == {first_seq}
        record = c.session.tasks["task-1"]
        assert (record.tool, record.first_seq, record.status) == ("research", first_seq, "completed")
        assert record.result == outcome.result and record.error is None and record.updates == 4
        # the API around it: the result again from tasks/get; no tasks/list in this era
        assert (await c.session.task_result("task-1"))["content"][0]["text"] == "Report on tides"
        assert not c.session.can_list_tasks()
        with pytest.raises(InspectorError, match="no tasks/list"):
            await c.session.list_tasks()
        with pytest.raises(RpcError, match="Task not found"):
            await c.session.get_task("task-99")


async def test_input_required_is_answered_once_through_tasks_update(connect):
    calls = []
    async with connect(MODERN, era="auto", handlers={"elicitation/create": historical_handler(calls)}) as c:
        outcome = await c.session.call_tool("research", {"topic": "tides", "ask": True})
        assert outcome.result["content"][0]["text"] == "Report on tides (historical)"
        assert len(calls) == 1 and calls[0]["message"] == "What do you mean by 'tides'?"
        updates = sent(c.store, "tasks/update")
        assert [u["params"] for u in updates] == [
            {
                "taskId": "task-1",
                "inputResponses": {"clarify-1": {"action": "accept", "content": {"interpretation": "historical"}}},
                "_meta": updates[0]["params"]["_meta"],
            }
        ]
        await until(lambda: len(stderr_lines(c.store, "tasks/update")) == 1)
        rounds = c.of_type(InputRequested)
        assert len(rounds) == 1 and set(rounds[0].requests) == {"clarify-1"}
        assert rounds[0].first_seq == outcome.request.entry.seq
        statuses = [e.task["status"] for e in c.of_type(TaskUpdated)]
        assert statuses[:3] == ["working", "working", "input_required"] and statuses[-1] == "completed"


async def test_the_same_input_request_on_several_polls_is_answered_once(connect):
    """The elicitation takes longer than several polls: the server sends clarify-1 on each
    (a point-in-time snapshot), the client asks the user once (ext-tasks §Task Update)."""
    calls = []

    async def slow(params, entry):
        calls.append(params)
        await anyio.sleep(0.5)
        return {"action": "accept", "content": {"interpretation": "technical"}}

    async with connect(MODERN, era="auto", handlers={"elicitation/create": slow}) as c:
        pending = await c.session.begin_tool_call("research", {"topic": "x", "ask": True})
        outcome = await c.session.finish_tool_call(pending)
        assert outcome.result["content"][0]["text"] == "Report on x (technical)"
        assert len(calls) == 1 and len(sent(c.store, "tasks/update")) == 1


async def test_a_failed_task_raises_its_json_rpc_error(connect):
    async with connect(MODERN, era="auto") as c:
        with pytest.raises(RpcError, match="the research backend is down") as caught:
            await c.session.call_tool("research", {"topic": "x", "fail": True})
        assert caught.value.code == -32603
        record = c.session.tasks["task-1"]
        assert record.status == "failed" and record.error is caught.value
        assert c.of_type(TaskUpdated)[-1].source == "result"


async def test_cancel_ends_the_task_with_tasks_cancel(connect):
    async with connect(MODERN, era="auto") as c:
        pending = await c.session.begin_tool_call("research", {"topic": "x", "never": True})
        outcome = await cancel_followed(
            c.session, pending, "stop it", ready=lambda: len(sent(c.store, "tasks/get")) >= 2
        )
        assert len(outcome) == 1 and outcome[0].task_id == "task-1" and "stop it" in str(outcome[0])
        assert [m["params"]["taskId"] for m in sent(c.store, "tasks/cancel")] == ["task-1"]
        assert not [
            e
            for e in c.store
            if e.direction is Direction.OUT and e.method == "notifications/cancelled" and b"tools/call" in e.raw
        ]  # MUST NOT cancel a task with notifications/cancelled
        record = c.session.tasks["task-1"]
        assert record.status == "cancelled" and record.cancel_requested == "stop it"  # the tasks/get after the ack
        assert c.of_type(TaskUpdated)[-1].source == "cancel"
        assert pending.cancel_hook is None


async def test_a_task_that_never_ends_is_bounded_by_max_total(connect):
    async with connect(MODERN, era="auto") as c:
        started = anyio.current_time()
        with pytest.raises(TaskTimedOut, match="task task-1 was still 'working'.*0.6 s"):
            await c.session.call_tool("research", {"topic": "x", "never": True}, max_total=0.6)
        assert anyio.current_time() - started < 3.0
        assert [m["params"]["taskId"] for m in sent(c.store, "tasks/cancel")] == ["task-1"]


async def test_an_unknown_status_is_a_clear_error(connect):
    async with connect(MODERN, era="auto") as c:
        with pytest.raises(MalformedTask, match="unknown status 'paused'"):
            await c.session.call_tool("research", {"topic": "x", "weird": True})
        assert [m["params"]["taskId"] for m in sent(c.store, "tasks/cancel")] == ["task-1"]  # not left running
        assert (await c.session.call_tool("echo", {"text": "still here"})).result["content"][0]["text"] == "still here"


async def test_a_task_result_to_prompts_get_is_an_invalid_response(connect):
    async with connect(MODERN, era="auto") as c:
        with pytest.raises(ProtocolViolation, match='prompts/get with resultType "task".*only on tools/call'):
            await c.session.get_prompt("tasky")
        reply = next(e for e in c.store if e.direction is Direction.IN and b'"resultType": "task"' in e.raw)
        assert "an invalid response" in (reply.problem or "")  # marked in the traffic too


@pytest.fixture(scope="module")
def modern_http_url():
    process = subprocess.Popen(
        [sys.executable, str(SERVERS_DIR / "modern_raw_server.py"), "--http"], stdout=subprocess.PIPE, text=True
    )
    line = process.stdout.readline()
    assert line.startswith("PORT "), line
    try:
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        process.kill()
        process.wait()


async def test_over_http_tasks_requests_carry_the_task_id_in_mcp_name(modern_http_url):
    store = TrafficStore()
    transport = HttpTransport(modern_http_url, mode="auto", http_log=store.http_log)
    calls = []
    session = McpSession(
        transport,
        store=store,
        timeout=10.0,
        auto_refresh=False,
        handlers={"elicitation/create": historical_handler(calls)},
    )
    async with session:
        await session.initialize()
        assert session.era == "modern"
        outcome = await session.call_tool("research", {"topic": "waves", "ask": True})
        assert outcome.result["content"][0]["text"] == "Report on waves (historical)"
        task_id = outcome.task_id
        exchanges = [
            x for x in store.http_log.exchanges if (x.header("Mcp-Method", response=False) or "").startswith("tasks/")
        ]
        assert {x.header("Mcp-Method", response=False) for x in exchanges} == {"tasks/get", "tasks/update"}
        assert {x.header("Mcp-Name", response=False) for x in exchanges} == {task_id}


async def test_a_caller_that_stops_waiting_cancels_the_task(connect):
    """The CLI's Ctrl-C or a closed TUI tab cancels the waiting scope: tasks/cancel is
    sent (shielded, bounded) so the server does not keep a task no one follows."""
    async with connect(MODERN, era="auto") as c:
        with anyio.move_on_after(0.4):
            await c.session.call_tool("research", {"topic": "x", "never": True})
        assert [m["params"]["taskId"] for m in sent(c.store, "tasks/cancel")] == ["task-1"]
        assert c.session.tasks["task-1"].cancel_requested == "the caller stopped waiting"
        assert not c.session.task_tracker.followers


async def test_status_notifications_come_on_the_listen_stream_while_the_task_is_followed(connect):
    """ext-tasks §Task Status Notifications: taskIds on subscriptions/listen; each
    notifications/tasks is a DetailedTask. The followed task joins the open stream and
    leaves it when it ends; polling goes on (the client MAY do both)."""
    calls = []
    async with connect(MODERN, era="auto", handlers={"elicitation/create": historical_handler(calls)}) as c:
        await until(lambda: c.session.subscription_ack is not None)
        outcome = await c.session.call_tool("research", {"topic": "tides", "ask": True})
        assert outcome.result["content"][0]["text"] == "Report on tides (historical)" and len(calls) == 1
        listens = sent(c.store, "subscriptions/listen")
        assert ["task-1"] in [m["params"]["notifications"].get("taskIds") for m in listens]
        notes = [e for e in c.store if e.direction is Direction.IN and e.method == "notifications/tasks"]
        assert notes and all(json.loads(e.raw)["params"]["taskId"] == "task-1" and e.problem is None for e in notes)
        assert "notification" in [e.source for e in c.of_type(TaskUpdated)]
        await until(lambda: "taskIds" not in sent(c.store, "subscriptions/listen")[-1]["params"]["notifications"])
        assert c.session.subscriptions.task_ids == []
        assert not [e for e in c.store if e.kind is Kind.EVENT and b"did not acknowledge" in e.raw]


async def test_a_refused_sampling_input_request_cancels_the_task(connect):
    """A sampling/createMessage the client refuses has no answer to send back (the MRTR
    rule, InputDeclined): the follow ends and the task is cancelled, not left waiting."""
    async with connect(MODERN, era="auto", auto_refresh=False, handlers=build_handlers(sampling="decline")) as c:
        with pytest.raises(InputDeclined, match="sampling/createMessage input request 'draft-1'"):
            await c.session.call_tool("research", {"topic": "x", "draft": True})
        assert not sent(c.store, "tasks/update")
        assert [m["params"]["taskId"] for m in sent(c.store, "tasks/cancel")] == ["task-1"]
        assert c.session.tasks["task-1"].cancel_requested == "the client declined the task's input request"
        assert c.session.tasks["task-1"].status == "cancelled"
