"""The Tasks view (9) on real servers: server-everything's simulate-research-query run from
the composer is listed with its status and ttl, enter shows its result as a tool result,
r fetches tasks/list, p polls (tasks/get), c cancels (tasks/cancel); a server without
tasks says so."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, collect_calls, live_app, outgoing, wait_for, wait_for_tools
from textual.widgets import DataTable, Static

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.messages import CallFailed
from mcp_inspector.tui.pilot_steps import shown_notifications

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]
TOOL = "simulate-research-query"


async def start_research(pilot, app, topic: str) -> None:
    await wait_for_tools(pilot, app)
    await choose_tool(pilot, app, TOOL)
    await app.main.composer.set_arguments({"topic": topic})
    app.main.tool_list.option_list.focus()
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: app.main.connection.live.tasks, what="the task")


def table_rows(view) -> list[list[str]]:
    table = view.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]


def note(view) -> str:
    return str(view.query_one("#tasks-note", Static).render())


def said(app) -> list[str]:
    return [str(n.message) for n in shown_notifications(app)]


async def test_a_finished_task_listed_with_its_result_and_tasks_list_and_get(server_everything):
    done: list = []
    app = live_app(ServerSpec("everything", server_everything, source="test"), timeout=30)
    async with app.run_test(size=SIZE, message_hook=collect_calls(done)) as pilot:
        await start_research(pilot, app, "bees")
        await pilot.press("9")
        view = app.main.query_one("#view-tasks")
        await wait_for(pilot, lambda: table_rows(view), what="the task row")
        (task_id,) = app.main.connection.live.tasks
        row = table_rows(view)[0]
        # the research takes a few seconds: on a loaded machine it may have ended before the view was drawn
        states = ("working", "input required", "completed")
        assert row[0] == task_id[:8] + "…" and row[1] == TOOL and row[2] in states
        assert row[5] == "5 min" and row[6] == "1 s"  # ttl 300000 ms, pollInterval 1000 ms
        assert "1 task in this session · r: tasks/list" in note(view)
        if not done:  # still running: no tasks/result beside the call that follows it
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda: any("its result shows here when it ends" in text for text in said(app)),
                what="the notice",
            )
            assert not outgoing(app, "tasks/result") or done
        await wait_for(pilot, lambda: done, timeout=30, what="the task to finish")
        await wait_for(pilot, lambda: table_rows(view)[0][2] == "completed", what="completed in the table")
        assert view.query_one(DataTable).has_focus
        await pilot.press("enter")
        panel = view.result_panel
        await wait_for(pilot, lambda: panel.kind == "ok", what="the result")
        assert "Research Report: bees" in json.dumps(panel.payload)
        assert TOOL in panel.status_text
        # tasks/list and tasks/get from the keyboard
        await pilot.press("r")
        await wait_for(pilot, lambda: "tasks/list: 1 task on the server" in note(view), what="tasks/list")
        assert outgoing(app, "tasks/list")
        polls = len(outgoing(app, "tasks/get"))
        await pilot.press("p")
        await wait_for(pilot, lambda: len(outgoing(app, "tasks/get")) == polls + 1, what="tasks/get")
        assert json.loads(outgoing(app, "tasks/get")[-1].raw)["params"] == {"taskId": task_id}
        await wait_for(
            pilot,
            lambda: any("tasks/get: task" in text and "completed" in text for text in said(app)),
            what="the poll's notice",
        )
        await pilot.press("c")  # nothing left to cancel
        await wait_for(pilot, lambda: any("is already completed" in text for text in said(app)), what="the refusal")
        assert not outgoing(app, "tasks/cancel")


async def test_cancel_from_the_tasks_view():
    """On a task that never ends (tests/servers/hostile_surface_server.py's never_ends): server-
    everything's research ended on its own before the c of a loaded run, so nothing was cancelled."""
    done: list = []
    hostile = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "hostile_surface_server.py")]
    app = live_app(ServerSpec("hostile", hostile, source="test"), timeout=30)
    async with app.run_test(size=SIZE, message_hook=collect_calls(done)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "never_ends")
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.main.connection.live.tasks, what="the task")
        await pilot.press("9")
        view = app.main.query_one("#view-tasks")
        await wait_for(pilot, lambda: table_rows(view), what="the task row")
        await pilot.press("c")
        await wait_for(pilot, lambda: outgoing(app, "tasks/cancel"), what="tasks/cancel")
        await wait_for(pilot, lambda: table_rows(view)[0][2] == "cancelled", what="cancelled in the table")
        await wait_for(pilot, lambda: done, timeout=15, what="the call to end")
        assert isinstance(done[0], CallFailed)  # the composer's call ends as cancelled too
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.result_panel.kind != "empty", what="what the task ended with")
        assert "cancel" in view.result_panel.status_text.lower()


async def test_a_server_without_tasks_says_so(raw_server):
    app = live_app(ServerSpec("raw", raw_server(), source="test"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("9")
        view = app.main.query_one("#view-tasks")
        await wait_for(pilot, lambda: "This server declares no tasks capability." in note(view), what="the note")
        await pilot.press("r")
        await wait_for(
            pilot, lambda: any("declares no tasks capability" in text for text in said(app)), what="the notice"
        )
        assert not outgoing(app, "tasks/list")
