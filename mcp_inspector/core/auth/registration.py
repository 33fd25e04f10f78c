"""Client registration: which client the flow is, with the authorization server discovery found.

In the order the MCP spec (2025-11-25 and 2026-07-28 client registration) prefers:

1. a pre-registered client (``--client-id`` [``--client-secret`` | ``--client-key``]);
2. a client stored from an earlier flow, registered with the same issuer for our redirect URIs
   (credentials are bound to the authorization server that issued them);
3. a Client ID Metadata Document (``--client-metadata-url``) when the authorization server
   advertises ``client_id_metadata_document_supported``;
4. Dynamic Client Registration (RFC 7591) at ``registration_endpoint``;
5. else an error naming the flags that would help.

``choose_token_auth_method`` picks how the client authenticates at the token endpoint. The
registration response is kept in ``ClientInfo.registration``; steps show it masked.
"""

from __future__ import annotations

import ipaddress
import time
from typing import Any
from urllib.parse import urlsplit

from ..base.masking import mask_url, scrub
from .discovery import TIMEOUT, is_loopback
from .http import AuthHttp
from .model import TOKEN_AUTH_METHODS, AuthError, AuthSettings, AuthStep, ClientInfo, ServerAuthInfo

SPEC_ORDER = "MCP 2025-11-25 authorization §Client Registration Approaches"
SPEC_PRE = "MCP 2026-07-28 client-registration §Pre-registration"
SPEC_CIMD = "MCP 2025-11-25 authorization §Client ID Metadata Documents"
SPEC_DCR = "RFC 7591 §3; MCP 2026-07-28 client-registration §Dynamic Client Registration"
SPEC_APP_TYPE = "MCP 2026-07-28 client-registration §Application Type and Redirect URI Constraints"
SPEC_BINDING = "MCP 2026-07-28 client-registration §Authorization Server Binding"
SPEC_AUTH_METHODS = "RFC 8414 §2 (token_endpoint_auth_methods_supported)"

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
#: The grant types a registration asks for, by ``AuthSettings.grant``.
GRANT_TYPES = {
    "authorization_code": ["authorization_code", "refresh_token"],
    "client_credentials": ["client_credentials"],
    "jwt_bearer": [JWT_BEARER],
    "enterprise": [JWT_BEARER],
}


def _supported_methods(info: ServerAuthInfo) -> list[str] | None:
    value = info.metadata.get("token_endpoint_auth_methods_supported")
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else None


def choose_token_auth_method(info: ServerAuthInfo, settings: AuthSettings, *, has_secret: bool, has_key: bool) -> str:
    """How to authenticate at the token endpoint: ``settings.token_auth_method`` when set, else
    the best the authorization server lists that the client can do (private_key_jwt with a key,
    client_secret_basic then client_secret_post with a secret, none); RFC 8414's default list,
    when the server gives none, is client_secret_basic alone."""
    if settings.token_auth_method:
        return settings.token_auth_method
    can: list[str] = []
    if has_key:
        can.append("private_key_jwt")
    if has_secret:
        can += ["client_secret_basic", "client_secret_post"]
    can.append("none")
    supported = _supported_methods(info)
    if supported is None:
        supported = ["client_secret_basic"]
    for method in can:
        if method in supported:
            return method
    return can[0]  # nothing in common: the strongest we can do; the token endpoint will say


def _loopback_ip_key(uri: str) -> tuple[str, str, str] | None:
    """(scheme, host, path) of an http loopback IP literal redirect URI, whose port the
    authorization server must let vary (OAuth 2.1 §8.4.2, RFC 8252 §7.3); else None."""
    try:
        parts = urlsplit(uri)
        host = ipaddress.ip_address(parts.hostname or "")
    except ValueError:
        return None
    if parts.scheme != "http" or not host.is_loopback:
        return None
    return parts.scheme, str(host), parts.path + (f"?{parts.query}" if parts.query else "")


def _covers(stored: list[str], wanted: list[str]) -> bool:
    """Every wanted redirect URI is registered (a loopback IP one on any port)."""
    loose = {_loopback_ip_key(uri) for uri in stored} - {None}
    return all(uri in stored or (_loopback_ip_key(uri) or 0) in loose for uri in wanted)


def _grant_registered(client: ClientInfo, grant: str) -> bool:
    """The grant's grant type is among those the client was registered for (when known)."""
    granted = (client.registration or {}).get("grant_types")
    if not isinstance(granted, list):
        return (
            grant == "authorization_code" or client.registered_via != "dynamic"
        )  # RFC 7591 default: authorization_code
    return GRANT_TYPES.get(grant, GRANT_TYPES["authorization_code"])[0] in granted


def _secret_expired(client: ClientInfo) -> bool:
    expires = (client.registration or {}).get("client_secret_expires_at")
    return isinstance(expires, (int, float)) and not isinstance(expires, bool) and 0 < expires < time.time()


def _method_finding(step: AuthStep, info: ServerAuthInfo, method: str) -> None:
    supported = _supported_methods(info)
    if supported is not None and method not in supported:
        step.check(
            False,
            f"Token endpoint authentication {method} is not in the server's "
            f"token_endpoint_auth_methods_supported ({', '.join(supported) or 'empty'})",
            SPEC_AUTH_METHODS,
        )
    else:
        step.check(True, f"Token endpoint authentication: {method}", SPEC_AUTH_METHODS)


def application_type(redirect_uris: list[str]) -> str:
    """ "native" for loopback (or custom-scheme) redirect URIs, "web" for remote https ones."""
    remote = [uri for uri in redirect_uris if urlsplit(uri).scheme in ("http", "https") and not is_loopback(uri)]
    return "web" if redirect_uris and len(remote) == len(redirect_uris) else "native"


def _dcr_body(info: ServerAuthInfo, settings: AuthSettings, redirect_uris: list[str]) -> dict[str, Any]:
    grant_types = list(GRANT_TYPES.get(settings.grant, GRANT_TYPES["authorization_code"]))
    supported_grants = info.metadata.get("grant_types_supported")
    if (
        isinstance(supported_grants, list)
        and "refresh_token" not in supported_grants
        and "refresh_token" in grant_types
    ):
        grant_types.remove("refresh_token")
    body: dict[str, Any] = {
        "client_name": settings.client_name,
        "redirect_uris": list(redirect_uris),
        "grant_types": grant_types,
        "response_types": ["code"] if "authorization_code" in grant_types else [],
        "application_type": application_type(redirect_uris),
    }
    if settings.token_auth_method:
        body["token_endpoint_auth_method"] = settings.token_auth_method
    else:
        supported = _supported_methods(info)
        if supported is None or "none" in supported:
            body["token_endpoint_auth_method"] = "none"  # a native app is a public client
        else:
            for method in ("client_secret_basic", "client_secret_post", "private_key_jwt"):
                if method in supported and (method != "private_key_jwt" or settings.private_key_pem):
                    body["token_endpoint_auth_method"] = method
                    break
    scopes = settings.scopes
    if not scopes and info.resource_metadata:
        listed = info.resource_metadata.get("scopes_supported")
        scopes = [s for s in listed if isinstance(s, str)] if isinstance(listed, list) else None
    if scopes:
        body["scope"] = " ".join(scopes)
    return body


def _error_text(document: dict[str, Any] | None) -> str:
    """`` : error - description`` of an RFC 7591 error response (a secret echoed there masked)."""
    if not document:
        return ""
    error = document.get("error")
    description = document.get("error_description")
    parts = [str(part)[:300] for part in (error, description) if isinstance(part, str) and part]
    return scrub(": " + " - ".join(parts)) if parts else ""


async def _dynamic(
    http: AuthHttp, info: ServerAuthInfo, settings: AuthSettings, redirect_uris: list[str], timeout: float
) -> ClientInfo:
    endpoint = info.registration_endpoint
    assert endpoint
    step = await http.log.step("registration", f"Dynamic Client Registration at {mask_url(endpoint)}")
    body = _dcr_body(info, settings, redirect_uris)
    step.details.update(
        {
            "via": "dynamic",
            "application_type": body["application_type"],
            "token_endpoint_auth_method": body.get("token_endpoint_auth_method"),
        }
    )
    response = await http.request(
        "POST", endpoint, step=step, json_body=body, note="oauth registration", timeout=timeout
    )
    document = response.json_object()
    if not response.ok:
        raise http.log.fail(
            step,
            f"The authorization server refused the registration (HTTP {response.status}"
            f"{_error_text(document)}); register a client by hand and pass --client-id "
            "(and --client-secret), or use --client-metadata-url",
            SPEC_DCR,
        )
    if response.status != 201:
        step.check(False, f"Answered {response.status}; RFC 7591 §3.2.1 says 201 Created", SPEC_DCR)
    client_id = document.get("client_id") if document else None
    if not isinstance(client_id, str) or not client_id:
        raise http.log.fail(
            step,
            "The registration response has no client_id"
            + ("" if document is not None else " (the body is not a JSON object)"),
            SPEC_DCR,
        )
    secret = document.get("client_secret") if document else None
    secret = secret if isinstance(secret, str) and secret else None
    assigned = document.get("token_endpoint_auth_method") if document else None
    if isinstance(assigned, str) and assigned in TOKEN_AUTH_METHODS and not settings.token_auth_method:
        method = assigned
        if method.startswith("client_secret") and secret is None:
            step.check(False, f"Registered with {method} but no client_secret was issued", SPEC_DCR)
    else:
        if isinstance(assigned, str) and assigned not in TOKEN_AUTH_METHODS:
            step.check(
                False,
                f"The server assigned token_endpoint_auth_method {assigned[:100]!r}, which this client "
                "does not implement: choosing another",
                SPEC_DCR,
            )
        method = choose_token_auth_method(
            info, settings, has_secret=secret is not None, has_key=bool(settings.private_key_pem)
        )
    registered_uris = document.get("redirect_uris") if document else None
    if (
        isinstance(registered_uris, list)
        and redirect_uris
        and not _covers([u for u in registered_uris if isinstance(u, str)], redirect_uris)
    ):
        step.check(False, "The registered redirect_uris differ from the ones asked for", SPEC_DCR)
    step.details.update(
        {"client_id": client_id, "client_secret": "(issued)" if secret else None, "token_endpoint_auth_method": method}
    )
    step.check(True, f"Registered as {client_id}", SPEC_DCR)
    _method_finding(step, info, method)
    http.log.done(step)
    return ClientInfo(
        client_id=client_id,
        client_secret=secret,
        token_auth_method=method,
        registered_via="dynamic",
        issuer=info.issuer,
        redirect_uris=list(redirect_uris),
        registration=document,
    )


def _cimd_url_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme != "https":
        return "is not an https URL"
    if parts.path in ("", "/"):
        return "has no path"
    if parts.fragment:
        return "has a fragment"
    return None


async def register(
    http: AuthHttp,
    info: ServerAuthInfo,
    settings: AuthSettings,
    redirect_uris: list[str],
    *,
    stored: ClientInfo | None = None,
    timeout: float | None = None,
) -> ClientInfo:
    """The client to authorize as (see the module doc for the order). Raises ``AuthError``."""
    redirect_uris = list(redirect_uris)
    if settings.client_id:
        step = await http.log.step("registration", f"Pre-registered client {settings.client_id}")
        method = choose_token_auth_method(
            info, settings, has_secret=bool(settings.client_secret), has_key=bool(settings.private_key_pem)
        )
        step.details.update(
            {
                "via": "pre-registered",
                "client_id": settings.client_id,
                "client_secret": "(set)" if settings.client_secret else None,
                "private_key": "(set)" if settings.private_key_pem else None,
                "token_endpoint_auth_method": method,
            }
        )
        step.check(True, "A pre-registered client comes first", SPEC_ORDER)
        if (
            stored is not None
            and stored.registered_via == "pre-registered"
            and stored.client_id == settings.client_id
            and stored.issuer
            and info.issuer
            and stored.issuer != info.issuer
        ):
            step.check(
                False,
                f"This client was used with {stored.issuer}; the server now names {info.issuer}. "
                "Pre-registered credentials belong to one authorization server",
                SPEC_BINDING,
            )
        if method == "private_key_jwt" and not settings.private_key_pem:
            step.check(False, "private_key_jwt needs a private key (--client-key)", SPEC_AUTH_METHODS)
        if method.startswith("client_secret") and not settings.client_secret:
            step.check(False, f"{method} needs a client secret (--client-secret)", SPEC_AUTH_METHODS)
        _method_finding(step, info, method)
        http.log.done(step)
        return ClientInfo(
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            token_auth_method=method,
            registered_via="pre-registered",
            issuer=info.issuer,
            redirect_uris=redirect_uris,
        )

    if stored is not None and stored.registered_via != "pre-registered":
        reuse = (
            stored.issuer is not None
            and stored.issuer == info.issuer
            and _covers(stored.redirect_uris, redirect_uris)
            and not _secret_expired(stored)
            and _grant_registered(stored, settings.grant)
        )
        if reuse and stored.registered_via == "metadata-document" and stored.client_id != settings.client_metadata_url:
            reuse = False
        if reuse:
            step = await http.log.step("registration", f"Stored client {stored.client_id}")
            step.details.update(
                {
                    "via": "stored",
                    "client_id": stored.client_id,
                    "registered_via": stored.registered_via,
                    "token_endpoint_auth_method": stored.token_auth_method,
                }
            )
            step.check(True, f"Registered earlier with this authorization server ({info.issuer})", SPEC_BINDING)
            if not all(uri in stored.redirect_uris for uri in redirect_uris):
                step.check(
                    True,
                    "Its loopback redirect URI is registered on another port: the authorization server "
                    "must accept any port there",
                    "OAuth 2.1 §8.4.2; RFC 8252 §7.3",
                )
            http.log.done(step)
            return stored

    supports_cimd = info.metadata.get("client_id_metadata_document_supported") is True
    url = settings.client_metadata_url
    if url and (supports_cimd or not info.registration_endpoint):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise AuthError(
                f"--client-metadata-url {url[:300]!r} is not a URL: it must be the https URL of "
                "your client's metadata document",
                spec=SPEC_CIMD,
            )
        step = await http.log.step("registration", f"Client ID Metadata Document {url}")
        method = settings.token_auth_method or "none"
        step.details.update(
            {
                "via": "metadata-document",
                "client_id": url,
                "token_endpoint_auth_method": method,
                "redirect_uris": redirect_uris,
            }
        )
        if supports_cimd:
            step.check(
                True,
                "The authorization server supports Client ID Metadata Documents: the URL is the client_id",
                SPEC_CIMD,
            )
        else:
            step.check(
                False,
                "The authorization server does not advertise client_id_metadata_document_supported "
                "and offers no registration endpoint: trying the document anyway",
                SPEC_CIMD,
            )
        problem = _cimd_url_problem(url)
        if problem:
            step.check(False, f"The client_id URL {problem}: the spec wants an https URL with a path", SPEC_CIMD)
        step.check(
            True, "The document must list the redirect URIs used here (the server checks them against it)", SPEC_CIMD
        )
        _method_finding(step, info, method)
        http.log.done(step)
        return ClientInfo(
            client_id=url,
            token_auth_method=method,
            registered_via="metadata-document",
            issuer=info.issuer,
            redirect_uris=redirect_uris,
        )

    if info.registration_endpoint:
        return await _dynamic(http, info, settings, redirect_uris, timeout or TIMEOUT)

    step = await http.log.step("registration", "No way to register a client")
    flags = "--client-id (and --client-secret or --client-key) for a client registered with it by hand"
    if not supports_cimd:
        why = "no registration_endpoint (Dynamic Client Registration) and no client_id_metadata_document_supported"
        flags += ", or --client-metadata-url if it accepts Client ID Metadata Documents anyway"
    else:
        why = "no registration_endpoint, and Client ID Metadata Documents need --client-metadata-url"
        flags += ", or --client-metadata-url with the https URL of your client's metadata document"
    raise http.log.fail(
        step,
        f"The authorization server {info.issuer or ''} offers no way to register this client ({why}). Use {flags}",
        SPEC_ORDER,
    )
