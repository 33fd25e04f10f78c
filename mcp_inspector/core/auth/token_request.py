"""The token endpoint: every grant goes through ``request_token`` (authorization code,
refresh, and H3's client credentials / JWT bearer / enterprise grants in ``grants``).

It adds the ``resource`` parameter (RFC 8707), authenticates the client as
``client.token_auth_method`` says (``client_secret_basic``: RFC 6749 §2.3.1, id and secret
form-encoded before Base64; ``client_secret_post``; ``none``: ``client_id`` in the body;
``private_key_jwt``: an RFC 7523 assertion from ``assertions``), sends a DPoP proof when a
``DpopKey`` is given (retrying once on ``use_dpop_nonce``), and checks the response:
``access_token``, ``token_type``, ``expires_in``, the scope granted against the scope asked.
An error response becomes an ``AuthError`` quoting the server's ``error`` and
``error_description`` (masked). ``refresh_tokens`` is the refresh grant with rotation.
"""

from __future__ import annotations

import base64
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus

from ..transport.http_util import printable, quote_body, redact
from .http import AuthHttp, AuthResponse
from .model import AuthError, AuthSettings, AuthStep, ClientInfo, ServerAuthInfo, TokenSet

if TYPE_CHECKING:
    from .dpop import DpopKey

SPEC_TOKEN = "OAuth 2.1 §3.2.3 (token response)"
SPEC_CLIENT_AUTH = "OAuth 2.1 §2.4 (client authentication)"
SPEC_RESOURCE = "RFC 8707 §2 (resource parameter)"
MAX_NONCE_RETRIES = 1


def basic_credentials(client_id: str, secret: str) -> str:
    """``Basic base64(urlencode(id):urlencode(secret))`` (RFC 6749 §2.3.1)."""
    raw = f"{quote_plus(client_id, safe='')}:{quote_plus(secret, safe='')}".encode()
    return "Basic " + base64.b64encode(raw).decode("ascii")


def sends_resource(info: ServerAuthInfo) -> bool:
    """The ``resource`` parameter goes with every request when the server published protected
    resource metadata (2025-06-18 on); a 2025-03-26 server without one gets none."""
    return bool(info.resource) and info.resource_metadata is not None


def client_authentication(
    client: ClientInfo, settings: AuthSettings, info: ServerAuthInfo, form: dict[str, str], headers: dict[str, str]
) -> str:
    """Add the client's credentials to ``form``/``headers``; returns the method used."""
    method = client.token_auth_method or "none"
    if method == "client_secret_basic":
        if not client.client_secret:
            raise AuthError(
                "client_secret_basic needs a client secret (--client-secret or $MCP_INSPECTOR_CLIENT_SECRET)"
            )
        headers["Authorization"] = basic_credentials(client.client_id, client.client_secret)
    elif method == "client_secret_post":
        if not client.client_secret:
            raise AuthError(
                "client_secret_post needs a client secret (--client-secret or $MCP_INSPECTOR_CLIENT_SECRET)"
            )
        form["client_id"] = client.client_id
        form["client_secret"] = client.client_secret
    elif method == "private_key_jwt":
        from .assertions import client_assertion

        form["client_id"] = client.client_id
        form.update(client_assertion(client, settings, info.issuer or info.token_endpoint or ""))
    else:
        method = "none"
        form["client_id"] = client.client_id
    return method


async def request_token(
    http: AuthHttp,
    info: ServerAuthInfo,
    client: ClientInfo,
    settings: AuthSettings,
    grant: dict[str, str],
    *,
    kind: str,
    title: str,
    dpop: DpopKey | None = None,
    scope_asked: str | None = None,
    nonces: Any = None,
) -> TokenSet:
    """POST ``grant`` (``grant_type`` and its fields) to the token endpoint as one AuthStep;
    the TokenSet, or AuthError (the step failed, saying why)."""
    step = await http.log.step(kind, title)
    endpoint = info.token_endpoint
    if not endpoint:
        raise http.log.fail(step, "the authorization server metadata has no token_endpoint", "RFC 8414 §2")
    form = dict(grant)
    if sends_resource(info) and "resource" not in form:
        form["resource"] = info.resource
    headers: dict[str, str] = {}
    try:
        method = client_authentication(client, settings, info, form, headers)
    except AuthError as exc:
        raise http.log.fail(step, str(exc), SPEC_CLIENT_AUTH) from None
    step.details.update(
        grant_type=form.get("grant_type"), client_auth=method, endpoint=endpoint, client_id=client.client_id
    )
    if scope_asked is not None:
        step.details["scope_asked"] = scope_asked
    if "resource" in form:
        step.details["resource"] = form["resource"]
    nonce = nonces.get(endpoint) if nonces is not None else None
    response: AuthResponse | None = None
    for attempt in range(MAX_NONCE_RETRIES + 1):
        sent = dict(headers)
        if dpop is not None:
            sent["DPoP"] = dpop.proof("POST", endpoint, nonce=nonce)
            step.details["dpop"] = {"jkt": dpop.jkt, "nonce": nonce}
        response = await http.request("POST", endpoint, step=step, headers=sent, form=form, note=f"token ({kind})")
        if dpop is None:
            break
        if nonces is not None:
            nonces.remember(endpoint, response.headers)
        body = response.json_object() or {}
        fresh = response.headers.get("dpop-nonce")
        if (
            response.status in (400, 401)
            and body.get("error") == "use_dpop_nonce"
            and fresh
            and attempt < MAX_NONCE_RETRIES
        ):
            step.check(
                True, "the token endpoint asked for a DPoP nonce (use_dpop_nonce): retried with it", "RFC 9449 §8"
            )
            nonce = fresh
            continue
        break
    assert response is not None
    return _token_set(http, step, response, info, client, settings, form, dpop, scope_asked)


def _secrets(form: dict[str, str], client: ClientInfo) -> list[str]:
    values = [
        value
        for key, value in form.items()
        if key
        in ("code", "code_verifier", "refresh_token", "client_secret", "client_assertion", "assertion", "subject_token")
    ]
    if client.client_secret:
        values.append(client.client_secret)
    return sorted((v for v in values if v and len(v) >= 6), key=len, reverse=True)


def _token_set(
    http: AuthHttp,
    step: AuthStep,
    response: AuthResponse,
    info: ServerAuthInfo,
    client: ClientInfo,
    settings: AuthSettings,
    form: dict[str, str],
    dpop: DpopKey | None,
    scope_asked: str | None,
) -> TokenSet:
    secrets = _secrets(form, client)
    body = response.json_object()
    if not response.ok:
        if body is not None and isinstance(body.get("error"), str):
            what = printable(body["error"])[:200]
            description = body.get("error_description")
            if isinstance(description, str) and description:
                what += f": {printable(description)[:300]}"
            what = redact(what, secrets)
        else:
            what = quote_body(response.body, secrets)
        raise http.log.fail(step, f"the token endpoint answered HTTP {response.status}: {what}", "OAuth 2.1 §3.2.4")
    if body is None:
        raise http.log.fail(
            step, f"the token response is not a JSON object: {quote_body(response.body, secrets)}", SPEC_TOKEN
        )
    if response.content_type and response.content_type != "application/json":
        step.check(
            False, f"the token response's content type is {response.content_type!r}, not application/json", SPEC_TOKEN
        )
    access = body.get("access_token")
    if not isinstance(access, str) or not access:
        raise http.log.fail(step, "the token response has no access_token", SPEC_TOKEN)
    if any(char in access for char in "\r\n\0"):
        raise http.log.fail(
            step, "the access_token contains a line break or NUL: it cannot be sent in a header", SPEC_TOKEN
        )
    token_type = body.get("token_type")
    if not isinstance(token_type, str):
        step.check(False, "the token response has no token_type (REQUIRED): Bearer assumed", SPEC_TOKEN)
        token_type = "DPoP" if dpop is not None else "Bearer"
    if token_type.lower() == "dpop":
        token_type = "DPoP"
        if dpop is None:
            raise http.log.fail(
                step, "the token endpoint issued a DPoP-bound token to a request without a DPoP proof", "RFC 9449 §5"
            )
        step.check(True, "a DPoP-bound token (token_type DPoP)", "RFC 9449 §5")
    elif token_type.lower() == "bearer":
        token_type = "Bearer"
        if dpop is not None:
            step.check(
                False, "a DPoP proof was sent but the token is a Bearer token (not bound to the key)", "RFC 9449 §5"
            )
    else:
        raise http.log.fail(
            step, f"unsupported token_type {printable(token_type)[:60]!r} (expected Bearer or DPoP)", SPEC_TOKEN
        )
    expires_at = None
    expires_in = body.get("expires_in")
    if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool) and expires_in >= 0:
        expires_at = time.time() + float(expires_in)
        step.details["expires_in"] = expires_in
    elif expires_in is not None:
        step.check(False, f"expires_in is not a number of seconds: {printable(str(expires_in))[:40]}", SPEC_TOKEN)
    refresh = body.get("refresh_token")
    if refresh is not None and not isinstance(refresh, str):
        step.check(False, "refresh_token is not a string: ignored", SPEC_TOKEN)
        refresh = None
    granted = body.get("scope")
    if granted is not None and not isinstance(granted, str):
        step.check(False, "scope is not a string: ignored", SPEC_TOKEN)
        granted = None
    if granted is not None:
        step.details["scope_granted"] = granted
    if scope_asked and granted is not None:
        missing = sorted(set(scope_asked.split()) - set(granted.split()))
        if missing:
            step.check(False, f"scopes asked but not granted: {' '.join(missing)}", "OAuth 2.1 §3.2.3")
        else:
            step.check(True, "every scope asked was granted")
    step.details["token_type"] = token_type
    step.details["refresh_token"] = "issued" if refresh else "none"
    claims = _claims(access)
    if claims is not None:
        step.details["access_token_claims"] = claims
    http.log.done(step)
    return TokenSet(
        access_token=access,
        token_type=token_type,
        refresh_token=refresh or None,
        expires_at=expires_at,
        scope=granted if granted is not None else scope_asked,
        issuer=info.issuer,
        resource=info.resource,
        client_id=client.client_id,
        dpop_jkt=dpop.jkt if dpop is not None and token_type == "DPoP" else None,
    )


def _claims(token: str) -> dict[str, Any] | None:
    """The token's claims decoded (not verified) when it is a JWT (H3's ``assertions.decode_claims``)."""
    try:
        from .assertions import decode_claims
    except ImportError:
        return None
    try:
        return decode_claims(token)
    except Exception:  # a malformed token is not our failure
        return None


async def refresh_tokens(
    http: AuthHttp,
    info: ServerAuthInfo,
    client: ClientInfo,
    settings: AuthSettings,
    tokens: TokenSet,
    *,
    dpop: DpopKey | None = None,
    nonces: Any = None,
) -> TokenSet:
    """The refresh grant; the new refresh token replaces the old one when the server rotates it,
    else the old one is kept (OAuth 2.1 §4.3.3)."""
    if not tokens.refresh_token:
        raise AuthError("no refresh token")
    grant = {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token}  # scope omitted: the same as granted
    fresh = await request_token(
        http,
        info,
        client,
        settings,
        grant,
        kind="refresh",
        title="Refresh the access token",
        dpop=dpop,
        scope_asked=tokens.scope,
        nonces=nonces,
    )
    if not fresh.refresh_token:
        fresh.refresh_token = tokens.refresh_token
    return fresh
