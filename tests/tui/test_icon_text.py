"""Icons in words, never a raw data: URI (issue 21: the overview's icons row printed
``data:image/png;base64,…``)."""

from __future__ import annotations

import base64

import pytest
from app_helpers import DEMO_SESSION, wait_for
from textual.widgets import Static

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.text.icon_text import describe_icon, describe_icons

pytestmark = pytest.mark.anyio


def test_a_data_uri_is_described_by_kind_and_size():
    png = "data:image/png;base64," + base64.b64encode(b"\x89PNG" + bytes(2044)).decode()
    assert describe_icon({"src": png, "sizes": ["48x48"]}) == "PNG icon, 2 KB, 48x48"
    assert describe_icon({"src": "data:image/svg+xml,<svg/>", "theme": "dark"}) == "SVG icon, 6 B, dark theme"
    assert describe_icon({"src": "https://example.com/i.png"}) == "icon at https://example.com/i.png"


def test_hostile_icons_stay_short_and_clean():
    huge = "data:image/png;base64," + "A" * 4_000_000
    assert describe_icon({"src": huge}) == "PNG icon, 2.9 MB"
    assert describe_icon({"src": "data:\x1b[31mimage/png"}) == "icon (a malformed data: URI)"
    assert "\x1b" not in describe_icon({"src": "https://x/\x1b]52;c;aGk=\x07"})
    assert describe_icons([{"src": 3}, "x"] * 3).endswith("; 2 more")
    assert describe_icons("not a list") == ""


async def test_the_overview_names_the_icon_rather_than_printing_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = make_app(open_file=str(DEMO_SESSION), snapshot_mode=True, config=TuiConfig())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.main.replay is not None and app.main.tool_list.tools, what="the recording")
        await pilot.press("2")
        overview = app.screen.query_one("#view-overview")
        await wait_for(pilot, lambda: overview.display and bool(overview.query(Static)), what="the overview")
        shown = "\n".join(
            static.render_line(y).text for static in overview.query(Static) for y in range(static.size.height)
        )
        assert "PNG icon, 583 B, 32x32" in shown
        assert "data:image" not in shown and "base64" not in shown
