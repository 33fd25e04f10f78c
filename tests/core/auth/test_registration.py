"""Client registration against real HTTP servers on 127.0.0.1: the spec's order (pre-registered,
stored for the same issuer, Client ID Metadata Document, Dynamic Client Registration), what a
registration request carries, the token endpoint authentication method, and clear errors."""

from __future__ import annotations

import json

import httpx2
import pytest
from as_fixture import HANG, DocServer, json_answer, raw

from mcp_inspector.core.auth.http import AuthHttp
from mcp_inspector.core.auth.model import AuthError, AuthLog, AuthSettings, ClientInfo, ServerAuthInfo
from mcp_inspector.core.auth.registration import application_type, choose_token_auth_method, register
from mcp_inspector.core.traffic.http_log import HttpLog

pytestmark = pytest.mark.anyio
LOOPBACK = ["http://127.0.0.1:33418/callback"]
CIMD = "https://conformance-test.local/client-metadata.json"


def server_info(url: str, **metadata) -> ServerAuthInfo:
    doc = {
        "issuer": url,
        "authorization_endpoint": f"{url}/authorize",
        "token_endpoint": f"{url}/token",
        "registration_endpoint": f"{url}/register",
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    }
    doc.update(metadata)
    return ServerAuthInfo(
        resource="http://127.0.0.1:1/mcp",
        issuer=url,
        metadata={k: v for k, v in doc.items() if v is not None},
        resource_metadata={
            "resource": "http://127.0.0.1:1/mcp",
            "authorization_servers": [url],
            "scopes_supported": ["mcp:read"],
        },
    )


async def run_register(info: ServerAuthInfo, settings: AuthSettings | None = None, redirect_uris=LOOPBACK, **kw):
    log = AuthLog()
    async with httpx2.AsyncClient() as client:
        http = AuthHttp(client, log, HttpLog())
        try:
            return await register(http, info, settings or AuthSettings(), list(redirect_uris), **kw), log
        except AuthError as exc:
            return exc, log


def registered(client_id="dcr-client", secret="dcr-secret-value", **extra):
    def answer(seen):
        body = {
            "client_id": client_id,
            "client_name": seen.body.get("client_name"),
            "redirect_uris": seen.body.get("redirect_uris"),
        }
        if secret:
            body["client_secret"] = secret
        body.update(extra)
        return json_answer(body, 201)

    return answer


async def test_dynamic_registration_request_and_response():
    with DocServer() as as_:
        as_.post("/register", registered())
        client, log = await run_register(server_info(as_.url))
    assert isinstance(client, ClientInfo), client
    [seen] = as_.requests
    assert seen.path == "/register" and seen.headers["content-type"] == "application/json"
    assert seen.body == {
        "client_name": "mcp-inspector",
        "redirect_uris": LOOPBACK,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "application_type": "native",
        "token_endpoint_auth_method": "none",
        "scope": "mcp:read",
    }
    assert client.client_id == "dcr-client" and client.client_secret == "dcr-secret-value"
    assert client.registered_via == "dynamic" and client.issuer == as_.url and client.redirect_uris == LOOPBACK
    # the server lists only "none" and assigned nothing: a secret is issued but "none" is used
    assert client.token_auth_method == "none"
    assert client.registration["client_id"] == "dcr-client"
    [step] = log.steps
    assert step.kind == "registration" and step.status == "ok"
    shown = json.dumps(step.response) + json.dumps(step.details)
    assert "dcr-secret-value" not in shown  # masked in the step


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post", "none"])
async def test_assigned_method_is_used(method):
    with DocServer() as as_:
        as_.post(
            "/register", registered(secret=None if method == "none" else "s3cret", token_endpoint_auth_method=method)
        )
        client, log = await run_register(server_info(as_.url, token_endpoint_auth_methods_supported=[method]))
        assert client.token_auth_method == method
        assert as_.requests[0].body["token_endpoint_auth_method"] == method  # asked for what the server lists
        # the server lists several and assigns one: the assigned one is used
        everything = ["client_secret_basic", "client_secret_post", "none"]
        client, log = await run_register(server_info(as_.url, token_endpoint_auth_methods_supported=everything))
    assert as_.requests[1].body["token_endpoint_auth_method"] == "none"
    assert client.token_auth_method == method


async def test_method_chosen_from_supported_when_not_assigned():
    with DocServer() as as_:
        as_.post("/register", registered())
        client, _ = await run_register(
            server_info(as_.url, token_endpoint_auth_methods_supported=["client_secret_post"])
        )
    assert as_.requests[0].body["token_endpoint_auth_method"] == "client_secret_post"
    assert client.token_auth_method == "client_secret_post"


async def test_grant_types_follow_the_server_and_the_grant():
    with DocServer() as as_:
        as_.post("/register", registered())
        await run_register(
            server_info(as_.url, grant_types_supported=["authorization_code"]),
            AuthSettings(scopes=["x", "y"], client_name="ci"),
        )
        await run_register(
            server_info(as_.url), AuthSettings(grant="client_credentials"), redirect_uris=["https://app.example.com/cb"]
        )
    first, second = (seen.body for seen in as_.requests)
    assert first["grant_types"] == ["authorization_code"] and first["scope"] == "x y" and first["client_name"] == "ci"
    assert second["grant_types"] == ["client_credentials"] and second["response_types"] == []
    assert second["application_type"] == "web"


async def test_pre_registered_client_comes_first():
    with DocServer() as as_:
        as_.post("/register", raw(500, "must not be called"))
        settings = AuthSettings(
            client_id="pre-registered-client", client_secret="pre-registered-secret", client_metadata_url=CIMD
        )
        info = server_info(
            as_.url,
            client_id_metadata_document_supported=True,
            token_endpoint_auth_methods_supported=["client_secret_basic"],
        )
        client, log = await run_register(info, settings)
    assert as_.requests == []
    assert (client.client_id, client.client_secret, client.token_auth_method, client.registered_via) == (
        "pre-registered-client",
        "pre-registered-secret",
        "client_secret_basic",
        "pre-registered",
    )
    assert "pre-registered-secret" not in json.dumps(log.steps[0].details)
    assert log.steps[0].status == "ok"


async def test_pre_registered_client_bound_to_another_issuer_is_a_warning():
    info = server_info("http://127.0.0.1:9/as2")
    stored = ClientInfo("c1", registered_via="pre-registered", issuer="http://127.0.0.1:9/as1")
    client, log = await run_register(info, AuthSettings(client_id="c1"), stored=stored)
    assert client.client_id == "c1" and log.steps[0].status == "warning"
    assert "Authorization Server Binding" in (log.steps[0].findings[1].spec or "")


async def test_stored_client_reused_only_with_the_same_issuer_and_redirect_uris():
    with DocServer() as as_:
        as_.post("/register", registered(client_id="fresh"))
        stored = ClientInfo("old", "old-secret", "client_secret_basic", "dynamic", as_.url, list(LOOPBACK))
        client, log = await run_register(server_info(as_.url), stored=stored)
        assert client is stored and as_.requests == [] and log.steps[0].title.startswith("Stored client")
        # another authorization server (AS migration): re-register, never reuse
        moved = ClientInfo(
            "old", "old-secret", "client_secret_basic", "dynamic", "http://127.0.0.1:9/as1", list(LOOPBACK)
        )
        client, _ = await run_register(server_info(as_.url), stored=moved)
        assert client.client_id == "fresh" and len(as_.requests) == 1
        # a loopback IP redirect URI on another port is the same registration (OAuth 2.1 §8.4.2)
        client, log = await run_register(
            server_info(as_.url), stored=stored, redirect_uris=["http://127.0.0.1:5555/callback"]
        )
        assert client is stored and len(as_.requests) == 1 and "any port" in log.steps[0].findings[-1].text
        # other redirect URIs: another path, or localhost (a name, not an IP literal)
        client, _ = await run_register(server_info(as_.url), stored=stored, redirect_uris=["http://127.0.0.1:5555/cb"])
        assert client.client_id == "fresh" and len(as_.requests) == 2
        client, _ = await run_register(
            server_info(as_.url), stored=stored, redirect_uris=["http://localhost:33418/callback"]
        )
        assert client.client_id == "fresh" and len(as_.requests) == 3
        # an expired secret
        expired = ClientInfo(
            "old",
            "s",
            "client_secret_basic",
            "dynamic",
            as_.url,
            list(LOOPBACK),
            registration={"client_secret_expires_at": 1000},
        )
        client, _ = await run_register(server_info(as_.url), stored=expired)
        assert client.client_id == "fresh" and len(as_.requests) == 4
        # no redirect URI wanted (client credentials): reused when registered for that grant, else not
        machine = ClientInfo(
            "m2m",
            "s",
            "client_secret_basic",
            "dynamic",
            as_.url,
            [],
            registration={"grant_types": ["client_credentials"]},
        )
        client, _ = await run_register(
            server_info(as_.url), AuthSettings(grant="client_credentials"), stored=machine, redirect_uris=[]
        )
        assert client is machine and len(as_.requests) == 4
        client, _ = await run_register(
            server_info(as_.url), AuthSettings(grant="client_credentials"), stored=stored, redirect_uris=[]
        )
        assert client.client_id == "fresh" and len(as_.requests) == 5


async def test_client_id_metadata_document_when_supported():
    with DocServer() as as_:
        as_.post("/register", raw(500, "must not be called"))
        info = server_info(as_.url, client_id_metadata_document_supported=True)
        client, log = await run_register(info, AuthSettings(client_metadata_url=CIMD))
    assert as_.requests == []
    assert (client.client_id, client.client_secret, client.token_auth_method, client.registered_via) == (
        CIMD,
        None,
        "none",
        "metadata-document",
    )
    assert log.steps[0].status == "ok"


async def test_metadata_document_not_advertised_uses_dcr_when_available():
    with DocServer() as as_:
        as_.post("/register", registered())
        client, _ = await run_register(server_info(as_.url), AuthSettings(client_metadata_url=CIMD))
        assert client.registered_via == "dynamic"
        # without a registration endpoint the document is tried anyway (with a warning)
        client, log = await run_register(
            server_info(as_.url, registration_endpoint=None), AuthSettings(client_metadata_url="http://127.0.0.1/")
        )
    assert client.client_id == "http://127.0.0.1/" and log.steps[0].status == "warning"
    assert "https URL with a path" in " ".join(f.text for f in log.steps[0].findings)


async def test_bad_metadata_url_is_a_clear_error():
    err, _ = await run_register(
        server_info("http://127.0.0.1:9", client_id_metadata_document_supported=True),
        AuthSettings(client_metadata_url="not a url"),
    )
    assert isinstance(err, AuthError) and "--client-metadata-url" in str(err)


async def test_no_way_to_register_names_the_flags():
    err, log = await run_register(server_info("http://127.0.0.1:9", registration_endpoint=None))
    assert isinstance(err, AuthError)
    assert "--client-id" in str(err) and "--client-metadata-url" in str(err) and "registration_endpoint" in str(err)
    assert log.steps[-1].status == "failed" and err.step == log.steps[-1].number


async def test_refused_registration_quotes_the_error():
    with DocServer() as as_:
        as_.post(
            "/register",
            json_answer({"error": "invalid_redirect_uri", "error_description": "loopback not allowed"}, 400),
        )
        err, log = await run_register(server_info(as_.url))
    assert isinstance(err, AuthError)
    assert "invalid_redirect_uri" in str(err) and "loopback not allowed" in str(err) and "--client-id" in str(err)


@pytest.mark.parametrize(
    "answer",
    [
        raw(201, "not json"),
        json_answer({"client_secret": "x"}, 201),
        json_answer({"client_id": 42}, 201),
        json_answer([1, 2], 201),
    ],
)
async def test_broken_registration_response(answer):
    with DocServer() as as_:
        as_.post("/register", answer)
        err, log = await run_register(server_info(as_.url))
    assert isinstance(err, AuthError) and "client_id" in str(err)
    assert "Traceback" not in str(err)


async def test_registration_that_never_answers_times_out():
    with DocServer() as as_:
        as_.post("/register", HANG)
        log = AuthLog()
        async with httpx2.AsyncClient() as client:
            with pytest.raises(AuthError, match="failed"):
                await register(AuthHttp(client, log), server_info(as_.url), AuthSettings(), LOOPBACK, timeout=0.5)
    assert log.steps[-1].status == "failed"


def test_choose_token_auth_method():
    info = server_info(
        "https://as.example", token_endpoint_auth_methods_supported=["client_secret_post", "private_key_jwt", "none"]
    )
    pick = choose_token_auth_method
    assert pick(info, AuthSettings(), has_secret=True, has_key=False) == "client_secret_post"
    assert pick(info, AuthSettings(), has_secret=True, has_key=True) == "private_key_jwt"
    assert pick(info, AuthSettings(), has_secret=False, has_key=False) == "none"
    assert (
        pick(info, AuthSettings(token_auth_method="client_secret_basic"), has_secret=True, has_key=False)
        == "client_secret_basic"
    )
    absent = server_info("https://as.example", token_endpoint_auth_methods_supported=None)
    assert pick(absent, AuthSettings(), has_secret=True, has_key=False) == "client_secret_basic"  # RFC 8414 default
    assert pick(absent, AuthSettings(), has_secret=False, has_key=False) == "none"
    basic_only = server_info("https://as.example", token_endpoint_auth_methods_supported=["client_secret_basic"])
    assert pick(basic_only, AuthSettings(), has_secret=True, has_key=True) == "client_secret_basic"
    secrets = server_info(
        "https://as.example", token_endpoint_auth_methods_supported=["client_secret_post", "client_secret_basic"]
    )
    assert pick(secrets, AuthSettings(), has_secret=True, has_key=False) == "client_secret_basic"
    none_only = server_info("https://as.example")
    assert pick(none_only, AuthSettings(), has_secret=True, has_key=False) == "none"


def test_application_type():
    assert application_type(["http://127.0.0.1:5/cb"]) == "native"
    assert application_type(["http://localhost:5/cb", "http://[::1]:5/cb"]) == "native"
    assert application_type(["https://app.example.com/cb"]) == "web"
    assert application_type(["com.example.app:/cb"]) == "native"
