"""The fixture authorization server + protected MCP server (tests/servers/oauth_server.py) does
what its docstring says: the OAuth tests of the client rely on it, so it is checked on its own,
with plain HTTP requests (no inspector code)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from auth_helpers import OAuthServer

MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
CALLBACK = "http://127.0.0.1:5555/callback"


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def register(client: httpx2.Client, server: OAuthServer, method: str = "client_secret_basic", **extra) -> dict:
    response = client.post(
        server.base + "/register",
        json={"redirect_uris": [CALLBACK], "client_name": "t", "token_endpoint_auth_method": method, **extra},
    )
    assert response.status_code == 201, response.text
    return response.json()


def authorize(
    client: httpx2.Client, server: OAuthServer, reg: dict, scope: str = "mcp", redirect_uri: str = CALLBACK, **params
) -> tuple[httpx2.Response, str]:
    verifier, challenge = pkce()
    query = {
        "response_type": "code",
        "client_id": reg["client_id"],
        "redirect_uri": redirect_uri,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "s-1",
        "scope": scope,
        "resource": server.url,
        **params,
    }
    return client.get(server.base + "/authorize", params={k: v for k, v in query.items() if v is not None}), verifier


def redirect_params(response: httpx2.Response) -> dict[str, str]:
    assert response.status_code == 302, response.text
    return {k: v[0] for k, v in parse_qs(urlsplit(response.headers["location"]).query).items()}


def token(client: httpx2.Client, server: OAuthServer, reg: dict, **form) -> httpx2.Response:
    auth = (reg["client_id"], reg["client_secret"]) if reg.get("client_secret") else None
    if auth is None:
        form.setdefault("client_id", reg["client_id"])
    return client.post(server.base + "/token", data=form, auth=auth)


def code_flow(client: httpx2.Client, server: OAuthServer, reg: dict, scope: str = "mcp") -> dict:
    response, verifier = authorize(client, server, reg, scope=scope)
    code = redirect_params(response)["code"]
    reply = token(
        client,
        server,
        reg,
        grant_type="authorization_code",
        code=code,
        redirect_uri=CALLBACK,
        code_verifier=verifier,
        resource=server.url,
    )
    assert reply.status_code == 200, reply.text
    return reply.json()


def mcp_call(
    client: httpx2.Client, server: OAuthServer, access_token: str | None, tool: str = "whoami"
) -> httpx2.Response:
    headers = dict(MCP_HEADERS)
    if access_token:
        headers["Authorization"] = f"Bearer {access_token}"
    # stateless, single-exchange era: one POST per call, no session to set up
    headers.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool})
    message = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    return client.post(server.url, json=message, headers=headers)


def result_text(response: httpx2.Response) -> str:
    body = response.text
    if "data:" in body:
        body = next(line[5:] for line in body.splitlines() if line.startswith("data:"))
    message = json.loads(body)
    assert "result" in message, message
    return message["result"]["content"][0]["text"]


@pytest.fixture
def client():
    with httpx2.Client(timeout=10) as c:
        yield c


def test_metadata_documents_and_challenge(oauth_server, client):
    server = oauth_server()
    response = client.post(server.url, json=INIT, headers=MCP_HEADERS)
    assert response.status_code == 401
    prm_url = server.base + "/.well-known/oauth-protected-resource/mcp"
    assert response.headers["www-authenticate"] == f'Bearer scope="mcp", resource_metadata="{prm_url}"'
    prm = client.get(prm_url).json()
    assert prm["resource"] == server.url and prm["authorization_servers"] == [server.issuer]
    meta = client.get(server.base + "/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == server.issuer == server.base
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["authorization_response_iss_parameter_supported"] is True
    assert {"refresh_token", "client_credentials", "authorization_code"} <= set(meta["grant_types_supported"])
    assert set(meta["token_endpoint_auth_methods_supported"]) == {"client_secret_basic", "client_secret_post", "none"}
    assert meta["scopes_supported"] == ["mcp", "admin"]


def test_code_flow_whoami_step_up_and_refresh_rotation(oauth_server, client):
    server = oauth_server()
    reg = register(client, server)
    assert reg["client_secret"]
    response, _ = authorize(client, server, reg)
    params = redirect_params(response)
    assert params["state"] == "s-1" and params["iss"] == server.issuer and params["code"]
    tokens = code_flow(client, server, reg)
    assert tokens["scope"] == "mcp" and tokens["refresh_token"] and tokens["token_type"] == "Bearer"
    whoami = json.loads(result_text(mcp_call(client, server, tokens["access_token"])))
    assert whoami == {"client_id": reg["client_id"], "scopes": ["mcp"], "resource": server.url, "token_type": "Bearer"}
    assert (
        result_text(mcp_call(client, server, tokens["access_token"], "leak_token"))
        == f"you sent: Bearer {tokens['access_token']}"
    )
    denied = mcp_call(client, server, tokens["access_token"], "admin_action")
    assert denied.status_code == 403
    assert 'error="insufficient_scope"' in denied.headers["www-authenticate"]
    assert 'scope="admin"' in denied.headers["www-authenticate"]
    wide = code_flow(client, server, reg, scope="mcp admin")
    assert "admin action done" in result_text(mcp_call(client, server, wide["access_token"], "admin_action"))
    refreshed = token(client, server, reg, grant_type="refresh_token", refresh_token=tokens["refresh_token"])
    assert refreshed.status_code == 200 and refreshed.json()["refresh_token"] != tokens["refresh_token"]
    again = token(client, server, reg, grant_type="refresh_token", refresh_token=tokens["refresh_token"])
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    stats = server.stats()
    assert stats["authorize"] == 3 and stats["token"]["refresh_token"] == 2
    assert tokens["access_token"] in stats["secrets"]["access_tokens"]
    assert reg["client_secret"] in server.secrets()


def test_code_exchange_checks_pkce_redirect_uri_and_client_auth(oauth_server, client):
    server = oauth_server()
    reg = register(client, server, "client_secret_post")
    response, verifier = authorize(client, server, reg)
    code = redirect_params(response)["code"]
    wrong = client.post(
        server.base + "/token",
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "code_verifier": verifier},
        auth=(reg["client_id"], reg["client_secret"]),
    )  # basic, but registered post
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    response, verifier = authorize(client, server, reg)
    code = redirect_params(response)["code"]
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CALLBACK,
        "code_verifier": verifier + "x",
        "client_id": reg["client_id"],
        "client_secret": reg["client_secret"],
    }
    bad = client.post(server.base + "/token", data=form)
    assert bad.status_code == 400 and "PKCE" in bad.json()["error_description"]
    # a loopback redirect URI may change its port (RFC 8252), another path may not
    assert authorize(client, server, reg, redirect_uri="http://127.0.0.1:6000/callback")[0].status_code == 302
    assert authorize(client, server, reg, redirect_uri="http://127.0.0.1:5555/other")[0].status_code == 400
    # resource is required and must be this server
    params = redirect_params(authorize(client, server, reg, resource=None)[0])
    assert params["error"] == "invalid_target"
    params = redirect_params(authorize(client, server, reg, resource="http://127.0.0.1:1/elsewhere")[0])
    assert params["error"] == "invalid_target"
    params = redirect_params(authorize(client, server, reg, scope="mcp root")[0])
    assert params["error"] == "invalid_scope"


def test_public_client_and_client_credentials(oauth_server, client):
    server = oauth_server("--client", "ci-bot:ci-secret:client_secret_post")
    public = register(client, server, "none")
    assert "client_secret" not in public
    assert code_flow(client, server, public)["access_token"]
    reply = client.post(
        server.base + "/token",
        data={
            "grant_type": "client_credentials",
            "client_id": "ci-bot",
            "client_secret": "ci-secret",
            "resource": server.url,
        },
    )
    assert reply.status_code == 200, reply.text
    assert "refresh_token" not in reply.json()
    assert json.loads(result_text(mcp_call(client, server, reply.json()["access_token"])))["client_id"] == "ci-bot"
    refused = token(client, server, public, grant_type="client_credentials", resource=server.url)
    assert refused.json()["error"] == "unauthorized_client"


def test_jwt_tokens_and_expiry(oauth_server, client):
    from joserfc import jwt
    from joserfc.jwk import KeySet

    server = oauth_server("--jwt", "--expires-in", "1")
    reg = register(client, server)
    tokens = code_flow(client, server, reg)
    keys = KeySet.import_key_set(client.get(server.base + "/jwks").json())
    claims = jwt.decode(tokens["access_token"], keys).claims
    assert claims["aud"] == server.url and claims["scope"] == "mcp" and claims["client_id"] == reg["client_id"]
    assert claims["exp"] - claims["iat"] == 1
    import time

    time.sleep(1.2)  # let the 1-second token expire (not a timing assertion)
    expired = mcp_call(client, server, tokens["access_token"])
    assert expired.status_code == 401
    assert 'error="invalid_token"' in expired.headers["www-authenticate"]
    assert "expired" in expired.headers["www-authenticate"]


def test_broken_variants(oauth_server, client):
    server = oauth_server("--wrong-issuer", "--no-s256", "--wrong-iss", "--no-refresh", "--prm-at-root")
    meta = client.get(server.base + "/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] != server.issuer
    assert "code_challenge_methods_supported" not in meta and "refresh_token" not in meta["grant_types_supported"]
    assert client.get(server.base + "/.well-known/oauth-protected-resource/mcp").status_code == 404
    prm = client.get(server.base + "/.well-known/oauth-protected-resource").json()
    assert prm["resource"] == server.base
    reg = register(client, server)
    params = redirect_params(authorize(client, server, reg)[0])
    assert params["iss"] != server.issuer
    assert "refresh_token" not in code_flow(client, server, reg)

    server = oauth_server("--metadata-at-root", "--no-iss", "--token-error", "500", "--no-challenge-metadata")
    assert server.issuer == server.base + "/tenant"
    assert client.get(server.base + "/.well-known/oauth-authorization-server/tenant").status_code == 404
    assert client.get(server.base + "/.well-known/oauth-authorization-server").json()["issuer"] == server.issuer
    assert (
        "resource_metadata" not in client.post(server.url, json=INIT, headers=MCP_HEADERS).headers["www-authenticate"]
    )
    reg = register(client, server)
    params = redirect_params(authorize(client, server, reg)[0])
    assert "iss" not in params
    assert token(client, server, reg, grant_type="client_credentials").status_code == 500

    server = oauth_server("--token-error", "garbage", "--deny", "--no-dcr", "--client", "c1")
    assert "registration_endpoint" not in client.get(server.base + "/.well-known/oauth-authorization-server").json()
    assert client.post(server.base + "/register", json={"redirect_uris": [CALLBACK]}).status_code in (404, 405)
    params = redirect_params(authorize(client, server, {"client_id": "c1"})[0])
    assert params["error"] == "access_denied"
    reply = client.post(server.base + "/token", data={"grant_type": "client_credentials", "client_id": "c1"})
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/html")


def test_more_broken_variants(oauth_server, client):
    server = oauth_server("--wrong-state", "--as-unreachable", "--token-error", "huge", "--refresh-fails")
    assert client.get(server.base + "/.well-known/oauth-protected-resource/mcp").json()["authorization_servers"] == [
        "http://127.0.0.1:9"
    ]
    reg = register(client, server)
    assert redirect_params(authorize(client, server, reg)[0])["state"] == "not-s-1"
    reply = token(client, server, reg, grant_type="client_credentials", resource=server.url)
    assert reply.status_code == 400 and len(reply.content) > 8_000_000
    server = oauth_server("--refresh-fails")
    reg = register(client, server)
    tokens = code_flow(client, server, reg)
    refused = token(client, server, reg, grant_type="refresh_token", refresh_token=tokens["refresh_token"])
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"


def test_migrate_to_a_second_authorization_server(oauth_server, client):
    server = oauth_server()
    reg = register(client, server)
    old = code_flow(client, server, reg)
    assert client.post(server.base + "/_migrate").json()["issuer"] == server.base + "/as2"
    assert client.get(server.base + "/.well-known/oauth-protected-resource/mcp").json()["authorization_servers"] == [
        server.base + "/as2"
    ]
    assert mcp_call(client, server, old["access_token"]).status_code == 401
    meta = client.get(server.base + "/.well-known/oauth-authorization-server/as2").json()
    assert meta["issuer"] == server.base + "/as2" and meta["token_endpoint"] == server.base + "/as2/token"
    response = client.post(
        meta["registration_endpoint"], json={"redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"}
    )
    reg2 = response.json()
    assert reg2["client_id"] == "as2-client-1"
    verifier, challenge = pkce()
    redirect = client.get(
        meta["authorization_endpoint"],
        params={
            "response_type": "code",
            "client_id": reg2["client_id"],
            "redirect_uri": CALLBACK,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": "s",
            "resource": server.url,
        },
    )
    params = redirect_params(redirect)
    assert params["iss"] == server.base + "/as2"
    tokens = client.post(
        meta["token_endpoint"],
        data={
            "grant_type": "authorization_code",
            "code": params["code"],
            "redirect_uri": CALLBACK,
            "code_verifier": verifier,
            "client_id": reg2["client_id"],
            "resource": server.url,
        },
    ).json()
    assert json.loads(result_text(mcp_call(client, server, tokens["access_token"])))["client_id"] == "as2-client-1"
    assert server.stats()["as2"]["authorize"] == 1 and tokens["access_token"] in server.secrets()
