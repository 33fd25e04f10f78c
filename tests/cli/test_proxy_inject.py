"""A viewer sends frames into a stdio proxy's session (issue 24): the mcp SDK's client is the host,
the viewer's ping and tools/list reach the server between the host's frames with ids of the proxy's,
their replies come back to the viewer alone with its ids, and the host, whose own calls go on, never
reads them. Both are recorded, marked injected."""

from __future__ import annotations

import os
import shlex
import sys

import anyio
from conftest import PYTHON, SDK_SERVER
from waiting import until_sync

from mcp_inspector.core.base.json_text import loads_strict
from mcp_inspector.core.proxy.viewer import FeedReader, Injected, running_proxies
from mcp_inspector.core.traffic.entry import TrafficEntry


def _answers(reader: FeedReader, wanted: int, recorded: int, seen: list) -> dict[int, Injected]:
    """Read the feed until ``wanted`` answers and ``recorded`` entries marked injected came."""
    answers: dict[int, Injected] = {}
    marked = 0
    for event in reader.events():
        seen.append(event)
        if isinstance(event, Injected):
            answers[event.tag] = event
        elif isinstance(event, TrafficEntry) and event.meta and event.meta.get("injected"):
            marked += 1
        if len(answers) == wanted and marked == recorded:
            break
    return answers


async def _host_and_viewer(tmp_path) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    heard = tmp_path / "host-heard"  # every byte the host read from the proxy
    proxy = [sys.executable, "-m", "mcp_inspector", "proxy", "--name", "inj", "--", PYTHON, str(SDK_SERVER)]
    params = StdioServerParameters(
        command="sh", args=["-c", f"{shlex.join(proxy)} | tee {shlex.quote(str(heard))}"], env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        until_sync(lambda: running_proxies(tmp_path / "mcp-inspector"), what="the live view")
        reader = FeedReader(tmp_path / "mcp-inspector" / "inj.sock")
        try:
            # the host's next ids are 1 and 2: the viewer uses 1 too, on purpose
            ping = reader.send('{"jsonrpc":"2.0","id":1,"method":"ping"}')
            listing = reader.send('{"jsonrpc": "2.0", "id": "mine", "method": "tools/list"}')
            note = reader.send('{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}')
            bad = reader.send('{"jsonrpc":"2.0","id":9,"result":{}}')
            tools = await session.list_tools()
            added = await session.call_tool("add", {"a": 2, "b": 40})
            seen: list = []
            answers = await anyio.to_thread.run_sync(_answers, reader, 4, 5, seen)
        finally:
            reader.close()
        return {
            "answers": answers,
            "tags": (ping, listing, note, bad),
            "host_tools": sorted(t.name for t in tools.tools),
            "host_sum": added.structured_content,
            "seen": seen,
            "heard": heard,
        }


def test_a_viewers_frames_go_in_and_only_the_viewer_gets_their_replies(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    got = anyio.run(_host_and_viewer, tmp_path)
    ping, listing, note, bad = (got["answers"][tag] for tag in got["tags"])
    assert loads_strict(ping.reply) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    listed = loads_strict(listing.reply)
    assert listed["id"] == "mine" and sorted(t["name"] for t in listed["result"]["tools"]) == got["host_tools"]
    assert note.sent and note.reply is None
    assert bad.refused and "request or notification" in bad.refused
    # the host's own calls went on, and it never read a reply meant for the viewer
    assert got["host_sum"] == {"sum": 42} and "add" in got["host_tools"]
    assert b"mcp-inspector-viewer-" not in got["heard"].read_bytes()
    # recorded, marked injected: the proxy's ids on the wire, each reply linked to its request
    injected = [e for e in got["seen"] if isinstance(e, TrafficEntry) and e.meta and e.meta.get("injected")]
    sent = {e.method: e for e in injected if e.direction.value == "out"}
    assert set(sent) == {"ping", "tools/list", "notifications/roots/list_changed"}
    assert str(sent["ping"].msg_id).startswith("mcp-inspector-viewer-") and sent["ping"].meta["viewer_id"] == 1
    replies = [e for e in injected if e.direction.value == "in"]
    assert {e.reply_to for e in replies} == {sent["ping"].seq, sent["tools/list"].seq}
