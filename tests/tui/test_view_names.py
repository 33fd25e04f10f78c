"""One name per view (issue 21: the 80-column bar said "2 Info", "4 Cons", "7 Res" while F1 said
Overview, Console, Resources): the bar, the keymap (F1, palette) and the help use the same word,
and all eleven stay on the bar at 80 columns."""

from __future__ import annotations

import re

import pytest
from app_helpers import DEMO_SESSION, wait_for

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.keymap import VIEW_KEYS
from mcp_inspector.tui.screens.help import VIEWS_TEXT
from mcp_inspector.tui.screens.main.nav_bar import VIEWS, NavBar, nav_text

pytestmark = pytest.mark.anyio


def test_the_keymap_and_the_help_use_the_bar_names():
    for name, label in VIEWS:
        assert VIEW_KEYS[name].description == label
    help_names = {line.split(":")[0].split(" (")[0] for line in VIEWS_TEXT.splitlines() if not line.startswith(" ")}
    assert {"Info", "Notifs", "Console", "Resources"} <= help_names
    assert "Overview" not in VIEWS_TEXT


@pytest.mark.parametrize("width", [80, 100, 120])
def test_every_view_by_its_one_name_at_each_width(width):
    shown = nav_text("main", {}, read_only=False, width=width).plain[:width]
    for _, label in VIEWS:
        assert re.search(rf"(?<=[\s\d!]){label}(?=[\s\d!]|$)", shown), (label, shown)
    assert "Cons " not in shown and "Res " not in shown


async def test_the_bar_at_80x24(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = make_app(open_file=str(DEMO_SESSION), snapshot_mode=True, config=TuiConfig())
    async with app.run_test(size=(80, 24)) as pilot:
        bar = app.screen.query_one(NavBar)
        await wait_for(pilot, lambda: "Checks" in bar.render_line(0).text, what="the bar")
        line = bar.render_line(0).text
        assert line.startswith("1Main2Info3Notifs4Console5Traffic6HTTP7Resources8Prompts9Tasks0Auth!Checks")
