"""The HTTP fixture servers (tests/http_fixtures.py) really serve MCP, and on 127.0.0.1 only.

Plain httpx2 requests, no mcp-inspector code: these check the fixtures the transport, session and
CLI tests stand on.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from http_fixtures import start_sdk_http_server

LEGACY_VERSION = "2025-06-18"
MODERN_VERSION = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "fixture-test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


def initialize_body(request_id: int = 1) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "fixture-test", "version": "1"},
        },
    }


def modern_post(
    client: httpx2.Client, url: str, request_id: int, method: str, params: dict, name: str | None = None
) -> httpx2.Response:
    headers = {"Accept": ACCEPT, "MCP-Protocol-Version": MODERN_VERSION, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": ENVELOPE}}
    return client.post(url, json=body, headers=headers)


def messages(response: httpx2.Response) -> list[dict]:
    """The JSON-RPC messages of a reply: a JSON body, or the data lines of an SSE body."""
    kind = response.headers.get("content-type", "")
    if kind.startswith("application/json"):
        return [response.json()]
    assert kind.startswith("text/event-stream"), kind
    found = []
    for block in response.text.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
        if data:
            found.append(json.loads(data))
    return found


def reply(response: httpx2.Response, request_id: int) -> dict:
    replies = [m for m in messages(response) if m.get("id") == request_id and "method" not in m]
    assert len(replies) == 1, response.text
    return replies[0]


def listeners(port: int) -> list[str]:
    """Local addresses (hex, as in /proc/net/tcp*) of every TCP socket LISTENing on ``port``."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].rsplit(":", 1)
            if fields[3] == "0A" and int(hex_port, 16) == port:  # 0A = LISTEN
                found.append(address)
    return found


def assert_loopback_only(url: str) -> None:
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1"
    if not Path("/proc/net/tcp").exists():
        pytest.skip("no /proc/net/tcp to read listening sockets from")
    addresses = listeners(parts.port)
    assert addresses, f"nothing listens on port {parts.port}"
    assert set(addresses) == {"0100007F"}, f"port {parts.port} listens on {addresses} (0100007F is 127.0.0.1)"


def check_legacy_initialize(url: str, *, session: bool) -> None:
    with httpx2.Client(timeout=10) as client:
        response = client.post(url, json=initialize_body(), headers={"Accept": ACCEPT})
        assert response.status_code == 200, response.text
        result = reply(response, 1)["result"]
        assert result["protocolVersion"] == LEGACY_VERSION
        assert result["serverInfo"]["name"]
        assert "tools" in result["capabilities"]
        assert bool(response.headers.get("mcp-session-id")) is session


def check_sse_endpoint(url: str) -> None:
    """Legacy HTTP+SSE: GET the stream, read the endpoint event, POST initialize there, read the reply."""
    with (
        httpx2.Client(timeout=10) as client,
        client.stream("GET", url, headers={"Accept": "text/event-stream"}) as stream,
    ):
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        event = data = None
        for line in lines:
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data = line[5:].strip()
            elif not line and data is not None:
                break
        assert event == "endpoint" and data
        endpoint = httpx2.URL(url).join(data)
        assert endpoint.host == "127.0.0.1"
        posted = client.post(endpoint, json=initialize_body(7))
        assert posted.status_code == 202, posted.text
        data = None
        for line in lines:
            if line.startswith("data:"):
                data = line[5:].strip()
            elif not line and data is not None:
                break
        message = json.loads(data)
        assert message["id"] == 7 and message["result"]["protocolVersion"] == LEGACY_VERSION


# --- server-everything ---------------------------------------------------------------------


@pytest.mark.everything
def test_everything_streamable_http(everything_http_url: str) -> None:
    assert urlsplit(everything_http_url).path == "/mcp"
    check_legacy_initialize(everything_http_url, session=True)
    assert_loopback_only(everything_http_url)


@pytest.mark.everything
def test_everything_sse(everything_sse_url: str) -> None:
    assert urlsplit(everything_sse_url).path == "/sse"
    check_sse_endpoint(everything_sse_url)
    assert_loopback_only(everything_sse_url)


# --- the SDK server ------------------------------------------------------------------------


def test_sdk_stateful_session_and_tools(sdk_http_stateful_url: str) -> None:
    check_legacy_initialize(sdk_http_stateful_url, session=True)
    assert_loopback_only(sdk_http_stateful_url)
    with httpx2.Client(timeout=10) as client:
        response = client.post(sdk_http_stateful_url, json=initialize_body(), headers={"Accept": ACCEPT})
        headers = {
            "Accept": ACCEPT,
            "Mcp-Session-Id": response.headers["mcp-session-id"],
            "MCP-Protocol-Version": LEGACY_VERSION,
        }
        done = client.post(
            sdk_http_stateful_url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )
        assert done.status_code == 202
        listed = client.post(
            sdk_http_stateful_url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
        )
        names = {tool["name"] for tool in reply(listed, 2)["result"]["tools"]}
        assert {"echo", "add", "progress_and_log", "change_tools", "ask_user", "sleep"} <= names
        called = client.post(
            sdk_http_stateful_url,
            headers=headers,
            json={
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "progress_and_log", "arguments": {"steps": 2}, "_meta": {"progressToken": "t"}},
            },
        )
        found = messages(called)
        assert [m["params"]["progress"] for m in found if m.get("method") == "notifications/progress"] == [1, 2]
        assert [m["params"]["data"] for m in found if m.get("method") == "notifications/message"] == [
            "step 1",
            "step 2",
        ]
        assert reply(called, 3)["result"]["content"][0]["text"] == "done 2 steps"
        unknown = client.post(
            sdk_http_stateful_url,
            json={"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
            headers={**headers, "Mcp-Session-Id": "no-such-session"},
        )
        assert unknown.status_code == 404


def test_sdk_stateless(sdk_http_stateless_url: str) -> None:
    check_legacy_initialize(sdk_http_stateless_url, session=False)
    assert_loopback_only(sdk_http_stateless_url)
    with httpx2.Client(timeout=10) as client:
        # no session: a request stands alone, without initialize
        called = client.post(
            sdk_http_stateless_url,
            headers={"Accept": ACCEPT, "MCP-Protocol-Version": LEGACY_VERSION},
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
            },
        )
        assert reply(called, 2)["result"]["structuredContent"] == {"sum": 5}


def test_sdk_json_replies(sdk_http_json_url: str) -> None:
    check_legacy_initialize(sdk_http_json_url, session=True)
    assert_loopback_only(sdk_http_json_url)
    with httpx2.Client(timeout=10) as client:
        response = client.post(sdk_http_json_url, json=initialize_body(), headers={"Accept": ACCEPT})
        assert response.headers["content-type"].startswith("application/json")


def test_sdk_legacy_sse_transport(sdk_http_sse_url: str) -> None:
    assert urlsplit(sdk_http_sse_url).path == "/sse"
    check_sse_endpoint(sdk_http_sse_url)
    assert_loopback_only(sdk_http_sse_url)


def test_sdk_modern_http_discover_and_input_required(sdk_modern_http_url: str) -> None:
    assert_loopback_only(sdk_modern_http_url)
    with httpx2.Client(timeout=10) as client:
        discovered = modern_post(client, sdk_modern_http_url, 1, "server/discover", {})
        assert discovered.status_code == 200, discovered.text
        result = reply(discovered, 1)["result"]
        assert MODERN_VERSION in result["supportedVersions"]
        assert result["resultType"] == "complete"
        assert "mcp-session-id" not in discovered.headers
        asked = modern_post(
            client, sdk_modern_http_url, 2, "tools/call", {"name": "ask_user", "arguments": {}}, name="ask_user"
        )
        pending = reply(asked, 2)["result"]
        assert pending["resultType"] == "input_required"
        ((key, request),) = pending["inputRequests"].items()
        assert request["method"] == "elicitation/create"
        answered = modern_post(
            client,
            sdk_modern_http_url,
            3,
            "tools/call",
            {
                "name": "ask_user",
                "arguments": {},
                "requestState": pending["requestState"],
                "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
            },
            name="ask_user",
        )
        assert reply(answered, 3)["result"]["content"][0]["text"] == "Hello, Ada!"


def test_fresh_server_is_its_own_process(fresh_sdk_http_server, sdk_http_stateful_url: str) -> None:
    server = fresh_sdk_http_server("--mode", "stateful", "--resumable", "--retry-interval", "100")
    assert server.url != sdk_http_stateful_url
    check_legacy_initialize(server.url, session=True)
    assert_loopback_only(server.url)
    server.stop()
    assert server.process.poll() is not None


def test_start_failure_is_a_clear_error() -> None:
    from http_fixtures import ServerStartError

    with pytest.raises(ServerStartError, match="exited with 2 before listening"):
        start_sdk_http_server("--mode", "nonsense")


# --- stdio, modern only ----------------------------------------------------------------------


def test_sdk_modern_stdio_rejects_initialize(sdk_modern_stdio_command: list[str]) -> None:
    lines = [
        initialize_body(0),
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": ENVELOPE}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": ENVELOPE},
        },
    ]
    process = subprocess.Popen(
        sdk_modern_stdio_command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdin and process.stdout
        process.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
        process.stdin.flush()
        replies = {}
        while len(replies) < 3:
            line = process.stdout.readline()
            assert line, f"server closed stdout after {replies}"
            message = json.loads(line)
            replies[message["id"]] = message
        assert replies[0]["error"]["code"] == -32022
        assert replies[0]["error"]["data"]["supported"] == [MODERN_VERSION]
        assert replies[1]["result"]["supportedVersions"] == [MODERN_VERSION]
        assert replies[2]["result"]["content"][0]["text"] == "hi"
    finally:
        process.stdin.close()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- our transport over the fixture: keep-alive ---------------------------------------------


@pytest.mark.anyio
async def test_legacy_sse_replies_leave_the_connection_open_for_the_next_call(fresh_sdk_http_server) -> None:
    """Each reply comes on its own SSE stream; once it is read to its end the TCP connection is
    reused (dropped unread, every call opened a new connection: 303 for 300 calls). The reply is
    delivered before its stream is read to the end, so the next call may find that connection
    still busy and open a second one (seen on a loaded machine, alternating between pooled
    connections): at most half as many connections as calls, never one per call."""
    from mcp_inspector.core.config.factory import make_transport
    from mcp_inspector.core.config.servers import ServerSpec
    from mcp_inspector.core.session.mcp_session import McpSession

    server = fresh_sdk_http_server("--mode", "stateful", "--access-log")
    spec = ServerSpec(name="fixture", url=server.url, transport="streamable-http")
    async with McpSession(make_transport(spec), era="legacy", timeout=10, init_timeout=10) as session:
        await session.initialize()
        for i in range(12):
            result = await session.connection.request("tools/call", {"name": "echo", "arguments": {"text": str(i)}})
            assert result["content"][0]["text"] == str(i)
    calls = [line for line in server.log().splitlines() if line.startswith("ACCESS POST /mcp 200 tools/call")]
    assert len(calls) == 12, server.log()
    assert len({line.rsplit(" from ", 1)[1] for line in calls}) <= 6, calls


@pytest.mark.anyio
async def test_a_plain_http_session_never_loads_the_ca_store(sdk_http_stateful_url, monkeypatch) -> None:
    """Loading the CA store costs ~30 ms of a cold `--url http://... tools`: only https pays it."""
    import ssl

    from mcp_inspector.core.config.factory import make_transport
    from mcp_inspector.core.config.servers import ServerSpec
    from mcp_inspector.core.session.mcp_session import McpSession

    loads: list[str] = []
    for name in ("load_verify_locations", "load_default_certs", "set_default_verify_paths"):
        original = getattr(ssl.SSLContext, name)

        def counting(self, *args, _name=name, _original=original, **kwargs):
            loads.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(ssl.SSLContext, name, counting)
    ssl.create_default_context()  # the counting works
    assert loads
    loads.clear()
    spec = ServerSpec(name="fixture", url=sdk_http_stateful_url, transport="http")
    async with McpSession(make_transport(spec), timeout=10, init_timeout=10) as session:
        await session.initialize()
        result = await session.connection.request("tools/call", {"name": "echo", "arguments": {"text": "plain"}})
        assert result["content"][0]["text"] == "plain"
    assert loads == []


# --- servers do not outlive a dead test run ---------------------------------------------------


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return True


def _wait_gone(pid: int, limit: float = 15.0) -> bool:
    import time

    deadline = time.monotonic() + limit  # a guard against hanging, not a timing assertion
    while not _gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _orphan_server(start: str) -> int:
    """Start a server from a helper process, kill that process hard, return the server's pid."""
    import signal
    import sys

    tests_dir = str(Path(__file__).resolve().parents[1])
    script = (
        f"import sys, time\nsys.path.insert(0, {tests_dir!r})\nimport http_fixtures\n"
        f"server = {start}\nprint(server.pid, flush=True)\ntime.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline()
        assert line.strip().isdigit(), line
        pid = int(line)
        assert not _gone(pid)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    return pid


def test_an_sdk_server_exits_when_the_test_run_dies() -> None:
    pid = _orphan_server('http_fixtures.start_sdk_http_server("--mode", "stateful")')
    if not _wait_gone(pid):
        os.kill(pid, 9)
        pytest.fail("the SDK server outlived the process that started it")


@pytest.mark.everything
def test_server_everything_exits_when_the_test_run_dies(server_everything: list[str]) -> None:
    pid = _orphan_server(f'http_fixtures.start_everything({server_everything!r}, "streamableHttp")')
    if not _wait_gone(pid):
        os.kill(pid, 9)
        pytest.fail("server-everything outlived the process that started it")
