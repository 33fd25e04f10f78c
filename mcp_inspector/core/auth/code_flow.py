"""The authorization code grant with PKCE (OAuth 2.1 §4.1, S256 only), ``state``, the
``resource`` parameter (RFC 8707), the checks of the redirect (``state``; ``iss`` by RFC 9207
with simple string comparison) and the code exchange at the token endpoint.

``authorization_code`` runs the three steps (the authorization request, the redirect, the
token request) as AuthSteps; how the user reaches the authorization URL is the ``Opener``'s
business (``opener``: browser, print or fetch). The ``code_verifier`` and the code are never
put in a step (the step shows ``code_challenge``; the token request is masked by AuthHttp).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..base.masking import mask_url, mask_value
from ..transport.http_util import printable
from .http import AuthHttp
from .model import AuthError, AuthSettings, ClientInfo, ServerAuthInfo, TokenSet
from .opener import Opener, redirect_parameters, same_endpoint
from .token_request import request_token, sends_resource

if TYPE_CHECKING:
    from .dpop import DpopKey

SPEC_PKCE = "MCP authorization: Authorization Code Protection (PKCE, S256); OAuth 2.1 §4.1.1"
SPEC_STATE = "OAuth 2.1 §4.1.2.1 / §7.5 (state)"
SPEC_ISS = "RFC 9207 §2.4 (iss in the authorization response)"
SHOWN = 200  # characters of server words kept in a message


def make_pkce() -> tuple[str, str]:
    """(code_verifier, code_challenge): 64 random bytes as base64url (86 characters, within
    43-128), and BASE64URL(SHA256(verifier)) without padding."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(64)).rstrip(b"=").decode("ascii")
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def authorization_endpoint(info: ServerAuthInfo) -> str:
    """The authorization endpoint the code flow sends the user to, or AuthError saying what is wrong
    with the metadata's (the manager asks before it registers a client: nothing is registered for a
    flow that cannot run)."""
    endpoint = info.authorization_endpoint
    if endpoint:
        return endpoint
    refused = info.refused.get("authorization_endpoint")
    if refused is not None:
        raise AuthError(
            f"the authorization server's authorization_endpoint {refused} is not a usable http(s) URL: refused "
            "(no client was registered; a person cannot be sent there)",
            spec="RFC 8414 §2; OAuth 2.1 §3.1",
        )
    raise AuthError(
        "the authorization server metadata has no authorization_endpoint: the authorization code flow cannot "
        "run (no client was registered; a grant without a user, --oauth-grant client_credentials, may work)",
        spec="RFC 8414 §2",
    )


def authorization_url(
    info: ServerAuthInfo, client: ClientInfo, redirect_uri: str, *, state: str, challenge: str, scope: str | None
) -> tuple[str, dict[str, str]]:
    """The authorization request URL and its parameters (the endpoint's own query kept)."""
    endpoint = authorization_endpoint(info)
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": redirect_uri,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
    }
    if scope:
        params["scope"] = scope
    if sends_resource(info):
        params["resource"] = info.resource
    parts = urlsplit(endpoint)
    query = parse_qsl(parts.query, keep_blank_values=True)
    query = [(key, value) for key, value in query if key not in params] + list(params.items())
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), "")), params


async def check_redirect(http: AuthHttp, info: ServerAuthInfo, redirect_url: str, redirect_uri: str, state: str) -> str:
    """The redirect's checks as one step; the authorization code, or AuthError."""
    log = http.log
    step = await log.step("redirect", "The redirect back to the client")
    params = redirect_parameters(redirect_url)
    step.details["redirect"] = mask_url(redirect_url)[:2000]
    step.details["parameters"] = {
        key: (mask_value(value) if key == "code" else printable(value)[:SHOWN]) for key, value in params.items()
    }
    if not same_endpoint(redirect_url, redirect_uri):
        raise log.fail(
            step,
            f"the redirect does not go to our redirect URI {redirect_uri}: {printable(mask_url(redirect_url))[:SHOWN]}",
            "OAuth 2.1 §4.1.2",
        )
    got_state = params.get("state")
    if got_state != state:
        what = "has no state" if got_state is None else "carries a different state"
        raise log.fail(step, f"the redirect {what} than the authorization request: refused (possible CSRF)", SPEC_STATE)
    step.check(True, "state matches the authorization request", SPEC_STATE)
    advertised = info.metadata.get("authorization_response_iss_parameter_supported") is True
    iss = params.get("iss")
    if iss is not None:
        if iss != info.issuer:
            raise log.fail(
                step,
                f"the redirect's iss {printable(iss)[:SHOWN]!r} is not the issuer {info.issuer!r} "
                "(simple string comparison): refused (mix-up attack?)",
                SPEC_ISS,
            )
        step.check(True, "iss equals the authorization server's issuer", SPEC_ISS)
    elif advertised:
        raise log.fail(
            step,
            "the authorization server advertises authorization_response_iss_parameter_supported "
            "but the redirect has no iss: refused",
            SPEC_ISS,
        )
    if "error" in params:
        what = printable(params["error"])[:SHOWN]
        if params.get("error_description"):
            what += f": {printable(params['error_description'])[:SHOWN]}"
        raise log.fail(step, f"the authorization server refused: {what}", "OAuth 2.1 §4.1.2.1")
    code = params.get("code")
    if not code:
        raise log.fail(step, "the redirect has no code", "OAuth 2.1 §4.1.2")
    step.check(True, "an authorization code came back")
    log.done(step)
    return code


async def authorization_code(
    http: AuthHttp,
    info: ServerAuthInfo,
    client: ClientInfo,
    settings: AuthSettings,
    opener: Opener,
    *,
    scope: str | None,
    dpop: DpopKey | None = None,
    nonces: Any = None,
) -> TokenSet:
    """The whole grant: the authorization request (through ``opener``), the redirect's checks,
    the code exchange."""
    log = http.log
    redirect_uri = await opener.start()
    verifier, challenge = make_pkce()
    state = secrets.token_urlsafe(24)
    step = await log.step("authorization", "The authorization request")
    methods = info.metadata.get("code_challenge_methods_supported")
    if isinstance(methods, list) and "S256" not in methods:
        step.check(
            False, f"code_challenge_methods_supported does not list S256 ({methods!r}): S256 is used anyway", SPEC_PKCE
        )
    try:
        url, params = authorization_url(info, client, redirect_uri, state=state, challenge=challenge, scope=scope)
    except AuthError as exc:
        raise log.fail(step, str(exc), exc.spec) from None
    step.details.update(url=mask_url(url), parameters=dict(params), opener=opener.mode)
    step.request = {"method": "GET", "url": mask_url(url), "headers": [], "body": None}
    step.check(True, "PKCE with S256, state and redirect_uri sent", SPEC_PKCE)
    if "resource" in params:
        step.check(True, f"resource = {params['resource']}", "RFC 8707 §2")
    try:
        redirect_url = await opener.authorize(url, state, step)
    except AuthError as exc:
        raise log.fail(step, str(exc), exc.spec) from None
    log.done(step)
    code = await check_redirect(http, info, redirect_url, redirect_uri, state)
    grant = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "code_verifier": verifier}
    return await request_token(
        http,
        info,
        client,
        settings,
        grant,
        kind="token",
        title="Exchange the authorization code for tokens",
        dpop=dpop,
        scope_asked=scope,
        nonces=nonces,
    )
