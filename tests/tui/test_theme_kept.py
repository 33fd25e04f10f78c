"""The theme chosen in the command palette is kept for next time: written to the TUI's config
file (only its ``theme`` line: comments and the keymap stay), and the next start uses it. A
config file that does not parse is never overwritten; the app says the theme was not kept."""

from __future__ import annotations

import pytest
from app_helpers import live_app, wait_for, wait_for_tools
from traffic_apps import screen_text

from mcp_inspector.tui.config import config_path, load_config
from mcp_inspector.tui.pilot_steps import shown_notifications

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


async def choose_theme_in_palette(pilot, app, name: str) -> None:
    """By keys: ctrl+p, the "Theme" command, then the theme by name."""
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "CommandPalette", what="the palette")
    await pilot.press(*"theme")
    await wait_for(pilot, lambda: "Change the current theme" in screen_text(app), what="the Theme command")
    await pilot.press("enter")
    await wait_for(pilot, lambda: name in screen_text(app), what="the list of themes")
    await pilot.press(*name)
    await wait_for(
        pilot,
        lambda: f"{name}\n" in screen_text(app) + "\n" and "ansi-dark" not in screen_text(app),
        what=f"{name} alone in the list",
    )
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.theme == name, what=f"the theme {name}")


async def test_the_palette_theme_is_saved_and_used_at_the_next_start():
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text('# my settings\n\n[keymap]\nreconnect = "ctrl+e"\n', encoding="utf-8")
    app = live_app(config=load_config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        assert app.theme == "inspector-dark"
        await choose_theme_in_palette(pilot, app, "inspector-light")
        await wait_for(
            pilot, lambda: 'theme = "inspector-light"' in path.read_text(encoding="utf-8"), what="the saved theme"
        )
    text = path.read_text(encoding="utf-8")
    assert "# my settings" in text and 'reconnect = "ctrl+e"' in text  # the rest of the file is kept
    config = load_config()
    assert config.theme == "inspector-light" and config.keymap == {"reconnect": "ctrl+e"} and not config.problems

    again = live_app(config=load_config())
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, again)
        assert again.theme == "inspector-light"


async def test_a_broken_config_file_is_not_overwritten():
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text("theme = [unclosed\n", encoding="utf-8")
    app = live_app(config=load_config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_theme_in_palette(pilot, app, "inspector-light")
        await wait_for(
            pilot, lambda: any(n.title == "Theme not kept" for n in shown_notifications(app)), what="the warning"
        )
        said = next(str(n.message) for n in shown_notifications(app) if n.title == "Theme not kept")
        assert "is not valid TOML" in said and str(path) in said
    assert path.read_text(encoding="utf-8") == "theme = [unclosed\n"


async def test_the_start_up_theme_is_not_written_back():
    app = live_app(config=load_config())  # no file: the default theme, nothing chosen
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.pause()  # the theme signal is synchronous: a start-up save would have happened by now
    assert not config_path().exists()
