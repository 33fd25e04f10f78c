"""The OAuth 2.1 authorization server half of tests/servers/oauth_server.py (see its docstring).

``AuthServer(options, base_url)`` holds the registered clients, codes and tokens in memory and
gives the Starlette routes of: RFC 8414 metadata, RFC 7591 Dynamic Client Registration,
``/authorize`` (approves at once: a 302 to the redirect URI with ``code``, ``state``, ``iss``),
``/token`` (authorization_code with PKCE S256, refresh_token with rotation,
client_credentials; client_secret_basic / client_secret_post / none), ``/jwks`` (JWT access
tokens) and ``/_stats`` (what happened, and every secret issued, for tests to look for).
``AuthServer.verify(token)`` is what the protected MCP server asks.

Broken variants are ``options`` attributes (the command-line knobs of oauth_server.py).
Written for tests: everything is in memory, nothing is persisted, it listens on 127.0.0.1 only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


@dataclass
class Client:
    client_id: str
    client_secret: str | None
    auth_method: str  # client_secret_basic | client_secret_post | none
    redirect_uris: list[str]
    grant_types: list[str]
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Grant:
    """An authorization code, a refresh token or an access token, and what it stands for."""

    client_id: str
    scopes: list[str]
    resource: str | None
    expires_at: float | None = None
    redirect_uri: str | None = None  # codes
    code_challenge: str | None = None  # codes
    used: bool = False  # codes and rotated refresh tokens
    kind: str = "access"  # access | refresh | code
    token_type: str = "Bearer"


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")


def _redirect_matches(registered: str, given: str) -> bool:
    """Exact match, except that a loopback redirect URI may use any port (RFC 8252 §7.3)."""
    if registered == given:
        return True
    a, b = urlsplit(registered), urlsplit(given)
    return (
        a.scheme == b.scheme == "http"
        and a.hostname in LOOPBACK_HOSTS
        and a.hostname == b.hostname
        and a.path == b.path
        and a.query == b.query
    )


class OAuthError(Exception):
    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def response(self, headers: dict[str, str] | None = None) -> JSONResponse:
        return JSONResponse(
            {"error": self.error, "error_description": self.description},
            self.status,
            headers={"Cache-Control": "no-store", **(headers or {})},
        )


class AuthServer:
    """The authorization server's state and routes. ``base_url``: ``http://127.0.0.1:<port>``."""

    def __init__(self, options: Any, base_url: str, resources: list[str], prefix: str = "") -> None:
        """``prefix``: a path before every endpoint and the issuer's path (a second authorization
        server in the same process, for a migration), else ``--issuer-path`` and endpoints at the root."""
        self.o = options
        self.base_url = base_url
        self.prefix = prefix
        self.issuer = base_url + (prefix or options.issuer_path or "")
        self.others: dict[str, AuthServer] = {}  # more authorization servers, shown in the stats
        self.resources = resources  # the resource indicators accepted (the MCP server's)
        self.clients: dict[str, Client] = {}
        self.grants: dict[str, Grant] = {}
        self.counter = 0
        self.stats: dict[str, Any] = {
            "authorize": 0,
            "register": 0,
            "metadata": 0,
            "jwks": 0,
            "token": {"authorization_code": 0, "refresh_token": 0, "client_credentials": 0, "other": 0, "errors": 0},
            "authorize_requests": [],  # the parameters of each /authorize (no secrets in them)
            "token_requests": [],  # grant_type, client auth method, scope, resource, and the outcome
            "secrets": {
                "access_tokens": [],
                "refresh_tokens": [],
                "codes": [],
                "client_secrets": [],
                "code_verifiers": [],
            },
        }
        self.key: Any = None
        if options.jwt:
            from joserfc.jwk import ECKey

            self.key = ECKey.generate_key(
                "P-256", parameters={"kid": "oauth-fixture-1", "use": "sig", "alg": "ES256"}, private=True
            )
        for spec in options.client or []:
            parts = spec.split(":")
            client_id, secret = parts[0], (parts[1] if len(parts) > 1 and parts[1] else None)
            method = parts[2] if len(parts) > 2 else ("client_secret_basic" if secret else "none")
            self.clients[client_id] = Client(
                client_id, secret, method, [], ["authorization_code", "refresh_token", "client_credentials"]
            )
            if secret:
                self.stats["secrets"]["client_secrets"].append(secret)

    # --- helpers --------------------------------------------------------------------------

    def _new(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}_{secrets.token_urlsafe(18)}"

    @property
    def scopes_supported(self) -> list[str]:
        return list(self.o.scopes_supported)

    def metadata(self) -> dict[str, Any]:
        issuer = self.issuer
        if self.o.wrong_issuer:
            issuer = self.base_url + "/some-other-issuer"
        doc: dict[str, Any] = {
            "issuer": issuer,
            "authorization_endpoint": self.base_url + self.prefix + "/authorize",
            "token_endpoint": self.base_url + self.prefix + "/token",
            "registration_endpoint": self.base_url + self.prefix + "/register",
            "scopes_supported": self.scopes_supported,
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "client_credentials"]
            + ([] if self.o.no_refresh else ["refresh_token"]),
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": True,
        }
        if self.o.no_s256:
            del doc["code_challenge_methods_supported"]
        if self.o.no_dcr:
            del doc["registration_endpoint"]
        if getattr(self.o, "authorization_endpoint", None):
            doc["authorization_endpoint"] = self.o.authorization_endpoint.replace("{base}", self.base_url + self.prefix)
        if self.key is not None:
            doc["jwks_uri"] = self.base_url + self.prefix + "/jwks"
        return doc

    def issue_tokens(self, client: Client, scopes: list[str], resource: str | None) -> dict[str, Any]:
        now = time.time()
        expires_in = self.o.expires_in
        if self.key is not None:
            from joserfc import jwt

            claims = {
                "iss": self.issuer,
                "sub": f"user-of-{client.client_id}",
                "aud": resource or self.issuer,
                "client_id": client.client_id,
                "scope": " ".join(scopes),
                "iat": int(now),
                "exp": int(now + expires_in),
                "jti": secrets.token_urlsafe(12),
            }
            access = jwt.encode({"alg": "ES256", "kid": "oauth-fixture-1", "typ": "at+jwt"}, claims, self.key)
        else:
            access = self._new("at")
        self.grants[access] = Grant(client.client_id, scopes, resource, now + expires_in)
        self.stats["secrets"]["access_tokens"].append(access)
        body: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": expires_in,
            "scope": " ".join(scopes),
        }
        if not self.o.no_refresh and "refresh_token" in client.grant_types:
            refresh = self._new("rt")
            self.grants[refresh] = Grant(client.client_id, scopes, resource, kind="refresh")
            self.stats["secrets"]["refresh_tokens"].append(refresh)
            body["refresh_token"] = refresh
        return body

    def verify(self, token: str) -> tuple[Grant | None, str]:
        """The access token's grant, or None and why not."""
        grant = self.grants.get(token)
        if grant is None or grant.kind != "access":
            return None, "unknown access token"
        if grant.expires_at is not None and time.time() >= grant.expires_at:
            return None, "the access token expired"
        return grant, ""

    def check_resource(self, resource: str | None) -> str | None:
        if resource is None:
            if self.o.resource_optional:
                return None
            raise OAuthError("invalid_target", "the resource parameter is required (RFC 8707, MCP authorization)")
        if resource.rstrip("/") not in [r.rstrip("/") for r in self.resources]:
            raise OAuthError(
                "invalid_target", f"unknown resource {resource!r}; this server protects {self.resources[0]}"
            )
        return resource

    def check_scopes(self, scope: str | None, default: list[str]) -> list[str]:
        asked = scope.split() if scope else list(default)
        unknown = [s for s in asked if s not in self.scopes_supported]
        if unknown:
            raise OAuthError("invalid_scope", f"unknown scope(s): {' '.join(unknown)}")
        return asked

    # --- endpoints ------------------------------------------------------------------------

    async def as_metadata(self, request: Request) -> Response:
        self.stats["metadata"] += 1
        return JSONResponse(self.metadata())

    async def jwks(self, request: Request) -> Response:
        self.stats["jwks"] += 1
        keys = [self.key.as_dict(private=False)] if self.key is not None else []
        return JSONResponse({"keys": keys})

    async def stats_endpoint(self, request: Request) -> Response:
        return JSONResponse({**self.stats, **{name: other.stats for name, other in self.others.items()}})

    async def register(self, request: Request) -> Response:
        self.stats["register"] += 1
        try:
            meta = json.loads(await request.body())
            if not isinstance(meta, dict):
                raise ValueError
        except ValueError:
            return OAuthError("invalid_client_metadata", "the body is not a JSON object").response()
        redirect_uris = meta.get("redirect_uris") or []
        grant_types = meta.get("grant_types") or ["authorization_code", "refresh_token"]
        method = self.o.dcr_auth_method or meta.get("token_endpoint_auth_method") or "client_secret_basic"
        if (
            not isinstance(redirect_uris, list)
            or not all(isinstance(u, str) for u in redirect_uris)
            or not isinstance(grant_types, list)
        ):
            return OAuthError(
                "invalid_client_metadata", "redirect_uris and grant_types must be lists of strings"
            ).response()
        if "authorization_code" in grant_types and not redirect_uris:
            return OAuthError("invalid_redirect_uri", "redirect_uris is required for authorization_code").response()
        for uri in redirect_uris:
            parts = urlsplit(uri)
            if not parts.scheme or (parts.scheme == "http" and parts.hostname not in LOOPBACK_HOSTS) or parts.fragment:
                return OAuthError("invalid_redirect_uri", f"redirect URI not allowed: {uri}").response()
        if method not in ("client_secret_basic", "client_secret_post", "none"):
            return OAuthError("invalid_client_metadata", f"unsupported token_endpoint_auth_method {method}").response()
        client_id = f"{self.prefix.strip('/') + '-' if self.prefix else ''}client-{len(self.clients) + 1}"
        secret = None if method == "none" else self._new("cs")
        client = Client(client_id, secret, method, list(redirect_uris), list(grant_types), meta)
        self.clients[client_id] = client
        if secret:
            self.stats["secrets"]["client_secrets"].append(secret)
        body = {
            **meta,
            "client_id": client_id,
            "client_id_issued_at": int(time.time()),
            "token_endpoint_auth_method": method,
            "grant_types": grant_types,
            "redirect_uris": redirect_uris,
        }
        if secret:
            body["client_secret"] = secret
            body["client_secret_expires_at"] = 0
        return JSONResponse(body, 201, headers={"Cache-Control": "no-store"})

    async def authorize(self, request: Request) -> Response:
        self.stats["authorize"] += 1
        q = request.query_params
        self.stats["authorize_requests"].append(
            {
                k: q.get(k)
                for k in (
                    "response_type",
                    "client_id",
                    "redirect_uri",
                    "scope",
                    "resource",
                    "code_challenge_method",
                    "state",
                )
                if k in q
            }
            | {"has_code_challenge": "code_challenge" in q}
        )
        client = self.clients.get(q.get("client_id", ""))
        if client is None:
            return PlainTextResponse(f"unknown client_id {q.get('client_id')!r}", 400)
        redirect_uri = q.get("redirect_uri")
        if redirect_uri is None:
            if len(client.redirect_uris) != 1:
                return PlainTextResponse("redirect_uri is required", 400)
            redirect_uri = client.redirect_uris[0]
        parts = urlsplit(redirect_uri)
        if client.redirect_uris:
            allowed = any(_redirect_matches(r, redirect_uri) for r in client.redirect_uris)
        else:  # pre-registered on the command line: any loopback redirect URI
            allowed = parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
        if not allowed:
            return PlainTextResponse(f"redirect_uri {redirect_uri!r} is not registered for this client", 400)

        def back(**params: str | None) -> Response:
            iss = self.issuer
            if self.o.wrong_iss:
                iss = self.base_url + "/not-the-issuer"
            if not self.o.no_iss:
                params["iss"] = iss
            if q.get("state") is not None:
                params["state"] = "not-" + q["state"] if self.o.wrong_state else q.get("state")
            sep = "&" if "?" in redirect_uri else "?"
            query = urlencode({k: v for k, v in params.items() if v is not None})
            return RedirectResponse(f"{redirect_uri}{sep}{query}", 302)

        try:
            if q.get("response_type") != "code":
                raise OAuthError("unsupported_response_type", "response_type must be code")
            if not q.get("code_challenge") or q.get("code_challenge_method") != "S256":
                raise OAuthError("invalid_request", "PKCE with code_challenge_method=S256 is required")
            resource = self.check_resource(q.get("resource"))
            scopes = self.check_scopes(q.get("scope"), self.o.default_scopes)
            if self.o.deny:
                raise OAuthError("access_denied", "the user denied the request")
        except OAuthError as exc:
            return back(error=exc.error, error_description=exc.description)
        code = self._new("code")
        self.grants[code] = Grant(
            client.client_id, scopes, resource, time.time() + 300, redirect_uri, q.get("code_challenge"), kind="code"
        )
        self.stats["secrets"]["codes"].append(code)
        return back(code=code)

    def authenticate_client(self, request: Request, form: dict[str, str]) -> tuple[Client, str]:
        header = request.headers.get("authorization", "")
        if header.lower().startswith("basic "):
            try:
                raw = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
                client_id, secret = (unquote(p) for p in raw.split(":", 1))
            except ValueError:
                raise OAuthError("invalid_client", "malformed Basic authorization header", 401) from None
            method = "client_secret_basic"
            if form.get("client_id") not in (None, client_id):
                raise OAuthError("invalid_request", "client_id in the body differs from the Basic one")
        elif "client_secret" in form:
            client_id, secret, method = form.get("client_id", ""), form["client_secret"], "client_secret_post"
        else:
            client_id, secret, method = form.get("client_id", ""), None, "none"
        client = self.clients.get(client_id)
        if client is None:
            raise OAuthError("invalid_client", f"unknown client {client_id!r}", 401)
        if method != client.auth_method:
            raise OAuthError(
                "invalid_client", f"this client authenticates with {client.auth_method}, not {method}", 401
            )
        if client.client_secret is not None and not secrets.compare_digest(secret or "", client.client_secret):
            raise OAuthError("invalid_client", "wrong client secret", 401)
        return client, method

    async def token(self, request: Request) -> Response:
        raw = (await request.body()).decode("utf-8", "replace")
        form: dict[str, str] = {}
        for pair in raw.split("&"):
            if "=" in pair:
                k, v = pair.split("=", 1)
                form[unquote(k.replace("+", " "))] = unquote(v.replace("+", " "))
        grant_type = form.get("grant_type", "")
        key = grant_type if grant_type in self.stats["token"] else "other"
        self.stats["token"][key] += 1
        record: dict[str, Any] = {
            "grant_type": grant_type,
            "scope": form.get("scope"),
            "resource": form.get("resource"),
        }
        self.stats["token_requests"].append(record)
        if "code_verifier" in form:
            self.stats["secrets"]["code_verifiers"].append(form["code_verifier"])
        if self.o.token_error == "500":
            record["outcome"] = "500"
            return PlainTextResponse("Internal Server Error", 500)
        if self.o.token_error == "garbage":
            record["outcome"] = "garbage"
            return Response(b"<html><body>Token service temporarily \xff unavailable", 200, media_type="text/html")
        if self.o.token_error == "huge":
            record["outcome"] = "huge"
            filler = "x" * (8 << 20)  # an 8 MB JSON document: a client must not read it all
            return Response(
                f'{{"error": "server_error", "error_description": "{filler}"}}', 400, media_type="application/json"
            )
        if self.o.token_error == "hang":
            record["outcome"] = "hang"
            await anyio.sleep(3600)  # never answers (the client's time limit must end the flow)
        try:
            client, method = self.authenticate_client(request, form)
            record["client_auth"] = method
            if grant_type == "authorization_code":
                body = self._code_grant(client, form)
            elif grant_type == "refresh_token":
                if self.o.no_refresh:
                    raise OAuthError("unsupported_grant_type", "refresh tokens are disabled on this server")
                body = self._refresh_grant(client, form)
            elif grant_type == "client_credentials":
                if client.client_secret is None:
                    raise OAuthError("unauthorized_client", "client_credentials needs a confidential client")
                body = self.issue_tokens(
                    client,
                    self.check_scopes(form.get("scope"), self.o.default_scopes),
                    self.check_resource(form.get("resource")),
                )
                body.pop("refresh_token", None)
            else:
                raise OAuthError("unsupported_grant_type", f"grant_type {grant_type!r} is not supported")
        except OAuthError as exc:
            self.stats["token"]["errors"] += 1
            record["outcome"] = exc.error
            headers = {"WWW-Authenticate": 'Basic realm="oauth-fixture"'} if exc.status == 401 else None
            return exc.response(headers)
        record["outcome"] = "ok"
        record["scope_granted"] = body.get("scope")
        return JSONResponse(body, headers={"Cache-Control": "no-store", "Pragma": "no-cache"})

    def _code_grant(self, client: Client, form: dict[str, str]) -> dict[str, Any]:
        code = form.get("code", "")
        grant = self.grants.get(code)
        if grant is None or grant.kind != "code":
            raise OAuthError("invalid_grant", "unknown authorization code")
        if grant.used:
            raise OAuthError("invalid_grant", "the authorization code was already used")
        grant.used = True
        if grant.client_id != client.client_id:
            raise OAuthError("invalid_grant", "the code was issued to another client")
        if grant.expires_at is not None and time.time() > grant.expires_at:
            raise OAuthError("invalid_grant", "the authorization code expired")
        if form.get("redirect_uri") != grant.redirect_uri:
            raise OAuthError("invalid_grant", "redirect_uri differs from the authorization request's")
        verifier = form.get("code_verifier")
        if not verifier:
            raise OAuthError("invalid_request", "code_verifier is required (PKCE)")
        if not secrets.compare_digest(s256(verifier), grant.code_challenge or ""):
            raise OAuthError("invalid_grant", "PKCE verification failed: S256(code_verifier) != code_challenge")
        resource = form.get("resource", grant.resource)
        if resource != grant.resource:
            raise OAuthError("invalid_target", "resource differs from the authorization request's")
        return self.issue_tokens(client, grant.scopes, grant.resource)

    def _refresh_grant(self, client: Client, form: dict[str, str]) -> dict[str, Any]:
        token = form.get("refresh_token", "")
        grant = self.grants.get(token)
        if grant is None or grant.kind != "refresh":
            raise OAuthError("invalid_grant", "unknown refresh token")
        if grant.used:
            raise OAuthError("invalid_grant", "the refresh token was already used (rotated)")
        if self.o.refresh_fails:
            raise OAuthError("invalid_grant", "the refresh token was revoked")
        if grant.client_id != client.client_id:
            raise OAuthError("invalid_grant", "the refresh token was issued to another client")
        scopes = self.check_scopes(form.get("scope"), grant.scopes)
        if not set(scopes) <= set(grant.scopes):
            raise OAuthError("invalid_scope", "a refresh cannot widen the scopes")
        resource = form.get("resource", grant.resource)
        if grant.resource is not None and resource is not None and resource.rstrip("/") != grant.resource.rstrip("/"):
            raise OAuthError("invalid_target", "resource differs from the original grant's")
        grant.used = True  # rotation: a new refresh token comes with the new access token
        return self.issue_tokens(client, scopes, grant.resource)

    def routes(self) -> list[Route]:
        path = urlsplit(self.issuer).path.rstrip("/")
        meta_paths = [f"/.well-known/oauth-authorization-server{path}"]
        if self.o.metadata_at_root and not self.prefix:
            meta_paths = ["/.well-known/oauth-authorization-server"]
        at = self.prefix
        return [
            *(Route(p, self.as_metadata, methods=["GET"]) for p in meta_paths),
            Route(at + "/authorize", self.authorize, methods=["GET"]),
            Route(at + "/token", self.token, methods=["POST"]),
            *([] if self.o.no_dcr else [Route(at + "/register", self.register, methods=["POST"])]),
            Route(at + "/jwks", self.jwks, methods=["GET"]),
            *([] if at else [Route("/_stats", self.stats_endpoint, methods=["GET"])]),
        ]
