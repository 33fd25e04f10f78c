"""A flood of server requests: one answering screen, a bounded line, the app still answers keys.

``tests/servers/request_flood_server.py --flood-on-start 1000`` writes 1,000
``elicitation/create`` requests in one write right after the handshake. The TUI shows ONE
modal saying how many wait after it; at most ``MAX_WAITING_SERVER_REQUESTS`` wait, the rest
are answered at once with error ``TOO_MANY_WAITING`` (read from the raw frames sent) and
counted on the modal; answering shows the next; ctrl+q quits during the flood.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from app_helpers import SIZE, live_app, wait_for

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.protocol.incoming import MAX_WAITING_SERVER_REQUESTS, TOO_MANY_WAITING
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).resolve().parent.parent / "servers" / "request_flood_server.py"
FLOOD = 1000


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def flood_app(count: int = FLOOD):
    return live_app(ServerSpec("flood", [sys.executable, str(SERVER), "--flood-on-start", str(count)]))


def answering_screens(app) -> list:
    return [screen for screen in app.screen_stack if isinstance(screen, ServerRequestScreen)]


def queue_line(app) -> str:
    return str(app.screen.query_one("#request-queue").render()) if isinstance(app.screen, ServerRequestScreen) else ""


def replies(app) -> dict[str, dict]:
    """The client's replies to the flood's requests, by request id (raw frames sent)."""
    out = {}
    for entry in app.store:
        if entry.direction is Direction.OUT and entry.kind in (Kind.RESPONSE, Kind.ERROR):
            message = json.loads(entry.raw)
            if isinstance(message.get("id"), str) and message["id"].startswith("f-"):
                out[message["id"]] = message
    return out


def refused(app) -> list[str]:
    return [rid for rid, m in replies(app).items() if m.get("error", {}).get("code") == TOO_MANY_WAITING]


def asked(app) -> int:
    return sum(1 for e in app.store if e.direction is Direction.IN and e.method == "elicitation/create")


async def test_one_modal_says_how_many_wait_and_the_excess_is_refused_with_an_error():
    app = flood_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: asked(app) == FLOOD, what="the whole flood read")
        excess = FLOOD - MAX_WAITING_SERVER_REQUESTS
        await wait_for(pilot, lambda: len(refused(app)) == excess, what="the excess refused")
        await wait_for(
            pilot,
            lambda: (
                queue_line(app).startswith(f"{MAX_WAITING_SERVER_REQUESTS - 1} more requests waiting after this one")
                and f"{excess} refused with error {TOO_MANY_WAITING}" in queue_line(app)
            ),
            what="the waiting and refused counts on the modal",
        )
        assert len(answering_screens(app)) == 1  # one modal, not a thousand
        # the first requests wait; the excess (the last ones read) got the error at once
        assert set(refused(app)) == {f"f-{i}" for i in range(MAX_WAITING_SERVER_REQUESTS + 1, FLOOD + 1)}
        assert len(replies(app)) == excess  # nothing else was answered
        first = app.screen
        assert "Question 1:" in str(first.query_one("#elicitation-message").render())


async def test_answering_shows_the_next_request_and_the_count_goes_down():
    app = flood_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: asked(app) == FLOOD, what="the whole flood read")
        await wait_for(pilot, lambda: queue_line(app).startswith("99 more"), what="the count on the modal")
        first = app.screen
        await wait_for(pilot, lambda: app.focused is not None and app.focused.screen is first, what="the focus")
        await pilot.press("escape")  # cancel the first
        await wait_for(pilot, lambda: "f-1" in replies(app), what="the answer to the first request")
        assert replies(app)["f-1"]["result"] == {"action": "cancel"}
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ServerRequestScreen) and app.screen is not first,
            what="the next request's modal",
        )
        second = app.screen
        assert "Question 2:" in str(second.query_one("#elicitation-message").render())
        await wait_for(pilot, lambda: queue_line(app).startswith("98 more"), what="the count one lower")
        assert len(answering_screens(app)) == 1
        await wait_for(pilot, lambda: app.focused is not None and app.focused.screen is second, what="the focus")
        await pilot.press("ctrl+r")  # decline the second
        await wait_for(pilot, lambda: "f-2" in replies(app), what="the answer to the second request")
        assert replies(app)["f-2"]["result"] == {"action": "decline"}
        await wait_for(pilot, lambda: queue_line(app).startswith("97 more"), what="the count one lower again")
        assert "Question 3:" in str(app.screen.query_one("#elicitation-message").render())


async def test_ctrl_q_quits_during_the_flood():
    app = flood_app(FLOOD * 5)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the first modal")
        # the flood (500 KB) is still being read and refused while the key is pressed
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, what="the app to quit")
    assert app.return_code == 0
