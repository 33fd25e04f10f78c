"""Typing into a field whose pattern backtracks for ever in Python's ``re`` (issue 19, item 1).

The field's check runs on every keystroke on the event loop: ``^(a+)+$`` and the 35th key ``!``
froze the app for ever with the GIL held (ctrl+q did nothing). Through the real app on a real
server (tests/servers/regex_server.py). The guard is faulthandler's watchdog, a C thread: with
the GIL held by ``re`` no Python thread runs (pytest-timeout's included), so the test process
would hang, not fail, without it.
"""

from __future__ import annotations

import faulthandler
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, choose_tool, live_app, wait_for, wait_for_tools

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.messages import CallFinished

SERVER = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "regex_server.py")]
EVIL = "^(a+)+$"

GUARD = 120  # seconds: a hang guard, not a speed check


@pytest.fixture(autouse=True)
def _watchdog():
    faulthandler.dump_traceback_later(GUARD, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.mark.anyio
async def test_typing_into_a_field_with_a_backtracking_pattern_keeps_the_app_alive():
    finished: list[CallFinished] = []
    app = live_app(ServerSpec("regex", SERVER, source="test"))
    async with app.run_test(
        size=SIZE, message_hook=lambda m: finished.append(m) if isinstance(m, CallFinished) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "evil_input")
        form = app.main.composer.schema_form
        form.query_one("Input").focus()  # the one field, $.q
        await pilot.press(*("a" * 34), "!")
        await wait_for(
            pilot,
            lambda: form.message_for("$.q") == f"must match the pattern {EVIL}",
            what="the field's verdict on the 35th key",
        )
        await pilot.press("backspace")
        await wait_for(pilot, lambda: form.message_for("$.q") is None, what="the field to be fine again")
        # the app still answers: the whole-form check and a call's outputSchema check, with the same pattern
        await choose_tool(pilot, app, "evil_output")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: finished, what="the call to finish")
        view = finished[0].outcome.view
        assert [issue.message for issue in view.structured_issues] == [f"'{'a' * 34}!' does not match '{EVIL}'"]


@pytest.mark.anyio
async def test_a_pattern_beyond_the_bounded_engine_is_said_beside_the_result():
    finished: list[CallFinished] = []
    app = live_app(ServerSpec("regex", SERVER, source="test"))
    async with app.run_test(
        size=SIZE, message_hook=lambda m: finished.append(m) if isinstance(m, CallFinished) else None
    ) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "backref_output")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: finished, what="the call to finish")
        view = finished[0].outcome.view
        assert view.structured_issues == []
        assert view.unchecked == [
            "pattern '^(a)\\\\1$' not checked: a backreference (\\1) is beyond the bounded regex engine (RE2)"
        ]
        await wait_for(
            pilot,
            lambda: any(
                "not every pattern was checked" in str(s.render()) for s in app.main.result_panel.query(".issues")
            ),
            what="the note in the result panel",
        )
