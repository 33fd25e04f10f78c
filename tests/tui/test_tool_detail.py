"""Tool details (ctrl+o): the full description and definition, the chips' legend; and the
optional confirmation before calling a tool marked destructive (off by default)."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, choose_tool, live_app, outgoing, wait_for, wait_for_tools
from textual.widgets import Static

from mcp_inspector.tui.screens.dialogs.tool_detail import ConfirmDestructiveScreen, ToolDetailScreen, is_destructive

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["120x40", "80x24"])
async def test_ctrl_o_shows_the_whole_definition_and_the_legend(size):
    app = live_app()
    async with app.run_test(size=size) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        tool = next(t for t in main.tool_list.tools if t.get("outputSchema") and len(t.get("description", "")) > 60)
        await choose_tool(pilot, app, tool["name"])
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+o")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ToolDetailScreen) and bool(app.screen.query("#tool-detail-legend")),
            what="the tool detail",
        )
        screen = app.screen
        assert shown(screen, "#tool-detail-description") == tool["description"]  # all of it, not two lines
        definition = shown(screen, "#tool-detail-definition")
        for heading in ("Input schema", "Output schema", "Annotations"):
            assert heading in definition
        assert '"readOnlyHint": true' in definition
        legend_widget = screen.query_one("#tool-detail-legend", Static)
        legend_widget.scroll_visible(animate=False)
        await pilot.pause()
        rows = [legend_widget.render_line(y).text.rstrip() for y in range(legend_widget.size.height)]
        chips = ("RO", "DESTR", "IDEM", "OPEN")
        starts = [next(i for i, row in enumerate(rows) if row.strip().startswith(chip + " ")) for chip in chips]
        assert rows[starts[0]].split()[:3] == ["RO", "readOnlyHint", "set"]
        assert rows[starts[1]].split()[:3] == ["DESTR", "destructiveHint", "false"]
        # a meaning too long for the line wraps under itself, never under the chips (issue 21:
        # "RO readOnlyHint: false read-only: does not…" ran into one line)
        meaning_column = rows[starts[0]].index("read-only")
        for row in rows[starts[0] :]:
            if row.strip() and not row.strip().startswith(chips):
                assert row[:meaning_column].strip() == "" and row[meaning_column] != " ", row
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is main, what="the main screen again")


async def test_destructive_tools_ask_first_only_when_the_setting_is_on():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        # the demo's failing_tool is marked destructive (destructiveHint: true, readOnlyHint: false)
        await choose_tool(pilot, app, "failing_tool")
        assert is_destructive(main.current_tool)
        await main.composer.set_arguments({"reason": "gone"})
        await pilot.press("ctrl+s")  # off by default: sent at once
        await wait_for(pilot, lambda: len(outgoing(app, "tools/call")) == 1, what="the first call")

        app.toggle_confirm_destructive()
        assert app.confirm_destructive
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDestructiveScreen), what="the question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is main, what="the main screen")
        assert len(outgoing(app, "tools/call")) == 1  # not sent
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDestructiveScreen), what="the question again")
        await pilot.press("y")
        await wait_for(pilot, lambda: len(outgoing(app, "tools/call")) == 2, what="the confirmed call")
