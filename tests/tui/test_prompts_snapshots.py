"""Snapshots of the Prompts view at 80x24 and 120x40: a prompt selected with its form
(the second argument's suggestions narrowed by the first) and a got prompt's messages
(every content type). The server is tests/servers/completion_server.py (fixed prompts,
fixed answers); snapshot mode masks the pid and leaves timings out.
Regenerate with ``pytest tests/tui/test_prompts_snapshots.py --snapshot-update``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from app_helpers import checks_settled, settle, wait_for

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.widgets.views.prompts.view import PromptsView

SERVER = Path(__file__).resolve().parents[1] / "servers" / "completion_server.py"


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def prompts_app():
    spec = ServerSpec("prompts", [sys.executable, str(SERVER)], source="test")
    return make_app(spec, snapshot_mode=True, config=TuiConfig(), timeout=20.0)


async def prompts_view(pilot) -> PromptsView:
    app = pilot.app
    await wait_for(pilot, lambda: app.main.status_bar.status.state == "connected", what="the connection")
    await pilot.press("8")
    await wait_for(pilot, lambda: app.main.query("#view-prompts"), what="the Prompts view")
    view = app.main.query_one("#view-prompts", PromptsView)
    await wait_for(pilot, lambda: view.prompt_list.prompts, what="the prompt list")
    return view


async def quiet(pilot) -> None:
    await settle(pilot.app)
    await checks_settled(pilot)  # the got prompt's frames give 2 errors in the status bar
    pilot.app.clear_notifications()
    await pilot.pause()


async def form_with_suggestions(pilot) -> None:
    view = await prompts_view(pilot)
    view.prompt_list.option_list.focus()
    await pilot.press("enter", *"zed", "enter", "down")
    second = view.fields()[1]
    await wait_for(pilot, lambda: second.list_open and second.suggestions and not second.busy, what="the suggestions")
    await quiet(pilot)


async def got_media(pilot) -> None:
    view = await prompts_view(pilot)
    assert view.prompt_list.select_name("media")
    view.prompt_list.option_list.focus()
    await pilot.press("enter", "ctrl+s")
    await wait_for(pilot, lambda: view.messages.messages and view.getting is None, what="the messages")
    await quiet(pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_prompt_form_with_narrowed_suggestions(snap_compare, size):
    assert snap_compare(prompts_app(), terminal_size=size, run_before=form_with_suggestions)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_got_prompt_messages(snap_compare, size):
    assert snap_compare(prompts_app(), terminal_size=size, run_before=got_media)
