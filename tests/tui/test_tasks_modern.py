"""Tasks in the 2026-07-28 era (the io.modelcontextprotocol/tasks extension) on
tests/servers/modern_raw_server.py: ``research`` answers with a task; the in-flight row
follows it, its inputRequests open the elicitation modal, the answer (tasks/update)
completes it; the Tasks view lists it without tasks/list (the extension has none)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, collect_calls, live_app, outgoing, wait_for, wait_for_tools
from textual.widgets import DataTable, Static

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.messages import CallFailed, CallFinished
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]
MODERN = [sys.executable, str(Path(__file__).resolve().parent.parent / "servers" / "modern_raw_server.py")]


async def test_modern_task_with_an_input_request_in_the_row_the_modal_and_the_tasks_view():
    done: list = []
    app = live_app(ServerSpec("modern", MODERN, source="test"), timeout=20)
    async with app.run_test(size=SIZE, message_hook=collect_calls(done)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "research")
        await app.main.composer.set_arguments({"topic": "bees", "ask": True})
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), timeout=15, what="the modal")
        row = app.main.inflight.rows[-1]
        assert row.task_id == "task-1" and row.task_info["status"] == "input_required"
        message = str(row.query_one(".inflight-message", Static).render())
        assert "task task-1 · input required" in message and "Which interpretation?" in message
        timing = str(row.query_one(".inflight-timing", Static).render())
        assert "polls every 0.05 s" in timing and "ttl 60 s" in timing  # pollIntervalMs / ttlMs
        screen = app.screen
        await wait_for(pilot, lambda: screen.form is not None and screen.form.body.is_mounted, what="the form")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.screen is screen, what="the focus")
        await pilot.press("enter", "down", "enter", "ctrl+s")  # the enum: (not set), technical
        await wait_for(pilot, lambda: done, timeout=15, what="the task to finish")
        assert isinstance(done[0], CallFinished), done[0]
        assert done[0].outcome.result["content"][0]["text"] == "Report on bees (technical)"
        assert outgoing(app, "tasks/update")

        await pilot.press("9")
        view = app.main.query_one("#view-tasks")
        table = view.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, what="the task in the table")
        cells = [str(cell) for cell in table.get_row_at(0)]
        assert cells[:3] == ["task-1", "research", "completed"] and cells[5:7] == ["60 s", "0.05 s"]
        note = str(view.query_one("#tasks-note", Static).render())
        assert "offers no tasks/list" in note
        await pilot.press("r")
        await wait_for(
            pilot, lambda: any("no tasks/list" in str(n.message) for n in shown_notifications(app)), what="the refusal"
        )
        assert not outgoing(app, "tasks/list")
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.result_panel.kind == "ok", what="the result")
        assert "Report on bees (technical)" in json.dumps(view.result_panel.payload)


async def test_a_malformed_task_ends_its_row_as_failed_in_words():
    """``long`` answers resultType "task" with the Task nested (no taskId inline): the call fails
    in words, and its row says failed (its tools/call was answered, but nothing came of it)."""
    done: list = []
    app = live_app(ServerSpec("modern", MODERN, source="test"), timeout=20)
    async with app.run_test(size=SIZE, message_hook=collect_calls(done)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "long")
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, timeout=15, what="the call to end")
        assert isinstance(done[0], CallFailed)
        row = app.main.inflight.rows[-1]
        await wait_for(
            pilot, lambda: "failed" in str(row.query_one(".inflight-timing", Static).render()), what="the row's end"
        )
        assert row.has_class("finished-error") and not row.has_class("finished-ok")
        assert "taskId" in str(done[0].error)
        assert app.main.result_panel.kind == "rpc-error"  # a protocol violation, in words
