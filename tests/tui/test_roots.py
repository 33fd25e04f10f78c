"""Roots in the TUI: never made up, given at start or in the Roots editor (ctrl+f), per server.

The demo's ``ask_the_client kind=roots`` sends ``roots/list`` and returns the client's answer;
the demo logs ``notifications/roots/list_changed`` when it gets one. The modern raw server's
``roots`` tool asks for the roots in an MRTR input request and says how many came.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, demo_spec, live_app, outgoing, settle, wait_for, wait_for_tools
from textual.app import App
from textual.widgets import Input, OptionList
from traffic_apps import screen_text

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.messages import CallFinished
from mcp_inspector.tui.pilot_steps import palette_pick
from mcp_inspector.tui.screens.dialogs.roots_editor import RootsEditor
from mcp_inspector.tui.server.roots import RootsBook

pytestmark = pytest.mark.anyio

MODERN = [sys.executable, str(Path(__file__).resolve().parent.parent / "servers" / "modern_raw_server.py")]


@pytest.fixture(autouse=True)
def _isolated(isolated_cwd):
    pass


def finished_hook(into: list):
    return lambda message: into.append(message) if isinstance(message, CallFinished) else None


def answer_of(outcome) -> dict:
    """The client's answer the demo returns as the tool's text (after its first line)."""
    text = "".join(block.get("text", "") for block in outcome.result.get("content", []))
    return json.loads(text[text.index("{") :])


async def ask_roots(pilot, app, finished: list) -> dict:
    count = len(finished)
    await app.main.composer.set_arguments({"kind": "roots"})
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: len(finished) > count, what="the roots call")
    return answer_of(finished[-1].outcome)


async def test_no_roots_given_answers_an_empty_list_not_the_working_directory(tmp_path):
    finished: list = []
    app = live_app(cwd=str(tmp_path))
    async with app.run_test(size=SIZE, message_hook=finished_hook(finished)) as pilot:
        await wait_for_tools(pilot, app)
        initialize = json.loads(outgoing(app, "initialize")[0].raw)
        assert initialize["params"]["capabilities"]["roots"] == {"listChanged": True}  # declared all the same
        await choose_tool(pilot, app, "ask_the_client")
        assert await ask_roots(pilot, app, finished) == {"roots": []}
        assert not any(tmp_path.as_uri() in entry.text for entry in app.store)
        # the overview says what was declared, and that no roots were given
        app.main.tool_list.option_list.focus()
        await pilot.press("2")
        await wait_for(
            pilot, lambda: "Client (what mcp-inspector declared)" in screen_text(app), what="the client section"
        )
        text = screen_text(app)
        assert "none given: roots/list is answered with an empty list" in text
        assert "listChanged" in text


async def test_roots_given_at_start_are_the_answer(tmp_path):
    finished: list = []
    folder = tmp_path / "project"
    folder.mkdir()
    app = live_app(replace(demo_spec(), roots=[str(folder)]))
    async with app.run_test(size=SIZE, message_hook=finished_hook(finished)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "ask_the_client")
        assert await ask_roots(pilot, app, finished) == {"roots": [{"uri": folder.as_uri(), "name": "project"}]}


async def test_roots_editor_by_keys_adds_warns_applies_and_tells_the_server(tmp_path):
    finished: list = []
    folder = tmp_path / "work"
    folder.mkdir()
    missing = tmp_path / "not-there"
    app = live_app()
    async with app.run_test(size=SIZE, message_hook=finished_hook(finished)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "ask_the_client")
        await pilot.press("ctrl+f")  # from the composer's field: ctrl+f is not typed
        await wait_for(pilot, lambda: isinstance(app.screen, RootsEditor), what="the roots editor")
        editor = app.screen
        assert "No roots: roots/list is answered with an empty list" in screen_text(app)
        assert "notifications/roots/list_changed" in screen_text(app)  # what applying does (legacy)
        assert isinstance(app.focused, Input)
        await pilot.press(*str(folder), "enter")
        await pilot.press(*str(missing), "enter")
        await wait_for(pilot, lambda: len(editor.paths) == 2, what="two roots")
        message = str(editor.query_one("#roots-message").render())
        assert f"Warning: {missing} does not exist" in message  # kept, with a warning
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, RootsEditor), what="the editor to close")
        await wait_for(pilot, lambda: outgoing(app, "notifications/roots/list_changed"), what="roots/list_changed")
        assert app.roots.paths(app.main.spec) == [str(folder), str(missing)]
        answer = await ask_roots(pilot, app, finished)
        assert [root["uri"] for root in answer["roots"]] == [folder.as_uri(), missing.as_uri()]
        # kept for this server across a reconnect
        await pilot.press("escape")
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: len(outgoing(app, "initialize")) == 2 and app.main.connection.live is not None,
            what="the reconnect",
        )
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "ask_the_client")
        answer = await ask_roots(pilot, app, finished)
        assert [root["uri"] for root in answer["roots"]] == [folder.as_uri(), missing.as_uri()]


async def test_roots_editor_edit_remove_and_cancel_by_keys(tmp_path):
    first, second, third = (tmp_path / name for name in ("a", "b", "c"))
    for folder in (first, second, third):
        folder.mkdir()
    app = live_app(replace(demo_spec(), roots=[str(first), str(second)]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        # escape leaves without a change: no notification, the roots as they were
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: isinstance(app.screen, RootsEditor), what="the roots editor")
        await pilot.press("tab", "d")  # the list: remove the first
        assert app.screen.paths == [str(second)]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RootsEditor), what="the editor to close")
        assert app.roots.paths(app.main.spec) == [str(first), str(second)]
        assert app.roots.of(app.main.spec).source == "start"

        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: isinstance(app.screen, RootsEditor), what="the roots editor")
        await pilot.press("tab")
        assert isinstance(app.focused, OptionList)
        await pilot.press("down", "e")  # edit the second: its path goes to the field
        field = app.screen.query_one("#roots-path", Input)
        assert app.focused is field and field.value == str(second)
        await pilot.press("ctrl+u", *str(third), "enter")
        assert app.screen.paths == [str(first), str(third)]
        await pilot.press("tab", "home", "delete")  # remove the first
        assert app.screen.paths == [str(third)]
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, RootsEditor), what="the editor to close")
        assert app.roots.paths(app.main.spec) == [str(third)]
        assert app.roots.of(app.main.spec).source == "editor"
        await wait_for(pilot, lambda: outgoing(app, "notifications/roots/list_changed"), what="roots/list_changed")


async def test_roots_editor_refuses_a_url_and_an_unadded_path(tmp_path):
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: isinstance(app.screen, RootsEditor), what="the roots editor")
        await pilot.press(*"https://example.com", "enter")
        assert app.screen.paths == [] and "Not a root" in screen_text(app)
        await pilot.press("ctrl+u", *str(tmp_path), "ctrl+s")  # typed, not added: said, not lost
        assert isinstance(app.screen, RootsEditor)
        assert "not added yet" in screen_text(app)
        await pilot.press("enter", "ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, RootsEditor), what="the editor to close")
        assert app.roots.paths(app.main.spec) == [str(tmp_path)]


async def test_palette_opens_the_roots_editor():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await palette_pick(pilot, "Roots")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RootsEditor), what="the roots editor from the palette")


async def test_modern_era_answers_the_input_request_and_sends_no_list_changed(tmp_path):
    finished: list = []
    app = live_app(ServerSpec("modern", MODERN, roots=[str(tmp_path)]))
    async with app.run_test(size=SIZE, message_hook=finished_hook(finished)) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "roots")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: finished, what="the roots call")
        assert "1 roots" in json.dumps(finished[0].outcome.result)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: isinstance(app.screen, RootsEditor), what="the roots editor")
        assert "2026-07-28 has no roots/list_changed" in screen_text(app)
        await pilot.press(*str(tmp_path / "sub"), "enter", "ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, RootsEditor), what="the editor to close")
        await settle(app)
        assert not outgoing(app, "notifications/roots/list_changed")
        await choose_tool(pilot, app, "roots")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(finished) == 2, what="the second roots call")
        assert "2 roots" in json.dumps(finished[1].outcome.result)


def test_roots_book_keeps_each_servers_roots():
    book = RootsBook()
    one, two = ServerSpec("one", ["a"], roots=["/x"]), ServerSpec("two", ["b"])
    assert book.paths(one) == ["/x"] and book.paths(two) == [] and book.paths(None) == []
    assert book.set(two, ["/y"]) is True
    assert book.set(two, ["/y"]) is False  # no change: nothing to announce
    assert book.paths(two) == ["/y"] and book.of(two).source == "editor"
    assert book.paths(one) == ["/x"] and book.of(one).source == "start"
    assert book.paths(ServerSpec("two again", ["b"])) == ["/y"]  # by server key


class EditorOnly(App):
    """The editor alone on a blank screen, in the shipped dark theme: its snapshot does not change
    with the main screen's layout behind it."""

    def on_load(self) -> None:
        from mcp_inspector.tui.look.themes import builtin_themes

        for theme in builtin_themes():
            self.register_theme(theme)
        self.theme = "inspector-dark"

    def on_mount(self) -> None:
        self.push_screen(RootsEditor("demo", ["/", "/nonexistent/project"], "legacy"))

    def on_descendant_focus(self, event) -> None:
        if hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_roots_editor_snapshot(snap_compare, size):
    """A root that exists, one that does not (warned), what applying does in the legacy era,
    the keys; everything visible at 80x24 too."""
    assert snap_compare(EditorOnly(), terminal_size=size)
