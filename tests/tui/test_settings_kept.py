"""Settings changed in the app are kept for next time, like the theme: the destructive-tool
confirmation (palette) and the request timeout (F11) are written to config.toml (only their
line: comments and the keymap stay) and applied at the next start; ``--timeout`` on the command
line wins over the saved timeout. A config file that does not parse is never overwritten."""

from __future__ import annotations

import pytest
from app_helpers import live_app, wait_for, wait_for_tools
from textual.widgets import Input

from mcp_inspector.cli.dispatch import timeout_given
from mcp_inspector.tui.config import config_path, load_config
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.dialogs.timeout_setting import TimeoutScreen

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


async def set_timeout_by_f11(pilot, app, text: str) -> None:
    await pilot.press("f11")
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, TimeoutScreen) and bool(app.screen.query("#timeout-input")),
        what="the timeout setting",
    )
    app.screen.query_one("#timeout-input", Input).value = text
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.screen is app.main, what="the main screen")


async def test_the_confirmation_and_the_timeout_are_saved_and_used_at_the_next_start():
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text('# my settings\ntheme = "inspector-light"\n\n[keymap]\nreconnect = "ctrl+e"\n', encoding="utf-8")
    app = live_app(config=load_config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        assert app.confirm_destructive is False and app.timeout == 20.0
        app.toggle_confirm_destructive()  # the palette's "settings: confirm before calling a destructive tool"
        await set_timeout_by_f11(pilot, app, "42.5")
    text = path.read_text(encoding="utf-8")
    assert "confirm_destructive = true\n" in text and "request_timeout = 42.5\n" in text
    assert "# my settings" in text and 'reconnect = "ctrl+e"' in text and 'theme = "inspector-light"' in text
    config = load_config()
    assert (config.confirm_destructive, config.request_timeout, config.problems) == (True, 42.5, [])

    again = live_app(config=load_config(), timeout_given=False)  # no --timeout: the saved one
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, again)
        assert again.confirm_destructive is True
        assert again.timeout == 42.5 and again.main.connection.session.connection.default_timeout == 42.5
        again.toggle_confirm_destructive()
        await set_timeout_by_f11(pilot, again, "none")
    text = path.read_text(encoding="utf-8")
    assert "confirm_destructive = false\n" in text and 'request_timeout = "none"\n' in text
    assert text.count("request_timeout") == 1
    assert live_app(config=load_config(), timeout_given=False).timeout is None
    assert live_app(config=load_config(), timeout=7.0).timeout == 7.0  # --timeout given: it wins


async def test_a_broken_config_file_is_not_overwritten_by_a_setting():
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text("theme = [unclosed\n", encoding="utf-8")
    app = live_app(config=load_config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        app.toggle_confirm_destructive()
        await set_timeout_by_f11(pilot, app, "5")
        await wait_for(
            pilot,
            lambda: len([n for n in shown_notifications(app) if n.title == "Setting not kept"]) == 2,
            what="the warnings",
        )
        said = [str(n.message) for n in shown_notifications(app) if n.title == "Setting not kept"]
        assert "is not valid TOML" in said[0] and "the destructive-tool confirmation was not saved" in said[0]
        assert "the request timeout was not saved" in said[1]
        assert app.confirm_destructive is True and app.timeout == 5.0  # applied all the same, for this run
    assert path.read_text(encoding="utf-8") == "theme = [unclosed\n"


def test_bad_values_are_said_and_ignored():
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text('confirm_destructive = "yes"\nrequest_timeout = -1\n', encoding="utf-8")
    config = load_config()
    assert config.confirm_destructive is False and not config.request_timeout_set
    assert [p.split(": ", 1)[1] for p in config.problems] == [
        "confirm_destructive must be true or false",
        'request_timeout must be a number of seconds >= 0 or "none"',
    ]
    path.write_text("request_timeout = 0\n", encoding="utf-8")
    assert (load_config().request_timeout, load_config().request_timeout_set) == (None, True)


def test_timeout_given_reads_only_the_inspector_options():
    assert timeout_given(["--timeout", "5"]) and timeout_given(["--timeout=5", "--", "srv"])
    assert not timeout_given(["--", "server", "--timeout", "5"]) and not timeout_given([])
