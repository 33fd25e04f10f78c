"""Discovery: from an MCP server URL (and its 401 challenge) to the authorization server's
endpoints, as the MCP authorization spec (2025-03-26 to 2026-07-28) orders it.

1. Protected resource metadata (RFC 9728): the challenge's ``resource_metadata`` URL, else
   ``/.well-known/oauth-protected-resource{/path}``, then the same at the root. Its ``resource``
   must name the server we talk to (a mismatch stops the flow: tokens for another resource).
2. Authorization server metadata (RFC 8414 / OpenID Connect Discovery) of the first listed
   authorization server, in the spec's order of well-known URLs; its ``issuer`` must be the one
   used to build the URL (simple string comparison, RFC 8414 §3.3).
3. Without protected resource metadata, the 2025-03-26 way: metadata at the MCP server's root,
   else the default endpoints ``/authorize``, ``/token``, ``/register`` (``defaults_used``).

Every request is one ``AuthStep`` with the findings that say what the spec expects and where
the server deviates (naming the document); a fault that makes the metadata unusable fails the
step and raises ``AuthError``.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..base.errors import printable, quote_line
from ..base.masking import mask_url
from .http import BODY_CAP, AuthHttp, AuthResponse
from .model import AuthError, AuthStep, ServerAuthInfo

TIMEOUT = 30.0  # seconds for one metadata request
PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
OAUTH_WELL_KNOWN = "/.well-known/oauth-authorization-server"
OIDC_WELL_KNOWN = "/.well-known/openid-configuration"
LEGACY_VERSIONS = ("2024-11-05", "2025-03-26")

SPEC_PRM = "RFC 9728 §3; MCP 2025-11-25 authorization §Protected Resource Metadata Discovery Requirements"
SPEC_PRM_RESOURCE = "RFC 9728 §3.3; RFC 8707 §2; MCP 2025-11-25 authorization §Resource Parameter Implementation"
SPEC_AS_LOCATION = "MCP 2025-11-25 authorization §Authorization Server Location"
SPEC_AS_DISCOVERY = "RFC 8414 §3.1; MCP 2025-11-25 authorization §Authorization Server Metadata Discovery"
SPEC_ISSUER = "RFC 8414 §3.3; MCP 2026-07-28 authorization-server-discovery §Authorization Server Metadata Discovery"
SPEC_METADATA = "RFC 8414 §2"
SPEC_PKCE = "MCP 2025-11-25 authorization §Authorization Code Protection"
SPEC_HTTPS = "OAuth 2.1 §1.5; MCP 2025-11-25 authorization §Communication Security"
SPEC_LEGACY = "MCP 2025-03-26 authorization §Server Metadata Discovery"
SPEC_LEGACY_DEFAULTS = "MCP 2025-03-26 authorization §Fallbacks for Servers without Metadata Discovery"
SPEC_BINDING = "MCP 2026-07-28 client-registration §Authorization Server Binding"

#: Metadata fields that must be lists of strings (dropped, with a finding, when they are not).
LIST_FIELDS = (
    "scopes_supported",
    "response_types_supported",
    "grant_types_supported",
    "code_challenge_methods_supported",
    "token_endpoint_auth_methods_supported",
    "token_endpoint_auth_signing_alg_values_supported",
    "dpop_signing_alg_values_supported",
    "response_modes_supported",
)
BOOL_FIELDS = ("client_id_metadata_document_supported", "authorization_response_iss_parameter_supported")


ADVERTISED = "the 401's resource_metadata"
AT_PATH = "the well-known URL at the server's path"
AT_ROOT = "the well-known URL at the root"


class MetadataNotFound(AuthError):
    """No authorization server metadata at any of the well-known URLs."""


# --- URLs ---------------------------------------------------------------------------------


def _http_url(url: object) -> bool:
    """An absolute http(s) URL with a host, without spaces or control characters (an escape
    sequence in an endpoint would act on the terminal the URL is printed to)."""
    if not isinstance(url, str) or not url or " " in url or printable(url) != url:
        return False
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def shown_value(value: object) -> str:
    """A metadata value as a message may quote it: masked, bounded, control characters visible."""
    text = mask_url(value) if isinstance(value, str) else repr(value)
    return f"'{quote_line(printable(text), 200)}'"


def _resolve(base: str, reference: str) -> str | None:
    """``reference`` made absolute against ``base`` when it is an http(s) URL then, else None."""
    try:
        url = urljoin(base, reference)
    except ValueError:
        return None
    return url if _http_url(url) else None


def _host_port(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None and (parts.scheme.lower(), port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    return host


def _short(url: str, relative_to: str) -> str:
    """``url`` as its path (and query) when it is on the origin of ``relative_to``, else whole (masked)."""
    if origin(url) != origin(relative_to):
        return mask_url(url)
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL (scheme and host lowercased, default port dropped)."""
    return f"{urlsplit(url).scheme.lower()}://{_host_port(url)}"


def canonical_resource(server_url: str) -> str:
    """The canonical URI of an MCP server (RFC 8707 §2, MCP "Canonical Server URI"):
    lowercase scheme and host, no default port, no fragment, no lone trailing slash."""
    text = (server_url or "").strip()
    try:
        parts = urlsplit(text)
        if not parts.scheme or not parts.netloc:
            return text.split("#", 1)[0]
        path = "" if parts.path == "/" else parts.path
        query = f"?{parts.query}" if parts.query else ""
        return f"{parts.scheme.lower()}://{_host_port(text)}{path}{query}"
    except ValueError:
        return text.split("#", 1)[0]


def is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resource_match(server_url: str, resource: str) -> str:
    """ "same", "prefix" (the resource is the server's origin or a parent path of it, as a
    root-level protected resource metadata document names it) or "mismatch"."""
    if not _http_url(resource):
        return "mismatch"
    want, got = urlsplit(canonical_resource(server_url)), urlsplit(canonical_resource(resource))
    if (want.scheme, want.netloc) != (got.scheme, got.netloc):
        return "mismatch"
    if (want.path, want.query) == (got.path, got.query):
        return "same"
    parent = got.path.rstrip("/")
    if not got.query and (want.path == parent or want.path.startswith(parent + "/")):
        return "prefix"
    return "mismatch"


def resource_metadata_urls(server_url: str) -> list[str]:
    """The RFC 9728 well-known URLs for a server URL, in the order the spec tries them."""
    parts = urlsplit(server_url)
    base = origin(server_url)
    path = parts.path.rstrip("/")
    urls = []
    if path:
        urls.append(f"{base}{PRM_WELL_KNOWN}{path}" + (f"?{parts.query}" if parts.query else ""))
    urls.append(f"{base}{PRM_WELL_KNOWN}")
    return urls


def server_metadata_urls(issuer: str) -> list[str]:
    """The RFC 8414 / OpenID Connect well-known URLs for an issuer, in the spec's order."""
    base = origin(issuer)
    path = urlsplit(issuer).path.rstrip("/")
    if path:
        return [f"{base}{OAUTH_WELL_KNOWN}{path}", f"{base}{OIDC_WELL_KNOWN}{path}", f"{base}{path}{OIDC_WELL_KNOWN}"]
    return [f"{base}{OAUTH_WELL_KNOWN}", f"{base}{OIDC_WELL_KNOWN}"]


# --- fetching -----------------------------------------------------------------------------


async def _get_document(
    http: AuthHttp, kind: str, title: str, url: str, headers: dict[str, str], timeout: float
) -> tuple[AuthStep, AuthResponse, dict[str, Any] | None, str | None]:
    """GET a JSON document in a new step (left running). Returns the document, or None and why
    it is not usable (``"404"`` alone when there is simply nothing there)."""
    step = await http.log.step(kind, title)
    step.details["url"] = mask_url(url)
    response = await http.request("GET", url, step=step, headers=headers, note="oauth discovery", timeout=timeout)
    if response.status in (404, 410):
        return step, response, None, "404"
    if 300 <= response.status < 400:
        where = f" to {mask_url(response.location)}" if response.location else ""
        return step, response, None, f"HTTP {response.status}: redirected{where} (not followed)"
    if not response.ok:
        return step, response, None, f"HTTP {response.status} {response.reason}".rstrip()
    if response.size > BODY_CAP:
        return step, response, None, f"the body is over {BODY_CAP // (1 << 20)} MiB: not a metadata document"
    document = response.json_object()
    if document is None:
        return step, response, None, "the body is not a JSON object"
    if response.content_type not in ("application/json", "") and not response.content_type.endswith("+json"):
        step.check(False, f"Served as {response.content_type!r}, not application/json", SPEC_METADATA)
    return step, response, document, None


def _not_here(http: AuthHttp, step: AuthStep, why: str, spec: str) -> None:
    if why == "404":
        step.check(True, "Not found here (404): trying the next location", spec)
        http.log.done(step, "skipped")
    else:
        step.check(False, f"Not usable: {why}; trying the next location", spec)
        http.log.done(step, "warning")


async def _find_resource_metadata(
    http: AuthHttp, server_url: str, challenge: Any, headers: dict[str, str], timeout: float
) -> tuple[str, dict[str, Any], AuthStep] | None:
    candidates: list[tuple[str, str]] = []  # (url, how it was found)
    advertised = getattr(challenge, "resource_metadata", None) if challenge is not None else None
    advertised_url = _resolve(server_url, advertised) if advertised else None
    if advertised_url is not None:
        candidates.append((advertised_url, ADVERTISED))
    well_known = resource_metadata_urls(server_url)
    for url in well_known:
        how = AT_PATH if len(well_known) > 1 and url == well_known[0] else AT_ROOT
        if all(url != known for known, _ in candidates):
            candidates.append((url, how))
    for number, (url, how) in enumerate(candidates):
        step, _, document, why = await _get_document(
            http,
            "resource-metadata",
            f"Protected resource metadata from {_short(url, server_url)}",
            url,
            headers,
            timeout,
        )
        step.details["location"] = how
        if number == 0:
            if advertised and advertised_url is None:
                step.check(
                    False, f"The 401's resource_metadata {advertised[:200]!r} is not an http(s) URL", "RFC 9728 §5.1"
                )
            elif advertised and not _http_url(advertised):
                step.check(
                    False,
                    f"The 401's resource_metadata {advertised[:200]!r} is relative; RFC 9728 §5.1 wants an absolute "
                    "URL",
                    "RFC 9728 §5.1",
                )
            elif advertised:
                step.check(True, "The 401 names its metadata (resource_metadata): used first", SPEC_PRM)
            elif challenge is not None:
                step.check(True, "The 401 names no resource_metadata: trying the well-known URLs in order", SPEC_PRM)
        if document is None:
            assert why is not None
            if how == ADVERTISED:
                step.check(
                    False, f"The URL the server advertised in WWW-Authenticate is not usable: {why}", "RFC 9728 §5.1"
                )
                http.log.done(step, "warning")
            else:
                _not_here(http, step, why, SPEC_PRM)
            continue
        servers = document.get("authorization_servers")
        if not isinstance(servers, list) or not [s for s in servers if _http_url(s)]:
            step.check(
                False,
                "No authorization_servers (a list of http(s) URLs): MCP servers MUST list at least one; "
                "trying the next location",
                SPEC_AS_LOCATION,
            )
            http.log.done(step, "warning")
            continue
        if how == AT_ROOT and len(well_known) > 1 and not advertised:
            step.check(
                True, "Served at the root only (nothing at the path-based URL, which is tried first): allowed", SPEC_PRM
            )
        return url, document, step
    return None


def _check_resource(http: AuthHttp, step: AuthStep, server_url: str, document: dict[str, Any]) -> str:
    """The resource to ask tokens for; raises when the document is for another resource."""
    resource = document.get("resource")
    expected = canonical_resource(server_url)
    step.details["resource_expected"] = expected
    if not isinstance(resource, str) or not resource:
        step.check(False, f"No resource field (REQUIRED): using the server URL {expected}", "RFC 9728 §2")
        return expected
    match = resource_match(server_url, resource)
    if match == "mismatch":
        raise http.log.fail(
            step,
            f"The protected resource metadata is for {resource[:300]!r}, not for this server "
            f"({expected}): a token for it would be for another resource; stopping",
            SPEC_PRM_RESOURCE,
        )
    if match == "prefix":
        step.check(True, f"resource {resource} covers {expected} (same origin, parent path)", SPEC_PRM_RESOURCE)
    else:
        step.check(True, f"resource {resource} is this server", SPEC_PRM_RESOURCE)
    return resource


def _choose_issuer(step: AuthStep, document: dict[str, Any], previous: ServerAuthInfo | None) -> str:
    servers = [s for s in document.get("authorization_servers", []) if _http_url(s)]
    issuer = servers[0]
    step.details["authorization_servers"] = list(servers)
    if len(servers) > 1:
        step.check(
            True,
            f"{len(servers)} authorization servers listed: using the first, {issuer}",
            "RFC 9728 §7.6; " + SPEC_AS_LOCATION,
        )
    if previous is not None and previous.issuer and previous.issuer != issuer:
        step.details["previous_issuer"] = previous.issuer
        step.check(
            True,
            f"The authorization server changed from {previous.issuer} to {issuer}: the client registered "
            "with the previous one must not be used here (re-registering)",
            SPEC_BINDING,
        )
    bad = document.get("scopes_supported")
    if bad is not None and not (isinstance(bad, list) and all(isinstance(s, str) for s in bad)):
        step.check(False, "scopes_supported is not a list of strings: ignored", "RFC 9728 §2")
        document.pop("scopes_supported", None)
    return issuer


async def _find_server_metadata(
    http: AuthHttp, issuer: str, headers: dict[str, str], timeout: float, legacy: bool
) -> tuple[str, dict[str, Any], AuthStep]:
    reasons = []
    for url in server_metadata_urls(issuer):  # legacy: the root's RFC 8414 URL first, as 2025-03-26 says
        label = "OpenID Connect discovery" if OIDC_WELL_KNOWN in url else "OAuth metadata (RFC 8414)"
        step, _, document, why = await _get_document(
            http, "server-metadata", f"Authorization server metadata from {mask_url(url)}", url, headers, timeout
        )
        step.details.update({"issuer": issuer, "document": label})
        if document is None:
            assert why is not None
            reasons.append(f"{mask_url(url)}: {'404' if why == '404' else why}")
            _not_here(http, step, why, SPEC_LEGACY if legacy else SPEC_AS_DISCOVERY)
            continue
        return url, document, step
    raise MetadataNotFound(
        f"No authorization server metadata for {issuer} ({'; '.join(reasons)})",
        spec=SPEC_LEGACY if legacy else SPEC_AS_DISCOVERY,
    )


def _check_document(
    http: AuthHttp,
    step: AuthStep,
    document: dict[str, Any],
    issuer: str,
    *,
    require_pkce: bool,
    refused: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Validate a metadata document in its step; returns it with malformed fields dropped
    (the endpoints dropped go into ``refused``: name -> the value as it may be shown)."""
    got = document.get("issuer")
    if got != issuer:
        shown = repr(got)[:300] if got is not None else "missing"
        raise http.log.fail(
            step,
            f"The metadata's issuer ({shown}) is not the issuer it was fetched for ({issuer}): it MUST NOT be used",
            SPEC_ISSUER,
        )
    step.check(True, f"issuer {issuer} is the one the well-known URL was built from", SPEC_ISSUER)
    doc = dict(document)
    for key in list(doc):
        if not (key.endswith("_endpoint") or key == "jwks_uri"):
            continue
        value = doc[key]
        if not _http_url(value):
            step.check(False, f"{key} {shown_value(value)} is not a usable http(s) URL: ignored", SPEC_METADATA)
            if refused is not None:
                refused[key] = shown_value(value)
            del doc[key]
        elif urlsplit(value).scheme.lower() != "https" and not is_loopback(value):
            step.check(
                False, f"{key} {mask_url(value)} is not HTTPS: authorization server endpoints MUST be", SPEC_HTTPS
            )
    for key in LIST_FIELDS:
        value = doc.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            step.check(False, f"{key} is not a list of strings: ignored", SPEC_METADATA)
            del doc[key]
    for key in BOOL_FIELDS:
        if key in doc and not isinstance(doc[key], bool):
            step.check(False, f"{key} is not a boolean: ignored", SPEC_METADATA)
            del doc[key]
    if "token_endpoint" not in doc:
        raise http.log.fail(step, "The metadata has no usable token_endpoint: no token can be requested", SPEC_METADATA)
    if "authorization_endpoint" not in doc:
        step.check(
            False,
            "No authorization_endpoint: only grants without a user (client credentials...) can work",
            SPEC_METADATA,
        )
    response_types = doc.get("response_types_supported")
    if response_types is None:
        step.check(False, "response_types_supported is missing (REQUIRED)", SPEC_METADATA)
    elif "code" not in response_types:
        step.check(False, 'response_types_supported does not list "code" (the authorization code flow)', SPEC_METADATA)
    methods = doc.get("code_challenge_methods_supported")
    if methods is None or "S256" not in methods:
        what = "is missing" if methods is None else f"does not list S256 ({', '.join(methods)[:200] or 'empty'})"
        message = (
            f"code_challenge_methods_supported {what}: PKCE with S256 is not advertised, "
            "and MCP clients MUST refuse to proceed"
        )
        if require_pkce:
            raise http.log.fail(step, message, SPEC_PKCE)
        step.check(False, message, SPEC_PKCE)
    else:
        step.check(True, "PKCE with S256 is supported", SPEC_PKCE)
    step.details["endpoints"] = {
        key: mask_url(doc[key])
        for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint")
        if key in doc
    }
    return doc


async def fetch_server_metadata(
    http: AuthHttp,
    issuer: str,
    *,
    legacy_base: str | None = None,
    protocol_version: str | None = None,
    require_pkce: bool = False,
    timeout: float | None = None,
) -> tuple[str, dict[str, Any]]:
    """The metadata document of an authorization server: ``(url it came from, document)``.

    ``issuer`` is the issuer identifier (from protected resource metadata, or an identity
    provider's). ``legacy_base`` (2025-03-26, no protected resource metadata): the MCP server's
    URL, whose origin is the authorization base URL and the issuer. Raises ``MetadataNotFound``
    when no well-known URL has a document, ``AuthError`` when the document is unusable (issuer
    mismatch, no token endpoint, no PKCE with ``require_pkce``)."""
    if legacy_base is not None:
        issuer = origin(legacy_base)
    if not _http_url(issuer):
        raise AuthError(f"The issuer {issuer[:300]!r} is not an http(s) URL", spec=SPEC_METADATA)
    headers = {"MCP-Protocol-Version": protocol_version} if protocol_version else {}
    url, document, step = await _find_server_metadata(
        http, issuer, headers, timeout or TIMEOUT, legacy_base is not None
    )
    document = _check_document(http, step, document, issuer, require_pkce=require_pkce)
    http.log.done(step)
    return url, document


def _legacy_defaults(base: str) -> dict[str, Any]:
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}/authorize",
        "token_endpoint": f"{base}/token",
        "registration_endpoint": f"{base}/register",
        "response_types_supported": ["code"],
        # 2025-03-26 makes PKCE REQUIRED for every client: S256 is implied.
        "code_challenge_methods_supported": ["S256"],
    }


async def discover(
    http: AuthHttp,
    server_url: str,
    *,
    challenge: Any = None,
    protocol_version: str | None,
    previous: ServerAuthInfo | None = None,
    require_pkce: bool = True,
    timeout: float | None = None,
) -> ServerAuthInfo:
    """Find the authorization server of ``server_url`` and its metadata (see the module doc).

    ``challenge``: the 401's Bearer/DPoP ``Challenge`` (its ``resource_metadata`` is used first).
    ``previous``: what an earlier flow found; a changed authorization server is a finding.
    ``require_pkce``: refuse metadata without S256 (the authorization code flow; grants
    without a user pass False). Raises ``AuthError`` (its ``step`` says where)."""
    if not _http_url(server_url):
        raise AuthError(f"{server_url[:300]!r} is not an http(s) URL: there is nothing to authorize to")
    wait = timeout or TIMEOUT
    headers = {"MCP-Protocol-Version": protocol_version} if protocol_version else {}
    found = await _find_resource_metadata(http, server_url, challenge, headers, wait)
    if found is not None:
        prm_url, prm, prm_step = found
        resource = _check_resource(http, prm_step, server_url, prm)
        issuer = _choose_issuer(prm_step, prm, previous)
        if urlsplit(issuer).scheme.lower() != "https" and not is_loopback(issuer):
            prm_step.check(False, f"The authorization server {issuer} is not HTTPS", SPEC_HTTPS)
        http.log.done(prm_step)
        info = ServerAuthInfo(resource=resource, resource_metadata_url=prm_url, resource_metadata=prm, issuer=issuer)
        url, document, step = await _find_server_metadata(http, issuer, headers, wait, False)
    else:
        base = origin(server_url)
        step = await http.log.step(
            "resource-metadata", f"No protected resource metadata: 2025-03-26 discovery at {base}"
        )
        legacy = protocol_version in LEGACY_VERSIONS if protocol_version else True
        step.check(
            legacy,
            "No protected resource metadata was found"
            + (
                "; falling back to 2025-03-26 discovery (the MCP server's origin is the authorization base URL)"
                if legacy
                else ": MCP servers MUST serve it since 2025-06-18; trying the 2025-03-26 locations"
            ),
            SPEC_LEGACY if legacy else SPEC_PRM,
        )
        if previous is not None and previous.issuer and previous.issuer != base:
            step.details["previous_issuer"] = previous.issuer
            step.check(True, f"The authorization server changed from {previous.issuer} to {base}", SPEC_BINDING)
        http.log.done(step)
        info = ServerAuthInfo(resource=canonical_resource(server_url), issuer=base)
        try:
            url, document, step = await _find_server_metadata(http, base, headers, wait, True)
        except MetadataNotFound:
            step = await http.log.step(
                "server-metadata", f"No authorization server metadata: default endpoints at {base}"
            )
            info.metadata = _legacy_defaults(base)
            info.defaults_used = True
            step.details["endpoints"] = {
                key: info.metadata[key] for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint")
            }
            step.check(
                legacy,
                "Using the default endpoints /authorize, /token and /register at the server's origin"
                + ("" if legacy else " (only 2025-03-26 defines them)"),
                SPEC_LEGACY_DEFAULTS,
            )
            if urlsplit(base).scheme != "https" and not is_loopback(base):
                step.check(False, f"{base} is not HTTPS", SPEC_HTTPS)
            http.log.done(step)
            return info
    info.metadata_url = url
    info.metadata = _check_document(
        http, step, document, info.issuer or "", require_pkce=require_pkce, refused=info.refused
    )
    http.log.done(step)
    return info
