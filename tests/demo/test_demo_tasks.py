"""2025-11-25 tasks on the demo server: long_job (required) and generate_report (optional), over real pipes."""

from __future__ import annotations

import time

import jsonschema
from test_demo_server import text_of

RELATED = "io.modelcontextprotocol/related-task"
FAST = ("--task-poll-interval", "50")
TASK_FIELDS = {"taskId", "status", "createdAt", "lastUpdatedAt", "ttl", "pollInterval"}


def call_as_task(server, name: str, arguments: dict, task: dict | None = None, **meta) -> dict:
    created = server.call("tools/call", {"name": name, "arguments": arguments, "task": task or {}}, **meta)
    assert set(created) >= {"task"}, created
    return created["task"]


def statuses(server, task_id: str) -> list[dict]:
    return [m["params"] for m in server.notifications("notifications/tasks/status") if m["params"]["taskId"] == task_id]


def wait_status(server, task_id: str, status: str, timeout: float = 30) -> dict:
    return server.wait_for(
        lambda m: (
            m.get("method") == "notifications/tasks/status"
            and m["params"]["taskId"] == task_id
            and m["params"]["status"] == status
        ),
        timeout,
    )["params"]


def poll_until_terminal(server, task_id: str, timeout: float = 30) -> tuple[dict, int]:
    deadline, polls = time.monotonic() + timeout, 0
    while True:
        task = server.call("tasks/get", {"taskId": task_id})
        polls += 1
        if task["status"] in ("completed", "failed", "cancelled"):
            return task, polls
        assert time.monotonic() < deadline, task
        time.sleep(task["pollInterval"] / 1000)


def test_capability_and_task_support_are_declared_from_2025_11_25(start_demo):
    new = start_demo()
    tools = {t["name"]: t for t in new.call("tools/list")["tools"]}
    assert tools["long_job"]["execution"] == {"taskSupport": "required"}
    assert tools["generate_report"]["execution"] == {"taskSupport": "optional"}
    assert "execution" not in tools["echo"]
    jsonschema.Draft202012Validator.check_schema(tools["long_job"]["inputSchema"])

    old = start_demo(version="2025-06-18")
    assert "tasks" not in old.init_result["capabilities"]
    assert new.init_result["capabilities"]["tasks"]["requests"] == {"tools": {"call": {}}}
    old_tools = {t["name"]: t for t in old.call("tools/list")["tools"]}
    assert "execution" not in old_tools["long_job"]
    # No tasks before 2025-11-25: params.task is ignored and the tool runs as a plain call.
    plain = old.call(
        "tools/call", {"name": "long_job", "arguments": {"steps": 1, "duration_seconds": 0}, "task": {"ttl": 1000}}
    )
    assert "finished 1 steps" in text_of(plain)
    assert old.error("tasks/list")["code"] == -32601


def test_the_spec_errors_for_task_support(demo):
    required = demo.error("tools/call", {"name": "long_job", "arguments": {}})
    assert required["code"] == -32601 and "requires task augmentation" in required["message"]
    forbidden = demo.error("tools/call", {"name": "echo", "arguments": {"message": "x"}, "task": {}})
    assert forbidden["code"] == -32601 and "does not support task" in forbidden["message"]
    assert demo.error("tools/call", {"name": "nope", "arguments": {}, "task": {}})["code"] == -32602
    assert demo.error("tools/call", {"name": "long_job", "arguments": {}, "task": 5})["code"] == -32602
    assert demo.error("tools/call", {"name": "long_job", "arguments": {}, "task": {"ttl": "x"}})["code"] == -32602
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        missing = demo.error(method, {"taskId": "no-such-task"})
        assert missing["code"] == -32602 and "not found" in missing["message"]
        assert demo.error(method, {})["code"] == -32602


def test_lifecycle_create_poll_result(start_demo):
    server = start_demo(*FAST)
    task = call_as_task(server, "long_job", {"steps": 4, "duration_seconds": 0.8}, {"ttl": 60000}, progressToken="p")
    # CreateTaskResult comes at once, not after the job: before the job's first step (0.2 s) reported progress
    # (the messages received before a response stay in the backlog)
    assert not [m for m in server.backlog if m.get("method") == "notifications/progress"], server.backlog
    assert set(task) >= TASK_FIELDS and task["status"] == "working"
    assert task["ttl"] == 60000 and task["pollInterval"] == 50 and task["createdAt"].endswith("Z")
    final, polls = poll_until_terminal(server, task["taskId"])
    assert final["status"] == "completed" and polls >= 3 and final["createdAt"] == task["createdAt"]
    result = server.call("tasks/result", {"taskId": task["taskId"]})
    assert result["_meta"][RELATED] == {"taskId": task["taskId"]}
    assert result["structuredContent"]["steps"] == 4 and "finished 4 steps" in text_of(result)
    seen = statuses(server, task["taskId"])
    assert [s["statusMessage"] for s in seen if s["status"] == "working"] == [
        "Step 1 of 4",
        "Step 2 of 4",
        "Step 3 of 4",
        "Step 4 of 4",
    ]
    assert seen[-1]["status"] == "completed" and all(set(s) >= TASK_FIELDS for s in seen)
    progress = [m["params"] for m in server.notifications("notifications/progress")]
    assert [p["progress"] for p in progress] == [1, 2, 3, 4]
    assert all(p["progressToken"] == "p" and p["_meta"][RELATED]["taskId"] == task["taskId"] for p in progress)


def test_result_blocks_until_the_task_ends(start_demo):
    server = start_demo(*FAST)
    task = call_as_task(server, "generate_report", {"topic": "tasks", "sections": 2, "duration_seconds": 0.4})
    waiting = server.request("tasks/result", {"taskId": task["taskId"]})
    assert server.call("ping") == {}  # other requests go on meanwhile
    assert server.call("tasks/get", {"taskId": task["taskId"]})["status"] == "working"
    reply = server.response(waiting)
    assert reply["result"]["structuredContent"] == {"topic": "tasks", "sections": 2}
    assert server.call("tasks/get", {"taskId": task["taskId"]})["status"] == "completed"
    # The optional tool also runs as a plain call, answering directly.
    plain = server.tool("generate_report", {"topic": "plain", "sections": 1, "duration_seconds": 0})
    assert plain["structuredContent"] == {"topic": "plain", "sections": 1} and "_meta" not in plain


def test_list_is_paged(start_demo):
    server = start_demo(*FAST, "--tasks-page-size", "2")
    ids = [call_as_task(server, "generate_report", {"sections": 1, "duration_seconds": 0})["taskId"] for _ in range(3)]
    first = server.call("tasks/list")
    assert [t["taskId"] for t in first["tasks"]] == ids[:2] and "nextCursor" in first
    second = server.call("tasks/list", {"cursor": first["nextCursor"]})
    assert [t["taskId"] for t in second["tasks"]] == ids[2:] and "nextCursor" not in second
    assert all(set(t) >= TASK_FIELDS for t in first["tasks"] + second["tasks"])
    assert server.error("tasks/list", {"cursor": "bogus"})["code"] == -32602


def test_cancel(start_demo):
    server = start_demo(*FAST)
    task = call_as_task(server, "long_job", {"steps": 100, "duration_seconds": 20}, progressToken=1)
    server.wait_for(lambda m: m.get("method") == "notifications/progress")
    waiting = server.request("tasks/result", {"taskId": task["taskId"]})
    cancelled = server.call("tasks/cancel", {"taskId": task["taskId"]})
    assert cancelled["status"] == "cancelled" and cancelled["statusMessage"] == "The task was cancelled by request."
    assert server.call("tasks/get", {"taskId": task["taskId"]})["status"] == "cancelled"
    assert wait_status(server, task["taskId"], "cancelled")["taskId"] == task["taskId"]
    blocked = server.response(waiting)  # the waiting tasks/result ends too
    assert blocked["error"]["code"] == -32602 and "cancelled" in blocked["error"]["message"]
    again = server.error("tasks/cancel", {"taskId": task["taskId"]})
    assert again["code"] == -32602 and "terminal status 'cancelled'" in again["message"]
    server.notifications("notifications/progress")
    server.notifications("notifications/tasks/status")
    server.ran_for(0.5)  # two steps' worth of the server's loop: a job still running would have sent progress
    assert server.notifications("notifications/progress") == []
    assert statuses(server, task["taskId"]) == []
    listed = {t["taskId"]: t["status"] for t in server.call("tasks/list")["tasks"]}
    assert listed[task["taskId"]] == "cancelled"


def test_input_required_delivers_the_elicitation_in_tasks_result(start_demo):
    server = start_demo(*FAST, capabilities={"elicitation": {}})
    task = call_as_task(server, "long_job", {"steps": 2, "duration_seconds": 0.1, "ask": True})
    wait_status(server, task["taskId"], "input_required")
    assert server.call("tasks/get", {"taskId": task["taskId"]})["status"] == "input_required"
    server.call("ping")  # a question sent on input_required would be in before this answer
    server.notifications("notifications/tasks/status")
    assert not [m for m in server.backlog if m.get("method") == "elicitation/create"]  # held until tasks/result
    waiting = server.request("tasks/result", {"taskId": task["taskId"]})
    ask = server.wait_for(lambda m: m.get("method") == "elicitation/create")
    assert ask["params"]["_meta"][RELATED] == {"taskId": task["taskId"]}
    assert ask["params"]["requestedSchema"]["required"] == ["note"]
    server.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"note": "hi"}}})
    result = server.response(waiting)["result"]
    assert result["structuredContent"]["note"] == "hi" and result["_meta"][RELATED]["taskId"] == task["taskId"]
    after_answer = [s["status"] for s in statuses(server, task["taskId"])]
    assert after_answer[0] == "working" and after_answer[-1] == "completed"


def test_cancel_while_input_required_drops_the_held_question(start_demo):
    server = start_demo(*FAST, capabilities={"elicitation": {}})
    task = call_as_task(server, "long_job", {"steps": 2, "duration_seconds": 0, "ask": True})
    wait_status(server, task["taskId"], "input_required")
    assert server.call("tasks/cancel", {"taskId": task["taskId"]})["status"] == "cancelled"
    error = server.error("tasks/result", {"taskId": task["taskId"]})
    assert error["code"] == -32602 and "cancelled" in error["message"]
    server.call("ping")  # a question sent after all would be in before this answer
    server.notifications("notifications/tasks/status")
    assert not [m for m in server.backlog if m.get("method") == "elicitation/create"]
    assert server.call("tasks/get", {"taskId": task["taskId"]})["status"] == "cancelled"


def test_an_elicitation_answer_can_fail_the_task_and_no_capability_fails_it(start_demo):
    server = start_demo(*FAST, capabilities={"elicitation": {}})
    task = call_as_task(server, "long_job", {"steps": 1, "duration_seconds": 0, "ask": True})
    waiting = server.request("tasks/result", {"taskId": task["taskId"]})
    ask = server.wait_for(lambda m: m.get("method") == "elicitation/create")
    server.send(
        {
            "jsonrpc": "2.0",
            "id": ask["id"],
            "result": {"action": "accept", "content": {"note": "bad", "finish": "as an error"}},
        }
    )
    result = server.response(waiting)["result"]
    assert result["isError"] is True and server.call("tasks/get", {"taskId": task["taskId"]})["status"] == "failed"

    bare = start_demo(*FAST)  # no elicitation capability: the job cannot ask
    task = call_as_task(bare, "long_job", {"steps": 1, "duration_seconds": 0, "ask": True})
    result = bare.call("tasks/result", {"taskId": task["taskId"]})
    assert result["isError"] is True and "elicitation" in text_of(result)


def test_failures_tool_error_and_protocol_error(start_demo):
    server = start_demo(*FAST)
    tool_error = call_as_task(server, "long_job", {"steps": 1, "duration_seconds": 0, "outcome": "tool_error"})
    result = server.call("tasks/result", {"taskId": tool_error["taskId"]})
    assert result["isError"] is True and "tool_error" in text_of(result)
    failed = server.call("tasks/get", {"taskId": tool_error["taskId"]})
    assert failed["status"] == "failed" and "isError" in failed["statusMessage"]

    rpc_error = call_as_task(server, "long_job", {"steps": 1, "duration_seconds": 0, "outcome": "protocol_error"})
    error = server.error("tasks/result", {"taskId": rpc_error["taskId"]})
    assert error["code"] == -32603 and "protocol_error" in error["message"] and error["data"]["steps"] == 1
    failed = server.call("tasks/get", {"taskId": rpc_error["taskId"]})
    assert failed["status"] == "failed" and "-32603" in failed["statusMessage"]
    # Bad arguments are an isError result (2025-11-25), so the task fails with it.
    invalid = call_as_task(server, "long_job", {"steps": 0})
    assert server.call("tasks/result", {"taskId": invalid["taskId"]})["isError"] is True


def test_ttl_is_clamped_and_expired_tasks_are_forgotten(start_demo):
    server = start_demo(*FAST, "--task-ttl", "120000")
    default = call_as_task(server, "generate_report", {"sections": 1, "duration_seconds": 0})
    assert default["ttl"] == 120000
    short = call_as_task(server, "generate_report", {"sections": 1, "duration_seconds": 0}, {"ttl": 1})
    assert short["ttl"] == 100
    wait_status(server, short["taskId"], "completed")
    time.sleep(0.15)
    expired = server.error("tasks/get", {"taskId": short["taskId"]})
    assert expired["code"] == -32602 and "expired" in expired["message"]
    assert [t["taskId"] for t in server.call("tasks/list")["tasks"]] == [default["taskId"]]


def test_eof_with_a_running_task_exits_promptly(start_demo):
    server = start_demo(*FAST)
    call_as_task(server, "long_job", {"steps": 10, "duration_seconds": 60})
    started = time.monotonic()
    assert server.close() == 0
    assert time.monotonic() - started < 30  # long before the 60 s job ends; the bound is loose
