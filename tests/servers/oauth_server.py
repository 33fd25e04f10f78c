"""A protected MCP server and its OAuth 2.1 authorization server in ONE process, on 127.0.0.1 only.

Usage::

    python tests/servers/oauth_server.py [--port 0] [--exit-on-eof] [--access-log] [--mode M]
        [--jwt] [--expires-in S] [--no-refresh] [--refresh-fails] [--issuer-path /p]
        [--metadata-at-root] [--wrong-issuer] [--no-s256] [--no-iss] [--wrong-iss] [--wrong-state]
        [--token-error 500|garbage|huge|hang] [--no-dcr] [--dcr-auth-method M] [--deny]
        [--prm-at-root] [--no-prm] [--prm-resource URL] [--as-unreachable] [--no-challenge-metadata]
        [--no-challenge-scope] [--authorization-endpoint VALUE] [--resource-optional]
        [--client ID:SECRET[:METHOD]]...

Prints ``PORT <n>``, then ``URL <MCP endpoint>``, ``ISSUER <issuer>`` and ``STATS <stats URL>`` on
stdout once it accepts connections; logs go to stderr. Stops on SIGTERM/SIGINT, and with
``--exit-on-eof`` when its stdin reaches EOF (like sdk_http_server.py). Tests start it with
``start_oauth_server(*args)`` of tests/auth/auth_helpers.py (or the ``oauth_server`` fixture of
tests/auth/conftest.py).

The authorization server (tests/servers/oauth_as.py; issuer ``http://127.0.0.1:<port>`` plus
``--issuer-path``):

* RFC 8414 metadata at ``/.well-known/oauth-authorization-server{issuer path}``: issuer,
  authorization/token/registration endpoints, ``scopes_supported`` (``mcp admin``),
  ``code_challenge_methods_supported: ["S256"]``, ``token_endpoint_auth_methods_supported``
  (basic, post, none), ``authorization_response_iss_parameter_supported: true``,
  ``grant_types_supported`` (authorization_code, client_credentials, refresh_token).
* ``POST /register``: Dynamic Client Registration (RFC 7591); a ``client_secret`` unless the
  client asks for ``token_endpoint_auth_method: none``. ``--client ID:SECRET:METHOD``
  pre-registers a client (any loopback redirect URI; METHOD defaults to client_secret_basic,
  or none without a secret).
* ``GET /authorize``: approves without a person: 302 to ``redirect_uri`` with ``code``,
  ``state`` and ``iss``. Unknown client or unregistered redirect URI: 400 (no redirect). Needs
  ``code_challenge`` + ``code_challenge_method=S256`` and ``resource`` (the MCP endpoint; RFC
  8707); a loopback redirect URI may use any port (RFC 8252). No ``scope``: ``mcp``.
* ``POST /token``: ``authorization_code`` (PKCE S256 checked, ``redirect_uri`` and
  ``resource`` must match, one use), ``refresh_token`` (rotated: each refresh token works
  once), ``client_credentials`` (confidential clients); client authentication must be the
  registered method (client_secret_basic / client_secret_post / none). Access tokens last
  ``--expires-in`` seconds (3600); opaque, or ES256 JWTs with ``--jwt`` (keys at ``/jwks``).
* ``POST /_migrate``: the protected resource moves to a second authorization server, issuer
  ``http://127.0.0.1:<port>/as2`` (endpoints under ``/as2/``, its own clients ``as2-client-<n>``
  and tokens): the PRM names it, tokens of the first are refused (401). Its stats are under
  ``as2`` in ``/_stats``.
* ``GET /_stats``: JSON counts (``authorize``, ``register``, ``metadata``, ``token`` per grant
  and ``errors``, ``mcp`` 401/403/ok), the parameters of every authorization and token
  request, and ``secrets``: every access token, refresh token, code, client secret and
  code_verifier seen, so a test can check none of them reached a screen or a file.

The protected MCP server (the ``mcp`` SDK's Streamable HTTP at ``/mcp``; ``--mode`` stateful,
stateless or json; ``--mode sse``: the legacy HTTP+SSE transport, ``GET /sse`` and ``POST
/messages/``, both protected, its resource ``/sse``):

* every request needs ``Authorization: Bearer <access token>`` issued by this server, not
  expired, with scope ``mcp``; otherwise 401 with ``WWW-Authenticate: Bearer
  resource_metadata="<PRM URL>", scope="mcp"`` (plus ``error="invalid_token"`` when a token
  was sent), or 403 ``insufficient_scope`` with ``scope="mcp"``.
* RFC 9728 metadata at ``/.well-known/oauth-protected-resource/mcp`` (``resource`` the MCP URL,
  ``authorization_servers`` [issuer], ``scopes_supported`` [mcp, admin]).
* tools: ``whoami()`` -> JSON text ``{"client_id", "scopes", "resource", "token_type"}`` of the
  token used; ``admin_action()`` needs scope ``admin``: without it the call is answered 403
  ``WWW-Authenticate: Bearer error="insufficient_scope", scope="admin", resource_metadata=...``
  (only the missing scope: a client must ask for the union with what it has); ``echo(text)``;
  ``leak_token()`` -> ``"you sent: Bearer <token>"`` (a server that echoes a credential back).

Broken variants (what a server author gets wrong):

* ``--metadata-at-root``: the issuer has a path (``/tenant`` unless ``--issuer-path``) but its
  metadata is only at ``/.well-known/oauth-authorization-server`` (no path inserted).
* ``--wrong-issuer``: the metadata's ``issuer`` is another URL than the one it was fetched for.
* ``--no-s256``: no ``code_challenge_methods_supported`` (clients must refuse: no PKCE).
* ``--no-iss`` / ``--wrong-iss``: the redirect has no ``iss`` / another one (RFC 9207), although
  the metadata says ``authorization_response_iss_parameter_supported``.
* ``--token-error 500|garbage|huge|hang``: the token endpoint answers 500 / a 200 HTML body /
  an 8 MB JSON error / never.
* ``--wrong-state``: the redirect's ``state`` is not the one sent.
* ``--no-prm``: no protected resource metadata at all (a 2025-03-26 server: the client finds the
  authorization server at the MCP server's root); with ``--no-challenge-metadata``.
* ``--prm-resource URL``: the PRM's ``resource`` is another resource than the MCP server (clients
  must not use it: RFC 9728 §3.3).
* ``--authorization-endpoint VALUE``: the metadata's ``authorization_endpoint`` is ``VALUE``
  (``{base}`` replaced by the AS base URL): ``javascript:...``, or a URL carrying escape sequences.
* ``--as-unreachable``: the PRM's ``authorization_servers`` is ``http://127.0.0.1:9`` (discard
  port: nothing listens).
* ``--expires-in 1``: access tokens expire at once; ``--no-refresh``: no refresh tokens;
  ``--refresh-fails``: refresh tokens are issued, but every refresh answers ``invalid_grant``.
* ``--no-dcr``: no registration endpoint; ``--deny``: /authorize redirects ``access_denied``.
* ``--dcr-auth-method METHOD``: registration answers with that ``token_endpoint_auth_method``
  (and a ``client_secret`` unless ``none``) whatever the client asked (RFC 7591 §3.2.1 lets a
  server replace requested metadata; the client must use what was registered).
* ``--prm-at-root``: the PRM is only at ``/.well-known/oauth-protected-resource`` (``resource``
  is then the server's root URL, RFC 9728 §3); ``--no-challenge-metadata`` /
  ``--no-challenge-scope``: the 401 has no ``resource_metadata`` / ``scope``.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contextlib

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402 - after the sys.path/environment setup above
from oauth_as import AuthServer, Grant  # noqa: E402 - after the sys.path/environment setup above

warnings.filterwarnings("ignore")

NAME = "oauth-fixture"
server = MCPServer(NAME, version="1.0.0", instructions="OAuth-protected fixture server", log_level="WARNING")
BASE_SCOPE = "mcp"
TOOL_SCOPES = {"admin_action": "admin"}  # tools that need one more scope
BODY_CAP = 4 << 20


def _grant(ctx: Context) -> Grant | None:
    request = ctx.request_context.request
    return request.scope.get("oauth.grant") if request is not None else None


@server.tool(description="Who the access token says you are: client id, scopes, resource", structured_output=False)
def whoami(ctx: Context) -> str:
    grant = _grant(ctx)
    if grant is None:
        return json.dumps({"error": "no token"})
    return json.dumps(
        {
            "client_id": grant.client_id,
            "scopes": grant.scopes,
            "resource": grant.resource,
            "token_type": grant.token_type,
        }
    )


@server.tool(description="Needs the admin scope (403 insufficient_scope without it)", structured_output=False)
def admin_action(ctx: Context) -> str:
    grant = _grant(ctx)
    return f"admin action done for {grant.client_id if grant else '?'}"


@server.tool(description="Replies with the bearer token it was sent (a leaky server)", structured_output=False)
def leak_token(ctx: Context) -> str:
    request = ctx.request_context.request
    header = request.headers.get("authorization", "") if request is not None else ""
    return f"you sent: {header}"


@server.tool(description="Echo the text back", structured_output=False)
def echo(text: str) -> str:
    return text


class ProtectedResource:
    """ASGI wrapper: the MCP endpoint needs a bearer token of ``auth``; everything else passes."""

    def __init__(self, app: Any, auth: AuthServer, args: argparse.Namespace, mcp_url: str, prm_url: str) -> None:
        self.app = app
        self.auth = auth  # the stats live here
        self.current = auth  # the authorization server whose tokens are accepted (changed by /_migrate)
        self.args = args
        # the paths that need a token: the MCP endpoint (and, for the legacy SSE transport, where
        # its messages are posted)
        self.protected = {args.path.rstrip("/")} | ({"/messages"} if args.mode == "sse" else set())
        self.mcp_url = mcp_url
        self.prm_url = prm_url
        auth.stats["mcp"] = {"401": 0, "403": 0, "ok": 0}

    def challenge(self, scope: str | None, error: str | None = None, description: str | None = None) -> str:
        parts = []
        if error:
            parts.append(f'error="{error}"')
        if description:
            parts.append(f'error_description="{description}"')
        if scope and not (self.args.no_challenge_scope and error != "insufficient_scope"):
            parts.append(f'scope="{scope}"')
        if not self.args.no_challenge_metadata:
            parts.append(f'resource_metadata="{self.prm_url}"')
        return "Bearer " + ", ".join(parts) if parts else "Bearer"

    async def refuse(self, send: Any, status: int, www: str, error: str, description: str) -> None:
        self.auth.stats["mcp"][str(status)] += 1
        body = json.dumps({"error": error, "error_description": description}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", www.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") not in self.protected:
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        header = headers.get("authorization", "")
        if not header.lower().startswith("bearer "):
            return await self.refuse(send, 401, self.challenge(BASE_SCOPE), "invalid_token", "authorization required")
        grant, why = self.current.verify(header[7:].strip())
        if grant is None:
            return await self.refuse(send, 401, self.challenge(BASE_SCOPE, "invalid_token", why), "invalid_token", why)
        if grant.resource is not None and grant.resource.rstrip("/") not in (
            self.mcp_url,
            self.auth.resources[-1].rstrip("/"),
        ):
            why = "the access token was issued for another resource"
            return await self.refuse(send, 401, self.challenge(BASE_SCOPE, "invalid_token", why), "invalid_token", why)
        if BASE_SCOPE not in grant.scopes:
            return await self.refuse(
                send,
                403,
                self.challenge(BASE_SCOPE, "insufficient_scope"),
                "insufficient_scope",
                f"scope {BASE_SCOPE} is required",
            )
        # Peek at the JSON-RPC body: a tool that needs another scope is refused at the HTTP level.
        chunks: list[bytes] = []
        size = 0
        more = scope["method"] == "POST"
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False) and size <= BODY_CAP
        body = b"".join(chunks)
        needed = self.needed_scopes(body)
        missing = [s for s in needed if s not in grant.scopes]
        if missing:
            return await self.refuse(
                send,
                403,
                self.challenge(" ".join(missing), "insufficient_scope"),
                "insufficient_scope",
                f"this call needs scope {' '.join(missing)}",
            )
        self.auth.stats["mcp"]["ok"] += 1
        scope["oauth.grant"] = grant
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed and scope["method"] == "POST":
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    def needed_scopes(body: bytes) -> list[str]:
        try:
            value = json.loads(body) if body else None
        except ValueError:
            return []
        messages = value if isinstance(value, list) else [value]
        needed = []
        for message in messages:
            if isinstance(message, dict) and message.get("method") == "tools/call":
                params = message.get("params")
                name = params.get("name") if isinstance(params, dict) else None
                if name in TOOL_SCOPES:
                    needed.append(TOOL_SCOPES[name])
        return needed


def build_app(args: argparse.Namespace, port: int) -> tuple[Any, AuthServer]:
    base = f"http://127.0.0.1:{port}"
    mcp_url = base + args.path
    prm_path = "/.well-known/oauth-protected-resource" + ("" if args.prm_at_root else args.path)
    resource = base if args.prm_at_root else mcp_url
    auth = AuthServer(args, base, [mcp_url, resource])
    second = AuthServer(args, base, [mcp_url, resource], prefix="/as2")
    auth.others["as2"] = second
    if args.mode == "sse":
        app = server.sse_app()
    else:
        app = server.streamable_http_app(
            streamable_http_path=args.path, json_response=args.mode == "json", stateless_http=args.mode == "stateless"
        )

    async def prm(request: Request) -> JSONResponse:
        servers = ["http://127.0.0.1:9"] if args.as_unreachable else [protected.current.issuer]
        return JSONResponse(
            {
                "resource": args.prm_resource or resource,
                "authorization_servers": servers,
                "scopes_supported": [BASE_SCOPE, *sorted(set(TOOL_SCOPES.values()))],
                "bearer_methods_supported": ["header"],
                "resource_name": NAME,
            }
        )

    async def migrate(request: Request) -> JSONResponse:
        protected.current = second
        return JSONResponse({"issuer": second.issuer})

    protected = ProtectedResource(app, auth, args, mcp_url, base + prm_path)
    prm_routes = [] if args.no_prm else [Route(prm_path, prm, methods=["GET"])]
    app.router.routes[:0] = [
        *prm_routes,
        Route("/_migrate", migrate, methods=["POST"]),
        *auth.routes(),
        *second.routes(),
    ]
    return protected, auth


def access_logged(app: Any) -> Any:
    async def wrapper(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)

        async def send_logged(message: Any) -> None:
            if message["type"] == "http.response.start":
                sys.stderr.write(f"ACCESS {scope['method']} {scope['path']} {message['status']}\n")
                sys.stderr.flush()
            await send(message)

        await app(scope, receive, send_logged)

    return wrapper


async def serve(args: argparse.Namespace) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    app, auth = build_app(args, port)
    config = uvicorn.Config(
        access_logged(app) if args.access_log else app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=1,
        access_log=False,
    )
    uv = uvicorn.Server(config)

    async def announce() -> None:
        while not uv.started:
            await anyio.sleep(0.01)
        base = f"http://127.0.0.1:{port}"
        sys.stdout.write(f"PORT {port}\nURL {base}{args.path}\nISSUER {auth.issuer}\nSTATS {base}/_stats\n")
        sys.stdout.flush()

    if args.exit_on_eof:

        def watch_stdin() -> None:
            while sys.stdin.buffer.read(65536):
                pass
            uv.should_exit = True

        threading.Thread(target=watch_stdin, daemon=True).start()

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await uv.serve(sockets=[sock])
        tg.cancel_scope.cancel()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--path", default="/mcp")
    p.add_argument("--mode", choices=("stateful", "stateless", "json", "sse"), default="stateful")
    p.add_argument("--exit-on-eof", action="store_true", help="stop when stdin reaches EOF (the parent died)")
    p.add_argument("--access-log", action="store_true", help="an ACCESS line per HTTP request on stderr")
    p.add_argument("--jwt", action="store_true", help="ES256 JWT access tokens (keys at /jwks)")
    p.add_argument("--expires-in", type=int, default=3600, help="access token lifetime (s)")
    p.add_argument("--no-refresh", action="store_true", help="no refresh tokens, refresh_token grant refused")
    p.add_argument("--refresh-fails", action="store_true", help="every refresh answers invalid_grant (revoked)")
    p.add_argument("--issuer-path", default="", help="a path for the issuer, e.g. /tenant")
    p.add_argument("--metadata-at-root", action="store_true", help="AS metadata only at the root well-known URL")
    p.add_argument("--wrong-issuer", action="store_true", help="the metadata's issuer is another URL")
    p.add_argument("--no-s256", action="store_true", help="no code_challenge_methods_supported")
    p.add_argument("--no-iss", action="store_true", help="no iss in the authorization response")
    p.add_argument("--wrong-iss", action="store_true", help="another iss in the authorization response")
    p.add_argument("--token-error", choices=("500", "garbage", "huge", "hang"), help="the token endpoint is broken")
    p.add_argument("--wrong-state", action="store_true", help="the redirect carries another state")
    p.add_argument("--as-unreachable", action="store_true", help="the PRM names an authorization server nobody runs")
    p.add_argument("--no-dcr", action="store_true", help="no registration endpoint")
    p.add_argument(
        "--dcr-auth-method",
        choices=("client_secret_basic", "client_secret_post", "none"),
        help="registration answers with this token_endpoint_auth_method, whatever was asked",
    )
    p.add_argument("--deny", action="store_true", help="/authorize answers access_denied")
    p.add_argument(
        "--authorization-endpoint",
        metavar="VALUE",
        help="the metadata's authorization_endpoint is VALUE ({base}: the AS base URL), e.g. javascript:...",
    )
    p.add_argument("--prm-at-root", action="store_true", help="protected resource metadata only at the root")
    p.add_argument("--no-prm", action="store_true", help="no protected resource metadata (a 2025-03-26 server)")
    p.add_argument(
        "--prm-resource", metavar="URL", help="the PRM's resource is this (a mismatch) instead of the MCP URL"
    )
    p.add_argument("--no-challenge-metadata", action="store_true", help="no resource_metadata in the 401")
    p.add_argument("--no-challenge-scope", action="store_true", help="no scope in the 401")
    p.add_argument("--resource-optional", action="store_true", help="accept requests without resource")
    p.add_argument("--client", action="append", metavar="ID:SECRET[:METHOD]", help="a pre-registered client")
    args = p.parse_args(argv)
    if args.mode == "sse":
        args.path = "/sse"
    if args.no_prm:
        args.no_challenge_metadata = True
    if args.metadata_at_root and not args.issuer_path:
        args.issuer_path = "/tenant"
    args.scopes_supported = [BASE_SCOPE, *sorted(set(TOOL_SCOPES.values()))]
    args.default_scopes = [BASE_SCOPE]
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(serve, args)


if __name__ == "__main__":
    main()
