"""grants: the grants without a user against a real authorization server and identity provider on
127.0.0.1 (starlette + uvicorn in a thread) that verify what they receive with joserfc, as the
conformance suite's mock servers do: client credentials (client_secret_basic, private_key_jwt
with aud = the issuer), DPoP-bound tokens with the server's nonce, the workload identity JWT
bearer grant (sent once, its aud and exp shown), and enterprise-managed authorization (RFC 8693
token exchange at the IdP, then the ID-JAG as a JWT bearer assertion). No secret in the steps."""

from __future__ import annotations

import base64
import dataclasses
import json
import secrets
import threading
import time
from typing import Any

import httpx2
import pytest
import uvicorn
from joserfc import jwk, jws, jwt
from joserfc.jwk import ECKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcp_inspector.core.auth.assertions import JWT_BEARER_GRANT, decode_claims
from mcp_inspector.core.auth.dpop import DpopKey, DpopNonces
from mcp_inspector.core.auth.grants import obtain_without_user
from mcp_inspector.core.auth.http import AuthHttp
from mcp_inspector.core.auth.model import AuthError, AuthLog, AuthSettings, ClientInfo, ServerAuthInfo
from mcp_inspector.core.traffic.http_log import HttpLog

pytestmark = pytest.mark.anyio

CLIENT_ID = "test-client"
CLIENT_SECRET = "test-client-secret-value"
IDP_CLIENT_ID = "idp-client"
IDP_CLIENT_SECRET = "idp-client-secret-value"
AS_NONCE = "as-nonce-1"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"


def _registry(alg: str) -> jws.JWSRegistry:
    registry = jws.JWSRegistry(algorithms=[alg])
    registry.max_header_length = 4096
    return registry


def _basic(header: str | None) -> tuple[str, str] | None:
    if not header or not header.startswith("Basic "):
        return None
    user, _, password = base64.b64decode(header[6:]).decode().partition(":")
    return user, password


class OAuthServers:
    """An authorization server (``/as``) and an identity provider (``/idp``) on one port."""

    def __init__(self) -> None:
        self.client_key = ECKey.generate_key("P-256")  # the client's private_key_jwt key
        self.workload_key = ECKey.generate_key("P-256")  # the workload identity platform's key
        self.idp_key = ECKey.generate_key("P-256")  # signs ID tokens and ID-JAGs
        self.url = ""
        self.reset()

    def reset(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.require_nonce = False
        self.idp_error = False
        self.idp_reply: Any = None  # (status, content, content type): a broken identity provider

    @property
    def issuer(self) -> str:
        return f"{self.url}/as"

    @property
    def idp(self) -> str:
        return f"{self.url}/idp"

    def sign(self, key: ECKey, claims: dict[str, Any], typ: str | None = None) -> str:
        header = {"alg": "ES256", **({"typ": typ} if typ else {})}
        return jwt.encode(header, claims, key)

    def verify(self, token: str, key: ECKey, audience: str) -> dict[str, Any]:
        claims = jwt.decode(token, key, algorithms=["ES256"]).claims
        auds = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        if audience.rstrip("/") not in [aud.rstrip("/") for aud in auds]:
            raise ValueError(f"aud {auds} is not {audience}")
        if claims.get("exp", 0) < time.time() - 5:
            raise ValueError("expired")
        return claims

    async def token(self, request: Request) -> JSONResponse:
        form = dict(await request.form())
        record = {"form": form, "headers": dict(request.headers), "path": "/as/token"}
        self.requests.append(record)
        proof = request.headers.get("dpop")
        bound = None
        if proof is not None:
            header = decode_claims(proof)["header"]
            if header.get("typ") != "dpop+jwt" or "d" in header["jwk"]:
                return JSONResponse({"error": "invalid_dpop_proof"}, 400)
            try:
                claims = jwt.decode(
                    proof, jwk.import_key(header["jwk"], header["jwk"]["kty"]), registry=_registry(header["alg"])
                ).claims
            except Exception as exc:  # noqa: BLE001 - the verdict goes to the client
                return JSONResponse({"error": "invalid_dpop_proof", "error_description": str(exc)}, 400)
            if claims.get("htm") != "POST" or claims.get("htu") != f"{self.issuer}/token" or "jti" not in claims:
                return JSONResponse({"error": "invalid_dpop_proof", "error_description": "htm/htu/jti"}, 400)
            if self.require_nonce and claims.get("nonce") != AS_NONCE:
                record["challenged"] = True
                return JSONResponse({"error": "use_dpop_nonce"}, 400, headers={"DPoP-Nonce": AS_NONCE})
            bound = jwk.import_key(header["jwk"], header["jwk"]["kty"]).thumbprint()
        grant = form.get("grant_type")
        try:
            if grant == "client_credentials":
                if "client_assertion" in form:
                    if form.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
                        raise ValueError("client_assertion_type")
                    claims = self.verify(form["client_assertion"], self.client_key, self.issuer)
                    if claims["iss"] != CLIENT_ID or claims["sub"] != CLIENT_ID:
                        raise ValueError("iss/sub")
                    record["auth"] = "private_key_jwt"
                elif _basic(request.headers.get("authorization")) == (CLIENT_ID, CLIENT_SECRET):
                    record["auth"] = "client_secret_basic"
                else:
                    return JSONResponse({"error": "invalid_client"}, 401)
            elif grant == JWT_BEARER_GRANT:
                assertion = form.get("assertion", "")
                if decode_claims(assertion) and decode_claims(assertion)["header"].get("typ") == "oauth-id-jag+jwt":
                    if _basic(request.headers.get("authorization")) != (CLIENT_ID, CLIENT_SECRET):
                        return JSONResponse({"error": "invalid_client"}, 401)
                    claims = self.verify(assertion, self.idp_key, self.issuer)
                    if claims.get("client_id") != CLIENT_ID or claims.get("resource") != f"{self.url}/mcp":
                        raise ValueError("client_id/resource")
                    record["auth"] = "id-jag"
                else:
                    self.verify(assertion, self.workload_key, self.issuer)
                    record["auth"] = "workload"
            else:
                return JSONResponse({"error": "unsupported_grant_type"}, 400)
        except Exception as exc:  # noqa: BLE001 - the fixture refuses any bad grant with a 400
            return JSONResponse({"error": "invalid_grant", "error_description": f"refused: {exc}"}, 400)
        body: dict[str, Any] = {
            "access_token": "at-" + secrets.token_urlsafe(12),
            "token_type": "Bearer",
            "expires_in": 600,
        }
        if bound is not None:
            body["access_token"] = self.sign(
                self.idp_key, {"cnf": {"jkt": bound}, "sub": CLIENT_ID, "aud": f"{self.url}/mcp"}, "at+jwt"
            )
            body["token_type"] = "DPoP"
        if form.get("scope"):
            body["scope"] = form["scope"]
        return JSONResponse(body)

    async def idp_metadata(self, request: Request) -> JSONResponse:
        return JSONResponse({"issuer": self.idp, "token_endpoint": f"{self.idp}/token"})

    async def not_found(self, request: Request) -> JSONResponse:
        return JSONResponse({"error": "not found"}, 404)

    async def idp_token(self, request: Request) -> JSONResponse:
        form = dict(await request.form())
        self.requests.append({"form": form, "headers": dict(request.headers), "path": "/idp/token"})
        if self.idp_reply is not None:
            status, content, media = self.idp_reply
            return Response(content, status, media_type=media)
        if self.idp_error:
            return JSONResponse(
                {"error": "invalid_grant", "error_description": f"bad subject_token {form.get('subject_token')}"}, 400
            )
        expected = {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "requested_token_type": ID_JAG_TYPE,
            "audience": self.issuer,
            "resource": f"{self.url}/mcp",
            "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
        }
        wrong = {key: form.get(key) for key, value in expected.items() if form.get(key) != value}
        if wrong:
            return JSONResponse({"error": "invalid_request", "error_description": json.dumps(wrong)}, 400)
        claims = self.verify(form["subject_token"], self.idp_key, IDP_CLIENT_ID)
        jag = self.sign(
            self.idp_key,
            {
                "iss": self.idp,
                "sub": claims["sub"],
                "aud": form["audience"],
                "client_id": CLIENT_ID,
                "resource": form["resource"],
                "jti": secrets.token_urlsafe(8),
                "iat": int(time.time()),
                "exp": int(time.time()) + 300,
            },
            "oauth-id-jag+jwt",
        )
        return JSONResponse({"access_token": jag, "issued_token_type": ID_JAG_TYPE, "token_type": "N_A"})

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/as/token", self.token, methods=["POST"]),
                Route("/idp/.well-known/openid-configuration", self.idp_metadata),
                Route("/.well-known/oauth-authorization-server/idp2", self.idp_metadata),  # an IdP with RFC 8414 only
                Route("/idp2/.well-known/openid-configuration", self.not_found),
                Route("/idp/token", self.idp_token, methods=["POST"]),
            ]
        )


@pytest.fixture(scope="module")
def servers():
    state = OAuthServers()
    server = uvicorn.Server(uvicorn.Config(state.app(), host="127.0.0.1", port=0, log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test authorization server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    state.url = f"http://127.0.0.1:{port}"
    yield state
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def oauth(servers: OAuthServers) -> OAuthServers:
    servers.reset()
    return servers


def server_info(oauth: OAuthServers, **metadata: Any) -> ServerAuthInfo:
    return ServerAuthInfo(
        f"{oauth.url}/mcp",
        resource_metadata_url=f"{oauth.url}/.well-known/oauth-protected-resource/mcp",
        resource_metadata={"resource": f"{oauth.url}/mcp", "authorization_servers": [oauth.issuer]},
        issuer=oauth.issuer,
        metadata={"issuer": oauth.issuer, "token_endpoint": f"{oauth.issuer}/token", **metadata},
    )


async def obtain(
    oauth: OAuthServers,
    settings: AuthSettings,
    client: ClientInfo,
    *,
    scope: str | None = None,
    dpop: DpopKey | None = None,
    nonces: DpopNonces | None = None,
    **metadata: Any,
):
    log = AuthLog()
    http_log = HttpLog()
    async with httpx2.AsyncClient() as client_http:
        http = AuthHttp(client_http, log, http_log)
        try:
            tokens = await obtain_without_user(
                http, server_info(oauth, **metadata), client, settings, scope, dpop, nonces=nonces
            )
        except AuthError as exc:
            return exc, log, http_log
    return tokens, log, http_log


def shown(log: AuthLog, http_log: HttpLog) -> str:
    """Everything the Auth and HTTP views could show of the flow."""
    steps = [
        {
            "title": s.title,
            "request": s.request,
            "response": s.response,
            "details": s.details,
            "findings": [f.text for f in s.findings],
        }
        for s in log.steps
    ]
    exchanges = [dataclasses.asdict(e) for e in http_log.exchanges]
    return json.dumps(steps, default=str) + json.dumps(exchanges, default=str)


async def test_client_credentials_with_client_secret_basic(oauth: OAuthServers) -> None:
    client = ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic")
    tokens, log, http_log = await obtain(
        oauth,
        AuthSettings(grant="client_credentials"),
        client,
        scope="read write",
        grant_types_supported=["client_credentials"],
    )
    assert tokens.access_token.startswith("at-") and tokens.token_type == "Bearer" and tokens.scope == "read write"
    [request] = oauth.requests
    assert request["auth"] == "client_secret_basic"
    assert request["form"]["grant_type"] == "client_credentials" and request["form"]["resource"] == f"{oauth.url}/mcp"
    [step] = log.steps
    assert step.status == "ok" and step.kind == "token"
    assert any("client_credentials in grant_types_supported" in f.text for f in step.findings)
    text = shown(log, http_log)
    assert CLIENT_SECRET not in text and tokens.access_token not in text


async def test_client_credentials_with_private_key_jwt(oauth: OAuthServers) -> None:
    settings = AuthSettings(grant="client_credentials", private_key_pem=oauth.client_key.as_pem(private=True).decode())
    client = ClientInfo(CLIENT_ID, token_auth_method="private_key_jwt")
    tokens, log, http_log = await obtain(oauth, settings, client)
    assert not isinstance(tokens, AuthError), tokens
    [request] = oauth.requests
    assert request["auth"] == "private_key_jwt"
    assert request["form"]["client_assertion"] not in shown(log, http_log)


async def test_client_credentials_needs_client_authentication(oauth: OAuthServers) -> None:
    error, _, _ = await obtain(oauth, AuthSettings(grant="client_credentials"), ClientInfo(CLIENT_ID))
    assert isinstance(error, AuthError) and "--client-secret" in str(error)
    assert oauth.requests == []


async def test_a_wrong_client_key_is_refused_by_the_server(oauth: OAuthServers) -> None:
    other = ECKey.generate_key("P-256").as_pem(private=True).decode()
    settings = AuthSettings(grant="client_credentials", private_key_pem=other)
    error, log, _ = await obtain(oauth, settings, ClientInfo(CLIENT_ID, token_auth_method="private_key_jwt"))
    assert isinstance(error, AuthError) and "invalid_grant" in str(error)
    assert log.steps[-1].status == "failed"


async def test_a_dpop_bound_token_after_the_servers_nonce(oauth: OAuthServers) -> None:
    oauth.require_nonce = True
    key = DpopKey.generate()
    nonces = DpopNonces()
    client = ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic")
    tokens, log, http_log = await obtain(
        oauth,
        AuthSettings(grant="client_credentials"),
        client,
        dpop=key,
        nonces=nonces,
        dpop_signing_alg_values_supported=["ES256"],
    )
    assert not isinstance(tokens, AuthError), tokens
    assert tokens.token_type == "DPoP" and tokens.dpop_jkt == key.jkt
    assert decode_claims(tokens.access_token)["claims"]["cnf"]["jkt"] == key.jkt
    first, second = oauth.requests
    assert first.get("challenged") and not second.get("challenged")
    assert (
        decode_claims(first["headers"]["dpop"])["claims"]["jti"]
        != decode_claims(second["headers"]["dpop"])["claims"]["jti"]
    )
    assert nonces.get(f"{oauth.issuer}/token") == AS_NONCE
    assert second["headers"]["dpop"] not in shown(log, http_log)


def workload_jwt(oauth: OAuthServers, audience: str, expires_in: int = 300) -> str:
    now = int(time.time())
    return oauth.sign(
        oauth.workload_key,
        {
            "iss": "https://idp.workload.example",
            "sub": "workload",
            "aud": audience,
            "iat": now,
            "exp": now + expires_in,
            "jti": secrets.token_urlsafe(8),
        },
    )


async def test_workload_identity_jwt_bearer(oauth: OAuthServers) -> None:
    assertion = workload_jwt(oauth, oauth.issuer)
    settings = AuthSettings(grant="jwt_bearer", assertion=assertion + "\n")
    tokens, log, http_log = await obtain(
        oauth, settings, ClientInfo("wif-client"), grant_types_supported=[JWT_BEARER_GRANT]
    )
    assert not isinstance(tokens, AuthError), tokens
    [request] = oauth.requests
    assert request["form"]["grant_type"] == JWT_BEARER_GRANT and request["form"]["assertion"] == assertion
    assert request["form"]["client_id"] == "wif-client" and request["auth"] == "workload"
    [step] = log.steps
    assert step.details["assertion"]["claims"]["sub"] == "workload"  # the claims are shown...
    assert assertion not in shown(log, http_log) and assertion.split(".")[2] not in shown(
        log, http_log
    )  # ...never the JWT
    assert all(f.ok for f in step.findings)


@pytest.mark.parametrize(
    "audience, expires_in, finding",
    [
        ("https://wrong.example", 300, "is not the authorization server"),
        (None, -60, "expired"),
    ],
)
async def test_a_refused_workload_jwt_is_sent_once_and_explained(
    oauth: OAuthServers, audience, expires_in, finding
) -> None:
    assertion = workload_jwt(oauth, audience or oauth.issuer, expires_in)
    error, log, _ = await obtain(oauth, AuthSettings(grant="jwt_bearer", assertion=assertion), ClientInfo("wif-client"))
    assert isinstance(error, AuthError)
    assert "invalid_grant" in str(error) and "not retried" in str(error)
    assert len(oauth.requests) == 1  # no retry, no other grant
    [step] = log.steps
    assert step.status == "failed"
    assert any(finding in f.text and not f.ok for f in step.findings)


async def test_jwt_bearer_without_an_assertion(oauth: OAuthServers) -> None:
    error, _, _ = await obtain(oauth, AuthSettings(grant="jwt_bearer"), ClientInfo("wif-client"))
    assert isinstance(error, AuthError) and "--assertion" in str(error)
    assert oauth.requests == []


def id_token(oauth: OAuthServers) -> str:
    now = int(time.time())
    return oauth.sign(
        oauth.idp_key,
        {"iss": oauth.idp, "sub": "user@example.com", "aud": IDP_CLIENT_ID, "iat": now, "exp": now + 3600},
    )


def enterprise_settings(oauth: OAuthServers, **changes: Any) -> AuthSettings:
    settings = AuthSettings(
        grant="enterprise",
        idp_issuer=oauth.idp,
        idp_token_endpoint=f"{oauth.idp}/token",
        idp_client_id=IDP_CLIENT_ID,
        id_token=id_token(oauth),
    )
    for name, value in changes.items():
        setattr(settings, name, value)
    return settings


async def test_enterprise_managed_authorization(oauth: OAuthServers) -> None:
    settings = enterprise_settings(oauth)
    client = ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic")
    tokens, log, http_log = await obtain(oauth, settings, client, scope="mcp", grant_types_supported=[JWT_BEARER_GRANT])
    assert not isinstance(tokens, AuthError), tokens
    exchange, grant = oauth.requests
    assert exchange["path"] == "/idp/token" and exchange["form"]["client_id"] == IDP_CLIENT_ID
    assert "authorization" not in exchange["headers"]  # a public client at the IdP: no secret given
    assert (
        grant["path"] == "/as/token" and grant["auth"] == "id-jag" and grant["form"]["grant_type"] == JWT_BEARER_GRANT
    )
    assert [s.kind for s in log.steps] == ["token-exchange", "token"]
    assert all(s.status == "ok" for s in log.steps), [(s.title, [f.text for f in s.findings]) for s in log.steps]
    assert log.steps[0].details["id_jag"]["header"]["typ"] == "oauth-id-jag+jwt"
    text = shown(log, http_log)
    for secret in (settings.id_token, grant["form"]["assertion"], CLIENT_SECRET, tokens.access_token):
        assert secret not in text


async def test_enterprise_discovers_the_idp_and_authenticates_to_it(oauth: OAuthServers) -> None:
    settings = enterprise_settings(oauth, idp_token_endpoint=None, idp_client_secret=IDP_CLIENT_SECRET)
    client = ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic")
    tokens, log, http_log = await obtain(oauth, settings, client)
    assert not isinstance(tokens, AuthError), tokens
    exchange = oauth.requests[0]
    assert _basic(exchange["headers"].get("authorization")) == (IDP_CLIENT_ID, IDP_CLIENT_SECRET)
    assert [s.kind for s in log.steps] == ["idp-metadata", "token-exchange", "token"]
    assert IDP_CLIENT_SECRET not in shown(log, http_log)


async def test_an_idp_refusal_is_said_without_the_id_token(oauth: OAuthServers) -> None:
    oauth.idp_error = True
    settings = enterprise_settings(oauth)
    error, log, http_log = await obtain(oauth, settings, ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic"))
    assert isinstance(error, AuthError)
    assert "refused the token exchange (HTTP 400): invalid_grant: bad subject_token" in str(error)
    assert settings.id_token not in str(error) and settings.id_token not in shown(log, http_log)
    assert len(oauth.requests) == 1 and log.steps[-1].status == "failed"


async def test_enterprise_needs_the_idp_and_the_id_token(oauth: OAuthServers) -> None:
    client = ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic")
    error, _, _ = await obtain(oauth, enterprise_settings(oauth, id_token=None), client)
    assert isinstance(error, AuthError) and "--id-token" in str(error)
    error, _, _ = await obtain(oauth, enterprise_settings(oauth, idp_token_endpoint=None, idp_issuer=None), client)
    assert isinstance(error, AuthError) and "--idp-token-endpoint" in str(error)
    assert oauth.requests == []


async def test_the_authorization_code_grant_is_not_obtained_here(oauth: OAuthServers) -> None:
    error, _, _ = await obtain(oauth, AuthSettings(), ClientInfo(CLIENT_ID))
    assert isinstance(error, AuthError) and "not a grant without a user" in str(error)


@pytest.mark.parametrize(
    "reply, message",
    [
        ((200, "<html><body>Sign in</body></html>", "text/html"), "not a JSON object: Sign in"),
        ((200, '{"issued_token_type": "x"}', "application/json"), "no access_token (the ID-JAG)"),
        ((200, '{"access_token": "a b"}', "application/json"), "whitespace"),
        ((502, "x" * 3_000_000, "text/plain"), "refused the token exchange (HTTP 502)"),
    ],
)
async def test_a_broken_identity_provider_is_a_clear_error(oauth: OAuthServers, reply, message) -> None:
    oauth.idp_reply = reply
    error, log, _ = await obtain(
        oauth, enterprise_settings(oauth), ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic")
    )
    assert isinstance(error, AuthError) and message in str(error)
    assert len(str(error)) < 1_000
    assert [s.status for s in log.steps] == ["failed"] and len(oauth.requests) == 1


async def test_an_id_jag_that_is_not_a_jwt_is_said_and_sent(oauth: OAuthServers) -> None:
    oauth.idp_reply = (200, '{"access_token": "opaque-grant", "issued_token_type": "urn:x"}', "application/json")
    error, log, _ = await obtain(
        oauth, enterprise_settings(oauth), ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic")
    )
    assert isinstance(error, AuthError)  # the authorization server judges it: invalid_grant
    exchange, grant = log.steps
    texts = [f.text for f in exchange.findings if not f.ok]
    assert any("issued_token_type is 'urn:x'" in text for text in texts)
    assert any("the ID-JAG is not a JWT" in text for text in texts)
    assert grant.status == "failed" and oauth.requests[-1]["form"]["assertion"] == "opaque-grant"


async def test_an_unreachable_identity_provider(oauth: OAuthServers) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    settings = enterprise_settings(oauth, idp_token_endpoint=None, idp_issuer=dead)
    error, log, _ = await obtain(oauth, settings, ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic"))
    assert isinstance(error, AuthError) and dead in str(error)
    assert log.steps[-1].kind == "idp-metadata" and log.steps[-1].status == "failed"


async def test_an_idp_with_rfc_8414_metadata_only(oauth: OAuthServers) -> None:
    settings = enterprise_settings(oauth, idp_token_endpoint=None, idp_issuer=f"{oauth.url}/idp2")
    tokens, log, _ = await obtain(oauth, settings, ClientInfo(CLIENT_ID, CLIENT_SECRET, "client_secret_basic"))
    assert not isinstance(tokens, AuthError), tokens
    metadata = log.steps[0]
    assert metadata.details["metadata_url"] == f"{oauth.url}/.well-known/oauth-authorization-server/idp2"
    assert metadata.details["tried"] == [
        f"{oauth.url}/idp2/.well-known/openid-configuration: HTTP 404, no token_endpoint"
    ]
    # its metadata names /idp as the issuer: said, and the flow goes on
    assert any("issuer" in f.text and not f.ok for f in metadata.findings)
