"""Discovery against real HTTP servers on 127.0.0.1 (tests/core/auth/as_fixture.py): the
protected resource metadata locations in order, the authorization server metadata URLs in the
spec's order, the checks that stop a flow (resource mismatch, issuer mismatch, no PKCE) and the
2025-03-26 fallbacks; broken servers (garbage, 10 MB, silence) give a clear AuthError."""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest
from as_fixture import HANG, DocServer, as_metadata, json_answer, raw
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_inspector.core.auth.challenge import parse_www_authenticate
from mcp_inspector.core.auth.discovery import (
    MetadataNotFound,
    canonical_resource,
    discover,
    fetch_server_metadata,
    resource_match,
    server_metadata_urls,
)
from mcp_inspector.core.auth.http import AuthHttp
from mcp_inspector.core.auth.model import AuthError, AuthLog, ServerAuthInfo
from mcp_inspector.core.traffic.http_log import HttpLog

pytestmark = pytest.mark.anyio
PRM = "/.well-known/oauth-protected-resource"
OAUTH = "/.well-known/oauth-authorization-server"
OIDC = "/.well-known/openid-configuration"


async def run_discover(server_url: str, header: str | None = None, **kw):
    log = AuthLog()
    async with httpx2.AsyncClient() as client:
        http = AuthHttp(client, log, HttpLog())
        challenge = parse_www_authenticate(header)[0] if header else None
        try:
            info = await discover(
                http, server_url, challenge=challenge, protocol_version=kw.pop("protocol_version", "2025-11-25"), **kw
            )
        except AuthError as exc:
            return exc, log
    return info, log


def texts(log: AuthLog) -> str:
    return "\n".join(f"{s.kind} {s.status} {s.title}: " + " | ".join(f.text for f in s.findings) for s in log.steps)


async def test_path_prm_then_root_oauth_metadata():
    with DocServer() as rs, DocServer() as as_:
        rs.get(
            f"{PRM}/mcp",
            json_answer(
                {"resource": f"{rs.url}/mcp", "authorization_servers": [as_.url], "scopes_supported": ["a", "b"]}
            ),
        )
        as_.get(OAUTH, json_answer(as_metadata(as_.url)))
        info, log = await run_discover(f"{rs.url}/mcp")
    assert isinstance(info, ServerAuthInfo), texts(log)
    assert info.resource == f"{rs.url}/mcp" and info.issuer == as_.url
    assert info.resource_metadata_url == f"{rs.url}{PRM}/mcp"
    assert info.metadata_url == f"{as_.url}{OAUTH}" and info.token_endpoint == f"{as_.url}/token"
    assert rs.paths() == [f"{PRM}/mcp"] and as_.paths() == [OAUTH]
    assert all(seen.headers.get("mcp-protocol-version") == "2025-11-25" for seen in rs.requests + as_.requests)
    assert [s.kind for s in log.steps] == ["resource-metadata", "server-metadata"]
    assert log.steps[0].title == f"Protected resource metadata from {PRM}/mcp"
    assert log.steps[1].title == f"Authorization server metadata from {as_.url}{OAUTH}"
    assert all(s.status == "ok" for s in log.steps), texts(log)
    assert log.steps[0].response["body"]["authorization_servers"] == [as_.url]
    assert any("S256" in f.text for f in log.steps[1].findings)


async def test_challenge_resource_metadata_comes_first_and_root_is_not_asked():
    with DocServer() as rs, DocServer() as as_:
        rs.get(
            "/custom/metadata/location.json",
            json_answer({"resource": f"{rs.url}/mcp", "authorization_servers": [f"{as_.url}/tenant1"]}),
        )
        rs.get(PRM, raw(500, "trap"))
        as_.get(f"/tenant1{OIDC}", json_answer(as_metadata(f"{as_.url}/tenant1")))
        info, log = await run_discover(
            f"{rs.url}/mcp", f'Bearer resource_metadata="{rs.url}/custom/metadata/location.json"'
        )
    assert isinstance(info, ServerAuthInfo), texts(log)
    assert rs.paths() == ["/custom/metadata/location.json"]
    # issuer with a path: RFC 8414 insertion, OIDC insertion, then OIDC appending (found there)
    assert as_.paths() == [f"{OAUTH}/tenant1", f"{OIDC}/tenant1", f"/tenant1{OIDC}"]
    assert info.issuer == f"{as_.url}/tenant1" and info.metadata_url == f"{as_.url}/tenant1{OIDC}"
    assert [s.status for s in log.steps] == ["ok", "skipped", "skipped", "ok"], texts(log)


async def test_prm_at_root_only_and_resource_is_the_origin():
    with DocServer() as rs, DocServer() as as_:
        rs.get(PRM, json_answer({"resource": rs.url, "authorization_servers": [f"{as_.url}/tenant1"]}))
        as_.get(OAUTH, raw(500, "trap: the issuer has a path"))
        as_.get(f"{OAUTH}/tenant1", json_answer(as_metadata(f"{as_.url}/tenant1")))
        info, log = await run_discover(f"{rs.url}/mcp")
    assert isinstance(info, ServerAuthInfo), texts(log)
    assert rs.paths() == [f"{PRM}/mcp", PRM]
    assert as_.paths() == [f"{OAUTH}/tenant1"]
    assert info.resource == rs.url  # the resource the server declared, which covers /mcp
    assert "root" in texts(log)


async def test_openid_configuration_when_no_oauth_metadata():
    with DocServer() as rs, DocServer() as as_:
        rs.get(f"{PRM}/mcp", json_answer({"resource": f"{rs.url}/mcp", "authorization_servers": [as_.url]}))
        as_.get(OIDC, json_answer(as_metadata(as_.url, subject_types_supported=["public"])))
        info, log = await run_discover(f"{rs.url}/mcp")
    assert isinstance(info, ServerAuthInfo), texts(log)
    assert as_.paths() == [OAUTH, OIDC] and info.metadata_url == f"{as_.url}{OIDC}"


async def test_resource_mismatch_stops():
    with DocServer() as rs, DocServer() as as_:
        rs.get(
            f"{PRM}/mcp", json_answer({"resource": "https://evil.example.com/mcp", "authorization_servers": [as_.url]})
        )
        as_.get(OAUTH, json_answer(as_metadata(as_.url)))
        err, log = await run_discover(f"{rs.url}/mcp", f'Bearer resource_metadata="{rs.url}{PRM}/mcp"')
    assert isinstance(err, AuthError)
    assert "evil.example.com" in str(err) and "RFC 9728" in (err.spec or "")
    assert err.step == log.steps[-1].number and log.steps[-1].status == "failed"
    assert as_.requests == []  # nothing asked of the authorization server


async def test_sibling_path_is_a_mismatch():
    assert resource_match("http://h:1/mcp", "http://h:1/mcp") == "same"
    assert resource_match("http://h:1/mcp", "http://h:1") == "prefix"
    assert resource_match("http://h:1/a/mcp", "http://h:1/a/") == "prefix"
    assert resource_match("http://h:1/mcp", "http://h:1/mc") == "mismatch"
    assert resource_match("http://h:1/mcp", "http://h:2/mcp") == "mismatch"
    assert resource_match("http://h:1/mcp", "https://h:1/mcp") == "mismatch"
    assert resource_match("HTTP://H:80/mcp", "http://h/mcp") == "same"
    assert resource_match("http://h/mcp", "not a url") == "mismatch"


async def test_metadata_issuer_mismatch_stops_before_any_endpoint_is_used():
    with DocServer() as rs, DocServer() as as_:
        rs.get(f"{PRM}/mcp", json_answer({"resource": f"{rs.url}/mcp", "authorization_servers": [as_.url]}))
        as_.get(OAUTH, json_answer(as_metadata("https://attacker.example.com", base=f"{as_.url}/mismatched-as")))
        err, log = await run_discover(f"{rs.url}/mcp")
    assert isinstance(err, AuthError)
    assert "attacker.example.com" in str(err) and "RFC 8414 §3.3" in (err.spec or "")
    assert as_.paths() == [OAUTH]
    # a trailing slash is a different issuer too (simple string comparison)
    with DocServer() as as_:
        as_.get(OAUTH, json_answer(as_metadata(as_.url + "/")))
        log = AuthLog()
        async with httpx2.AsyncClient() as client:
            with pytest.raises(AuthError, match="issuer"):
                await fetch_server_metadata(AuthHttp(client, log), as_.url)


async def test_no_pkce_refuses_unless_not_required():
    with DocServer() as rs, DocServer() as as_:
        rs.get(f"{PRM}/mcp", json_answer({"resource": f"{rs.url}/mcp", "authorization_servers": [as_.url]}))
        as_.get(OAUTH, json_answer(as_metadata(as_.url, code_challenge_methods_supported=None)))
        err, log = await run_discover(f"{rs.url}/mcp")
        assert isinstance(err, AuthError) and "PKCE" in str(err) and "Authorization Code Protection" in err.spec
        as_.get(OAUTH, json_answer(as_metadata(as_.url, code_challenge_methods_supported=["plain"])))
        err, log = await run_discover(f"{rs.url}/mcp")
        assert isinstance(err, AuthError) and "S256" in str(err)
        info, log = await run_discover(f"{rs.url}/mcp", require_pkce=False)
    assert isinstance(info, ServerAuthInfo)
    assert log.steps[-1].status == "warning" and "PKCE" in texts(log)


async def test_2025_03_26_metadata_at_the_server_root():
    with DocServer() as rs:
        rs.get(OAUTH, json_answer(as_metadata(rs.url, base=f"{rs.url}/oauth")))
        info, log = await run_discover(f"{rs.url}/mcp", "Bearer", protocol_version="2025-03-26")
    assert isinstance(info, ServerAuthInfo), texts(log)
    assert rs.paths() == [f"{PRM}/mcp", PRM, OAUTH]
    assert info.resource_metadata is None and not info.defaults_used
    assert info.issuer == rs.url and info.authorization_endpoint == f"{rs.url}/oauth/authorize"
    assert info.resource == f"{rs.url}/mcp"
    assert all(s.status in ("ok", "skipped") for s in log.steps), texts(log)


async def test_2025_03_26_default_endpoints():
    with DocServer() as rs:
        info, log = await run_discover(f"{rs.url}/v1/mcp", protocol_version="2025-03-26")
        assert isinstance(info, ServerAuthInfo), texts(log)
        assert rs.paths() == [f"{PRM}/v1/mcp", PRM, OAUTH, OIDC]
        assert info.defaults_used
        assert (info.authorization_endpoint, info.token_endpoint, info.registration_endpoint) == (
            f"{rs.url}/authorize",
            f"{rs.url}/token",
            f"{rs.url}/register",
        )
        # with a modern protocol version, the same fallback is a deviation (a warning)
        info, log = await run_discover(f"{rs.url}/v1/mcp", protocol_version="2025-11-25")
    assert info.defaults_used
    assert log.steps[-1].status == "warning" and any(s.status == "warning" for s in log.steps)


async def test_unusable_prm_documents_move_on():
    with DocServer() as rs, DocServer() as as_:
        rs.get(f"{PRM}/mcp", raw(200, "<html>not json</html>", "text/html"))
        rs.get(PRM, json_answer({"resource": rs.url, "authorization_servers": []}))
        as_.get(OAUTH, json_answer(as_metadata(as_.url)))
        info, log = await run_discover(f"{rs.url}/mcp")
        # both unusable: the 2025-03-26 fallback (metadata at the MCP server's root: none; defaults)
        assert isinstance(info, ServerAuthInfo) and info.defaults_used, texts(log)
        assert [s.status for s in log.steps[:2]] == ["warning", "warning"]
        assert "not a JSON object" in texts(log) and "authorization_servers" in texts(log)
        rs.get(PRM, json_answer({"resource": rs.url, "authorization_servers": [as_.url]}))
        info, log = await run_discover(f"{rs.url}/mcp")
    assert info.issuer == as_.url and not info.defaults_used


async def test_advertised_url_failing_falls_back_to_well_known():
    with DocServer() as rs, DocServer() as as_:
        rs.get(f"{PRM}/mcp", json_answer({"resource": f"{rs.url}/mcp", "authorization_servers": [as_.url]}))
        as_.get(OAUTH, json_answer(as_metadata(as_.url)))
        info, log = await run_discover(f"{rs.url}/mcp", f'Bearer resource_metadata="{rs.url}/gone.json"')
    assert isinstance(info, ServerAuthInfo)
    assert rs.paths() == ["/gone.json", f"{PRM}/mcp"]
    assert log.steps[0].status == "warning" and "WWW-Authenticate" in texts(log)


async def test_ten_megabyte_document_is_not_read_whole():
    big = b'{"resource": "' + b"x" * (10 << 20) + b'"}'
    with DocServer() as rs:
        rs.get(f"{PRM}/mcp", raw(200, big, "application/json"))
        rs.get(PRM, raw(200, big, "application/json"))
        rs.get(OAUTH, raw(200, big, "application/json"))
        info, log = await run_discover(f"{rs.url}/mcp")
    assert isinstance(info, ServerAuthInfo) and info.defaults_used
    assert "over 1 MiB" in texts(log)
    for step in log.steps:
        assert step.response is None or len(json.dumps(step.response)) < 100_000


async def test_server_that_never_answers_times_out_with_a_clear_error():
    with DocServer() as rs:
        rs.get(f"{PRM}/mcp", HANG)
        err, log = await run_discover(f"{rs.url}/mcp", timeout=0.5)
    assert isinstance(err, AuthError)
    assert "failed" in str(err) and f"{PRM}/mcp" in str(err)
    assert log.steps[-1].status == "failed"


async def test_connection_refused_is_an_auth_error():
    with DocServer() as rs:
        url = f"{rs.url}/mcp"
    err, log = await run_discover(url, timeout=2)
    assert isinstance(err, AuthError) and "Traceback" not in str(err)


async def test_malformed_fields_are_dropped_and_non_https_warned():
    with DocServer() as rs, DocServer() as as_:
        rs.get(
            f"{PRM}/mcp",
            json_answer(
                {"resource": f"{rs.url}/mcp", "authorization_servers": [42, as_.url], "scopes_supported": "a b"}
            ),
        )
        as_.get(
            OAUTH,
            json_answer(
                as_metadata(
                    as_.url,
                    registration_endpoint=["x"],
                    authorization_endpoint="http://auth.example.com/authorize",
                    token_endpoint_auth_methods_supported="none",
                    client_id_metadata_document_supported="yes",
                )
            ),
        )
        info, log = await run_discover(f"{rs.url}/mcp")
    assert isinstance(info, ServerAuthInfo), texts(log)
    assert info.issuer == as_.url
    assert "scopes_supported" not in info.resource_metadata
    assert info.registration_endpoint is None
    assert "token_endpoint_auth_methods_supported" not in info.metadata
    assert "client_id_metadata_document_supported" not in info.metadata
    text = texts(log)
    assert "not HTTPS" in text and "not a list of strings" in text and "not a boolean" in text
    assert log.steps[-1].status == "warning"


async def test_no_token_endpoint_fails():
    with DocServer() as as_:
        as_.get(OAUTH, json_answer(as_metadata(as_.url, token_endpoint=None)))
        async with httpx2.AsyncClient() as client:
            with pytest.raises(AuthError, match="token_endpoint"):
                await fetch_server_metadata(AuthHttp(client, AuthLog()), as_.url)


async def test_fetch_server_metadata_not_found():
    with DocServer() as as_:
        async with httpx2.AsyncClient() as client:
            with pytest.raises(MetadataNotFound) as caught:
                await fetch_server_metadata(AuthHttp(client, AuthLog()), as_.url + "/idp")
    assert "404" in str(caught.value)
    assert as_.paths() == [f"{OAUTH}/idp", f"{OIDC}/idp", f"/idp{OIDC}"]


async def test_authorization_server_change_is_a_finding():
    with DocServer() as rs, DocServer() as as1, DocServer() as as2:
        rs.get(f"{PRM}/mcp", json_answer({"resource": f"{rs.url}/mcp", "authorization_servers": [as2.url]}))
        as2.get(OAUTH, json_answer(as_metadata(as2.url)))
        previous = ServerAuthInfo(resource=f"{rs.url}/mcp", issuer=as1.url)
        info, log = await run_discover(f"{rs.url}/mcp", previous=previous)
    assert isinstance(info, ServerAuthInfo) and info.issuer == as2.url
    assert log.steps[0].details["previous_issuer"] == as1.url
    assert "changed" in texts(log) and "re-registering" in texts(log)


async def test_not_an_http_url():
    err, _ = await run_discover("ftp://example.com/mcp")
    assert isinstance(err, AuthError) and "http(s)" in str(err)


def test_canonical_resource():
    assert canonical_resource("HTTPS://MCP.Example.com:443/") == "https://mcp.example.com"
    assert canonical_resource("https://mcp.example.com/mcp#frag") == "https://mcp.example.com/mcp"
    assert canonical_resource("http://127.0.0.1:8080/server/mcp") == "http://127.0.0.1:8080/server/mcp"
    assert canonical_resource("http://[::1]:80/mcp/") == "http://[::1]/mcp/"
    assert canonical_resource("https://h.example/mcp?tenant=1") == "https://h.example/mcp?tenant=1"
    assert canonical_resource("mcp.example.com") == "mcp.example.com"


def test_server_metadata_urls_order():
    assert server_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
    assert server_metadata_urls("https://auth.example.com/") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    ]


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_keys = st.sampled_from(
    [
        "resource",
        "authorization_servers",
        "scopes_supported",
        "issuer",
        "authorization_endpoint",
        "token_endpoint",
        "registration_endpoint",
        "code_challenge_methods_supported",
        "response_types_supported",
        "client_id_metadata_document_supported",
        "jwks_uri",
    ]
)


@pytest.fixture(scope="module")
def server_pair():
    with DocServer() as rs, DocServer() as as_:
        yield rs, as_


_prm_base = {"resource": "RS", "authorization_servers": ["AS"]}
_meta_base = as_metadata("AS")


def _variant(base):
    """A document: anything at all, or a valid one with some fields replaced by anything."""
    return st.one_of(
        _json,
        st.dictionaries(
            _keys, _json | st.sampled_from(["RS", "AS", "AS/x", "http://[::1", "https://x/"]), max_size=4
        ).map(lambda changes: {**base, **changes}),
    )


@settings(max_examples=100, deadline=None)
@given(prm=_variant(_prm_base), meta=_variant(_meta_base))
def test_hostile_documents_give_info_or_auth_error(server_pair, prm, meta):
    """Whatever the documents hold, discovery ends with a ServerAuthInfo or an AuthError."""
    rs, as_ = server_pair

    def fill(value):
        if isinstance(value, str):
            return value.replace("RS", rs.url + "/mcp").replace("AS", as_.url)
        if isinstance(value, list):
            return [fill(v) for v in value]
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        return value

    rs.get(f"{PRM}/mcp", json_answer(fill(prm)))
    as_.get(OAUTH, json_answer(fill(meta)))
    result, log = anyio.run(lambda: run_discover(f"{rs.url}/mcp", timeout=5))
    assert isinstance(result, (ServerAuthInfo, AuthError)), result
    if isinstance(result, ServerAuthInfo):
        assert all(
            isinstance(result.metadata.get(k), (str, type(None)))
            for k in ("authorization_endpoint", "token_endpoint", "registration_endpoint")
        )
    assert all(step.status != "running" for step in log.steps)
