"""At 80x24 the Resources, Prompts and Tasks views keep their lines whole and tab only to
widgets where a key does something (the demo server, keys only)."""

from __future__ import annotations

import pytest
from app_helpers import live_app, wait_for, wait_for_tools
from textual.widgets import Static

from mcp_inspector.tui.widgets.form.completion_input import CompletionInput
from mcp_inspector.tui.widgets.views.resources.listing import update_line

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_cwd")]
NARROW = (80, 24)


def test_the_update_line_fits_its_width():
    uri = "demo://resource/static/document/architecture.md"
    assert update_line("demo://clock", "12:00:01", 60) == "↻ demo://clock updated at 12:00:01"
    line = update_line(uri, "12:00:01", 31)
    assert len(line) <= 31 and line.startswith("↻ …") and line.endswith("ure.md 12:00:01"), line


async def test_the_resource_update_line_stays_one_line_at_80x24():
    app = live_app()
    async with app.run_test(size=NARROW) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("7")
        view = app.main.query_one("#view-resources")
        await wait_for(pilot, lambda: "r:demo://clock" in view.resource_list._ids, what="the resources")
        await pilot.press("slash", *"clock", "enter")  # filter, back to the list
        await wait_for(
            pilot,
            lambda: (
                view.resource_list.option_list.highlighted_option is not None
                and view.resource_list.option_list.highlighted_option.id == "r:demo://clock"
            ),
            what="the clock",
        )
        await pilot.press("s", "1")  # the updates arrive while another view is shown
        seen = view.resource_list.updates.get("demo://clock", 0)
        await wait_for(pilot, lambda: view.resource_list.updates.get("demo://clock", 0) >= seen + 2, what="updates")
        await pilot.press("7")
        summary = view.resource_list.query_one("#resource-summary", Static)
        await wait_for(pilot, lambda: "↻" in str(summary.render()), what="the update line")
        await pilot.pause()
        assert summary.size.height == 2, str(summary.render())  # the counts and the update, one line each
        await pilot.press("s")  # unsubscribe


async def test_prompts_tab_goes_from_the_list_to_the_first_field_and_tasks_note_is_one_line():
    app = live_app()
    async with app.run_test(size=NARROW) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("8")
        view = app.main.query_one("#view-prompts")
        await wait_for(pilot, lambda: view.prompt_list.prompts and view.fields(), what="a prompt with arguments")
        assert app.focused is view.prompt_list.option_list
        await pilot.press("tab")  # not the form's container: nothing to do there when it does not scroll
        assert isinstance(app.focused, CompletionInput), app.focused
        await pilot.press("escape", "9")
        tasks = app.main.query_one("#view-tasks")
        note = tasks.query_one("#tasks-note", Static)
        await wait_for(pilot, lambda: "in this session" in str(note.render()), what="the tasks note")
        await pilot.pause()
        assert note.size.height == 1, str(note.render())


async def test_the_template_field_hint_says_what_enter_and_tab_do():
    from app_helpers import outgoing

    from mcp_inspector.tui.widgets.views.resources.view import FIELD_HINT, hint_text

    app = live_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("7")
        view = app.main.query_one("#view-resources")
        await wait_for(pilot, lambda: "t:demo://search{?q,lang,limit}" in view.resource_list._ids, what="the templates")
        await pilot.press("slash", *"search", "enter", "enter")  # filter, to the list, open the form
        form = view.template_form
        await wait_for(pilot, lambda: app.focused is form.first_field(), what="the first field")
        hint = str(view.query_one("#resources-hint", Static).render())
        assert hint == hint_text({}, FIELD_HINT) and "enter: read" in hint and "tab: next field" in hint
        await pilot.press("tab")  # the next field (a suggestion list is not open)
        fields = list(form.query("#template-fields Input"))
        assert app.focused is fields[1]
        await pilot.press(*"en", "escape", "enter")  # escape closes the suggestions; enter reads
        await wait_for(pilot, lambda: bool(outgoing(app, "resources/read")), what="the read")
        assert b"lang=en" in outgoing(app, "resources/read")[-1].raw


async def test_escape_goes_back_to_the_tasks_table_from_the_result():
    app = live_app()
    async with app.run_test(size=NARROW) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("9")
        tasks = app.main.query_one("#view-tasks")
        assert app.focused is tasks.table
        await pilot.press("tab")
        assert app.focused is tasks.result_panel
        await pilot.press("escape")
        assert app.focused is tasks.table


async def test_the_expanded_uri_stays_in_sight_in_a_tall_template_form_at_80x24():
    app = live_app()
    async with app.run_test(size=NARROW) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("7")
        view = app.main.query_one("#view-resources")
        await wait_for(
            pilot, lambda: "t:demo://files{/path*}{#section}" in view.resource_list._ids, what="the templates"
        )
        await pilot.press("slash", *"files", "enter", "enter")  # filter, to the list, open the form
        form = view.template_form
        await wait_for(pilot, lambda: app.focused is form.first_field(), what="the first field")
        uri = form.query_one("#template-uri", Static)

        def uri_in_sight() -> bool:
            return (
                form.max_scroll_y > 0
                and form.region.contains_region(uri.region)
                and form.region.contains_region(app.focused.region)
            )

        await wait_for(pilot, uri_in_sight, what="the URI and the first field in sight")
        await pilot.press(*"docs", "escape", "tab")  # escape closes the suggestions; tab: next field
        await wait_for(
            pilot,
            lambda: uri_in_sight() and "demo://files/docs" in str(uri.render()),
            what="the URI and the second field in sight",
        )


def test_a_long_uri_in_the_contents_status_is_cut_from_the_left():
    from mcp_inspector.tui.widgets.views.resources.contents import fit_status

    status = "✓ demo://resource/static/document/architecture.md · 1 content · 28 ms"
    assert fit_status(status, 80) == status
    assert fit_status(status, 45) == "✓ …cument/architecture.md · 1 content · 28 ms"
    long_rest = "▤ demo://resource/static/document/architecture.md · 2 contents embedded in a tool result (as it came)"
    first = fit_status(long_rest, 30).split(" ")
    assert len(" ".join(first[:2])) <= 30  # the mark and the URI on one line; the rest wraps at spaces


async def test_the_contents_status_keeps_the_mark_and_uri_on_one_line_at_80x24():
    app = live_app()
    async with app.run_test(size=NARROW) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("7")
        view = app.main.query_one("#view-resources")
        await wait_for(pilot, lambda: "t:demo://notes/{note_id}" in view.resource_list._ids, what="the templates")
        await pilot.press("slash", *"notes", "enter", "enter")
        form = view.template_form
        await wait_for(pilot, lambda: app.focused is form.first_field(), what="the first field")
        await pilot.press(*"a-rather-long-note-id-for-the-status-line", "escape", "enter")
        contents = view.contents
        await wait_for(pilot, lambda: contents.kind == "ok", what="the read")
        label = contents.query_one("#result-status", Static)
        await pilot.pause()
        assert "demo://notes/a-rather-long-note-id-for-the-status-line" in contents.status_text  # whole there
        assert label.size.height == 1, str(label.render())
        assert str(label.render()).split(" ")[1].startswith("…")
