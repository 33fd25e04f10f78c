"""Grants without a user at a browser (``--oauth-grant``): the MCP authorization extensions.

- ``client_credentials`` (SEP-1046, OAuth 2.1 §4.2): the client authenticates as itself
  (``client_secret_basic`` or ``private_key_jwt``), no authorization step.
- ``jwt_bearer``: workload identity federation (SEP-1933, RFC 7523 §2.1): a JWT the workload's
  platform issued (``--assertion FILE``) is exchanged for an access token. Sent once: a refused
  assertion is reported, not retried and not swapped for another grant.
- ``enterprise``: enterprise-managed authorization (SEP-990, the Identity Assertion JWT
  Authorization Grant): the user's ID token from the enterprise IdP (``--id-token FILE``) is
  exchanged at the IdP's token endpoint (RFC 8693 token exchange, requested type ``id-jag``, for
  the MCP authorization server as ``audience`` and the MCP server as ``resource``; the client
  authenticates to the IdP with ``--idp-client-id``/``--idp-client-secret``), then the ID-JAG is
  the assertion of a JWT bearer grant at the MCP authorization server.

The requests to the MCP authorization server go through ``token_request.request_token`` (client
authentication, ``resource``, DPoP and its nonce, the token response checks). The IdP exchange
is made here with ``AuthHttp`` directly: another server, other credentials, and its answer is
an assertion, not a token set. Every request is an ``AuthStep``; assertions show as their
decoded claims, never whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..transport.http_util import printable, quote_body, redact
from .assertions import JWT_BEARER_GRANT, assertion_findings, same_issuer
from .dpop import DpopKey, DpopNonces
from .http import AuthHttp
from .model import AuthError, AuthLog, AuthSettings, AuthStep, ClientInfo, Finding, ServerAuthInfo, TokenSet
from .token_request import basic_credentials, request_token

TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
ID_JAG_TYP = "oauth-id-jag+jwt"
USER_LESS_GRANTS = ("client_credentials", "jwt_bearer", "enterprise")

SPEC_CC = "SEP-1046 (OAuth client credentials extension); OAuth 2.1 §4.2"
SPEC_WIF = "SEP-1933 (workload identity federation); RFC 7523 §2.1, §3"
SPEC_XAA = "SEP-990 (enterprise-managed authorization); draft-ietf-oauth-identity-assertion-authz-grant"
SPEC_EXCHANGE = "RFC 8693 §2 (token exchange)"
SPEC_METADATA = "RFC 8414 §2 (grant_types_supported)"


async def obtain_without_user(
    http: AuthHttp,
    info: ServerAuthInfo,
    client: ClientInfo,
    settings: AuthSettings,
    scope: str | None,
    dpop: DpopKey | None,
    *,
    nonces: DpopNonces | None = None,
) -> TokenSet:
    """An access token by ``settings.grant`` (client_credentials, jwt_bearer or enterprise);
    AuthError (its step failed, saying why) when it cannot be had."""
    if settings.grant == "client_credentials":
        return await client_credentials(http, info, client, settings, scope, dpop, nonces=nonces)
    if settings.grant == "jwt_bearer":
        return await workload_jwt_bearer(http, info, client, settings, scope, dpop, nonces=nonces)
    if settings.grant == "enterprise":
        return await enterprise(http, info, client, settings, scope, dpop, nonces=nonces)
    raise AuthError(f"{settings.grant!r} is not a grant without a user (one of {', '.join(USER_LESS_GRANTS)})")


@contextmanager
def _annotated(log: AuthLog, kind: str, findings: list[Finding], details: dict[str, Any]) -> Iterator[None]:
    """Put ``findings`` and ``details`` on the next ``kind`` step ``request_token`` opens, as it
    opens (``AuthLog`` tells its listeners of a new step before its request is sent)."""
    done = False

    def listener(step: AuthStep) -> None:
        nonlocal done
        if done or step.kind != kind or step.status != "running":
            return
        done = True
        step.findings[:0] = findings
        for key, value in details.items():
            step.details.setdefault(key, value)

    remove = log.add_listener(listener)
    try:
        yield
    finally:
        remove()


def _grant_listed(info: ServerAuthInfo, grant_type: str, name: str) -> list[Finding]:
    listed = info.metadata.get("grant_types_supported") if isinstance(info.metadata, dict) else None
    if not isinstance(listed, list):
        return []  # absent: RFC 8414 defaults to authorization_code and implicit, but many servers omit it
    if grant_type in listed:
        return [Finding(True, f"the authorization server lists {name} in grant_types_supported", SPEC_METADATA)]
    return [
        Finding(
            False,
            f"the authorization server does not list {name} in grant_types_supported "
            f"({printable(', '.join(str(item) for item in listed))[:200]}): tried anyway",
            SPEC_METADATA,
        )
    ]


def _issuer(info: ServerAuthInfo) -> str:
    issuer = info.issuer or (info.metadata.get("issuer") if isinstance(info.metadata, dict) else None)
    if not isinstance(issuer, str) or not issuer:
        raise AuthError("the authorization server's issuer is unknown (no metadata): the assertion has no audience")
    return issuer


def _scrubbed(value: Any, secrets: list[str]) -> Any:
    """A shown body with each of ``secrets`` masked wherever it appears in a string."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {key: _scrubbed(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrubbed(item, secrets) for item in value]
    return value


def _with_scope(grant: dict[str, str], scope: str | None) -> dict[str, str]:
    if scope:
        grant["scope"] = scope
    return grant


async def client_credentials(
    http: AuthHttp,
    info: ServerAuthInfo,
    client: ClientInfo,
    settings: AuthSettings,
    scope: str | None,
    dpop: DpopKey | None,
    *,
    nonces: DpopNonces | None = None,
) -> TokenSet:
    """``grant_type=client_credentials`` with the client's own authentication."""
    if client.token_auth_method in (None, "", "none"):
        raise AuthError(
            "the client credentials grant needs client authentication: give --client-secret "
            "(client_secret_basic/post) or --client-key (private_key_jwt)",
            spec=SPEC_CC,
        )
    findings = _grant_listed(info, "client_credentials", "client_credentials")
    grant = _with_scope({"grant_type": "client_credentials"}, scope)
    with _annotated(http.log, "token", findings, {"grant": "client credentials"}):
        return await request_token(
            http,
            info,
            client,
            settings,
            grant,
            kind="token",
            title=f"Client credentials grant ({client.token_auth_method})",
            dpop=dpop,
            scope_asked=scope,
            nonces=nonces,
        )


async def workload_jwt_bearer(
    http: AuthHttp,
    info: ServerAuthInfo,
    client: ClientInfo,
    settings: AuthSettings,
    scope: str | None,
    dpop: DpopKey | None,
    *,
    nonces: DpopNonces | None = None,
) -> TokenSet:
    """The JWT bearer grant with the workload's identity JWT (``settings.assertion``), once."""
    assertion = (settings.assertion or "").strip()
    if not assertion:
        raise AuthError("the jwt_bearer grant needs the workload identity JWT (--assertion FILE)", spec=SPEC_WIF)
    decoded, findings = assertion_findings(
        assertion, audience=_issuer(info), what="the workload identity JWT", spec=SPEC_WIF
    )
    findings = _grant_listed(info, JWT_BEARER_GRANT, "the JWT bearer grant") + findings
    details: dict[str, Any] = {"grant": "workload identity (JWT bearer)"}
    if decoded is not None:
        details["assertion"] = decoded
    grant = _with_scope({"grant_type": JWT_BEARER_GRANT, "assertion": assertion}, scope)
    with _annotated(http.log, "token", findings, details):
        try:
            return await request_token(
                http,
                info,
                client,
                settings,
                grant,
                kind="token",
                title="JWT bearer grant with the workload identity JWT",
                dpop=dpop,
                scope_asked=scope,
                nonces=nonces,
            )
        except AuthError as exc:
            raise AuthError(
                f"{exc} (a refused assertion is not retried: get a new one from the workload's identity provider)",
                step=exc.step,
                spec=exc.spec or SPEC_WIF,
            ) from None


async def enterprise(
    http: AuthHttp,
    info: ServerAuthInfo,
    client: ClientInfo,
    settings: AuthSettings,
    scope: str | None,
    dpop: DpopKey | None,
    *,
    nonces: DpopNonces | None = None,
) -> TokenSet:
    """ID token -> ID-JAG at the IdP (token exchange) -> access token at the MCP authorization
    server (JWT bearer grant)."""
    id_jag, jag_findings, jag_claims = await exchange_id_token(http, info, client, settings, scope)
    findings = _grant_listed(info, JWT_BEARER_GRANT, "the JWT bearer grant") + jag_findings
    details: dict[str, Any] = {"grant": "enterprise-managed (ID-JAG as a JWT bearer assertion)"}
    if jag_claims is not None:
        details["assertion"] = jag_claims
    grant = _with_scope({"grant_type": JWT_BEARER_GRANT, "assertion": id_jag}, scope)
    with _annotated(http.log, "token", findings, details):
        return await request_token(
            http,
            info,
            client,
            settings,
            grant,
            kind="token",
            title="JWT bearer grant with the ID-JAG from the identity provider",
            dpop=dpop,
            scope_asked=scope,
            nonces=nonces,
        )


async def idp_token_endpoint(http: AuthHttp, settings: AuthSettings) -> str:
    """``--idp-token-endpoint``, else the ``token_endpoint`` of the IdP's metadata
    (``--idp-issuer``: OpenID Connect discovery, then RFC 8414)."""
    if settings.idp_token_endpoint:
        return settings.idp_token_endpoint
    issuer = (settings.idp_issuer or "").rstrip("/")
    if not issuer:
        raise AuthError(
            "enterprise-managed authorization needs the identity provider: --idp-token-endpoint URL or --idp-issuer "
            "URL",
            spec=SPEC_XAA,
        )
    step = await http.log.step("idp-metadata", f"Identity provider metadata for {issuer}")
    parts = urlsplit(issuer)
    candidates = [
        f"{issuer}/.well-known/openid-configuration",
        urlunsplit((parts.scheme, parts.netloc, "/.well-known/oauth-authorization-server" + parts.path, "", "")),
    ]
    for url in candidates:
        response = await http.request("GET", url, step=step, note="IdP metadata")
        document = (response.json_object() if response.ok else None) or {}
        endpoint = document.get("token_endpoint")
        if isinstance(endpoint, str) and endpoint.startswith(("https://", "http://")):
            if not same_issuer(str(document.get("issuer", "")), issuer):
                step.check(
                    False,
                    f"the IdP metadata's issuer {printable(str(document.get('issuer')))[:200]!r} is not {issuer!r}",
                    "RFC 8414 §3.3",
                )
            step.details.update(metadata_url=url, token_endpoint=endpoint)
            http.log.done(step)
            return endpoint
        step.details.setdefault("tried", []).append(f"{url}: HTTP {response.status}, no token_endpoint")
    raise http.log.fail(
        step,
        f"no token_endpoint in the identity provider's metadata at {issuer} "
        f"({'; '.join(step.details['tried'])}): give --idp-token-endpoint",
        "RFC 8414 §3; OpenID Connect Discovery §4",
    )


async def exchange_id_token(
    http: AuthHttp, info: ServerAuthInfo, client: ClientInfo, settings: AuthSettings, scope: str | None
) -> tuple[str, list[Finding], dict[str, Any] | None]:
    """RFC 8693 token exchange at the IdP: the ID-JAG, what the grant's step repeats of what
    was found in it (audience, expiry) and its decoded header and claims."""
    id_token = (settings.id_token or "").strip()
    if not id_token:
        raise AuthError(
            "enterprise-managed authorization needs the user's ID token from the identity provider (--id-token FILE)",
            spec=SPEC_XAA,
        )
    audience = _issuer(info)
    endpoint = await idp_token_endpoint(http, settings)
    step = await http.log.step("token-exchange", "Token exchange at the identity provider: ID token -> ID-JAG")
    form = {
        "grant_type": TOKEN_EXCHANGE_GRANT,
        "requested_token_type": ID_JAG_TYPE,
        "audience": audience,
        "resource": info.resource,
        "subject_token": id_token,
        "subject_token_type": ID_TOKEN_TYPE,
    }
    if scope:
        form["scope"] = scope
    headers: dict[str, str] = {}
    if settings.idp_client_id and settings.idp_client_secret:
        headers["Authorization"] = basic_credentials(settings.idp_client_id, settings.idp_client_secret)
        client_auth = "client_secret_basic"
    elif settings.idp_client_id:
        form["client_id"] = settings.idp_client_id
        client_auth = "none (client_id)"
    else:
        client_auth = "none"
        step.check(False, "no --idp-client-id: the identity provider may not know which client asks")
    decoded, findings = assertion_findings(
        id_token,
        audience=settings.idp_client_id,
        what="the ID token",
        audience_name="the IdP client (--idp-client-id)",
        spec=SPEC_XAA,
    )
    step.findings.extend(findings)
    if decoded is not None:
        step.details["id_token"] = decoded
        issuer = decoded["claims"].get("iss")
        if settings.idp_issuer and isinstance(issuer, str) and not same_issuer(issuer, settings.idp_issuer):
            step.check(
                False,
                f"the ID token's iss {printable(issuer)[:200]!r} is not the identity provider {settings.idp_issuer!r}",
                SPEC_XAA,
            )
    step.details.update(
        endpoint=endpoint,
        client_auth=client_auth,
        audience=audience,
        resource=info.resource,
        requested_token_type=ID_JAG_TYPE,
    )
    response = await http.request("POST", endpoint, step=step, headers=headers, form=form, note="token exchange (IdP)")
    secrets = sorted(
        {value for value in (id_token, settings.idp_client_secret) if value and len(value) >= 6}, key=len, reverse=True
    )
    if step.response is not None:  # an IdP that quotes the ID token back in its error must not show it
        step.response["body"] = _scrubbed(step.response.get("body"), secrets)
    body = response.json_object()
    if not response.ok:
        if body is not None and isinstance(body.get("error"), str):
            what = printable(body["error"])[:200]
            if isinstance(body.get("error_description"), str) and body["error_description"]:
                what += f": {printable(body['error_description'])[:300]}"
            what = redact(what, secrets)
        else:
            what = quote_body(response.body, secrets)
        raise http.log.fail(
            step,
            f"the identity provider refused the token exchange (HTTP {response.status}): {what}",
            "RFC 8693 §2.2.2",
        )
    if body is None:
        raise http.log.fail(
            step,
            f"the token exchange response is not a JSON object: {quote_body(response.body, secrets)}",
            "RFC 8693 §2.2.1",
        )
    id_jag = body.get("access_token")
    if not isinstance(id_jag, str) or not id_jag.strip():
        raise http.log.fail(step, "the token exchange response has no access_token (the ID-JAG)", "RFC 8693 §2.2.1")
    id_jag = id_jag.strip()
    if any(char in id_jag for char in "\r\n\0 "):
        raise http.log.fail(step, "the ID-JAG contains whitespace or NUL: not a JWT", SPEC_XAA)
    issued = body.get("issued_token_type")
    step.check(
        issued == ID_JAG_TYPE,
        f"issued_token_type is {printable(str(issued))[:100]!r}"
        + ("" if issued == ID_JAG_TYPE else f", not {ID_JAG_TYPE}"),
        "RFC 8693 §2.2.1",
    )
    if body.get("token_type") is not None:
        step.details["token_type"] = printable(str(body.get("token_type")))[:40]
    jag_claims, for_grant = assertion_findings(id_jag, audience=audience, what="the ID-JAG", spec=SPEC_XAA)
    jag_findings = list(for_grant)
    if jag_claims is not None:
        step.details["id_jag"] = jag_claims
        typ = jag_claims["header"].get("typ")
        jag_findings.insert(
            0,
            Finding(
                typ == ID_JAG_TYP,
                f"the ID-JAG's typ is {printable(str(typ))[:60]!r}"
                + ("" if typ == ID_JAG_TYP else f", not {ID_JAG_TYP}"),
                SPEC_XAA,
            ),
        )
        claims = jag_claims["claims"]
        if claims.get("resource") is not None and claims.get("resource") != info.resource:
            jag_findings.append(
                Finding(
                    False,
                    f"the ID-JAG's resource {printable(str(claims.get('resource')))[:200]!r} "
                    f"is not the MCP server {info.resource!r}",
                    SPEC_XAA,
                )
            )
        if claims.get("client_id") is not None and claims.get("client_id") != client.client_id:
            jag_findings.append(
                Finding(
                    False,
                    f"the ID-JAG's client_id {printable(str(claims.get('client_id')))[:100]!r} is not "
                    f"this client's {client.client_id!r} at the authorization server",
                    SPEC_XAA,
                )
            )
    step.findings.extend(jag_findings)
    http.log.done(step)
    return id_jag, for_grant, jag_claims
