"""Snapshots of the HTTP view, an exchange's detail and an MRTR round's modal (its elicitation
form, the buttons still on screen at 80x24), at 120x40 and 80x24.

Deterministic like test_snapshots.py: the recorded demo session (``--open``) in snapshot
mode; the HttpLog gets a fixed clock and what an HTTP transport records for a short
2026-07-28 session (http_apps.modern_session). Regenerate with ``--snapshot-update``
after looking at the report.
"""

from __future__ import annotations

import pytest
from app_helpers import SIZE, wait_for
from http_apps import Clock, modern_session
from test_snapshots import _isolated, loaded, recorded_app  # noqa: F401  (the fixture isolates XDG dirs and cwd)

from mcp_inspector.core.traffic.http_log import HttpLog
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen

SMALL = (80, 24)


def with_http_log(*keys: str):
    async def run_before(pilot) -> None:
        await loaded(pilot)
        clock = Clock()
        pilot.app.store.http_log = HttpLog(clock=clock)
        modern_session(clock, pilot.app.store.http_log)
        log = pilot.app.store.http_log
        for key in keys:
            await pilot.press(key)
            if key == "6":  # the HTTP view: its rows in before the cursor moves
                view = pilot.app.query_one("#view-http")
                await wait_for(
                    pilot, lambda view=view: view.exchange_list.row_count == len(log.exchanges), what="the rows"
                )
            await pilot.pause()
        pilot.app.clear_notifications()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_http_view(snap_compare, size):
    assert snap_compare(recorded_app(), terminal_size=size, run_before=with_http_log("6", "up", "up"))


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_http_exchange_detail(snap_compare, size):
    # the tools/call answered on an SSE stream with progress events
    assert snap_compare(recorded_app(), terminal_size=size, run_before=with_http_log("6", "up", "up", "enter"))


MRTR_PARAMS = {
    "mode": "form",
    "message": "Your name, and what kind of poem?",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name"},
            "style": {
                "type": "string",
                "title": "Poem style",
                "enum": ["haiku", "limerick", "sonnet"],
                "default": "haiku",
            },
            "rhyme": {"type": "boolean", "title": "Rhyme", "default": True},
        },
        "required": ["name"],
    },
}
MRTR_CONTEXT = "Input round 2 of tools/call wizard (#12): the server needs this answer before it can reply."


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_mrtr_round_modal(snap_compare, size):
    async def run_before(pilot) -> None:
        await loaded(pilot)
        pilot.app.push_screen(ServerRequestScreen("elicitation/create", MRTR_PARAMS, context=MRTR_CONTEXT))
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ServerRequestScreen), what="the modal")
        screen = pilot.app.screen
        await wait_for(
            pilot, lambda: pilot.app.focused is not None and pilot.app.focused.screen is screen, what="focus"
        )

    assert snap_compare(recorded_app(), terminal_size=size, run_before=run_before)
