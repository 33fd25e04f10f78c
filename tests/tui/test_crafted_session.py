"""An opened session file is data from outside: its entries' raw bytes may be anything, whatever
their recorded kind says, and every view must show them without crashing."""

from __future__ import annotations

import json

import pytest
from app_helpers import SIZE, wait_for

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.widgets.views.traffic.log import cli_command_for

pytestmark = pytest.mark.anyio

DEEP = "[" * 990 + "]" * 990  # json.loads raises RecursionError on it inside an app


def crafted(tmp_path):
    header = {
        "type": "header",
        "format": "mcp-inspector-session",
        "version": 1,
        "started": 1767268800.0,
        "server": "python server.py",
        "name": "crafted",
    }
    notification = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":' + DEEP + "}}"
    call = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":' + DEEP + "}}"
    entries = [
        {
            "seq": 1,
            "ts": 1767268800.0,
            "dir": "in",
            "kind": "notification",
            "raw": notification,
            "method": "notifications/message",
        },
        {"seq": 2, "ts": 1767268800.1, "dir": "out", "kind": "request", "raw": call, "method": "tools/call", "id": 7},
    ]
    path = tmp_path / "crafted.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [header, *entries]) + "\n")
    return path


async def test_deep_raw_bytes_in_an_opened_file_are_shown_not_fatal(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    app = make_app(open_file=str(crafted(tmp_path)), config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.replay is not None, what="the recording")
        for key, view_id in (("3", "#view-notifications"), ("5", "#view-traffic"), ("1", "#view-main")):
            await pilot.press(key)
            await wait_for(pilot, lambda view_id=view_id: app.main.query_one(view_id).display, what=view_id)
        assert app.is_running
        request = next(entry for entry in app.store if entry.method == "tools/call")
        with pytest.raises(ValueError, match="not a well-formed tools/call request"):
            cli_command_for(request, app.main.log_spec)


async def test_a_crafted_discover_result_and_meta_are_shown_short_and_safe(tmp_path, monkeypatch):
    """server/discover answered with odd values, entries with malformed HTTP and MRTR meta: the
    overview, traffic log and frame detail show them cut and cleaned, never crash."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    header = {
        "type": "header",
        "format": "mcp-inspector-session",
        "version": 1,
        "started": 1767268800.0,
        "server": "http https://mcp.example.com/mcp",
        "name": "crafted",
    }
    discover = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "server/discover",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": ["not", "a", "string"]}},
        }
    )
    result = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "ttlMs": "9" * 5000,
                "cacheScope": "\x1b[31mred\x07",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "odd\nname"}},
            },
        }
    )
    call = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {}}})
    entries = [
        {
            "seq": 1,
            "ts": 1767268800.0,
            "dir": "out",
            "kind": "request",
            "raw": discover,
            "method": "server/discover",
            "id": 1,
        },
        {
            "seq": 2,
            "ts": 1767268800.1,
            "dir": "in",
            "kind": "response",
            "raw": result,
            "id": 1,
            "reply_to": 1,
            "meta": {"exchange": "seven", "status": "teapot", "sse_id": {"x": 1}},
        },
        {
            "seq": 3,
            "ts": 1767268800.2,
            "dir": "out",
            "kind": "request",
            "raw": call,
            "method": "tools/call",
            "id": 2,
            "meta": {"mrtr": {"first": "one", "round": None}},
        },
    ]
    path = tmp_path / "discover.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [header, *entries]) + "\n")
    app = make_app(open_file=str(path), config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.replay is not None, what="the recording")
        facts = app.main.facts
        assert (facts.era, facts.protocol_version) == ("modern", "2026-07-28")
        assert app.main.log_spec.url == "https://mcp.example.com/mcp"
        await pilot.press("2")
        from traffic_apps import screen_text

        await wait_for(pilot, lambda: app.main.current_view == "overview" and "ttlMs" in screen_text(app))

        text = screen_text(app)
        assert "ttlMs 9999999999999999999…" in text and "9" * 30 not in text
        assert "\x1b" not in text
        for key in ("5", "6", "1"):
            await pilot.press(key)
            await pilot.pause()
        await pilot.press("5")
        log = app.main.query_one("#view-traffic").log_view
        log.sync(force=True)
        base = app.screen
        for seq in (2, 3):
            assert log.move_cursor_to_seq(seq)
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is not base, what="the frame detail")
            await pilot.press("h")  # not an int exchange: a warning, not a crash
            await pilot.pause()
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is base, what="the detail closed")
