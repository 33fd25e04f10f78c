"""A server that floods the client with requests gets a bounded answer (core/protocol/incoming.py).

``tests/servers/request_flood_server.py``'s tool ``flood`` writes N requests in one write and
``tally`` says what came back to the server. A handler that waits (a person at a form) holds
its request; at most ``MAX_WAITING_SERVER_REQUESTS`` wait, the rest are answered at once with
``TOO_MANY_WAITING``, counted, and said in the traffic store.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from waiting import until, until_async

from mcp_inspector.core.protocol.incoming import MAX_WAITING_SERVER_REQUESTS, TOO_MANY_WAITING
from mcp_inspector.core.traffic.entry import Direction

pytestmark = pytest.mark.anyio

SERVER = [sys.executable, str(Path(__file__).resolve().parent.parent / "servers" / "request_flood_server.py")]
FLOOD = 1000


def notes(store) -> list[str]:
    return [e.text for e in store if e.direction is Direction.LOCAL and (e.meta or {}).get("server_requests_refused")]


async def test_at_most_the_cap_wait_and_the_rest_are_refused_at_once(connect):
    release = asyncio.Event()
    hooked: list[str] = []

    async def elicit(params, entry):  # a person who answers only when released
        await release.wait()
        return {"action": "decline"}

    elicit.mcp_refused = hooked.append
    async with connect(SERVER, handlers={"elicitation/create": elicit}) as c:
        conn = c.session.connection
        result = await c.session.call_tool("flood", {"count": FLOOD})
        assert result.result["content"][0]["text"] == f"asked {FLOOD}"
        excess = FLOOD - MAX_WAITING_SERVER_REQUESTS
        await until(lambda: conn.refused_requests == excess, what="the excess refused")
        assert len(conn.server_requests) == MAX_WAITING_SERVER_REQUESTS
        assert hooked == ["elicitation/create"] * excess
        assert len(notes(c.store)) == 1 and "more are refused" in notes(c.store)[0]  # said once, not 900 times
        await until(
            lambda: (
                sum(1 for e in c.store if e.direction is Direction.OUT and e.error_code == TOO_MANY_WAITING) == excess
            ),
            what="the refusals sent",
        )
        release.set()
        await until(lambda: not conn.server_requests, what="the waiting requests answered")
        tally = json.loads((await c.session.call_tool("tally", {})).result["content"][0]["text"])
        assert tally["answered"] == FLOOD
        assert tally["codes"] == {str(TOO_MANY_WAITING): excess}
        assert tally["actions"] == {"decline": MAX_WAITING_SERVER_REQUESTS}
        assert tally["first_result"] == "f-1"  # the first ones waited; the last ones were refused
        await until(lambda: len(notes(c.store)) == 2, what="the count said once fewer wait")
        assert f"{excess} server requests refused" in notes(c.store)[1]
        # the line is open again: a new request waits instead of being refused
        release.clear()
        await c.session.call_tool("flood", {"count": 1})
        await until(lambda: len(conn.server_requests) == 1, what="a new request waiting")
        assert conn.refused_requests == excess
        release.set()


async def test_pings_are_answered_while_the_line_is_full(connect):
    never = asyncio.Event()

    async def elicit(params, entry):
        await never.wait()
        return {}

    async with connect(SERVER, handlers={"elicitation/create": elicit}) as c:
        conn = c.session.connection
        await c.session.call_tool("flood", {"count": MAX_WAITING_SERVER_REQUESTS + 5})
        await until(lambda: conn.refused_requests == 5, what="the line full")
        await c.session.call_tool("flood", {"count": 3, "method": "ping"})
        tally_text = ""

        async def pongs() -> bool:
            nonlocal tally_text
            tally_text = (await c.session.call_tool("tally", {})).result["content"][0]["text"]
            return json.loads(tally_text)["results"] == 3

        await until_async(pongs, what="three pongs")
        assert json.loads(tally_text)["codes"] == {str(TOO_MANY_WAITING): 5}
