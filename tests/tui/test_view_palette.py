"""Every key of the Notifications, Resources, Prompts and Tasks views is also a palette command
(titled by the view), and the Notifications view has keys of its own (the log level, the
filter, escape back to the list). On the demo, by keys only, at 80x24."""

from __future__ import annotations

import pytest
from app_helpers import live_app, outgoing, wait_for, wait_for_tools
from textual.binding import Binding
from textual.command import CommandPalette
from textual.widgets import Input, Select

from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.view_commands import view_bindings_of, view_commands, view_key_classes
from mcp_inspector.tui.widgets.views.traffic.filter import FilterToggle

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_cwd")]


def test_every_binding_of_the_views_has_an_id_and_a_palette_command():
    app = live_app()  # not run: the commands only read the keymap
    titles = {title: help_text for title, _, help_text in view_commands(app)}
    for _name, label, classes in view_key_classes():
        for cls, binding in view_bindings_of(classes):
            assert isinstance(binding, Binding) and binding.id, (cls.__name__, binding)
            title = f"{label.lower()}: {binding.tooltip or binding.description}"
            assert title in titles, title
            assert titles[title].startswith("key: "), titles[title]
    assert any(title.startswith("notifs: Set the server's log level") for title in titles)


async def palette(pilot, app, words: str) -> str:
    """Type ``words`` in the palette; the first hit's text."""
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
    await pilot.press(*words)
    hits = app.screen.query_one("CommandList")
    await wait_for(
        pilot,
        lambda: (
            hits.option_count > 0
            and all(word in str(hits.get_option_at_index(0).prompt).lower() for word in words.lower().split())
        ),
        what=f"{words!r} in the palette",
    )
    return str(hits.get_option_at_index(0).prompt)


async def test_the_palette_finds_subscribe_and_log_level_and_they_work():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await pilot.press("7")
        view = main.query_one("#view-resources")
        await wait_for(
            pilot,
            lambda: (
                "demo://readme" in view.resource_list._ids.get(f"r:{'demo://readme'}", (None, {}))[1].get("uri", "")
            ),
            what="the resources",
        )
        await pilot.press("1")
        assert "subscribe" in (await palette(pilot, app, "subscribe")).lower()
        await pilot.press("enter")  # shows Resources and subscribes to the highlighted resource
        await wait_for(
            pilot, lambda: main.current_view == "resources" and bool(view.session.subscribed), what="a subscription"
        )
        assert outgoing(app, "resources/subscribe")

        assert "log level" in (await palette(pilot, app, "log level")).lower()
        await pilot.press("enter")
        await wait_for(pilot, lambda: main.current_view == "notifications" and app.screen is main, what="Notifications")
        level = main.query_one("#notifications-level", Select)
        await wait_for(
            pilot,
            lambda: level.expanded and app.focused is not None and level in (app.focused, *app.focused.ancestors),
            what="the level list, open",
        )
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: isinstance(level.value, str) and not level.expanded, what="a level chosen")
        await wait_for(pilot, lambda: bool(outgoing(app, "logging/setLevel")), what="logging/setLevel")
        assert f'"level":"{level.value}"'.encode() in outgoing(app, "logging/setLevel")[-1].raw.replace(b" ", b"")

        # the template form's key says what is missing when no template is open
        await palette(pilot, app, "read the expanded")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: (
                main.current_view == "resources"
                and any("template first" in str(n.message) for n in shown_notifications(app))
            ),
            what="the hint",
        )


async def test_notification_keys_and_escape_back_to_the_list():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await pilot.press("3")
        view = main.query_one("#view-notifications")
        lines = view.notification_lines
        assert app.focused is lines
        await pilot.press("slash")
        assert app.focused is view.query_one("#notifications-method", Input)
        await pilot.press(*"message", "escape")  # the text stays, the list has the focus again
        assert app.focused is lines and view.query_one("#notifications-method", Input).value == "message"
        await pilot.press("m")
        minimum = view.query_one("#notifications-min-level", Select)
        await wait_for(pilot, lambda: minimum.expanded, what="the minimum level list")
        await pilot.press("escape")  # closes the list
        await wait_for(pilot, lambda: not minimum.expanded, what="the list to close")
        await pilot.press("escape")  # leaves the control
        assert app.focused is lines
        fold = view.query_one("#notifications-collapse", FilterToggle)
        await pilot.press("f")
        assert fold.value is False and app.focused is lines
        await pilot.press("l")
        await wait_for(pilot, lambda: view.query_one("#notifications-level", Select).expanded, what="the level list")
        await pilot.press("escape", "escape")
        assert app.focused is lines
