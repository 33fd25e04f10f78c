"""A snapshot of the Tasks view (9) at 120x40 and 80x24 on the demo server: two tasks of
generate_report (2025-11-25 tasks; one completed, one cancelled), the completed one's
result below. Snapshot mode masks what changes from run to run (task ids become #1, #2;
ages and durations are left out; the status bar hides the pid)."""

from __future__ import annotations

import pytest
from app_helpers import choose_tool, demo_spec, settle, wait_for, wait_for_tools

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


async def two_tasks(pilot) -> None:
    app = pilot.app
    main = app.main
    await wait_for(pilot, lambda: bool(main.query("#tools")), what="the main screen")
    await wait_for_tools(pilot, app)
    await choose_tool(pilot, app, "generate_report")
    session = main.connection.live
    await session.call_tool("generate_report", {"topic": "owls", "sections": 2, "duration_seconds": 0.1}, as_task=True)
    pending = await session.begin_tool_call(
        "generate_report", {"topic": "bees", "sections": 3, "duration_seconds": 60}, as_task=True
    )
    follow = app.run_worker(session.finish_tool_call(pending), exit_on_error=False)
    await wait_for(pilot, lambda: len(session.tasks) == 2, what="the second task")
    await pilot.press("9")
    view = main.query_one("#view-tasks")
    await pilot.press("c")  # the newest (selected first): bees, cancelled
    await wait_for(pilot, lambda: all(r.terminal for r in session.tasks.values()), what="the cancel")
    await wait_for(pilot, lambda: follow.is_finished, what="the follow to end")
    await pilot.press("down", "enter")  # owls: its result
    await wait_for(pilot, lambda: view.result_panel.kind == "ok", what="the result")
    view.refresh_rows()
    await settle(app)
    app.clear_notifications()
    await pilot.pause()


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_tasks_view(snap_compare, size):
    app = make_app(demo_spec(), snapshot_mode=True, config=TuiConfig(), timeout=20)
    assert snap_compare(app, terminal_size=size, run_before=two_tasks)


@pytest.mark.anyio
@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
async def test_the_tasks_table_fits_the_width(size):
    """At 80 columns Age, TTL, Poll and Seen were off to the right (the table scrolled sideways);
    a narrow view keeps Task, Tool, Status and Message, and the table needs no sideways scroll."""
    app = make_app(demo_spec(), snapshot_mode=True, config=TuiConfig(), timeout=20)
    async with app.run_test(size=size) as pilot:
        await two_tasks(pilot)
        table = app.main.query_one("#view-tasks").table
        labels = [str(column.label) for column in table.columns.values()]
        if size[0] == 80:
            assert labels == ["Task", "Tool", "Status", "Message"]
        else:
            assert labels == ["Task", "Tool", "Status", "Message", "Age", "TTL", "Poll", "Seen"]
        assert table.max_scroll_x == 0 and table.row_count == 2
        await pilot.resize_terminal(120 + 80 - size[0], 40)  # the other size: the columns follow
        await wait_for(pilot, lambda: len(table.columns) == (8 if size[0] == 80 else 4), what="the columns")
        assert table.row_count == 2
