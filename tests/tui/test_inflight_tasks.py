"""A tool call that runs as a task, from the composer, on server-everything over stdio
(``simulate-research-query``: execution.taskSupport "required", 2025-11-25 tasks): the
in-flight row follows the task's status messages and polls, the elicitation modal opens
for an ambiguous query and answering it completes the task, and cancel ends the task
with tasks/cancel."""

from __future__ import annotations

import json

import pytest
from app_helpers import (
    SIZE,
    choose_tool,
    collect_calls,
    live_app,
    outgoing,
    record_row_updates,
    wait_for,
    wait_for_tools,
)
from textual.widgets import Static

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.messages import CallFailed, CallFinished
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen
from mcp_inspector.tui.widgets.inflight import InFlightRow

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]
TOOL = "simulate-research-query"


def row_text(row: InFlightRow) -> str:
    return " / ".join(str(w.render()) for w in row.query(Static) if w.display)


async def send_research(pilot, app, **arguments) -> InFlightRow:
    """Compose the call by keyboard-free form filling, send it with ctrl+s, return its in-flight row."""
    await wait_for_tools(pilot, app)
    await choose_tool(pilot, app, TOOL)
    composer = app.main.composer
    note = composer.query_one("#composer-task-note", Static)
    assert note.display and "runs as a task" in str(note.render())  # required: no toggle, a note
    assert not composer.query_one("#composer-as-task").display
    await composer.set_arguments({"topic": "bees", **arguments})
    app.main.tool_list.option_list.focus()
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: app.main.inflight.rows, what="the in-flight row")
    return app.main.inflight.rows[-1]


async def test_research_runs_to_completion_with_status_messages_in_the_row(server_everything):
    done: list = []
    seen: set[str] = set()
    app = live_app(ServerSpec("everything", server_everything, source="test"), timeout=30)
    async with app.run_test(size=SIZE, message_hook=collect_calls(done)) as pilot:
        row = await send_research(pilot, app)
        record_row_updates(row, seen, row_text)

        def watch() -> bool:
            if row.following_task:
                seen.add(row_text(row))
            return bool(done)

        await wait_for(pilot, watch, timeout=30, what="the task to finish")
        assert isinstance(done[0], CallFinished) and done[0].outcome.task_id == row.task_id
        call = json.loads(outgoing(app, "tools/call")[-1].raw)
        assert "task" in call["params"]  # asked as a task (params.task)
        text = " | ".join(seen)
        assert f"task {row.task_id[:8]}… · working" in text
        assert "Gathering sources..." in text or "Analyzing content..." in text
        assert "polled 1x" in text or "polled 2x" in text  # tasks/get at the server's interval (1 s)
        assert "polls every 1 s" in text and "ttl 5 min" in text
        # the result panel shows the report; the row says how it ended, then goes
        await wait_for(pilot, lambda: "Research Report: bees" in str(app.main.result_panel.payload), what="the result")
        await wait_for(pilot, lambda: "task completed" in row_text(row), what="the row's end")
        await wait_for(pilot, lambda: not app.main.inflight.rows, what="the row to go")


async def test_ambiguous_research_asks_in_the_modal_and_the_answer_completes_it(server_everything):
    done: list = []
    app = live_app(ServerSpec("everything", server_everything, source="test"), timeout=30)
    async with app.run_test(size=SIZE, message_hook=collect_calls(done)) as pilot:
        row = await send_research(pilot, app, ambiguous=True)
        await wait_for(
            pilot, lambda: isinstance(app.screen, ServerRequestScreen), timeout=20, what="the elicitation modal"
        )
        assert row.task_info is not None and row.task_info["status"] == "input_required"
        assert "input required" in row_text(row) and "the server needs an answer" in row_text(row)
        assert row.has_class("input-required")
        screen = app.screen
        await wait_for(pilot, lambda: screen.form is not None and screen.form.body.is_mounted, what="the form")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.screen is screen, what="the focus")
        await pilot.press("enter", "down", "down", "enter")  # the oneOf list: (not set), the first interpretation
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, timeout=30, what="the task to finish")
        assert isinstance(done[0], CallFinished), done[0]
        answers = [
            json.loads(e.raw)
            for e in app.store
            if e.direction is Direction.OUT and e.raw.startswith(b'{"jsonrpc"') and b'"action"' in e.raw
        ]
        assert answers and answers[0]["result"]["action"] == "accept"
        chosen = answers[0]["result"]["content"]["interpretation"]
        report = done[0].outcome.result["content"][0]["text"]
        assert chosen in report


async def test_cancel_a_running_task_from_its_row_sends_tasks_cancel(server_everything):
    done: list = []
    app = live_app(ServerSpec("everything", server_everything, source="test"), timeout=30)
    async with app.run_test(size=SIZE, message_hook=collect_calls(done)) as pilot:
        row = await send_research(pilot, app)
        await wait_for(pilot, lambda: row.following_task and row.task_info is not None, what="the task")
        app.main.tool_list.option_list.focus()
        await pilot.press(
            "ctrl+k"
        )  # from anywhere: the newest call still waiting is the task's (its tools/call is done)
        await wait_for(pilot, lambda: outgoing(app, "tasks/cancel"), what="tasks/cancel")
        assert json.loads(outgoing(app, "tasks/cancel")[0].raw)["params"] == {"taskId": row.task_id}
        assert not outgoing(app, "notifications/cancelled")  # the tools/call has its answer: the task is what ends
        await wait_for(pilot, lambda: done, timeout=15, what="the call to end")
        assert isinstance(done[0], CallFailed)
        assert "cancelled" in row_text(row)
        assert any("tasks/cancel sent" in str(n.message) for n in shown_notifications(app))
        assert app.main.connection.live.tasks[row.task_id].status == "cancelled"


async def test_a_server_that_ignores_tasks_cancel_is_said_so_in_the_result_panel():
    """tests/servers/hostile_tasks_server.py: tasks/cancel answers the task still working. The
    panel says tasks/cancel was sent (not notifications/cancelled) and that the task may
    go on running, with the time since the call began (not the tools/call's few ms); a
    400-digit pollInterval shows as ∞ in the row."""
    import sys
    from pathlib import Path

    server = [sys.executable, str(Path(__file__).parents[1] / "servers" / "hostile_tasks_server.py")]
    done: list = []
    app = live_app(ServerSpec("hostile", server, source="test"), timeout=30)
    async with app.run_test(size=SIZE, message_hook=collect_calls(done)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "poll_bigint")
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, timeout=15, what="poll_bigint to end")
        assert isinstance(done[0], CallFinished)
        await pilot.press("9")  # the Tasks view: its Poll column
        view = app.main.query_one("#view-tasks")
        await wait_for(pilot, lambda: view.table.row_count == 1, what="the task row")
        assert [str(cell) for cell in view.table.get_row_at(0)][6] == "∞"
        await pilot.press("1")
        done.clear()
        await choose_tool(pilot, app, "ignores_cancel")
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: (
                app.main.inflight.rows
                and app.main.inflight.rows[-1].following_task
                and app.main.inflight.rows[-1].task_info is not None
            ),
            what="the task",
        )
        row = app.main.inflight.rows[-1]
        await wait_for(pilot, lambda: row.poll_count() >= 2, what="two polls")
        await pilot.press("ctrl+k")
        await wait_for(pilot, lambda: done, timeout=15, what="the call to end")
        assert isinstance(done[0], CallFailed)
        panel = app.main.result_panel
        text = " ".join(str(w.render()) for w in panel.query(Static))
        assert "notifications/cancelled" not in text
        assert "tasks/cancel was sent, yet the server still reports the task 'working'" in text
        took = float(panel.status_text.split("after ")[1].split(" ms")[0].replace(",", ""))
        assert took >= done[0].pending.elapsed * 1000 + 50  # the task's polls, not the tools/call alone


async def test_a_storm_of_task_status_notifications_reaches_the_screen_coalesced():
    """hostile_tasks_server.py's status_storm: 20,000 notifications/tasks/status in one write.
    The screen gets one SessionNotice per task at a time with the newest status (each used
    to rebuild the Tasks table: 26 s of a frozen screen), and the task ends completed."""
    import sys
    from pathlib import Path

    from mcp_inspector.tui.messages import SessionNotice

    server = [sys.executable, str(Path(__file__).parents[1] / "servers" / "hostile_tasks_server.py")]
    done: list = []
    notices: list = []

    def hook(message):
        collect_calls(done)(message)
        if isinstance(message, SessionNotice):
            notices.append(message)

    app = live_app(ServerSpec("hostile", server, source="test"), timeout=30)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("9")  # the Tasks view is shown: each notice rebuilds its table
        await pilot.press("1")
        await choose_tool(pilot, app, "status_storm")
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, timeout=60, what="status_storm to end")
        assert isinstance(done[0], CallFinished)
        (record,) = app.main.connection.live.tasks.values()
        await wait_for(
            pilot,
            lambda: record.updates > 20_000 and not any(n.latest for n in notices),
            timeout=60,
            what="every notification taken",
        )
        assert len(notices) < 2_000, len(notices)  # coalesced (20,000 before)
        assert app.main.inflight.rows[-1].task_info["status"] == "completed"
        await pilot.press("9")
        view = app.main.query_one("#view-tasks")
        await wait_for(pilot, lambda: view.table.row_count == 1, what="the task row")
        assert str(view.table.get_row_at(0)[7]) == "20k"  # Seen, in its 4 columns (was a cut "2000")


async def test_a_storm_of_notifications_about_tasks_no_call_made_keeps_the_screen_alive():
    """strangers_storm: 20,000 status notifications, each about another task (one message per
    task used to rebuild a table of all the tasks so far: minutes of a frozen screen). The
    session keeps 1000 of them; the screen gets them in a few coalesced messages."""
    import sys
    from pathlib import Path

    from mcp_inspector.core.session.tasks import STRANGER_LIMIT
    from mcp_inspector.tui.messages import SessionNotice

    server = [sys.executable, str(Path(__file__).parents[1] / "servers" / "hostile_tasks_server.py")]
    done: list = []
    notices: list = []

    def hook(message):
        collect_calls(done)(message)
        if isinstance(message, SessionNotice):
            notices.append(message)

    app = live_app(ServerSpec("hostile", server, source="test"), timeout=30)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("9")
        view = app.main.query_one("#view-tasks")
        await pilot.press("1")
        await choose_tool(pilot, app, "strangers_storm")
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: done, timeout=60, what="strangers_storm to end")
        assert isinstance(done[0], CallFinished)
        store = app.main.connection.live.store
        await wait_for(
            pilot,
            lambda: store.method_counts["notifications/tasks/status"] == 20_000 and not any(n.latest for n in notices),
            timeout=60,
            what="every notification taken",
        )
        assert len(notices) < 2_000, len(notices)
        await pilot.press("9")
        await wait_for(pilot, lambda: view.table.row_count == STRANGER_LIMIT + 1, what="the table")
