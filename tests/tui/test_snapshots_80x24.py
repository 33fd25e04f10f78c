"""Snapshots at 80x24 (the main screen, a tool's form, the traffic view with its filter bar):
the narrow, short layout (composer over result, no live traffic strip, the filter bar on two
rows). Same deterministic setup as test_snapshots.py (a recorded session, snapshot mode)."""

from __future__ import annotations

import pytest

from test_snapshots import keys_then_settle, recorded_app

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
