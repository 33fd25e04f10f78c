"""Credentials go only to the origin the user named (``CredentialPolicy``): two real HTTP
servers on 127.0.0.1, two ports, two origins. The user names A; B must never see the bearer
token, a secret ``-H`` header, the OAuth access token or the ``Mcp-Session-Id`` — not after a
redirect of the HTTP+SSE stream, not through an ``endpoint`` event, not through the OAuth client
asked for B's URL. What is refused is said in words naming both origins."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import anyio
import pytest
from origin_servers import OriginServer

from mcp_inspector.core.auth.manager import OAuthManager
from mcp_inspector.core.auth.model import AuthLog, AuthSettings, ClientInfo, TokenSet
from mcp_inspector.core.auth.store import StoredAuth, TokenStore
from mcp_inspector.core.protocol.rpc import RpcConnection
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.core.transport.base import TransportError
from mcp_inspector.core.transport.credentials import CredentialPolicy
from mcp_inspector.core.transport.http import HttpTransport
from mcp_inspector.core.transport.http_util import make_client, open_response

pytestmark = pytest.mark.anyio
BEARER = "sk-live-bearer-0123456789"
API_KEY = "sk-live-apikey-9876543210"
OAUTH_TOKEN = "oauth-access-token-abcdef0123456789"
USER_HEADERS = {"Authorization": f"Bearer {BEARER}", "X-Api-Key": API_KEY}


@pytest.fixture
def a() -> Any:
    with OriginServer() as server:
        yield server


@pytest.fixture
def b() -> Any:
    with OriginServer() as server:
        yield server


def credentials_seen(server: OriginServer) -> list[str]:
    """The credential headers any request to ``server`` carried."""
    names = ("authorization", "x-api-key", "dpop", "mcp-session-id")
    return [f"{r['method']} {r['path']} {n}" for r in server.requests for n in names if n in r["headers"]]


def oauth_manager(url: str) -> OAuthManager:
    """An OAuth client for ``url`` holding an access token (from its store, as after a flow)."""
    store = TokenStore("none")
    store.save(StoredAuth(url, url, None, ClientInfo("client-1"), TokenSet(OAUTH_TOKEN)))
    return OAuthManager(AuthSettings(), url, log=AuthLog(), store=store)


async def start_fails(transport: HttpTransport) -> str:
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            with pytest.raises(TransportError) as failure:
                await transport.start(tg, lambda event: None)
            await transport.close()
    return str(failure.value)


async def test_an_sse_stream_redirected_to_another_origin_gets_no_credentials_and_its_endpoint_is_refused(a, b):
    """A's SSE GET is redirected to B, whose endpoint event names B: before, every POST went to B with
    the bearer token and the -H secret. Now the endpoint is refused, naming both origins."""
    transport = HttpTransport(f"{a.url}/to/{b.url}/sse", mode="sse", headers=USER_HEADERS)
    reason = await start_fails(transport)
    assert f"the endpoint {b.url}/messages is on another origin ({b.url})" in reason
    assert f"than the server you named ({a.url})" in reason
    assert f"the SSE stream was redirected to {b.url}" in reason
    assert b.seen("GET") and not b.seen("POST")
    assert credentials_seen(b) == []
    assert a.seen("GET")[0]["headers"]["x-api-key"] == API_KEY  # the user's origin gets them


async def test_an_endpoint_event_naming_another_origin_is_refused_in_words_naming_both(b):
    with OriginServer(endpoint=f"{b.url}/messages") as a:
        reason = await start_fails(HttpTransport(f"{a.url}/sse", mode="sse", headers=USER_HEADERS))
    assert reason.startswith(f"HTTP+SSE: the endpoint {b.url}/messages is on another origin ({b.url})")
    assert f"than the server you named ({a.url}): refused" in reason and "bearer token" in reason
    assert b.requests == []


async def test_the_oauth_token_is_not_added_for_another_origin(a, b):
    """Through a legacy stream redirected to B (the endpoint refused), and the OAuth client asked
    directly for B's URL (a transport built for B): B never sees the token; A does."""
    manager = oauth_manager(f"{a.url}/sse")
    transport = HttpTransport(f"{a.url}/to/{b.url}/sse", mode="sse", auth=manager)
    await start_fails(transport)
    assert credentials_seen(b) == []

    async with make_client(True, 5, 5) as client:
        for server in (b, a):
            url = f"{server.url}/mcp"
            message = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
            response, _, _ = await open_response(
                client, "POST", url, {}, CredentialPolicy(url), content=message, auth=manager
            )
            await response.aclose()
    assert credentials_seen(b) == []
    assert a.seen("POST")[-1]["headers"]["authorization"] == f"Bearer {OAUTH_TOKEN}"


async def test_a_challenge_from_another_origin_starts_no_authorization(a, b):
    """A POST redirected to B, which answers 401: the OAuth client is not asked to authorize for
    B (before, a flow ran against A's metadata and failed the request); the 401 is the answer."""
    manager = oauth_manager(f"{a.url}/mcp")
    async with make_client(True, 5, 5) as client:
        url = f"{a.url}/to/{b.url}/401"
        response, _, final = await open_response(client, "POST", url, {}, CredentialPolicy(url), auth=manager)
        await response.aclose()
    assert response.status_code == 401 and final == f"{b.url}/401"
    assert manager.log.state != "failed" and not manager.log.steps
    assert credentials_seen(b) == []


async def test_the_session_id_does_not_follow_a_redirect_to_another_origin(a, b):
    """A gives session-a at initialize, then redirects every POST to B: B gets the messages
    without Mcp-Session-Id (and without the user's headers)."""
    a.redirect_after_initialize = f"{b.url}/mcp"
    store = TrafficStore()
    transport = HttpTransport(f"{a.url}/mcp", mode="streamable-http", headers=USER_HEADERS, http_log=store.http_log)
    conn = RpcConnection(transport, store, default_timeout=10)
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            await conn.start(tg)
            try:
                params = {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                }
                await conn.request("initialize", params)
                assert transport.session_id == "session-a"
                transport.set_protocol_version("2025-11-25")
                assert (await conn.request("tools/list"))["tools"][0]["name"] == "echo"
            finally:
                await conn.aclose()
                tg.cancel_scope.cancel()
    assert [r["path"] for r in b.seen("POST")][:1] == ["/mcp"]
    assert credentials_seen(b) == []


def test_the_cli_says_which_origins_and_sends_nothing_to_the_other(a, b):
    result = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "--url", f"{a.url}/to/{b.url}/sse", "--transport", "sse"]
        + ["--bearer-token", BEARER, "-H", f"X-Api-Key: {API_KEY}", "tools"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 3, result.stderr
    assert f"is on another origin ({b.url}) than the server you named ({a.url})" in result.stderr
    assert "Traceback" not in result.stderr and BEARER not in result.stderr
    assert credentials_seen(b) == []
