"""``subscriptions/listen`` over real pipes against tests/servers/modern_raw_server.py:
opened after connect for what the server declared, its acknowledgment kept,
tagged list_changed driving the live refresh with a diff, reopening when the
server ends the stream, resource subscriptions, and auto_refresh=False."""

from __future__ import annotations

import json

import pytest
from conftest import PYTHON, SERVERS_DIR
from waiting import until

from mcp_inspector.core.session.events import ListChanged, ResourceUpdated
from mcp_inspector.core.traffic.entry import Direction, Kind

pytestmark = pytest.mark.anyio
MODERN = [PYTHON, str(SERVERS_DIR / "modern_raw_server.py")]
SUB = "io.modelcontextprotocol/subscriptionId"


def listens(store) -> list[dict]:
    return [
        json.loads(e.raw)
        for e in store
        if e.direction is Direction.OUT and e.kind is Kind.REQUEST and e.method == "subscriptions/listen"
    ]


async def test_listen_is_opened_and_drives_the_live_refresh(connect):
    async with connect(MODERN, era="auto") as c:
        s = c.session
        await s.list_tools()
        await until(lambda: s.subscription_ack is not None)
        opened = listens(c.store)
        assert len(opened) == 1
        # The server declared tools.listChanged only (and resources.subscribe, not listChanged).
        assert opened[0]["params"]["notifications"] == {"toolsListChanged": True}
        assert "io.modelcontextprotocol/protocolVersion" in opened[0]["params"]["_meta"]
        assert s.subscription_ack == {"toolsListChanged": True}

        await s.call_tool("add_tool", {"name": "zzz"})
        await until(lambda: any(e.cause == "notification" for e in c.of_type(ListChanged)))
        changed = [e for e in c.of_type(ListChanged) if e.cause == "notification"][0]
        assert changed.kind == "tools" and [t["name"] for t in changed.diff.added] == ["zzz"]
        assert s.tool("zzz") is not None
        tagged = [json.loads(e.raw) for e in c.store if e.method == "notifications/tools/list_changed"]
        assert tagged[0]["params"]["_meta"][SUB] == opened[0]["id"]


@pytest.mark.parametrize("how", ["end_listen", "cancel_listen"])
async def test_a_stream_the_server_ends_is_reopened(connect, how):
    async with connect(MODERN, era="auto") as c:
        s = c.session
        await until(lambda: s.subscription_ack is not None)
        await s.call_tool(how, {})
        await until(lambda: len(listens(c.store)) == 2 and s.subscription_ack is not None)
        first, second = listens(c.store)
        assert second["id"] != first["id"]
        assert any(
            e.kind is Kind.EVENT and b"subscriptions/listen stream" in e.raw and b"reopening" in e.raw for e in c.store
        )
        # The new stream works: a change is seen through it.
        await s.call_tool("add_tool", {"name": "again"})
        await until(lambda: s.tool("again") is not None)


async def test_subscribe_reopens_the_stream_with_the_uri(connect):
    async with connect(MODERN, era="auto") as c:
        s = c.session
        await until(lambda: s.subscription_ack is not None)
        first = listens(c.store)[0]
        assert await s.subscribe("memo://one") == {}
        await until(lambda: len(listens(c.store)) == 2 and s.subscription_ack is not None)
        second = listens(c.store)[1]
        assert second["params"]["notifications"] == {"toolsListChanged": True, "resourceSubscriptions": ["memo://one"]}
        assert s.subscription_ack == {"toolsListChanged": True, "resourceSubscriptions": ["memo://one"]}
        cancelled = [
            json.loads(e.raw) for e in c.store if e.direction is Direction.OUT and e.method == "notifications/cancelled"
        ]
        assert [m["params"]["requestId"] for m in cancelled] == [first["id"]]
        assert "resources/subscribe" not in [e.method for e in c.store]
        await s.call_tool("touch", {"uri": "memo://one"})
        await until(lambda: bool(c.of_type(ResourceUpdated)))
        assert [e.uri for e in c.of_type(ResourceUpdated)] == ["memo://one"]


async def test_auto_refresh_false_opens_no_stream(connect):
    async with connect(MODERN, era="auto", auto_refresh=False) as c:
        await c.session.list_tools()
        await c.session.call_tool("add_tool", {"name": "quiet"})
        assert listens(c.store) == []
        assert c.session.subscription_ack is None


async def test_an_untagged_list_changed_is_flagged_and_ignored(connect):
    async with connect(MODERN + ["--mode", "untagged"], era="auto") as c:
        s = c.session
        await s.list_tools()
        await until(lambda: s.subscription_ack is not None)
        await s.call_tool("add_tool", {"name": "stray"})
        stray = [e for e in c.store if e.method == "notifications/tools/list_changed"]
        assert len(stray) == 1 and "not tagged with the subscriptionId" in (stray[0].problem or "")
        await s.ping()  # a round trip after it: a refresh would have started by now
        assert [e.method for e in c.store if e.direction is Direction.OUT].count("tools/list") == 1


async def test_acknowledgment_for_a_uri_waits_for_the_stream_that_asked_for_it(connect):
    """The wait is on events (no poll): it returns the ack of the reopened stream that carries the
    URI, not the first stream's, and None at once for a URI no longer subscribed or a closed session."""
    async with connect(MODERN, era="auto") as c:
        s = c.session
        await until(lambda: s.subscription_ack is not None)  # the first stream's ack: no URI in it
        await s.subscribe("memo://one")
        ack = await s.subscriptions.acknowledgment_for("memo://one")
        assert ack == {"toolsListChanged": True, "resourceSubscriptions": ["memo://one"]}
        assert len(listens(c.store)) == 2
        assert await s.subscriptions.acknowledgment_for("memo://never") is None
        await s.subscribe("memo://two")
        await s.unsubscribe("memo://two")
        assert await s.subscriptions.acknowledgment_for("memo://two") is None
        await s.close()
        assert await s.subscriptions.acknowledgment_for("memo://one") is None
