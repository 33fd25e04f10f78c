"""Snapshots at 80x24 (the main screen, a tool's form, the traffic view with its filter bar):
the narrow, short layout (composer over result, no live traffic strip, the filter bar on two
rows). Same deterministic setup as test_snapshots.py (a recorded session, snapshot mode)."""

from __future__ import annotations

import pytest
from test_snapshots import keys_then_settle, recorded_app

from mcp_inspector.tui.pilot_steps import wait_for

SMALL = (80, 24)


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def test_main_screen_at_80x24(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SMALL, run_before=keys_then_settle(tool="echo"))


def test_a_form_at_80x24(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SMALL, run_before=keys_then_settle(tool="create_ticket"))


def test_traffic_view_at_80x24(snap_compare):
    assert snap_compare(recorded_app(), terminal_size=SMALL, run_before=keys_then_settle("5"))


def test_an_open_dropdown_at_80x24(snap_compare):
    """A form's Select opened: its list has a frame of its own, inside the screen."""

    async def run_before(pilot) -> None:
        from textual.widgets import Select

        await keys_then_settle(tool="create_ticket")(pilot)
        select = pilot.app.main.composer.query(Select).first()
        select.scroll_visible(animate=False)
        select.expanded = True  # as enter on it does (the recorded app's focus stays on the tool list)
        overlay = select.query_one("SelectOverlay")
        await wait_for(
            pilot, lambda: overlay.region.area and pilot.app.screen.region.contains_region(overlay.region), what="open"
        )
        assert select.expanded
        assert overlay.styles.border_top[0] == "round"

    assert snap_compare(recorded_app(), terminal_size=SMALL, run_before=run_before)
