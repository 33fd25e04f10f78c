"""``mcp-inspector attach``: the TUI on a running proxy's feed, read-only, filled as the session goes."""

from __future__ import annotations

import pytest
from app_helpers import DEMO_SESSION, SIZE, wait_for

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.proxy.feed import FeedPublisher
from mcp_inspector.core.proxy.viewer import FeedReader
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.loading import load_session
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


@pytest.mark.anyio
async def test_attach_shows_the_hosts_session_from_its_start_then_live(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    publisher = FeedPublisher("demo", {"server": "demo-server"}, directory=run_dir / "mcp-inspector")
    entries = list(load_session(DEMO_SESSION).store.iter_all())
    half = len(entries) // 2
    for entry in entries[:half]:  # the session so far: the viewer attaches late
        publisher.publish(entry)
    app = make_app(None, live_feed=FeedReader(publisher.path), config=TuiConfig())
    try:
        async with app.run_test(size=SIZE) as pilot:
            main = app.main
            await wait_for(pilot, lambda: app.store.total == half, what="the session so far")
            assert main.read_only and main.composer.disabled
            assert main.status_bar.status.state == "read-only"
            assert "proxy demo" in main.status_bar.status.detail
            for entry in entries[half:]:
                publisher.publish(entry)
            await wait_for(pilot, lambda: app.store.total == len(entries), what="the rest, live")
            # the tool list as the host received it, the last change as a diff; the server's facts
            await wait_for(pilot, lambda: main.tool_list.marks, what="the tool list diff")
            assert main.tool_list.marks == {"weather_forecast": "added", "echo": "changed"}
            assert main.facts.server_info["name"] == "mcp-inspector-demo"
            assert app.store.get(entries[3].seq).raw == entries[3].raw
            publisher.close()
            await wait_for(pilot, lambda: "ended" in main.status_bar.status.detail, what="the end of the session")
            assert not [
                e
                for e in app.store
                if e.kind is Kind.EVENT and e.direction is Direction.LOCAL and e.meta and "missed" in e.meta
            ]
    finally:
        publisher.close(drain=0)
