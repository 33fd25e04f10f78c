"""Saving asks where: a path prefilled with output_dir()/name; a missing folder is said; an
existing file is replaced only after a second enter; escape saves nothing."""

from __future__ import annotations

import json
import stat

import pytest
from app_helpers import wait_for
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.dialogs.save_as import SaveAsScreen, save_as

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_cwd")]


class Holder(Static, can_focus=True):
    saved_path = None


class SaveApp(App):
    def compose(self) -> ComposeResult:
        yield Holder("result")


def ready(app) -> bool:
    """The modal is up and composed."""
    return isinstance(app.screen, SaveAsScreen) and bool(app.screen.query("#save-as-path"))


def problem(app) -> str:
    return str(app.screen.query_one("#save-as-problem", Static).render())


async def test_save_asks_where_and_confirms_an_overwrite(tmp_path):
    app = SaveApp()
    data = {"content": [{"type": "text", "text": "hi"}]}
    async with app.run_test(size=(80, 24)) as pilot:
        holder = app.query_one(Holder)
        produce = lambda: json.dumps(data).encode()  # noqa: E731 - a one-line function, kept beside its use
        save_as(holder, produce, "mcp-result-echo", ".json", "the result")
        await wait_for(pilot, lambda: ready(app), what="the save-as modal")
        field = app.screen.query_one("#save-as-path", Input)
        assert field.value == str(tmp_path / "mcp-result-echo.json") and app.screen.focused is field
        assert not list(tmp_path.glob("*.json"))  # nothing written before the user says where

        field.value = str(tmp_path / "no-such-folder" / "r.json")
        await pilot.press("enter")
        await pilot.pause()
        assert "There is no folder" in problem(app) and isinstance(app.screen, SaveAsScreen)
        (tmp_path / "out").mkdir()
        field.value = "out/r.json"  # relative to the output folder
        await pilot.press("enter")
        await wait_for(pilot, lambda: holder.saved_path is not None, what="the saved file")
        assert holder.saved_path == tmp_path / "out" / "r.json"
        assert json.loads(holder.saved_path.read_text()) == data

        # the same name again: the first enter warns, the second replaces
        data["content"][0]["text"] = "second"
        holder.saved_path = None
        save_as(holder, produce, "x", ".json", "the result")
        await wait_for(pilot, lambda: ready(app), what="the modal again")
        app.screen.query_one("#save-as-path", Input).value = str(tmp_path / "out" / "r.json")
        await pilot.press("enter")
        await pilot.pause()
        assert "exists" in problem(app) and isinstance(app.screen, SaveAsScreen)
        await pilot.press("enter")
        await wait_for(pilot, lambda: holder.saved_path is not None, what="the replaced file")
        assert json.loads(holder.saved_path.read_text())["content"][0]["text"] == "second"

        # escape: nothing written, and the user is told
        save_as(holder, produce, "never", ".json", "the result")
        await wait_for(pilot, lambda: ready(app), what="the modal a third time")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SaveAsScreen), what="the modal to close")
        assert not (tmp_path / "never.json").exists()
        assert any("Not saved" in n.message for n in shown_notifications(app))


async def test_the_suggestion_never_names_an_existing_file(tmp_path):
    (tmp_path / "r.json").write_text("{}")
    app = SaveApp()
    async with app.run_test(size=(80, 24)) as pilot:
        save_as(app.query_one(Holder), lambda: b"{}", "r", ".json", "the result")
        await wait_for(pilot, lambda: ready(app), what="the modal")
        assert app.screen.query_one("#save-as-path", Input).value == str(tmp_path / "r-1.json")


async def test_saving_never_writes_through_a_planted_link_and_the_file_is_private(tmp_path):
    # the temporary file was ".NAME.part" beside it, opened through any symlink there
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (tmp_path / ".r.json.part").symlink_to(victim)
    app = SaveApp()
    async with app.run_test(size=(80, 24)) as pilot:
        holder = app.query_one(Holder)
        save_as(holder, lambda: b'{"saved": true}', "r", ".json", "the result")
        await wait_for(pilot, lambda: ready(app), what="the save-as modal")
        app.screen.query_one("#save-as-path", Input).value = str(tmp_path / "r.json")
        await pilot.press("enter")
        await wait_for(pilot, lambda: holder.saved_path is not None, what="the saved file")
    assert victim.read_text() == "keep me\n"
    assert json.loads((tmp_path / "r.json").read_text()) == {"saved": True}
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o600
