"""An opened session file is data from outside: its entries' raw bytes may be anything, whatever
their recorded kind says, and every view must show them without crashing."""

from __future__ import annotations

import json

import pytest

from app_helpers import SIZE, wait_for
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.widgets.traffic_log import cli_command_for

pytestmark = pytest.mark.anyio

DEEP = "[" * 990 + "]" * 990  # json.loads raises RecursionError on it inside an app


def crafted(tmp_path):
    header = {"type": "header", "format": "mcp-inspector-session", "version": 1, "started": 1767268800.0,
              "server": "python server.py", "name": "crafted"}
    notification = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":' + DEEP + "}}"
    call = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":' + DEEP + "}}"
    entries = [
        {"seq": 1, "ts": 1767268800.0, "dir": "in", "kind": "notification", "raw": notification, "method": "notifications/message"},
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
            await pilot.pause(0.2)
            assert app.main.query_one(view_id).display
        assert app.is_running
        request = next(entry for entry in app.store if entry.method == "tools/call")
        with pytest.raises(ValueError, match="not a well-formed tools/call request"):
            cli_command_for(request, app.main.log_spec)
