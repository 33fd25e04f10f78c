"""HttpTransport against a hand-written misbehaving HTTP server (tests/servers/http_raw_server.py)
on 127.0.0.1, driven through RpcConnection: every failure is a clear event, never a traceback
or a hang; the HTTP details (session id, headers, resumption, redirects) are as the spec says."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from waiting import until

from mcp_inspector.core.base.errors import RpcError, TransportFailure
from mcp_inspector.core.protocol.rpc import RpcConnection
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.base import Closed, Note, Received, TransportError, Undelivered
from mcp_inspector.core.transport.http import HttpTransport
from mcp_inspector.core.transport.http_headers import decode_header_value, invalid_header_reason, tool_param_headers

SERVER = Path(__file__).resolve().parent.parent / "servers" / "http_raw_server.py"
TOKEN = "Bearer sk-live-0123456789abcdef"
pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def raw_http_server() -> Any:
    """(http base URL, https base URL with a self-signed certificate)."""
    process = subprocess.Popen([sys.executable, str(SERVER), "--tls"], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("PORT "), line
        tls = process.stdout.readline()
        assert tls.startswith("TLSPORT "), tls
        yield f"http://127.0.0.1:{int(line.split()[1])}", f"https://127.0.0.1:{int(tls.split()[1])}"
    finally:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def base_url(raw_http_server: tuple[str, str]) -> str:
    return raw_http_server[0]


def server_log(base_url: str, mode: str) -> list[dict]:
    with urllib.request.urlopen(f"{base_url}/_log/{mode}", timeout=5) as response:
        return json.loads(response.read())


def call_streaming(store: TrafficStore, rpc_id: Any) -> bool:
    """The server answered the POST of request ``rpc_id`` with its headers: the call is under way."""
    return any(x.rpc_id == rpc_id and x.status is not None for x in store.http_log.exchanges)


class Harness:
    def __init__(self, transport: HttpTransport, conn: RpcConnection, store: TrafficStore) -> None:
        self.transport = transport
        self.conn = conn
        self.store = store
        self.events: list[Any] = []

    def of(self, cls: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]

    async def handshake(self, version: str = "2025-11-25") -> dict:
        result = await self.conn.request(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
        )
        self.transport.set_protocol_version(result["protocolVersion"])
        await self.conn.notify("notifications/initialized")
        return result


@asynccontextmanager
async def connected(url: str, **options: Any) -> AsyncIterator[Harness]:
    store = TrafficStore()
    options.setdefault("headers", {"Authorization": TOKEN})
    transport = HttpTransport(url, http_log=store.http_log, **options)
    conn = RpcConnection(transport, store, default_timeout=10)
    harness = Harness(transport, conn, store)
    deliver = conn._on_event

    def observe(event: Any) -> None:  # see every transport event, then hand it on unchanged
        harness.events.append(event)
        deliver(event)

    conn._on_event = observe  # type: ignore[method-assign]
    with anyio.fail_after(30):  # a hang guard, not a timing assertion
        async with anyio.create_task_group() as tg:
            await conn.start(tg)
            try:
                yield harness
            finally:
                await conn.aclose()
                tg.cancel_scope.cancel()


async def test_legacy_session_headers_standalone_405_and_delete(base_url):
    async with connected(f"{base_url}/ok") as h:
        await h.handshake()
        assert h.transport.session_id == "s1"
        result = await h.conn.request("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        assert json.loads(result["content"][0]["text"]) == {"text": "hi"}
        # the standalone GET runs in the background
        await until(lambda: any("405" in n.text for n in h.of(Note)), what="the GET's 405 noted")
        received = [e for e in h.of(Received) if e.meta and e.meta.get("request_id") is not None]
        assert all(e.meta["status"] == 200 and isinstance(e.meta["exchange"], int) for e in received)
    log = server_log(base_url, "ok")
    init, initialized, call = [entry for entry in log if entry["method"] == "POST"][-3:]
    assert "mcp-session-id" not in init["headers"] and "mcp-protocol-version" not in init["headers"]
    assert init["headers"]["accept"] == "application/json, text/event-stream"
    assert init["headers"]["content-type"] == "application/json"
    assert initialized["headers"]["mcp-session-id"] == "s1"
    assert call["headers"]["mcp-session-id"] == "s1" and call["headers"]["mcp-protocol-version"] == "2025-11-25"
    assert call["headers"]["mcp-method"] == "tools/call" and call["headers"]["mcp-name"] == "echo"
    methods = [entry["method"] for entry in log]
    assert methods.count("GET") == 1  # 405: noted once, not retried
    assert methods[-1] == "DELETE" and log[-1]["headers"]["mcp-session-id"] == "s1"
    assert len([n for n in h.of(Note) if "405" in n.text]) == 1
    assert h.of(Closed) and h.of(Closed)[0].expected


async def test_initialize_again_starts_a_new_session_without_the_old_id(base_url):
    async with connected(f"{base_url}/sse") as h:
        await h.handshake()
        first = h.transport.session_id
        await h.handshake()
        assert h.transport.session_id not in (None, first)
    inits = [entry for entry in server_log(base_url, "sse") if '"initialize"' in entry["body"]]
    assert "mcp-session-id" not in inits[-1]["headers"]


async def test_the_standalone_stream_is_open_before_the_next_request(base_url):
    async with connected(f"{base_url}/pushget") as h:
        await h.handshake()
        await h.conn.request("tools/call", {"name": "echo", "arguments": {}})  # right after initialized
        await until(lambda: any(b"on the GET stream" in e.raw for e in h.of(Received)), what="the pushed notification")
        pushed = [e for e in h.of(Received) if b"on the GET stream" in e.raw]
        assert pushed, "the server sent its notification before the GET stream was open"
        stream = h.store.http_log.get(pushed[0].meta["exchange"])
        assert stream.method == "GET" and stream.note == "standalone stream" and pushed[0].meta["request_id"] is None
    assert stream.state == "done"  # closing the transport finished the open stream in the log
    assert not [x for x in h.store.http_log.exchanges if x.state == "open"]


async def test_a_batch_reply_and_a_parse_error_are_delivered(base_url):
    async with connected(f"{base_url}/ok") as h:
        await h.handshake()
        await h.conn.send_raw(
            b'[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]'
        )
        await h.conn.send_raw(b'{"jsonrpc":"2.0", "id": 5, "method": "ping"')  # cut short
        await until(
            lambda: len([e for e in h.of(Received) if e.meta and e.meta.get("request_id") is None]) >= 2,
            what="the two replies",
        )
        bodies = [e.raw for e in h.of(Received) if e.meta and e.meta.get("request_id") is None]
        assert any(raw.startswith(b"[") and b'"b2"' in raw for raw in bodies)
        assert any(b"-32700" in raw for raw in bodies)


async def test_sse_reply_with_a_notification_first(base_url):
    async with connected(f"{base_url}/sse") as h:
        await h.handshake()
        result = await h.conn.request("tools/call", {"name": "echo", "arguments": {"n": 1}})
        assert "content" in result
        frames = [e for e in h.of(Received) if e.meta and e.meta.get("sse_id") in ("p1", "p2")]
        assert [e.meta["sse_id"] for e in frames] == ["p1", "p2"]
        exchange = h.store.http_log.get(frames[0].meta["exchange"])
        assert exchange is not None and exchange.event_count == 2 and exchange.content_type == "text/event-stream"
        assert exchange.rpc_method == "tools/call"


async def test_many_requests_are_in_flight_at_once(base_url):
    async with connected(f"{base_url}/together") as h:
        await h.handshake()
        pending = [
            await h.conn.send_request("tools/call", {"name": "echo", "arguments": {"n": 12, "i": i}}) for i in range(12)
        ]
        results = [await p.wait() for p in pending]  # the server answers none until all 12 are waiting
        assert [json.loads(r["content"][0]["text"])["i"] for r in results] == list(range(12))


async def test_500_with_html_is_undelivered_with_a_short_quote(base_url):
    async with connected(f"{base_url}/html500") as h:
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request(
                "initialize",
                {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
            )
        assert failure.value.status == 500
        assert "HTTP 500" in failure.value.reason and "Internal Server Error" in failure.value.reason
        assert len(failure.value.reason) < 450  # the 2 KB page is quoted, cut
        undelivered = h.of(Undelivered)[0]
        assert undelivered.meta["legacy_hint"] is False and undelivered.meta["status"] == 500
        assert h.transport.can_fall_back


async def test_an_endless_error_page_is_read_only_so_far(base_url):
    async with connected(f"{base_url}/endless500") as h:
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("ping")
        assert failure.value.status == 500 and "Broken" in failure.value.reason
        exchange = h.store.http_log.get(h.of(Undelivered)[0].meta["exchange"])
        assert exchange.response_size <= 2 << 20 and exchange.state == "failed"


async def test_400_with_a_jsonrpc_error_is_a_frame_answering_the_request(base_url):
    async with connected(f"{base_url}/status400json") as h:
        with pytest.raises(RpcError) as failure:
            await h.conn.request("tools/list")
        assert failure.value.code == -32020 and "HeaderMismatch" in str(failure.value)
        frame = h.of(Received)[0]
        assert frame.meta["status"] == 400 and frame.meta["request_id"] is not None
        assert not h.of(Undelivered)


async def test_a_stream_cut_mid_reply_is_undelivered(base_url):
    async with connected(f"{base_url}/cut") as h:
        await h.handshake()
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        assert "ended before the reply" in failure.value.reason and "bytes lost" in failure.value.reason
        assert any(b"notifications/message" in e.raw for e in h.of(Received))  # what came before is kept


async def test_wrong_content_type_is_undelivered(base_url):
    async with connected(f"{base_url}/wrongtype") as h:
        await h.handshake()
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        assert "text/plain" in failure.value.reason and "this is not JSON" in failure.value.reason


@pytest.mark.parametrize("mode", ["notjson", "otherid"])
async def test_a_json_body_that_does_not_answer_is_kept_and_the_request_fails(base_url, mode):
    async with connected(f"{base_url}/{mode}") as h:
        await h.handshake()
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        assert "the JSON body does not answer the request" in failure.value.reason
        frames = [
            e for e in h.of(Received) if e.meta and e.meta.get("status") == 200 and e.meta.get("request_id") is not None
        ]
        assert frames[-1].raw in (b"{this is not json", b'{"jsonrpc": "2.0", "id": "someone-else", "result": {}}')


async def test_expired_session_404_clears_it_and_tells_the_session(base_url):
    expired: list[bool] = []
    async with connected(f"{base_url}/expire") as h:
        h.transport.on_session_expired = lambda: expired.append(True)
        await h.handshake()
        assert h.transport.session_id == "s1"
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        assert failure.value.status == 404 and not failure.value.legacy_hint
        assert expired == [True] and h.transport.session_id is None
        assert any("ended the session s1" in n.text for n in h.of(Note))
        await h.handshake()  # a new session
        assert h.transport.session_id not in (None, "s1")
        await h.conn.request("tools/call", {"name": "echo", "arguments": {}})


async def test_keep_alives_keep_a_slow_stream_under_the_idle_timeout(base_url):
    async with connected(f"{base_url}/slow", read_timeout=0.3) as h:
        await h.handshake()
        result = await h.conn.request("tools/call", {"name": "echo", "arguments": {"steps": 8, "pause": 0.1}})
        assert json.loads(result["content"][0]["text"])["steps"] == 8


async def test_a_per_message_read_timeout_overrides_the_idle_timeout(base_url):
    async with connected(f"{base_url}/slow", read_timeout=0.3) as h:
        await h.handshake()
        result = await h.conn.request(
            "tools/call",
            {"name": "echo", "arguments": {"steps": 2, "pause": 0.7}},
            transport_meta={"read_timeout": None},
        )
        assert json.loads(result["content"][0]["text"])["steps"] == 2


async def test_a_silent_stream_trips_the_idle_timeout(base_url):
    async with connected(f"{base_url}/silent", read_timeout=0.3) as h:
        await h.handshake()
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        assert "sent nothing for the read timeout" in failure.value.reason


async def test_a_huge_event_arrives_as_its_head_and_the_stream_goes_on(base_url):
    async with connected(f"{base_url}/huge", max_frame_bytes=1 << 20) as h:
        await h.handshake()
        result = await h.conn.request("tools/call", {"name": "echo", "arguments": {"huge_bytes": 3 << 20}})
        assert "content" in result
        big = [e for e in h.of(Received) if e.problem]
        assert len(big) == 1 and "too long" in big[0].problem and len(big[0].raw) <= 1 << 20
        assert big[0].meta["size"] > 3 << 20


async def test_a_stream_that_never_closes_is_closed_after_its_reply(base_url):
    async with connected(f"{base_url}/neverclose") as h:
        await h.handshake()
        await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        exchange = [x for x in h.store.http_log.exchanges if x.rpc_method == "tools/call"][0]
        assert exchange.state == "done"


async def test_priming_event_then_close_is_resumed_with_last_event_id(base_url):
    async with connected(f"{base_url}/resume") as h:
        await h.handshake()
        result = await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        assert result["content"][0]["text"] == "resumed after e1"
        post = [x for x in h.store.http_log.exchanges if x.rpc_method == "tools/call"][0]
        resumed = [x for x in h.store.http_log.exchanges if x.note == "resume"]
        assert (
            resumed and resumed[-1].resumes == post.id and resumed[-1].header("Last-Event-ID", response=False) == "e1"
        )
        frame = [e for e in h.of(Received) if e.meta and e.meta.get("sse_id") == "e3"][0]
        assert frame.meta["exchange"] == resumed[-1].id
    gets = [
        entry
        for entry in server_log(base_url, "resume")
        if entry["method"] == "GET" and "last-event-id" in entry["headers"]
    ]
    assert gets and gets[-1]["headers"]["last-event-id"] == "e1" and gets[-1]["headers"]["mcp-session-id"]


async def test_polling_for_an_abandoned_request_stops(base_url):
    from mcp_inspector.core.base.errors import RequestTimeout

    async with connected(f"{base_url}/poll") as h:
        await h.handshake()
        with pytest.raises(RequestTimeout):
            await h.conn.request("tools/call", {"name": "echo", "arguments": {}}, timeout=0.6)

        def polls() -> int:
            return len(
                [e for e in server_log(base_url, "poll") if e["method"] == "GET" and "last-event-id" in e["headers"]]
            )

        assert polls() >= 2  # it was polling (each poll brought a new event id: progress)
        before = polls()
        await anyio.sleep(0.6)  # six retry periods
        assert polls() <= before + 1  # stopped (one may have been under way)
        assert any(b"notifications/cancelled" in e.raw for e in h.store)  # legacy: the cancellation is still sent


async def test_a_stream_that_cannot_be_resumed_is_undelivered(base_url):
    async with connected(f"{base_url}/noresume") as h:
        await h.handshake()
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        assert "could not be resumed" in failure.value.reason and "405" in failure.value.reason


async def test_invalid_sse_json_is_a_frame_and_the_reply_still_comes(base_url):
    async with connected(f"{base_url}/badjson") as h:
        await h.handshake()
        await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        bad = [entry for entry in list(h.store) if entry.raw == b"{not json"]
        assert bad and bad[0].problem


async def test_x_mcp_header_mirrors_reach_the_server(base_url):
    async with connected(f"{base_url}/badtools") as h:
        await h.handshake()
        tools = (await h.conn.request("tools/list"))["tools"]
        valid = [tool["name"] for tool in tools if invalid_header_reason(tool) is None]
        assert valid == ["valid_tool"]
        tool = tools[0]
        arguments = {"region": "us-west1", "priority": 42, "note": "Hello, 世界"}
        result = await h.conn.request(
            "tools/call",
            {"name": "valid_tool", "arguments": arguments},
            transport_meta={"headers": tool_param_headers(tool, arguments)},
        )
        seen = json.loads(result["content"][0]["text"])
        assert seen["mcp-param-region"] == "us-west1" and seen["mcp-param-priority"] == "42"
        assert decode_header_value(seen["mcp-param-note"]) == "Hello, 世界"
        assert seen["mcp-name"] == "valid_tool"


async def test_legacy_sse_fallback_after_a_404(base_url):
    async with connected(f"{base_url}/sseonly") as h:
        with pytest.raises(TransportFailure) as failure:
            await h.handshake()
        assert failure.value.status == 404 and failure.value.legacy_hint
        assert h.transport.can_fall_back and h.transport.kind == "http"
        await h.transport.fall_back_to_sse("initialize got HTTP 404")
        assert h.transport.kind == "sse" and not h.transport.can_fall_back
        result = await h.handshake()
        assert result["serverInfo"]["name"] == "raw-sse"
        assert (await h.conn.request("tools/call", {"name": "echo", "arguments": {}}))["content"][0]["text"] == "sse ok"
        assert any("falling back" in n.text for n in h.of(Note))
        assert any("messages go to" in n.text for n in h.of(Note))
        await h.conn.request("tools/call", {"name": "goodbye", "arguments": {}})
        await until(lambda: h.of(Closed), what="the closed stream")
        assert h.of(Closed)[0].reason == "the server closed the SSE stream" and not h.of(Closed)[0].expected
    assert h.transport.details["mode"].startswith("auto")


async def test_legacy_sse_refuses_an_endpoint_on_another_origin(base_url):
    transport = HttpTransport(f"{base_url}/sseforeign", mode="sse")
    events: list[Any] = []
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            with pytest.raises(TransportError, match="another origin"):
                await transport.start(tg, events.append)
            await transport.close()
    assert not [e for e in events if isinstance(e, Received)]


@pytest.mark.parametrize(
    "mode, words",
    [
        ("ssenoendpoint", "no endpoint event on the SSE stream within 0.5 s"),
        ("ssehtml", "with content type 'text/html', not an SSE stream"),
        ("ok", "answered HTTP 405 Method Not Allowed: GET not supported"),
    ],
)
async def test_legacy_sse_without_an_endpoint_is_a_clear_error(base_url, mode, words):
    from mcp_inspector.core.transport.legacy_sse import LegacySseTransport

    transport = LegacySseTransport(f"{base_url}/{mode}", endpoint_timeout=0.5)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            with pytest.raises(TransportError) as failure:
                await transport.start(tg, lambda event: None)
            await transport.close()
    assert words in str(failure.value) and str(failure.value).startswith("HTTP+SSE: ")


async def test_2026_era_headers_no_session_and_cancel_closes_the_stream(base_url):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    async with connected(f"{base_url}/modern") as h:
        result = await h.conn.request("tools/call", {"name": "echo", "arguments": {}, "_meta": meta})
        assert result["content"][0]["text"] == "modern ok"
        assert h.transport.session_id is None
        pending = await h.conn.send_request("tools/call", {"name": "slow_tool", "arguments": {}, "_meta": meta})
        await until(lambda: call_streaming(h.store, pending.id), what="the slow call's response stream")
        await pending.cancel()
        await until(
            lambda: any(entry["method"] == "CLOSED" for entry in server_log(base_url, "modern")),
            what="the server to see the stream closed",
        )
        texts = [entry.raw for entry in list(h.store)]
        assert any(b"closed the response stream" in raw for raw in texts)
        assert not any(b"notifications/cancelled" in raw for raw in texts)
    log = server_log(base_url, "modern")
    assert any(entry["method"] == "CLOSED" for entry in log)
    assert not any(entry["method"] in ("GET", "DELETE") for entry in log)


async def test_modern_header_mismatch_is_shown_as_400_with_32020(base_url):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    async with connected(f"{base_url}/modern", headers={"Mcp-Name": "not-the-tool"}) as h:
        # A user header cannot fake the standard ones: ours replace it.
        assert (await h.conn.request("tools/call", {"name": "echo", "_meta": meta}))["content"]
    async with connected(f"{base_url}/modern") as h:
        with pytest.raises(RpcError) as failure:
            await h.conn.request(
                "tools/call",
                {"name": "echo", "_meta": meta},
                transport_meta={"headers": {"MCP-Protocol-Version": "2025-11-25"}},
            )
        assert failure.value.code == -32020
        frame = [e for e in h.of(Received) if e.meta and e.meta.get("status") == 400]
        assert frame


async def test_redirects_keep_headers_on_the_same_origin_and_drop_them_across(base_url):
    async with connected(f"{base_url}/redirect", headers={"Authorization": TOKEN, "X-Team": "blue"}) as h:
        await h.conn.request("ping")
    async with connected(f"{base_url}/redirect-far", headers={"Authorization": TOKEN, "X-Team": "blue"}) as h:
        await h.conn.request("tools/list")
        hops = [x for x in h.store.http_log.exchanges if x.method == "POST"]
        assert hops[0].status == 307 and hops[1].status == 200
    pings = [e for e in server_log(base_url, "ok") if '"ping"' in e["body"]]
    assert pings[-1]["headers"]["authorization"] == TOKEN and pings[-1]["headers"]["x-team"] == "blue"
    lists = [e for e in server_log(base_url, "ok") if '"tools/list"' in e["body"]]
    assert "authorization" not in lists[-1]["headers"] and "x-team" not in lists[-1]["headers"]
    assert lists[-1]["headers"]["mcp-method"] == "tools/list"


@pytest.mark.parametrize(
    "mode, words",
    [
        ("badredirect", "redirected to an unusable URL"),
        ("loop", "too many redirects (more than 5)"),
    ],
)
async def test_bad_redirects_are_undelivered(base_url, mode, words):
    async with connected(f"{base_url}/{mode}") as h:
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("ping")
        assert words in failure.value.reason
    assert len([e for e in server_log(base_url, mode) if e["method"] == "POST"]) <= 6


async def test_connection_refused_is_undelivered_with_a_masked_url():
    with socket_port() as port:
        pass  # closed again: nothing listens there now
    async with connected(f"http://127.0.0.1:{port}/mcp?api_key=supersecretvalue123") as h:
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("ping")
        assert "cannot connect" in failure.value.reason and "supersecretvalue123" not in failure.value.reason
        assert failure.value.status is None


async def test_tls_verification_failure_is_clear_and_insecure_skips_it(raw_http_server):
    https = raw_http_server[1]
    async with connected(f"{https}/ok") as h:
        with pytest.raises(TransportFailure) as failure:
            await h.conn.request("ping")
        assert "TLS certificate verification failed" in failure.value.reason and "--insecure" in failure.value.reason
    async with connected(f"{https}/ok", verify=False) as h:
        assert await h.conn.request("ping") == {}


async def test_https_goes_through_the_proxy_from_the_environment(base_url, monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", base_url)  # the raw server plays a proxy that refuses CONNECT
    async with connected("https://mcp.example.invalid/mcp") as h:
        with pytest.raises(TransportFailure):
            await h.conn.request("ping")
    connects = [e for e in server_log(base_url, "mcp.example.invalid:443") if e["method"] == "CONNECT"]
    assert connects and "authorization" not in connects[0]["headers"]  # the token is not shown to the proxy


async def test_secrets_never_reach_the_log_or_the_store(base_url):
    async with connected(
        f"{base_url}/sse?token=querysecret987654321", headers={"Authorization": TOKEN, "X-Api-Key": "key-abcdef123456"}
    ) as h:
        await h.handshake()
        await h.conn.request("tools/call", {"name": "echo", "arguments": {}})
        exchanges = list(h.store.http_log.exchanges)
    text = repr([(x.url, x.request_headers, x.response_headers, x.error, x.note) for x in exchanges])
    text += repr([(e.raw, e.meta, e.problem) for e in list(h.store)])
    text += repr([getattr(e, "text", "") + getattr(e, "reason", "") for e in h.events])
    text += repr(h.transport.details) + h.transport.description
    for secret in ("sk-live-0123456789abcdef", "querysecret987654321", "key-abcdef123456"):
        assert secret not in text
    assert "Bearer sk-l" in text  # masked, still recognisable


class socket_port:
    """A port that was free a moment ago."""

    def __enter__(self) -> int:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return self.sock.getsockname()[1]

    def __exit__(self, *exc: Any) -> None:
        self.sock.close()


async def test_a_cancelled_legacy_request_has_its_stream_closed_after_notifications_cancelled(base_url):
    """Legacy era: ctrl+k (PendingRequest.cancel) sends notifications/cancelled; the request's SSE
    response stream then stayed open for as long as the server kept it (90 s seen). Now it is
    closed once the cancellation is sent."""
    async with connected(f"{base_url}/silent") as h:
        await h.handshake()
        log = h.store.http_log
        changed = anyio.Event()

        def on_change(exchange: Any) -> None:
            changed.set()

        log.add_listener(on_change)

        async def until(condition: Any) -> None:
            nonlocal changed
            with anyio.fail_after(10):
                while not condition():
                    changed = anyio.Event()
                    await changed.wait()

        pending = await h.conn.send_request("tools/call", {"name": "echo", "arguments": {}}, timeout=None)
        await until(lambda: any(ex.rpc_method == "tools/call" and ex.status == 200 for ex in log.exchanges))
        call = next(ex for ex in log.exchanges if ex.rpc_method == "tools/call")  # the server opened its stream
        assert call.state == "open"
        await pending.cancel()
        await until(lambda: call.state != "open")
        assert call.error == "closed by the client (cancelled)" and call.total_ms is not None
        cancels = [ex for ex in log.exchanges if ex.rpc_method == "notifications/cancelled"]
        assert cancels and cancels[0].id > call.id
