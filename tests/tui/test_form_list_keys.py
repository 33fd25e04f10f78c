"""A list-of-strings field by keys: enter adds an item after the current one and moves there,
enter in an empty last item drops it and goes on to the next field, ctrl+delete removes the item."""

from __future__ import annotations

import pytest
from composer_apps import ComposerApp, settle

from mcp_inspector.demo.tools.output import CREATE_TICKET
from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.widgets.composer import ComposerPanel
from mcp_inspector.tui.widgets.form.schema_form import ListEditor

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_enter_adds_an_item_and_ctrl_delete_removes_it(tmp_path, size):
    app = ComposerApp(tmp_path / "drafts.json", server="demo", tool=CREATE_TICKET)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        tags = composer.schema_form.editors["$.tags"]
        assert isinstance(tags, ListEditor)
        for _ in range(40):  # tab to the list's "+ add item"
            if app.focused is not None and app.focused.has_class("list-add") and tags in app.focused.ancestors:
                break
            await pilot.press("tab")
        else:
            raise AssertionError("tab never reached the tags list")
        await pilot.press("enter")  # the button: an item, focused
        await wait_for(pilot, lambda: tags.items == [""] and tags in app.focused.ancestors, what="the first item")
        await pilot.press(*"web", "enter", *"auth", "enter", *"x")
        await wait_for(pilot, lambda: tags.items == ["web", "auth", "x"], what="three items")
        assert composer.get_arguments()["tags"] == ["web", "auth", "x"]

        await pilot.press("ctrl+delete")  # the last: the focus goes to the one before
        await wait_for(pilot, lambda: tags.items == ["web", "auth"], what="x removed")
        await wait_for(pilot, lambda: getattr(app.focused, "value", None) == "auth", what="auth focused")
        await pilot.press("ctrl+delete")
        await wait_for(pilot, lambda: getattr(app.focused, "value", None) == "web", what="web focused")

        await pilot.press("enter", *"ui", "enter")  # a new (empty) item after "ui"
        await wait_for(pilot, lambda: tags.items == ["web", "ui", ""], what="an empty item")
        await pilot.press("enter")  # enter in the empty last item: dropped, on to the next field
        await wait_for(pilot, lambda: tags.items == ["web", "ui"], what="the empty item dropped")
        await wait_for(pilot, lambda: app.focused is not None and tags not in app.focused.ancestors, what="moved on")
        await settle(pilot, app)
        assert composer.get_arguments()["tags"] == ["web", "ui"]
