"""URL elicitation required (-32042) and notifications/elicitation/complete, on real servers.

``tests/servers/raw_server.py --mode url-required``: ``signin`` fails with -32042 listing two
URL elicitations until both are complete; ``complete {id}`` completes one and sends the
notification. server-everything's ``trigger-url-elicitation`` with ``errorPath=true`` answers
-32042 once and lets the same call through when it is retried (it sends no complete
notification).
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from waiting import until

from mcp_inspector.core.base.errors import RpcError
from mcp_inspector.core.session.answers import headless_handlers
from mcp_inspector.core.session.events import ElicitationCompleted
from mcp_inspector.core.session.url_elicitation import UrlElicitationRequired, read_elicitations

pytestmark = pytest.mark.anyio

RAW = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "raw_server.py"), "--mode", "url-required"]


async def test_minus_32042_lists_the_urls_and_the_call_to_retry(connect) -> None:
    with anyio.fail_after(30):
        async with connect(RAW) as c:
            with pytest.raises(UrlElicitationRequired) as raised:
                await c.session.call_tool("signin", {"why": "test"})
            error = raised.value
            assert isinstance(error, RpcError) and error.code == -32042 and error.message == "Sign in first"
            assert (error.name, error.arguments) == ("signin", {"why": "test"})
            assert [(e.elicitation_id, e.url, e.message) for e in error.elicitations] == [
                ("e-1", "https://auth.example/start", "Sign in to Example"),
                ("e-2", "https://pay.example/approve", "Approve the payment"),
            ]
            assert [e.facts.host for e in error.elicitations] == ["auth.example", "pay.example"]
            assert error.ids == {"e-1", "e-2"} and error.problems == []
            lines = error.describe()
            assert "these 2 URLs" in lines[0]
            assert "  https://auth.example/start   (opens a page on auth.example)" in lines

            await c.session.call_tool("complete", {"id": "e-1"})
            await c.session.call_tool("complete", {"id": "e-2"})
            await until(lambda: not (len(c.of_type(ElicitationCompleted)) < 2))
            assert [e.elicitation_id for e in c.of_type(ElicitationCompleted)] == ["e-1", "e-2"]
            assert set(c.session.completed_elicitations) == {"e-1", "e-2"}
            outcome = await c.session.call_tool("signin", {"why": "test"})  # the retry goes through
            assert outcome.result["content"][0]["text"] == "signed in"


async def test_a_complete_notification_without_an_id_is_marked_not_counted(connect) -> None:
    with anyio.fail_after(30):
        async with connect(RAW) as c:
            await c.session.call_tool("complete", {})
            await until(lambda: [e for e in c.store if e.method == "notifications/elicitation/complete"])
            frame = next(e for e in c.store if e.method == "notifications/elicitation/complete")
            assert "without an elicitationId" in (frame.problem or "")
            assert c.session.completed_elicitations == {} and not c.of_type(ElicitationCompleted)


def test_malformed_data_is_read_without_failing() -> None:
    assert read_elicitations(None) == (
        [],
        ["the error's data has no elicitations list (2025-11-25: data.elicitations)"],
    )
    items, problems = read_elicitations(
        {"elicitations": [7, {"url": "javascript:alert(1)"}, *[{"elicitationId": "x", "url": "https://a.b"}] * 30]}
    )
    assert len(items) == 19  # 20 read, one of them not an object
    assert items[0].elicitation_id is None and not items[0].facts.can_open
    assert problems[0] == "elicitations[0] is not an object"
    assert "elicitations[1] has no elicitationId" in problems[1]
    assert problems[-1] == "32 elicitations listed: only the first 20 are shown"


@pytest.mark.everything
async def test_server_everything_error_path_then_the_retry(connect, server_everything) -> None:
    with anyio.fail_after(60):
        async with connect(server_everything, timeout=20, handlers=headless_handlers()) as c:
            arguments = {"url": "https://example.com/login", "errorPath": True}
            with pytest.raises(UrlElicitationRequired) as raised:
                await c.session.call_tool("trigger-url-elicitation", arguments)
            [item] = raised.value.elicitations
            assert item.url == "https://modelcontextprotocol.io" and item.facts.host == "modelcontextprotocol.io"
            assert isinstance(item.elicitation_id, str) and item.elicitation_id
            # the same call again proceeds (by the request path: a URL-mode elicitation/create,
            # which the headless client declines)
            outcome = await c.session.call_tool("trigger-url-elicitation", arguments)
            assert "declined" in outcome.result["content"][0]["text"]
