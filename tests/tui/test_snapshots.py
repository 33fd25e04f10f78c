"""Snapshots of each main view at 120x40.

Deterministic by construction: the app opens a recorded session committed in
fixtures/ (``--open``: fixed frames, fixed timestamps, no pid, no process), in
snapshot mode (UTC timestamps, masked pids and paths, no cursor blink, only
the shipped dark theme, no user config), with drafts in a temp dir.
Regenerate the baselines with ``pytest tests/tui/test_snapshots.py --snapshot-update``
after looking at the report.
"""

from __future__ import annotations

import pytest
from app_helpers import DEMO_SESSION, SIZE, settle, wait_for

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)  # the connect screen looks for ./.mcp.json


def recorded_app():
    return make_app(open_file=str(DEMO_SESSION), snapshot_mode=True, config=TuiConfig())


async def loaded(pilot, tool: str = "create_ticket") -> None:
    """Wait for the recording, select a tool, and let the composer and result settle."""
    app = pilot.app
    await wait_for(pilot, lambda: app.main.replay is not None and app.main.tool_list.tools, what="the recording")
    app.main.tool_list.select_name(tool)
    await wait_for(
        pilot,
        lambda: app.main.composer.tool is not None and app.main.composer.tool.get("name") == tool,
        what="the composer",
    )
    await settle(app)
    app.main.tool_list.option_list.focus()
    await pilot.pause()
    app.clear_notifications()
    await pilot.pause()


def keys_then_settle(*keys: str, tool: str = "create_ticket"):
    async def run_before(pilot) -> None:
        await loaded(pilot, tool)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await settle(pilot.app)
        pilot.app.clear_notifications()
        await pilot.pause()

    return run_before


def test_main_view_with_a_called_tool_and_its_result(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle())


def test_tool_list_change_marks(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle(tool="echo"))


def test_tool_diff_modal(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle("ctrl+g", tool="echo"))


def test_overview(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle("2"))


def test_notifications(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle("3"))


def test_console(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle("4"))


def test_full_traffic(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle("5", "home"))


def test_traffic_frame_detail(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle("5", "home", "down", "enter"))


def test_help(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle("f1"))


def test_connect_screen(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SIZE, run_before=keys_then_settle("f7"))
