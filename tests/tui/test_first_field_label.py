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

        def label_in_view() -> bool:
            """The focused field's label inside its scroller's region, looked up anew each time (a
            form rebuilt meanwhile, e.g. by a tools/list_changed, has new widgets)."""
            focused = app.focused
            if focused is None or main.composer not in focused.ancestors:
                return False
            field = next((a for a in focused.ancestors if a.has_class("field")), None)
            if field is None or not field.children:
                return False
            label = field.children[0]
            scroller = next((a for a in field.ancestors if getattr(a, "allow_vertical_scroll", False)), None)
            return scroller is not None and label.region.height > 0 and scroller.region.contains_region(label.region)

        await wait_for(pilot, label_in_view, what="the label in view")
