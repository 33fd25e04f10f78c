"""Untouched schema defaults: the form shows them, marked, and leaves them out of the call; the
'send defaults' switch (per tool, by the palette or tab + space) sends them; the JSON view shows
exactly what goes. Keys only, on the demo's create_ticket, at 80x24 and 120x40."""

from __future__ import annotations

import json

import pytest
from app_helpers import SIZE, live_app, outgoing, wait_for, wait_for_tools
from textual.widgets import TabbedContent

from mcp_inspector.tui.pilot_steps import palette_pick

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


def marks(form) -> dict[str, str]:
    return {
        key: str(mark.render())
        for key, mark in form.body._default_marks.items()  # noqa: SLF001 - the marks the user sees
        if mark.has_class("-default")
    }


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_defaults_are_marked_left_out_and_sent_on_request(size):
    app = live_app()
    async with app.run_test(size=size) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await pilot.press("slash", *"create_ticket", "enter")
        composer = main.composer
        await wait_for(
            pilot,
            lambda: composer.schema_form is not None and app.focused in composer.schema_form.query("*"),
            what="the title field focused",
        )
        form = composer.schema_form
        await pilot.press(*"Broken login")
        await wait_for(pilot, lambda: composer.get_arguments() == {"title": "Broken login"}, what="the title")
        assert marks(form) == {key: "schema default: not sent" for key in ("$.priority", "$.count", "$.notify")}
        assert json.loads(composer.json_editor.text) == {"title": "Broken login"}  # what goes

        await palette_pick(pilot, "send untouched schema defaults")
        await pilot.press("enter")
        sent = {"title": "Broken login", "priority": "medium", "count": 1, "notify": True}
        await wait_for(pilot, lambda: json.loads(composer.json_editor.text) == sent, what="defaults in the JSON")
        assert set(marks(form).values()) == {"schema default: sent"}

        await palette_pick(pilot, "send untouched schema defaults")  # off again; a changed value is sent
        await pilot.press("enter")
        await wait_for(pilot, lambda: composer.get_arguments() == {"title": "Broken login"}, what="defaults out")
        await pilot.press("ctrl+t")  # the JSON view: a default typed in it is not sent, and the status says so
        await wait_for(pilot, lambda: composer.query_one(TabbedContent).active == "composer-json", what="JSON view")
        composer.json_editor.focus()
        await pilot.press("ctrl+a", "shift+end", "shift+down", "shift+down", "delete")
        await pilot.press(*'{"title": "Broken login", "count": 3, "notify": true}')
        await wait_for(
            pilot,
            lambda: composer.get_arguments() == {"title": "Broken login", "count": 3},
            what="count sent, notify (its default) not",
        )
        assert "not sent (schema defaults): $.notify" in str(composer.query_one("#composer-status").render())
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: outgoing(app, "tools/call"), what="the call")
        request = json.loads(outgoing(app, "tools/call")[-1].raw)
        assert request["params"]["arguments"] == {"title": "Broken login", "count": 3}
