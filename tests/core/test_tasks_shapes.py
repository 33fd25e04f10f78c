"""The pure parts of core/session/tasks.py: the poll interval (the server's suggestion,
clamped to [0.1 s, 30 s], 1 s when absent), the checks of a task's shape (clear
errors for a missing taskId, an unknown status...), when a legacy call asks for a task,
and the modern rule that only tools/call may be answered with a task."""

from __future__ import annotations

import pytest

from mcp_inspector.core.base.errors import (
    MalformedTask,
    ProtocolViolation,
    RequestCancelled,
    RequestTimeout,
    TaskCancelled,
    TaskTimedOut,
)
from mcp_inspector.core.session import modern
from mcp_inspector.core.session.task_model import modern_outcome
from mcp_inspector.core.session.tasks import TaskRecord, check_task, is_create_task_result, poll_interval, wants_task

TASK = {
    "taskId": "t-1",
    "status": "working",
    "createdAt": "2025-11-25T10:30:00Z",
    "lastUpdatedAt": "2025-11-25T10:30:00Z",
    "ttl": 60000,
}


@pytest.mark.parametrize(
    ("task", "seconds"),
    [
        ({"pollInterval": 5000}, 5.0),
        ({"pollInterval": 250}, 0.25),
        ({"pollInterval": 1}, 0.1),  # clamped up: a server asking for 1 ms polls gets 100 ms
        ({"pollInterval": 0}, 0.1),
        ({"pollInterval": -40}, 0.1),
        ({"pollInterval": 3_600_000}, 30.0),  # clamped down
        ({}, 1.0),  # absent
        ({"pollInterval": None}, 1.0),
        ({"pollInterval": "500"}, 1.0),  # not a number
        ({"pollInterval": True}, 1.0),
        ({"pollInterval": float("nan")}, 1.0),
    ],
)
def test_the_legacy_poll_interval(task, seconds):
    assert poll_interval(task, modern=False) == seconds


def test_the_modern_poll_interval_is_pollIntervalMs():
    assert poll_interval({"pollIntervalMs": 2500, "pollInterval": 9000}, modern=True) == 2.5
    assert poll_interval({"pollIntervalMs": 5}, modern=True) == 0.1
    assert poll_interval({"pollInterval": 9000}, modern=True) == 1.0  # the legacy name means nothing there


def test_a_good_task_is_kept_without_result_type_and_meta():
    assert check_task({**TASK, "resultType": "task", "_meta": {"x": 1}}, "here") == TASK


@pytest.mark.parametrize(
    ("task", "words"),
    [
        ("t-1", r"here: the task is not an object \(got str\)"),
        (None, "the task is not an object"),
        ({"status": "working"}, r"here: the task has no taskId \(a non-empty string; got None\)"),
        ({"taskId": "", "status": "working"}, "no taskId"),
        ({"taskId": 7, "status": "working"}, "no taskId .*got 7"),
        ({"taskId": "t-1"}, "task 't-1' has an unknown status None"),
        (
            {"taskId": "t-1", "status": "done"},
            "unknown status 'done' \\(one of working, input_required, completed, failed, cancelled",
        ),
    ],
)
def test_bad_task_shapes_are_clear_errors(task, words):
    with pytest.raises(MalformedTask, match=words):
        check_task(task, "here")


def test_a_reply_about_another_task_is_an_error():
    with pytest.raises(MalformedTask, match="asked about task 't-2', the server answered about 't-1'"):
        check_task(TASK, "tasks/get", "t-2")


def test_malformed_task_is_a_protocol_violation_and_the_endings_are_the_usual_kinds():
    assert issubclass(MalformedTask, ProtocolViolation)
    cancelled = TaskCancelled("tools/call", "t-1", "by the user")
    assert (
        isinstance(cancelled, RequestCancelled) and str(cancelled) == "tools/call (task t-1) was cancelled: by the user"
    )
    timed_out = TaskTimedOut("tools/call", "t-1", 5, "working")
    assert isinstance(timed_out, RequestTimeout) and timed_out.hard_limit
    assert "task t-1 was still 'working' after the maximum total time of 5 s (tasks/cancel was sent)" in str(timed_out)


@pytest.mark.parametrize(
    ("support", "as_task", "asked"),
    [
        ("required", None, True),
        ("optional", None, False),
        ("forbidden", None, False),
        ("required", True, True),
        ("optional", True, True),
        ("forbidden", True, False),
        ("required", False, False),
        ("optional", False, False),
        ("forbidden", False, False),
    ],
)
def test_when_a_legacy_call_asks_for_a_task(support, as_task, asked):
    assert wants_task(support, as_task) is asked


def test_a_create_task_result_is_told_from_a_call_tool_result():
    assert is_create_task_result({"task": TASK})
    assert not is_create_task_result({"content": [], "task": TASK})  # a CallToolResult always has content
    assert not is_create_task_result({"content": []})
    assert not is_create_task_result({"task": "t-1"})


def test_a_modern_terminal_task_gives_its_result_or_error():
    done = TaskRecord("t-1", "x", 1, {**TASK, "status": "completed", "result": {"content": []}}, "completed")
    assert modern_outcome(done, "tools/call") == {"content": []} and done.result == {"content": []}
    with pytest.raises(MalformedTask, match="completed without a result object"):
        modern_outcome(TaskRecord("t-1", "x", 1, {**TASK, "status": "completed"}, "completed"), "tools/call")
    failed = TaskRecord(
        "t-1", "x", 1, {**TASK, "status": "failed", "error": {"code": -32603, "message": "down"}}, "failed"
    )
    with pytest.raises(Exception, match="-32603.*down") as caught:
        modern_outcome(failed, "tools/call")
    assert failed.error is caught.value
    for error in (None, {"code": "x", "message": "m"}, {"code": 1}, {"code": True, "message": "m"}):
        bad = TaskRecord("t-1", "x", 1, {**TASK, "status": "failed", "error": error}, "failed")
        with pytest.raises(MalformedTask, match="not a JSON-RPC error object"):
            modern_outcome(bad, "tools/call")


def test_only_tools_call_may_be_answered_with_a_task():
    assert "tasks" in modern.check_result_type("tools/call", {"resultType": "task"})
    for method in ("prompts/get", "resources/read", "tools/list", "server/discover"):
        with pytest.raises(ProtocolViolation, match=f'{method} with resultType "task".*only on tools/call'):
            modern.check_result_type(method, {"resultType": "task"})


def test_the_client_always_declares_the_extension_in_the_modern_era():
    assert modern.client_capabilities({}) == {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    assert modern.declares_result_type(modern.client_capabilities({}), "task")
    assert not modern.declares_result_type({}, "task")
