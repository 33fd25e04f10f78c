"""Snapshots of the raw frame screen at 120x40 and 80x24 (the editor keeps at least 6 rows of
text): a request written, sent, and its reply with the latency, through the screen's own
path (a frame recorded in the store, its reply linked and picked up by the store listener).
The host app is bare and not connected, so the pictures change only when the screen does.
Regenerate with ``--snapshot-update`` after looking at the report."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, wait_for
from traffic_apps import ThemedApp

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.protocol import raw_templates as templates
from mcp_inspector.core.protocol.raw import RawSent
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.screens.traffic.raw_frame import RawFrameScreen

SMALL = (80, 24)
SIZES = pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
REQUEST = templates.request("raw-1", "tools/list", {})
REPLY = (
    b'{"jsonrpc":"2.0","id":"raw-1","result":{"tools":[{"name":"echo","description":"Echoes its input back",'
    b'"inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}]}}'
)


class Host(ThemedApp):
    def __init__(self) -> None:
        super().__init__()
        self.store = TrafficStore(clock=lambda: 1_700_000_000.0)

    def on_mount(self) -> None:
        self.push_screen(RawFrameScreen("demo", None, lambda: None, self.store, None, text=REQUEST))


def replied():
    async def run_before(pilot) -> None:
        app = pilot.app
        await wait_for(pilot, lambda: isinstance(app.screen, RawFrameScreen), what="the screen")
        screen = app.screen
        screen.editor.cursor_blink = False
        sent = app.store.append(
            Direction.OUT,
            Kind.REQUEST,
            REQUEST.encode(),
            method="tools/list",
            msg_id="raw-1",
            has_id=True,
            meta={"by_hand": True},
        )
        screen.post_message(RawFrameScreen.Sent(RawSent(sent, Kind.REQUEST), []))
        await wait_for(pilot, lambda: screen.watching == sent.seq, what="sent")
        reply = app.store.append(
            Direction.IN, Kind.RESPONSE, REPLY, msg_id="raw-1", has_id=True, reply_to=sent.seq, latency_ms=4.2
        )
        sent.reply_seq = reply.seq
        await wait_for(pilot, lambda: sent.seq in screen._replies, what="the reply")
        await pilot.pause()

    return run_before


@SIZES
def test_the_raw_frame_screen_with_a_reply(snap_compare, size):
    assert snap_compare(Host(), terminal_size=size, run_before=replied())


@SIZES
def test_the_raw_frame_screen_on_text_that_is_not_json(snap_compare, size):
    async def run_before(pilot) -> None:
        app = pilot.app
        await wait_for(pilot, lambda: isinstance(app.screen, RawFrameScreen), what="the screen")
        app.screen.editor.cursor_blink = False
        await pilot.press("end", "backspace", "ctrl+n")
        await pilot.pause()

    assert snap_compare(Host(), terminal_size=size, run_before=run_before)


def test_the_editor_keeps_six_rows_at_80x24():
    import asyncio

    async def check() -> None:
        app = Host()
        async with app.run_test(size=SMALL) as pilot:
            await replied()(pilot)
            assert app.screen.editor.content_region.height >= 6

    asyncio.run(check())
