"""The tool list's width follows its rows and the screen (issue 21): at 80 columns it gives the
form the room (it kept 30 of 80), at 140 the names are whole (``trigger-elicitation-reque…`` at
30), and a tool with no title has its chips on its one row (a second row held only them)."""

from __future__ import annotations

import pytest
from app_helpers import DEMO_SESSION, wait_for

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig

pytestmark = pytest.mark.anyio

NO_TITLES = [
    {"name": "trigger-elicitation-request", "annotations": {"readOnlyHint": True}, "inputSchema": {"type": "object"}},
    {"name": "get-resource-links", "annotations": {"idempotentHint": True}, "inputSchema": {"type": "object"}},
    {"name": "echo", "inputSchema": {"type": "object"}},
]


def rows(tool_list) -> list[str]:
    options = tool_list.option_list
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (140, 45)], ids=["80x24", "120x40", "140x45"])
async def test_the_list_is_as_wide_as_its_rows_within_the_screen(size, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = make_app(open_file=str(DEMO_SESSION), snapshot_mode=True, config=TuiConfig())
    async with app.run_test(size=size) as pilot:
        main = app.main
        await wait_for(pilot, lambda: main.replay is not None and main.tool_list.tools, what="the recording")
        tool_list = main.tool_list
        main.tool_list.set_tools(NO_TITLES)
        await wait_for(pilot, lambda: len(rows(tool_list)) == 3, what="the new list")
        await pilot.pause()
        width = tool_list.outer_size.width
        assert width <= size[0] * 3 // 10
        if size[0] == 80:
            assert width <= 24  # the form has 56 of 80 (it had 48)
        shown = rows(tool_list)
        for line in shown:
            assert "\n" not in line, shown  # no title: one row, its chips on it
        assert shown[0].strip().startswith("trigger-elicit") and shown[0].rstrip().endswith("RO")
        if size[0] >= 120:
            assert "trigger-elicitation-request RO" in shown[0]  # whole, not cut
        tool_list.option_list.focus()
        await pilot.press("ctrl+z")  # widened (tools.widen): the stylesheet's half, then back
        await wait_for(pilot, lambda: tool_list.outer_size.width == size[0] // 2, what="the widened list")
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: tool_list.outer_size.width == width, what="the fitted width again")
