"""The composer's "run as task" toggle on the demo server (2025-11-25 tasks): offered for a tool
whose execution.taskSupport is "optional" (generate_report), off by default, turned on from
the keyboard; a "required" tool (long_job) says it runs as a task instead."""

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

from mcp_inspector.tui.messages import CallFinished
from mcp_inspector.tui.widgets.views.traffic.filter import FilterToggle

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


def last_call(app) -> dict:
    return json.loads(outgoing(app, "tools/call")[-1].raw)["params"]


async def test_optional_task_toggle_off_then_on_and_required_note():
    done: list = []
    app = live_app(timeout=20)
    async with app.run_test(size=SIZE, message_hook=collect_calls(done)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        composer = main.composer
        toggle = composer.query_one("#composer-as-task", FilterToggle)
        note = composer.query_one("#composer-task-note", Static)

        await choose_tool(pilot, app, "generate_report")
        assert toggle.display and not toggle.value and not note.display
        await composer.set_arguments({"topic": "owls", "sections": 2, "duration_seconds": 0.2})
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(done) == 1, timeout=15, what="the plain call")
        assert "task" not in last_call(app)  # off: an ordinary call
        assert isinstance(done[0], CallFinished) and done[0].outcome.task_id is None

        await composer.set_arguments({"topic": "owls", "sections": 2, "duration_seconds": 1.0})
        # what the row shows is looked at on each progress notification, from the row's creation on:
        # sampling it between pauses missed the whole task on a loaded machine (seen: only "progress 2/2")
        seen: set[str] = set()
        rows: list = []
        track = main.inflight.track

        def track_and_watch(pending):
            row = track(pending)
            rows.append(row)
            record_row_updates(row, seen, lambda r: str(r.query_one(".inflight-message", Static).render()))
            pending.on_progress = lambda _pending: row.update_view()
            return row

        main.inflight.track = track_and_watch
        toggle.focus()
        await wait_for(pilot, lambda: toggle.has_focus, what="the toggle focused")  # focus() is applied later
        await pilot.press("space")  # on, by keyboard
        assert toggle.value and composer.run_as_task
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(done) == 2, timeout=15, what="the task")
        row = rows[-1]
        assert row.task_id is not None
        assert any("· working" in text and "progress 1/2" in text for text in seen), (
            seen
        )  # its progress, on the task's line
        assert "task" in last_call(app)  # on: params.task
        assert isinstance(done[1], CallFinished) and done[1].outcome.task_id == row.task_id
        assert "Pretend findings about owls" in json.dumps(main.result_panel.payload)
        await wait_for(
            pilot,
            lambda: row.task_info is not None and row.task_info["status"] == "completed",
            what="the row's last status",
        )

        await choose_tool(pilot, app, "long_job")  # required: no toggle, a note
        assert not toggle.display and note.display
        assert "runs as a task" in str(note.render())
        await choose_tool(pilot, app, "generate_report")  # back: off again
        assert toggle.display and not toggle.value


async def test_two_quick_list_changes_leave_no_half_removed_form_behind():
    """toggle_extra_tools changes echo (the selected tool) and sends list_changed: the composer
    reloads its form, and a newer reload cancels the one still removing the old form. A removal
    cut short left a closed form in the DOM that never idled: views shown afterwards stayed
    empty and Pilot's pause timed out."""
    app = live_app(timeout=20)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "echo")
        session = app.main.connection.live
        for _ in range(4):
            await session.call_tool("toggle_extra_tools", {})
        await wait_for(
            pilot,
            lambda: (
                not app.main.composer.query("SchemaForm")
                or all(form.is_attached and not form._closing for form in app.main.composer.query("SchemaForm"))
            ),
            what="the form",
        )
        await pilot.pause()  # timed out (WaitForScreenTimeout, awaited by every pause) with the half-removed form
        await pilot.press("3")
        view = app.main.query_one("#view-notifications")
        await wait_for(pilot, lambda: bool(view.children), what="the notifications view composed")
        closed = [w for w in app.main.walk_children() if w._closing or w._closed]
        assert not closed, closed
