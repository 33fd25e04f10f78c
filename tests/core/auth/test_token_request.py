"""The token endpoint (core/auth/token_request.py) against a real HTTP server on 127.0.0.1:
client authentication (basic with RFC 6749 §2.3.1 encoding, post, none), the resource
parameter, the response's checks, error responses quoted and masked, DPoP proofs with a
nonce retry, refresh with rotation, and no secret in a step."""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs

import httpx2
import pytest
from as_fixture import DocServer, json_answer, raw

from mcp_inspector.core.auth.assertions import decode_claims
from mcp_inspector.core.auth.dpop import DpopKey, DpopNonces
from mcp_inspector.core.auth.http import AuthHttp
from mcp_inspector.core.auth.model import AuthError, AuthLog, AuthSettings, ClientInfo, ServerAuthInfo, TokenSet
from mcp_inspector.core.auth.token_request import basic_credentials, refresh_tokens, request_token
from mcp_inspector.core.traffic.http_log import HttpLog

pytestmark = pytest.mark.anyio
RESOURCE = "http://127.0.0.1:1/mcp"
CODE = "the-authorization-code-123"
VERIFIER = "the-code-verifier-abcdefghijklmnopqrstuvwxyz0123456789"
GRANT = {
    "grant_type": "authorization_code",
    "code": CODE,
    "redirect_uri": "http://127.0.0.1:33418/callback",
    "code_verifier": VERIFIER,
}


def info_for(url: str, *, prm: bool = True) -> ServerAuthInfo:
    return ServerAuthInfo(
        resource=RESOURCE,
        issuer=url,
        metadata={"issuer": url, "token_endpoint": f"{url}/token"},
        resource_metadata={"resource": RESOURCE, "authorization_servers": [url]} if prm else None,
    )


def form(seen) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(seen.body, keep_blank_values=True).items()}


async def exchange(server: DocServer, client: ClientInfo, grant=GRANT, *, prm: bool = True, **kw):
    log = AuthLog()
    async with httpx2.AsyncClient() as http_client:
        http = AuthHttp(http_client, log, HttpLog())
        try:
            result = await request_token(
                http,
                info_for(server.url, prm=prm),
                client,
                AuthSettings(),
                dict(grant),
                kind="token",
                title="exchange",
                **kw,
            )
        except AuthError as exc:
            result = exc
    return result, log


def token(**extra):
    body = {
        "access_token": "access-token-value-1",
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": "refresh-token-value-1",
    }
    body.update(extra)
    return json_answer({k: v for k, v in body.items() if v is not None})


def steps_text(log: AuthLog) -> str:
    return json.dumps(
        [
            {
                "request": s.request,
                "response": s.response,
                "details": s.details,
                "findings": [f.text for f in s.findings],
            }
            for s in log.steps
        ],
        default=str,
    )


async def test_client_secret_basic_form_encodes_id_and_secret_and_sends_resource():
    client = ClientInfo("id with space:colon", "s3cret/+&=value", token_auth_method="client_secret_basic")
    with DocServer() as server:
        server.post("/token", token(scope="mcp"))
        tokens, log = await exchange(server, client, scope_asked="mcp")
    assert isinstance(tokens, TokenSet), tokens
    [seen] = server.requests
    scheme, encoded = seen.headers["authorization"].split(" ", 1)
    assert scheme == "Basic"
    assert base64.b64decode(encoded).decode() == "id+with+space%3Acolon:s3cret%2F%2B%26%3Dvalue"
    body = form(seen)
    assert "client_secret" not in body and "client_id" not in body
    assert body["resource"] == RESOURCE and body["code_verifier"] == VERIFIER
    assert tokens.access_token == "access-token-value-1" and tokens.refresh_token == "refresh-token-value-1"
    assert tokens.token_type == "Bearer" and tokens.expires_at is not None and tokens.scope == "mcp"
    assert tokens.resource == RESOURCE and tokens.client_id == client.client_id
    assert log.steps[-1].status == "ok" and log.steps[-1].details["client_auth"] == "client_secret_basic"


async def test_client_secret_post_and_none():
    with DocServer() as server:
        server.post("/token", token())
        await exchange(server, ClientInfo("post-client", "post-secret-value", token_auth_method="client_secret_post"))
        await exchange(server, ClientInfo("public-client", token_auth_method="none"))
    post, public = server.requests
    assert "authorization" not in post.headers
    assert form(post)["client_id"] == "post-client" and form(post)["client_secret"] == "post-secret-value"
    assert "authorization" not in public.headers
    assert form(public)["client_id"] == "public-client" and "client_secret" not in form(public)


async def test_no_resource_without_protected_resource_metadata():
    """2025-03-26 servers publish no RFC 9728 document: no resource parameter is sent."""
    with DocServer() as server:
        server.post("/token", token())
        await exchange(server, ClientInfo("c"), prm=False)
    assert "resource" not in form(server.requests[0])


async def test_error_response_is_quoted_with_the_echoed_secret_masked():
    with DocServer() as server:
        server.post(
            "/token", json_answer({"error": "invalid_grant", "error_description": f"code {CODE} was already used"}, 400)
        )
        error, log = await exchange(server, ClientInfo("c"))
    assert isinstance(error, AuthError)
    assert "HTTP 400" in str(error) and "invalid_grant" in str(error) and "already used" in str(error)
    assert CODE not in str(error)
    assert log.steps[-1].status == "failed"
    assert CODE not in steps_text(log) and VERIFIER not in steps_text(log)


@pytest.mark.parametrize(
    "answer,words",
    [
        (raw(200, "<html>welcome</html>", "text/html"), "not a JSON object"),
        (json_answer({"token_type": "Bearer"}), "no access_token"),
        (json_answer({"access_token": "abc\r\nX-Evil: 1", "token_type": "Bearer"}), "line break"),
        (json_answer({"access_token": "tok-value-123", "token_type": "mac"}), "unsupported token_type"),
        (raw(500, "internal trouble"), "HTTP 500"),
    ],
)
async def test_broken_token_responses_are_clear_errors(answer, words):
    with DocServer() as server:
        server.post("/token", answer)
        error, _ = await exchange(server, ClientInfo("c"))
    assert isinstance(error, AuthError) and words in str(error), error


async def test_missing_token_type_and_scopes_not_granted_are_findings():
    with DocServer() as server:
        server.post("/token", token(token_type=None, scope="read"))
        tokens, log = await exchange(server, ClientInfo("c"), scope_asked="read write")
    assert isinstance(tokens, TokenSet) and tokens.token_type == "Bearer" and tokens.scope == "read"
    texts = [f.text for f in log.steps[-1].findings if not f.ok]
    assert any("token_type" in text for text in texts)
    assert any("not granted: write" in text for text in texts)
    assert log.steps[-1].status == "warning"


async def test_dpop_proof_and_one_retry_with_the_servers_nonce():
    key = DpopKey.generate()
    nonces = DpopNonces()
    answers = iter(
        [json_answer({"error": "use_dpop_nonce"}, 400, **{"DPoP-Nonce": "server-nonce-1"}), token(token_type="DPoP")]
    )
    with DocServer() as server:
        server.post("/token", lambda seen: next(answers))
        tokens, log = await exchange(server, ClientInfo("c"), dpop=key, nonces=nonces)
    assert isinstance(tokens, TokenSet), tokens
    first, second = server.requests
    claims_one = decode_claims(first.headers["dpop"])["claims"]
    claims_two = decode_claims(second.headers["dpop"])["claims"]
    assert "nonce" not in claims_one and claims_two["nonce"] == "server-nonce-1"
    assert claims_two["htm"] == "POST" and claims_two["htu"] == f"{server.url}/token"
    assert tokens.token_type == "DPoP" and tokens.dpop_jkt == key.jkt
    assert nonces.get(f"{server.url}/token") == "server-nonce-1"


async def test_a_dpop_token_without_a_proof_is_refused():
    with DocServer() as server:
        server.post("/token", token(token_type="DPoP"))
        error, _ = await exchange(server, ClientInfo("c"))
    assert isinstance(error, AuthError) and "DPoP" in str(error)


async def test_refresh_keeps_the_old_refresh_token_unless_rotated():
    old = TokenSet("old-access-token", refresh_token="old-refresh-token", scope="mcp")
    with DocServer() as server:
        server.post("/token", token(refresh_token=None, access_token="new-access-1"))
        async with httpx2.AsyncClient() as http_client:
            http = AuthHttp(http_client, AuthLog(), None)
            kept = await refresh_tokens(http, info_for(server.url), ClientInfo("c"), AuthSettings(), old)
            server.post("/token", token(refresh_token="rotated-refresh", access_token="new-access-2"))
            rotated = await refresh_tokens(http, info_for(server.url), ClientInfo("c"), AuthSettings(), kept)
    assert kept.access_token == "new-access-1" and kept.refresh_token == "old-refresh-token"
    assert rotated.access_token == "new-access-2" and rotated.refresh_token == "rotated-refresh"
    first, second = server.requests
    assert form(first)["grant_type"] == "refresh_token" and form(first)["refresh_token"] == "old-refresh-token"
    assert form(second)["refresh_token"] == "old-refresh-token"  # the kept one, since the first gave none


async def test_secrets_are_masked_in_the_step():
    client = ClientInfo("c", "client-secret-value-xyz", token_auth_method="client_secret_post")
    with DocServer() as server:
        server.post("/token", token())
        _, log = await exchange(server, client)
    text = steps_text(log)
    for secret in (CODE, VERIFIER, "client-secret-value-xyz", "access-token-value-1", "refresh-token-value-1"):
        assert secret not in text


def test_basic_credentials_is_rfc6749_form_encoding():
    assert basic_credentials("a", "b") == "Basic " + base64.b64encode(b"a:b").decode()
    assert base64.b64decode(basic_credentials("ü", "%")[6:]) == b"%C3%BC:%25"
