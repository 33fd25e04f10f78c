"""Frames sent by hand (core/protocol/raw.py) on real servers: the demo over stdio, server-everything
and the SDK's server over Streamable HTTP (both eras). Each frame is recorded exactly as sent and
what comes back is linked to it, as the session's own requests are."""

from __future__ import annotations

import asyncio
import json

import anyio
import pytest
from conftest import demo_server_command

from mcp_inspector.core.base.errors import RequestCancelled, RpcError
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.protocol import raw_templates as templates
from mcp_inspector.core.protocol.raw import IdInFlight, fresh_id, prepare, send_frame
from mcp_inspector.core.session.mcp_session import McpSession
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.http import HttpTransport

pytestmark = pytest.mark.anyio


async def reply_to(store, entry, timeout: float = 10.0):
    """The frame linked to ``entry`` as its reply (waits for it; a hang guard, not a timing assertion)."""
    with anyio.fail_after(timeout):
        while entry.reply_seq is None:
            await anyio.sleep(0.01)
    return store.get(entry.reply_seq)


async def send_text(session, text: str, as_is: bool = False):
    data, warnings = prepare(text, as_is=as_is, stdio=session.transport.kind == "stdio")
    return await send_frame(session.connection, data), warnings


# -- stdio: the demo --------------------------------------------------------


async def test_a_ping_by_hand_is_recorded_as_typed_and_its_pong_linked(connect):
    async with connect(demo_server_command()) as c:
        text = templates.request(fresh_id(c.session.connection), "ping")
        sent, warnings = await send_text(c.session, text)
        assert warnings == [] and sent.kind is Kind.REQUEST and sent.entry.msg_id == "raw-1"
        # over stdio the frame is one line: only the line breaks and the indentation after them go
        assert sent.entry.raw == b'{"jsonrpc": "2.0","id": "raw-1","method": "ping"}'
        assert json.loads(sent.entry.raw) == json.loads(text)
        assert await sent.pending.wait() == {}
        pong = await reply_to(c.store, sent.entry)
        assert pong.reply_to == sent.entry.seq and pong.kind is Kind.RESPONSE and pong.latency_ms is not None
        assert sent.entry.meta == {"by_hand": True}


async def test_an_unknown_method_gets_the_servers_method_not_found(connect):
    async with connect(demo_server_command()) as c:
        sent, _ = await send_text(c.session, '{"jsonrpc":"2.0","id":"raw-x","method":"no/such/method"}')
        with pytest.raises(RpcError) as caught:
            await sent.pending.wait()
        assert caught.value.code == -32601
        reply = await reply_to(c.store, sent.entry)
        assert reply.kind is Kind.ERROR and reply.error_code == -32601


async def test_a_notification_awaits_nothing(connect):
    async with connect(demo_server_command()) as c:
        sent, _ = await send_text(c.session, templates.notification("notifications/roots/list_changed"))
        assert sent.kind is Kind.NOTIFICATION and sent.waits == [] and not sent.expects_reply
        assert c.session.connection.pending == []


async def test_invalid_json_gets_the_parse_error_linked_and_the_session_goes_on(connect):
    async with connect(demo_server_command()) as c:
        sent, warnings = await send_text(c.session, templates.INVALID_JSON + "\n", as_is=True)
        assert warnings == [] and sent.kind is Kind.INVALID
        assert sent.entry.raw == templates.INVALID_JSON.encode()  # the newline that ends the line is the transport's
        reply = await reply_to(c.store, sent.entry)
        assert reply.kind is Kind.ERROR and reply.error_code == -32700 and reply.msg_id is None
        assert reply.reply_to == sent.entry.seq
        assert await c.session.ping() is not None  # still working


async def test_text_that_is_not_json_is_refused_unless_sent_as_is():
    from mcp_inspector.core.protocol.raw import FrameRefused

    with pytest.raises(FrameRefused, match="line 2, column 1"):
        prepare('{"jsonrpc": "2.0",\n', as_is=False, stdio=True)
    data, warnings = prepare('{"a":\n1}\n', as_is=True, stdio=True)
    assert data == b'{"a":\n1}' and warnings == [
        "the text holds line breaks: over stdio the server reads it as 2 lines"
    ]
    data, warnings = prepare('{"a":\n1}\n', as_is=True, stdio=False)  # one HTTP body: nothing splits it
    assert data == b'{"a":\n1}\n' and warnings == []


async def test_a_batch_is_one_frame_and_the_demos_refusal_ends_its_requests(connect):
    async with connect(demo_server_command()) as c:
        conn = c.session.connection
        sent, _ = await send_text(c.session, templates.batch(fresh_id(conn), fresh_id(conn)))
        assert sent.kind is Kind.BATCH and len(sent.members) == 2
        assert sent.notes == ["batches were removed in 2025-06-18 (this session speaks 2025-11-25): sent anyway"]
        assert [e.kind for e in c.store if e.direction is Direction.OUT][-1] is Kind.BATCH
        reply = await reply_to(c.store, sent.entry)
        assert reply.error_code == -32600 and reply.reply_to == sent.entry.seq  # the demo refuses batches: id null
        for member in sent.members:
            with pytest.raises(RpcError):
                await member.wait()
        assert conn.pending == []


async def test_cancelling_a_call_in_flight_by_hand_ends_it(connect):
    async with connect(demo_server_command()) as c:
        await c.session.list_tools()
        conn = c.session.connection
        call = await conn.send_request(
            "tools/call", {"name": "long_running_task", "arguments": {"duration_seconds": 60, "steps": 60}}
        )
        sent, _ = await send_text(c.session, templates.cancelled(call.id))
        assert sent.cancelled is call
        with pytest.raises(RequestCancelled, match="cancelled by a frame sent by hand"):
            await call.wait()
        assert conn.pending == []
        cancels = [e for e in c.store if e.direction is Direction.OUT and e.method == "notifications/cancelled"]
        assert len(cancels) == 1  # the hand-written one; none added by the connection
        assert await c.session.ping() is not None


async def test_a_response_by_hand_answers_a_waiting_server_request_once(connect):
    asked = asyncio.Event()
    never = asyncio.Event()

    async def elicit(params, entry):  # the answering screen: a person who never answers
        asked.set()
        await never.wait()
        return {"action": "decline"}

    async with connect(demo_server_command(), handlers={"elicitation/create": elicit}) as c:
        conn = c.session.connection
        await c.session.list_tools()
        call = await conn.send_request("tools/call", {"name": "ask_the_client", "arguments": {"kind": "elicitation"}})
        with anyio.fail_after(30):
            await asked.wait()
        (waiting,) = conn.server_requests
        assert waiting.method == "elicitation/create"
        answer = {"jsonrpc": "2.0", "id": waiting.id, "result": {"action": "accept", "content": {"name": "By Hand"}}}
        sent, _ = await send_text(c.session, json.dumps(answer))
        assert sent.answered is waiting and sent.entry.reply_to == waiting.entry.seq
        assert waiting.entry.reply_seq == sent.entry.seq
        result = await call.wait()
        assert "By Hand" in result["content"][0]["text"]
        assert conn.server_requests == []
        responses = [e for e in c.store if e.direction is Direction.OUT and e.kind is Kind.RESPONSE]
        assert responses == [sent.entry]  # the handler, withdrawn, sent nothing


async def test_an_id_in_flight_is_refused_with_a_fresh_one_offered(connect):
    async with connect(demo_server_command()) as c:
        conn = c.session.connection
        await c.session.list_tools()
        call = await conn.send_request(
            "tools/call", {"name": "long_running_task", "arguments": {"duration_seconds": 60, "steps": 60}}
        )
        before = len(c.store)
        with pytest.raises(
            IdInFlight, match=rf'id {call.id} is already in flight \(tools/call, #\d+\): use another id, e.g. "raw-1"'
        ):
            await send_text(c.session, templates.request(call.id, "ping"))
        assert len(c.store) == before  # nothing recorded, nothing sent
        sent, _ = await send_text(c.session, templates.request("raw-2", "ping"))
        with pytest.raises(IdInFlight, match="the batch holds two requests"):
            await send_text(c.session, templates.batch("raw-9", "raw-9"))
        await sent.pending.wait()
        await call.cancel()


async def test_fresh_ids_skip_what_is_in_flight(connect):
    async with connect(demo_server_command()) as c:
        conn = c.session.connection
        sent, _ = await send_text(c.session, templates.request("raw-1", "ping"))
        assert fresh_id(conn) == "raw-2"  # raw-1 may still be in flight; never offered twice anyway
        await sent.pending.wait()


# -- Streamable HTTP ----------------------------------------------------------


async def http_session(url: str, era: str = "legacy"):
    store = TrafficStore()
    transport = HttpTransport(url, mode="auto", http_log=store.http_log)
    return McpSession(transport, store=store, era=era, timeout=15, init_timeout=15)


async def test_over_streamable_http_frames_by_hand_are_posted_and_linked(everything_http_url):
    session = await http_session(everything_http_url)
    with anyio.fail_after(30):
        async with session:
            await session.initialize()
            sent, _ = await send_text(session, templates.request("raw-1", "ping"))
            assert await sent.pending.wait() == {}
            assert (await reply_to(session.store, sent.entry)).kind is Kind.RESPONSE
            post = [x for x in session.store.http_log.exchanges if x.rpc_method == "ping"][-1]
            assert post.header("Mcp-Session-Id", response=False) == session.transport.session_id
            sent, _ = await send_text(session, '{"jsonrpc":"2.0","id":"raw-2","method":"no/such/method"}')
            with pytest.raises(RpcError) as caught:
                await sent.pending.wait()
            assert caught.value.code == -32601
            sent, _ = await send_text(session, "this is not json", as_is=True)
            reply = await reply_to(session.store, sent.entry)
            assert reply.reply_to == sent.entry.seq and reply.error_code == -32700 and reply.meta["status"] == 400
            sent, _ = await send_text(session, '[{"jsonrpc":"2.0","id":"b1","method":"ping"}]')
            assert await sent.members[0].wait() == {}  # server-everything answers the one request
            assert (await reply_to(session.store, sent.entry)).msg_id == "b1"
            assert await session.ping() is not None


async def test_in_the_2026_era_a_request_by_hand_carries_the_sessions_meta(sdk_modern_http_url):
    session = await http_session(sdk_modern_http_url, era="modern")
    with anyio.fail_after(30):
        async with session:
            await session.initialize()
            assert session.era == "modern"
            text = templates.request(fresh_id(session.connection), "tools/list", {}, session.request_meta())
            sent, _ = await send_text(session, text)
            result = await sent.pending.wait()
            assert any(tool["name"] == "echo" for tool in result["tools"])
            answer, _ = await send_text(session, '{"jsonrpc":"2.0","id":7,"result":{}}')
            assert answer.notes == [
                "2026-07-28 servers send no requests: no request waits for this response (sent anyway)"
            ]


async def test_over_legacy_http_sse_a_frame_by_hand_is_posted_to_the_endpoint(everything_sse_url):
    session = await http_session(everything_sse_url)
    with anyio.fail_after(30):
        async with session:
            await session.initialize()
            assert session.transport.kind == "sse"
            sent, _ = await send_text(session, templates.request("raw-1", "tools/list", {}))
            result = await sent.pending.wait()
            assert any(tool["name"] == "echo" for tool in result["tools"])
            reply = await reply_to(session.store, sent.entry)
            assert reply.reply_to == sent.entry.seq and reply.latency_ms is not None
