"""``mcp-inspector proxy --listen 127.0.0.1:0 --url UPSTREAM``: the HTTP reverse proxy (issue 24).

A host nobody here wrote (the ``mcp`` SDK's Streamable HTTP and legacy SSE clients) talks to
server-everything through the proxy: the same results as direct, every frame recorded,
``Authorization`` passed upstream and masked in the recording, the legacy ``endpoint`` rewritten.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys

import anyio
import pytest
from waiting import until_sync

from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.loading import load_session

TOKEN = "s3cret-token-of-the-host-0123456789"


def read_head(conn) -> bytes:
    """What a raw upstream fixture reads of a request: up to the end of its head."""
    request = b""
    while b"\r\n\r\n" not in request:
        request += conn.recv(65536)
    return request


@pytest.fixture
def start_proxy(tmp_path):
    started: list[subprocess.Popen] = []

    def start(url: str, *own: str) -> tuple[str, subprocess.Popen]:
        env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))
        process = subprocess.Popen(
            [sys.executable, "-m", "mcp_inspector", "proxy", "--listen", "127.0.0.1:0", "--url", url, *own],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        started.append(process)
        err = bytearray()

        def listening() -> bool:
            if select.select([process.stderr], [], [], 0.05)[0]:
                err.extend(os.read(process.stderr.fileno(), 4096))
            return re.search(rb"listening on \S+\n", bytes(err)) is not None

        until_sync(listening, what="the proxy to listen")
        found = re.search(rb"listening on (\S+)", bytes(err))
        assert found is not None
        return found.group(1).decode(), process

    yield start
    for process in started:
        process.kill()
        process.wait()


async def _streamable(url: str, headers: dict[str, str] | None = None) -> dict:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=30) as http,
        streamable_http_client(url, http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        return await _session_results(session)


async def _legacy(url: str) -> dict:
    from mcp import ClientSession
    from mcp.client.sse import sse_client

    async with sse_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
        return await _session_results(session)


async def _session_results(session) -> dict:
    init = await session.initialize()
    tools = await session.list_tools()
    echo = await session.call_tool("echo", {"message": "through the http proxy"})
    return {
        "server": init.server_info.name,
        "tools": sorted(tool.name for tool in tools.tools),
        "echo": echo.model_dump(mode="json"),
    }


def test_streamable_http_through_the_proxy_same_results_recorded_and_masked(tmp_path, everything_http_url, start_proxy):
    record = tmp_path / "http.jsonl"
    proxy_url, process = start_proxy(everything_http_url, "--record", str(record))
    assert proxy_url.endswith("/mcp")
    direct = anyio.run(_streamable, everything_http_url)
    proxied = anyio.run(_streamable, proxy_url, {"Authorization": f"Bearer {TOKEN}"})
    assert proxied == direct
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 128 + signal.SIGTERM
    text = record.read_text()
    assert TOKEN not in text  # passed upstream, never written
    entries = list(load_session(record).store.iter_all())
    sent = [e for e in entries if e.direction is Direction.OUT]
    received = [e for e in entries if e.direction is Direction.IN]
    assert [e.method for e in sent][:3] == ["initialize", "notifications/initialized", "tools/list"]
    assert any(e.method == "tools/call" for e in sent)
    call = next(e for e in sent if e.method == "tools/call")
    assert call.meta["http"]["headers"]["authorization"] != f"Bearer {TOKEN}"
    reply = next(e for e in received if e.reply_to == call.seq)
    assert b"through the http proxy" in reply.raw
    hello = next(e for e in entries if e.meta and "client_info" in e.meta)
    assert hello.meta["client_info"]["name"] == "mcp"


def test_the_proxys_recording_has_the_exchanges_its_live_view_showed(tmp_path, sdk_http_stateful_url, start_proxy):
    """--record writes the HTTP exchanges (issue 24): ``--open`` shows what an attached viewer showed."""
    import threading

    from test_http_recording import log_view

    from mcp_inspector.core.proxy import http_feed
    from mcp_inspector.core.proxy.viewer import Ended, FeedReader, HttpOp
    from mcp_inspector.core.traffic.entry import TrafficEntry
    from mcp_inspector.core.traffic.store import TrafficStore

    record = tmp_path / "proxied.jsonl"
    proxy_url, process = start_proxy(sdk_http_stateful_url, "--record", str(record), "--name", "rec")
    anyio.run(_streamable_progress, proxy_url, {"Authorization": f"Bearer {TOKEN}"})
    viewer = TrafficStore()  # as the attached TUI fills its store (tui/screens/main/attach_state.py)
    reader = FeedReader(tmp_path / "mcp-inspector" / "rec.sock")

    def read() -> None:
        for event in reader.events():
            if isinstance(event, TrafficEntry):
                viewer.load_entry(event)
                http_feed.link_entry(viewer.http_log, event)
            elif isinstance(event, HttpOp):
                http_feed.apply(viewer.http_log, event)
            elif isinstance(event, Ended):
                return

    thread = threading.Thread(target=read)
    thread.start()
    until_sync(
        lambda: any(e.method == "DELETE" and e.state != "open" for e in viewer.http_log.exchanges), what="DELETE"
    )
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    thread.join(timeout=30)
    reader.close()
    assert TOKEN not in record.read_text()
    loaded = load_session(record)
    assert loaded.skipped == 0, loaded.describe_skipped()
    opened = loaded.store.http_log
    assert log_view(opened) == log_view(viewer.http_log)
    entries = {entry.seq: entry for entry in loaded.store.iter_all()}
    call = next(e for e in opened.exchanges if e.rpc_method == "tools/call")
    assert call.status == 200 and call.state == "done" and call.content_type == "text/event-stream"
    assert [entries[seq].method for seq in call.frame_seqs].count("notifications/progress") == 2
    assert len(call.events) >= 3 and entries[call.sent_seq].method == "tools/call"
    assert call.header("authorization", response=False) not in (None, f"Bearer {TOKEN}")


async def _streamable_progress(url: str, headers: dict[str, str]) -> None:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(url, http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        await session.call_tool("progress_and_log", {"steps": 2}, progress_callback=_ignore)


async def _ignore(*args) -> None:
    return None


def test_legacy_sse_endpoint_is_rewritten_to_the_proxy(tmp_path, everything_sse_url, start_proxy):
    record = tmp_path / "sse.jsonl"
    proxy_url, process = start_proxy(everything_sse_url, "--record", str(record))
    direct = anyio.run(_legacy, everything_sse_url)
    proxied = anyio.run(_legacy, proxy_url)
    assert proxied == direct
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    entries = list(load_session(record).store.iter_all())
    # the host's POSTs came through us: its requests are recorded, and the replies from the stream
    assert any(e.method == "tools/call" and e.direction is Direction.OUT for e in entries)
    assert any(e.direction is Direction.IN and b"through the http proxy" in e.raw for e in entries)


def test_listen_refuses_a_bad_address_and_warns_off_loopback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "proxy", "--listen", "nowhere", "--url", "http://127.0.0.1:1/mcp"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 64 and b"HOST:PORT" in result.stderr and b"Traceback" not in result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "proxy", "--url", "http://127.0.0.1:1/mcp"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 64 and b"go together" in result.stderr


def test_a_host_that_leaves_an_sse_stream_closes_it_upstream(tmp_path, everything_http_url, start_proxy):
    """The host opens the GET stream and goes away while it is quiet: the proxy sees it at once
    (not at the upstream's next event), closes the upstream stream and says so."""
    import socket
    from urllib.parse import urlsplit

    import httpx2

    record = tmp_path / "gone.jsonl"
    proxy_url, process = start_proxy(everything_http_url, "--record", str(record))
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    with httpx2.Client(timeout=30) as client:
        session = client.post(proxy_url, json=hello, headers=headers).headers["mcp-session-id"]
        headers["mcp-session-id"] = session
        client.post(proxy_url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    parts = urlsplit(proxy_url)
    raw = socket.create_connection((parts.hostname, parts.port), timeout=30)
    raw.sendall(
        f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n"
        f"Mcp-Session-Id: {session}\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += raw.recv(4096)
    assert head.startswith(b"HTTP/1.1 200")
    raw.close()  # the host leaves mid-stream
    until_sync(lambda: b"host_gone" in record.read_bytes(), what="the proxy to notice the host left")
    # and it still serves the next host
    assert anyio.run(_streamable, proxy_url)["server"]
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)


def test_an_upstream_that_breaks_off_a_response_ends_that_exchange_only(tmp_path, start_proxy):
    """The upstream closes mid-body: the host's connection is closed (its response cannot be
    finished), the recording says so, and the proxy goes on serving the next host."""
    import socket
    import threading

    import httpx2

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    whole = b'{"jsonrpc":"2.0","id":2,"result":{}}'

    def upstream() -> None:
        for number in range(2):
            conn, _ = listener.accept()
            with conn:
                read_head(conn)
                head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
                if number == 0:
                    conn.sendall(head % 100 + b'{"jsonrpc"')  # then goes away, 90 bytes short
                else:
                    conn.sendall(head % len(whole) + whole)

    thread = threading.Thread(target=upstream, daemon=True)
    thread.start()
    record = tmp_path / "broke.jsonl"
    proxy_url, process = start_proxy(f"http://127.0.0.1:{port}/mcp", "--record", str(record))
    call = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    with httpx2.Client(timeout=30) as client, pytest.raises(httpx2.TransportError):
        client.post(proxy_url, json=call)
    with httpx2.Client(timeout=30) as client:
        assert client.post(proxy_url, json={**call, "id": 2}).content == whole
    thread.join(30)
    listener.close()
    assert process.poll() is None
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    assert b"broke off" in record.read_bytes()


def test_an_upstream_that_closes_kept_connections_gets_each_request_once(tmp_path, start_proxy):
    """The upstream answers one request per connection and closes it without saying so (no
    ``Connection: close``): the host's next request on its kept connection reaches the upstream
    on a fresh one, exactly once, and the host gets every answer."""
    import socket
    import threading

    import httpx2

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    seen: list[bytes] = []

    def upstream() -> None:
        for _ in range(3):
            conn, _ = listener.accept()
            with conn:
                request = b""
                while not request.endswith(b"}"):
                    request += conn.recv(65536)
                seen.append(request.rpartition(b"\r\n\r\n")[2])
                answer = b'{"jsonrpc":"2.0","id":%d,"result":{}}' % len(seen)
                head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
                conn.sendall(head % len(answer) + answer)

    thread = threading.Thread(target=upstream, daemon=True)
    thread.start()
    proxy_url, process = start_proxy(f"http://127.0.0.1:{port}/mcp", "--record", str(tmp_path / "kept.jsonl"))
    with httpx2.Client(timeout=30) as client:  # one kept connection to the proxy
        answers = [client.post(proxy_url, json={"jsonrpc": "2.0", "id": n, "method": "ping"}).json() for n in (1, 2, 3)]
    thread.join(30)
    listener.close()
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert [b'"id":%d' % n in body for n, body in zip((1, 2, 3), seen, strict=True)] == [True] * 3
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)


def test_an_upstream_that_answers_garbage_gets_a_502_and_the_next_request_goes_on(tmp_path, start_proxy):
    """The upstream's first answer is not HTTP: the host gets a 502 on its kept connection, and its
    next request on that same connection reaches the upstream on a fresh one and is answered."""
    import socket
    import threading

    import httpx2

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    whole = b'{"jsonrpc":"2.0","id":2,"result":{}}'

    def upstream() -> None:
        conn, _ = listener.accept()
        with conn:
            read_head(conn)
            conn.sendall(b"NOT HTTP AT ALL\r\n\r\n")
            second, _ = listener.accept()
            with second:
                read_head(second)
                head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
                second.sendall(head % len(whole) + whole)
                second.recv(65536)  # until the proxy closes it

    thread = threading.Thread(target=upstream, daemon=True)
    thread.start()
    proxy_url, process = start_proxy(f"http://127.0.0.1:{port}/mcp", "--record", str(tmp_path / "garbage.jsonl"))
    with httpx2.Client(timeout=30) as client:  # one kept connection to the proxy
        first = client.post(proxy_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        second = client.post(proxy_url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert first.status_code == 502 and b"did not answer" in first.content
    assert second.status_code == 200 and second.content == whole
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    thread.join(30)
    listener.close()
