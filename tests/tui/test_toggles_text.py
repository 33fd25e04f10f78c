"""On/off state in words, not only colour (issue 21): a form's boolean Switch says "on"/"off",
an unchecked box (null, a multi-choice item) is empty rather than a dim ``X``."""

from __future__ import annotations

import pytest
from app_helpers import choose_tool, live_app, wait_for_tools

from mcp_inspector.tui.widgets.toggles import OnOffSwitch, StateCheckbox, StateSelectionList

pytestmark = pytest.mark.anyio


def shown(widget) -> str:
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


async def test_switch_and_boxes_say_their_state_in_text(isolated_cwd):
    app = live_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "create_ticket")
        switch = app.main.composer.query(OnOffSwitch).first()
        switch.scroll_visible(animate=False)
        await pilot.pause()
        assert switch.value is True and " on " in shown(switch) + " "
        switch.focus()
        await pilot.press("space")
        await pilot.pause()
        assert switch.value is False and "off" in shown(switch)

        labels = app.main.composer.query(StateSelectionList).first()
        labels.scroll_visible(animate=False)
        await pilot.pause()
        assert not labels.selected
        assert "X" not in labels.render_line(0).text
        labels.select_all()
        await pilot.pause()
        assert labels.render_line(0).text.lstrip("▐").startswith("X")

        boxes = list(app.main.composer.query(StateCheckbox))
        for box in boxes:
            box.scroll_visible(animate=False)
            await pilot.pause()
            assert ("X" in shown(box)) is box.value
