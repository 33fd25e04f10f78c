"""2025-11-25 tasks against a small hand-written legacy server (written to a file and run
over real pipes) that breaks the rules on purpose: it declares no ``tasks`` capability
yet has a tool that requires a task, answers a plain call with a CreateTaskResult,
sends a malformed status notification, lists a malformed task, and moves a terminal
task back to working (core/session/tasks.py)."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from mcp_inspector.core.base.errors import ConnectionLost, MalformedTask
from mcp_inspector.core.session.events import TaskUpdated
from mcp_inspector.core.traffic.entry import Direction, Kind

pytestmark = pytest.mark.anyio

SERVER = textwrap.dedent("""
    import json, sys
    TASK = {"taskId": "t-1", "status": "working", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000, "pollInterval": 100}
    TOOLS = [
        {"name": "needs_task", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
        {"name": "maybe_task", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
        {"name": "odd_task", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "always"}},
        {"name": "sneaky", "inputSchema": {"type": "object"}},
        {"name": "stalled", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
        {"name": "dies", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
    ]
    polls = 0
    stalled_polls = stalled_results = 0
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if rid is None:
            continue
        if method == "initialize":
            info = {"name": "edges", "version": "1"}
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call" and params.get("name") == "dies":
            send({"jsonrpc": "2.0", "id": rid, "result": {"task": dict(TASK, taskId="t-3")}})
            sys.exit(0)  # the server goes away while its task runs
        elif method == "tools/call" and params.get("name") == "stalled":
            result = {"task": dict(TASK, taskId="t-2")}
        elif method in ("tasks/get", "tasks/result") and params.get("taskId") == "t-2":
            if method == "tasks/get":
                stalled_polls += 1
                result = dict(TASK, taskId="t-2", status="input_required" if stalled_polls == 1 else "completed")
            else:
                stalled_results += 1
                if stalled_results == 1:
                    continue  # the blocking tasks/result never answers
                result = {"content": [{"type": "text", "text": "late done"}]}
        elif method == "tools/call":
            sys.stderr.write("call " + json.dumps(params.get("task")) + "\\n"); sys.stderr.flush()
            send({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {"status": "working"}})
            result = {"task": dict(TASK)}
        elif method == "tasks/get":
            polls += 1
            status = "completed" if polls == 1 else "working"  # completed, then (wrongly) working again
            result = dict(TASK, status=status)
        elif method == "tasks/result":
            result = {"content": [{"type": "text", "text": "done"}]}
        elif method == "tasks/list":
            result = {"tasks": [dict(TASK, status="completed"), {"status": "working"}]}
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
            continue
        send({"jsonrpc": "2.0", "id": rid, "result": result})
""")


@pytest.fixture
def edges(tmp_path):
    path = tmp_path / "edges_server.py"
    path.write_text(SERVER)
    return [sys.executable, str(path)]


def notes(store):
    return [e.raw.decode() for e in store if e.kind is Kind.EVENT]


async def test_a_required_tool_on_a_server_without_the_capability_goes_as_a_task_with_a_note(connect, edges):
    async with connect(edges) as c:
        await c.session.list_tools()
        assert c.session.task_support("needs_task") == "required"
        assert any("requires a task" in n and "does not declare tasks.requests.tools.call" in n for n in notes(c.store))
        assert c.session.task_support("maybe_task") == "forbidden"  # MUST NOT without the capability
        assert any("'maybe_task' allows a task" in n for n in notes(c.store))
        assert c.session.task_support("odd_task") == "forbidden"
        assert any("'always'" in n and "taken as forbidden" in n for n in notes(c.store))
        assert not c.session.can_list_tasks()
        outcome = await c.session.call_tool("needs_task", {})
        assert outcome.task_id == "t-1" and outcome.result["content"][0]["text"] == "done"
        result_reply = next(e for e in c.store if e.direction is Direction.IN and b'"done"' in e.raw)
        assert 'without _meta["io.modelcontextprotocol/related-task"]' in (result_reply.problem or "")
        assert json.loads(next(e for e in c.store if e.method == "tools/call").raw)["params"]["task"] == {}
        status = next(e for e in c.store if e.method == "notifications/tasks/status")
        assert "no taskId" in (status.problem or "")  # flagged, not taken
        c.session.task_support("needs_task")  # the same contradiction is noted once
        assert len([n for n in notes(c.store) if "'needs_task' requires a task" in n]) == 1


async def test_a_create_task_result_to_a_plain_call_is_flagged_and_followed(connect, edges):
    async with connect(edges) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool("sneaky", {})
        assert outcome.result["content"][0]["text"] == "done" and outcome.task_id == "t-1"
        reply = outcome.request.reply
        assert "did not ask for a task" in (reply.problem or "")


async def test_a_terminal_task_that_changes_status_is_noted(connect, edges):
    async with connect(edges) as c:
        await c.session.list_tools()
        await c.session.call_tool("needs_task", {})
        record = await c.session.get_task("t-1")  # second poll: working again
        assert record.status == "working"
        assert any("from the terminal status 'completed' to 'working'" in n for n in notes(c.store))


async def test_tasks_list_keeps_the_good_tasks_and_notes_the_malformed_one(connect, edges):
    async with connect(edges) as c:
        listed = await c.session.list_tasks()
        assert [r.task_id for r in listed] == ["t-1"] and listed[0].tool is None
        assert any("tasks/list: the task has no taskId" in n for n in notes(c.store))
        assert [e.source for e in c.of_type(TaskUpdated)] == ["list"]
        with pytest.raises(MalformedTask, match="asked about task 't-9'"):
            await c.session.get_task("t-9")
        sent = [json.loads(e.raw) for e in c.store if e.direction is Direction.OUT and e.method == "tasks/get"]
        assert sent[-1]["params"] == {"taskId": "t-9"}


async def test_a_tasks_result_that_never_answers_is_asked_again_once_the_task_ended(connect, edges):
    """input_required: tasks/result is sent at once and blocks (no request timeout); the
    server never answers it. When polls show the task completed, it gets the request
    timeout, then a fresh tasks/result replaces it (the old one is cancelled)."""
    async with connect(edges, timeout=1.0) as c:
        await c.session.list_tools()
        outcome = await c.session.call_tool("stalled", {})
        assert outcome.result["content"][0]["text"] == "late done" and outcome.task_id == "t-2"
        results = [e for e in c.store if e.direction is Direction.OUT and e.method == "tasks/result"]
        assert len(results) == 2
        cancelled = [json.loads(e.raw)["params"] for e in c.store if e.method == "notifications/cancelled"]
        assert [m["requestId"] for m in cancelled] == [json.loads(results[0].raw)["id"]]
        assert any("t-2 is completed but its tasks/result" in n and "asking again" in n for n in notes(c.store))


async def test_a_server_that_goes_away_mid_task_ends_the_call_in_words(connect, edges):
    async with connect(edges) as c:
        await c.session.list_tools()
        with pytest.raises(ConnectionLost):
            await c.session.call_tool("dies", {})
        assert c.session.tasks["t-3"].status == "working" and not c.session.task_tracker.followers
        assert not [e for e in c.store if e.direction is Direction.OUT and e.method == "tasks/cancel"]
