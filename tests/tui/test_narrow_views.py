"""At 80x24 and 120x40 every view's key is on the nav bar (short labels when narrow), and the
new views' hint lines and the completion list's hint fit their width."""

from __future__ import annotations

import pytest
from app_helpers import live_app, wait_for, wait_for_tools

from mcp_inspector.tui.keymap import VIEW_KEYS, display_key
from mcp_inspector.tui.screens.main.nav_bar import VIEWS, nav_text

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


def test_every_view_fits_on_the_nav_bar_at_80_and_120_columns():
    for width in (80, 100, 120):
        for current, _ in VIEWS:
            shown = nav_text(current, {}, False, width).plain[:width]
            for name, label in VIEWS:
                number = display_key(VIEW_KEYS[name].key).split(",")[-1].strip()  # "!" for exclamation_mark
                # the same label at every width (issue 21): only the spaces go
                assert f"{number}{label}" in shown.replace(" ", ""), (width, current, shown)
            assert "Tasks" in shown and "Resources" in shown and "Auth" in shown, shown
    assert "7 Resources" in nav_text("main", {}, False, 120).plain[:120]


async def test_the_bar_on_screen_at_80x24_follows_a_resize():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        bar = app.main.query_one("#nav")
        await wait_for(pilot, lambda: "9Tasks" in str(bar.render())[:80], what="all views on the bar")
        await pilot.press("9")
        await wait_for(pilot, lambda: app.main.current_view == "tasks", what="the Tasks view")
        assert "9Tasks" in str(bar.render())[:80]
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: "7 Resources" in str(bar.render())[:120], what="the long labels")


async def test_the_completion_list_hint_fits_its_width_at_80x24():
    from mcp_inspector.tui.widgets.form.completion_input import CompletionInput

    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("7")
        await wait_for(pilot, lambda: app.main.query("#view-resources"), what="the Resources view")
        view = app.main.query_one("#view-resources")
        await wait_for(pilot, lambda: "resource_templates" in view.resource_list.listed, what="the templates")
        await pilot.press("slash", *"search", "enter", "enter")  # the search template's form
        await wait_for(pilot, lambda: isinstance(app.focused, CompletionInput), what="its first field")
        field = app.focused
        await pilot.press("down")  # suggestions now
        await wait_for(pilot, lambda: field.list_open and field.suggestions, what="the suggestions")
        await pilot.pause()
        status = field.dropdown.status
        text = str(status.render())
        assert "take" in text and "esc close" in text, text
        assert len(text) <= status.size.width, (text, status.size.width)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_resources_hint_line_fits_and_follows_the_focus(size):
    from mcp_inspector.tui.widgets.views.resources.view import CONTENTS_HINT, FIELD_HINT, hint_text

    app = live_app()
    async with app.run_test(size=size) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("7")
        await wait_for(pilot, lambda: app.main.query("#view-resources"), what="the Resources view")
        view = app.main.query_one("#view-resources")
        await wait_for(pilot, lambda: "resource_templates" in view.resource_list.listed, what="the templates")
        hint = view.query_one("#resources-hint")

        def shown() -> str:
            return str(hint.render())

        def fits() -> bool:
            return len(shown()) <= hint.size.width - 2

        await pilot.pause()
        assert shown().startswith("enter: read") and fits(), shown()
        await pilot.press("slash", *"readme", "enter", "enter")  # read it: the list keeps the focus
        await wait_for(pilot, lambda: view.contents.kind == "ok", what="the read")
        assert app.focused is view.resource_list.option_list
        await pilot.press("tab")  # to the contents
        await wait_for(pilot, lambda: shown().startswith("s: subscribe · r: read again"), what="the contents' keys")
        assert fits(), shown()
        if size[0] >= 120:
            assert shown() == hint_text({}, CONTENTS_HINT)
        await pilot.press("escape", "slash", "escape", *"search", "enter", "enter")
        await wait_for(pilot, lambda: shown().startswith("type: suggestions"), what="the field's keys")
        assert fits(), shown()
        if size[0] >= 120:
            assert shown() == hint_text({}, FIELD_HINT)


async def test_the_template_form_hint_fits_at_80x24():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("7")
        await wait_for(pilot, lambda: app.main.query("#view-resources"), what="the Resources view")
        view = app.main.query_one("#view-resources")
        await wait_for(pilot, lambda: "resource_templates" in view.resource_list.listed, what="the templates")
        await pilot.press("slash", *"notes", "enter", "enter")
        await wait_for(pilot, lambda: view.template_form.template_uri == "demo://notes/{note_id}", what="the form")
        await pilot.pause()
        line = view.template_form.query_one("#template-hint")
        text = str(line.render())
        assert "read" in text and "suggestions" in text and len(text) <= line.size.width, (text, line.size.width)


async def test_the_tasks_result_pane_says_what_enter_does():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("9")
        await wait_for(pilot, lambda: app.main.query("#view-tasks"), what="the Tasks view")
        panel = app.main.query_one("#view-tasks").result_panel
        assert "enter on a task shows its result" in panel.status_text
        assert "send a request" not in panel.status_text
