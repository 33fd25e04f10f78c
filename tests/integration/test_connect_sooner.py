"""The TUI's connect phase, shortened (issue 19, speed): the server is started before the UI is
built and adopted by the first transport made for it, and a server known to speak the legacy
era gets ``initialize`` at once instead of the ``server/discover`` probe first. Real servers
over real pipes; the figures are in bench/bench_tui_startup.py."""

from __future__ import annotations

import os
import signal

import anyio
import pytest
from conftest import PYTHON, SERVERS_DIR

from mcp_inspector.core.config import eras, factory
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.started import start_server
from mcp_inspector.tui.server.connection import make_session

pytestmark = pytest.mark.anyio


def methods_sent(session: McpSession) -> list[str]:
    return [e.method for e in session.store if e.direction.value == "out" and e.method]


async def test_a_server_started_early_is_adopted_by_its_first_transport(raw_server) -> None:
    spec = ServerSpec("raw", raw_server())
    process = start_server(list(spec.command), {}, None)
    factory.offer_started(spec, process)
    transport = factory.make_transport(spec)
    with anyio.fail_after(60):
        async with McpSession(transport, era="legacy") as session:
            await session.initialize()
            assert transport.pid == process.pid  # the one started before, not a second server
            assert {t["name"] for t in await session.list_tools()} >= {"echo"}
    assert process.process.poll() is not None  # shut down with the session
    other = factory.make_transport(spec)  # offered once: the next transport starts its own
    assert getattr(other, "_started", None) is None


def test_an_early_server_no_transport_adopted_is_ended(raw_server) -> None:
    spec = ServerSpec("raw", raw_server())
    process = start_server(list(spec.command), {}, None)
    factory.offer_started(spec, process)
    try:
        factory.discard_offered()
        assert process.process.poll() is not None
    finally:
        if process.process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.process.wait()


async def test_a_server_legacy_last_time_is_not_probed(raw_server, tmp_path) -> None:
    path = tmp_path / "eras.json"
    spec = ServerSpec("raw", raw_server())
    with anyio.fail_after(60):
        async with McpSession(factory.make_transport(spec)) as first:  # unknown: probed, then initialize
            await first.initialize()
        assert first.era == "legacy" and methods_sent(first)[:2] == ["server/discover", "initialize"]
        eras.remember(spec.key, first.era, path)
        assert eras.remembered(spec.key, path) == "legacy"
        async with McpSession(factory.make_transport(spec), era_hint=eras.remembered(spec.key, path)) as second:
            await second.initialize()
            assert second.era == "legacy" and "server/discover" not in methods_sent(second)
            assert "last connection" in second.era_reason


async def test_a_legacy_hint_on_a_modern_only_server_still_connects_modern() -> None:
    """The hint is only a first try: a server that became 2026-07-28-only rejects initialize
    (-32601), and the probe runs as for an unknown server."""
    spec = ServerSpec("modern", [PYTHON, str(SERVERS_DIR / "modern_raw_server.py")])
    with anyio.fail_after(60):
        async with McpSession(factory.make_transport(spec), era_hint="legacy") as session:
            await session.initialize()
            assert session.era == "modern"


def test_the_tui_session_takes_the_remembered_era_for_stdio_only(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    stdio, url = ServerSpec("s", ["server"]), ServerSpec("u", url="http://127.0.0.1:9/mcp", transport="http")
    for spec in (stdio, url):
        eras.remember(spec.key, "legacy")
    assert make_session(factory.make_transport(stdio), stdio).era_hint == "legacy"
    assert make_session(factory.make_transport(url), url).era_hint is None  # HTTP would fall back to SSE
    assert make_session(factory.make_transport(stdio), ServerSpec("s", ["server"], era="modern")).era_hint is None


def test_a_corrupt_eras_file_is_ignored(tmp_path) -> None:
    path = tmp_path / "eras.json"
    path.write_bytes(b"{not json")
    assert eras.remembered("cmd:x", path) is None
    eras.remember("cmd:x", "modern", path)
    assert eras.remembered("cmd:x", path) == "modern"
