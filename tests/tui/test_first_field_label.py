"""Picking a tool at 80x24 shows its first field whole, label included (issue 21: the focus
scrolled to the input alone and only its placeholder showed)."""

from __future__ import annotations

import pytest
from app_helpers import live_app, wait_for, wait_for_tools

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


@pytest.mark.parametrize("size", [(80, 24), (120, 30)], ids=["80x24", "120x30"])
async def test_enter_on_a_tool_shows_the_first_label(size):
    app = live_app()
    async with app.run_test(size=size) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+z")  # the list widened (half the screen): the form at its narrowest
        await pilot.press(*"ticket", "enter")
        await wait_for(
            pilot,
            lambda: app.focused is not None and main.composer in app.focused.ancestors,
            what="the first field focused",
        )
        field = next(a for a in app.focused.ancestors if a.has_class("field"))
        label = field.children[0]
        scroller = next(a for a in field.ancestors if getattr(a, "allow_vertical_scroll", False))
        await wait_for(
            pilot,
            lambda: label.region.height > 0 and scroller.region.contains_region(label.region),
            what="the label in view",
        )
