"""A 1,000-property inputSchema in the TUI (issue 19, item 14): the schema is compiled in a worker
thread when the tool is picked (not on the event loop at ctrl+s), and sending it empty asks first
with the 1,000 issues routed to their fields at once. A real server over real pipes."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, live_app, wait_for, wait_for_tools

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.schema import validation
from mcp_inspector.tui.widgets.composer import ConfirmSendScreen

SERVER = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "big_schema_server.py")]


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.mark.anyio
async def test_a_huge_input_schema_is_prepared_off_the_loop_and_its_issues_shown(monkeypatch):
    # Which threads compiled a schema (validation.prepare, called through, is how the composer
    # compiles one). Whether it is compiled at a given moment is a race: the app picks the
    # server's only tool as soon as the list arrives, so its worker may already have finished
    # when the test first looks (it did under load); where it ran is not.
    prepared: list[tuple[str, bool]] = []
    real_prepare = validation.prepare

    def prepare(schema):
        prepared.append((repr(schema), threading.current_thread() is threading.main_thread()))
        real_prepare(schema)

    monkeypatch.setattr(validation, "prepare", prepare)
    app = live_app(ServerSpec("big", [*SERVER, "--properties", "1000"], source="test"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        schema = app.main.tool_list.tools[0]["inputSchema"]
        await choose_tool(pilot, app, "wide")
        # compiled by the composer's worker thread when the tool was picked, before any send
        await wait_for(pilot, lambda: validation.ready(schema), timeout=60, what="the schema compiled")
        ours = [on_main for text, on_main in prepared if text == repr(schema)]
        assert ours and not any(ours), f"compiled on the event loop's thread: {ours}"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSendScreen), timeout=60, what="the question")
        assert len(app.screen.issues) == 1000
        form = app.main.composer.schema_form
        assert form.message_for("$.p999").startswith("required")
