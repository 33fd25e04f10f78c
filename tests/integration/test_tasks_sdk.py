"""The io.modelcontextprotocol/tasks extension (2026-07-28) against a server built with the
official ``mcp`` SDK (2.3.0 has no tasks of its own; tests/servers/sdk_tasks_server.py serves
them through the SDK's Extension interface), over real pipes and from the CLI: the task
is followed to its result, cancelled by the caller, and Ctrl-C in the CLI cancels it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest
from conftest import PYTHON, SERVERS_DIR
from task_helpers import cancel_followed, sent

pytestmark = pytest.mark.anyio
SDK_TASKS = [PYTHON, str(SERVERS_DIR / "sdk_tasks_server.py")]
EXTENSION = "io.modelcontextprotocol/tasks"


async def test_a_task_of_an_sdk_server_is_followed_to_its_result(connect):
    async with connect(SDK_TASKS, era="auto", timeout=30) as c:
        await c.session.list_tools()
        assert c.session.era == "modern" and EXTENSION in c.session.capabilities["extensions"]
        assert c.session.task_support("report") == "optional"
        outcome = await c.session.call_tool("report", {"sections": 3, "delay": 0.05})
        assert outcome.task_id and outcome.result["structuredContent"] == {"result": "report of 3 sections"}
        assert c.session.tasks[outcome.task_id].status == "completed"
        call = sent(c.store, "tools/call")[0]
        assert EXTENSION in call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
        assert sent(c.store, "tasks/get")


async def test_cancelling_an_sdk_servers_task_sends_tasks_cancel(connect):
    async with connect(SDK_TASKS, era="auto", timeout=30) as c:
        await c.session.list_tools()
        pending = await c.session.begin_tool_call("report", {"sections": 1000, "delay": 0.05})
        caught = await cancel_followed(c.session, pending, "enough")
        (error,) = caught
        assert "enough (tasks/cancel was sent)" in str(error)  # the server's tasks/get says cancelled
        (record,) = c.session.tasks.values()
        assert record.status == "cancelled" and len(sent(c.store, "tasks/cancel")) == 1


def test_ctrl_c_in_the_cli_cancels_the_sdk_servers_task(tmp_path):
    record = tmp_path / "session.jsonl"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_inspector",
            "--progress",
            "--record",
            str(record),
            "call",
            "report",
            "sections=10000",
            "delay=0.05",
            "--",
            *SDK_TASKS,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        seen = 0
        for line in process.stderr:  # the task's status on stderr (--progress): it runs
            seen += "working: section" in line
            if seen == 2:
                break
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert "cancelled: cancelled by request" in rest and "interrupted" in rest
    methods = [json.loads(line).get("method") for line in record.read_text().splitlines()[1:]]
    assert "tasks/cancel" in methods
