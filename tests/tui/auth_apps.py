"""An AuthLog as a flow fills it (what the OAuthManager's steps hold: masked requests, responses,
details, findings), with fixed times, and a small app hosting the Auth view alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from traffic_apps import BASE_TS, ThemedApp

from mcp_inspector.core.auth.model import AuthLog, AuthStep
from mcp_inspector.tui.widgets.views.auth.view import AuthView

BASE = "http://127.0.0.1:45123"
MCP = f"{BASE}/mcp"
PRM = f"{BASE}/.well-known/oauth-protected-resource/mcp"
ASM = f"{BASE}/.well-known/oauth-authorization-server"


def _timed(step: AuthStep, number: int) -> None:
    step.started = BASE_TS + number
    step.ended = BASE_TS + number + 0.012


async def failed_flow(log: AuthLog) -> AuthLog:
    """401, resource metadata (with a deviation), server metadata, registration, the authorization
    URL, the redirect, and a token request the server answers 500."""
    log.begin_flow("the server answered 401")
    step = await log.step("challenge", f"401 from POST {MCP}")
    step.request = {"method": "POST", "url": MCP, "headers": {"Accept": "application/json, text/event-stream"}}
    step.response = {
        "status": 401,
        "reason": "Unauthorized",
        "headers": [["www-authenticate", f'Bearer resource_metadata="{PRM}", scope="mcp"']],
        "body": None,
    }
    step.details["scope"] = "mcp"
    step.check(True, "WWW-Authenticate names the resource metadata (resource_metadata)", "RFC 9728 §5.1")
    log.done(step)
    _timed(step, 1)
    step = await log.step(
        "resource-metadata", "Protected resource metadata from /.well-known/oauth-protected-resource/mcp"
    )
    step.request = {"method": "GET", "url": PRM, "headers": {"Accept": "application/json"}, "body": None}
    step.response = {
        "status": 200,
        "reason": "OK",
        "headers": [["content-type", "application/json"]],
        "body": {"resource": f"{BASE}/mcp/", "authorization_servers": [BASE], "scopes_supported": ["mcp", "admin"]},
    }
    step.check(False, f"resource {BASE}/mcp/ is not the server's URL {MCP}", "RFC 9728 §3.3")
    log.done(step)
    _timed(step, 2)
    step = await log.step(
        "server-metadata", "Authorization server metadata from /.well-known/oauth-authorization-server"
    )
    step.request = {"method": "GET", "url": ASM, "headers": {"Accept": "application/json"}, "body": None}
    step.response = {
        "status": 200,
        "reason": "OK",
        "headers": [["content-type", "application/json"]],
        "body": {
            "issuer": BASE,
            "authorization_endpoint": f"{BASE}/authorize",
            "token_endpoint": f"{BASE}/token",
            "registration_endpoint": f"{BASE}/register",
            "code_challenge_methods_supported": ["S256"],
        },
    }
    step.check(True, "issuer is the URL the metadata was fetched for", "RFC 8414 §3.3")
    step.check(True, "S256 is supported (PKCE)", "MCP 2025-11-25 authorization §2.5")
    log.done(step)
    _timed(step, 3)
    step = await log.step("registration", "Dynamic Client Registration at /register")
    step.request = {
        "method": "POST",
        "url": f"{BASE}/register",
        "headers": {"Content-Type": "application/json"},
        "body": {"client_name": "mcp-inspector", "redirect_uris": ["http://127.0.0.1:39001/callback"]},
    }
    step.response = {
        "status": 201,
        "reason": "Created",
        "headers": [],
        "body": {"client_id": "client-7", "client_secret": "••••••"},
    }
    step.details["client_id"] = "client-7"
    step.details["token_endpoint_auth_method"] = "client_secret_basic"
    log.done(step)
    _timed(step, 4)
    step = await log.step("authorization", "Authorization URL")
    step.request = {
        "method": "GET",
        "url": f"{BASE}/authorize?response_type=code&client_id=client-7"
        "&redirect_uri=http%3A%2F%2F127.0.0.1%3A39001%2Fcallback&state=s-1&code_challenge=c-1"
        "&code_challenge_method=S256&resource=http%3A%2F%2F127.0.0.1%3A45123%2Fmcp&scope=mcp",
    }
    log.done(step)
    _timed(step, 5)
    step = await log.step("redirect", "Redirect to http://127.0.0.1:39001/callback")
    step.details["redirect"] = (
        "http://127.0.0.1:39001/callback?code=••••••&state=s-1&iss=http%3A%2F%2F127.0.0.1%3A45123"
    )
    step.check(True, "state is the one sent", "RFC 6749 §10.12")
    step.check(True, f"iss {BASE} is the issuer", "RFC 9207 §2.4")
    log.done(step)
    _timed(step, 6)
    step = await log.step("token", "Token request (authorization_code) at /token")
    step.request = {
        "method": "POST",
        "url": f"{BASE}/token",
        "headers": {"Authorization": "Basic ••••••"},
        "body": {"grant_type": "authorization_code", "code": "••••••", "code_verifier": "••••••", "resource": MCP},
    }
    step.response = {"status": 500, "reason": "Internal Server Error", "headers": [], "body": "oops"}
    step.details["client_authentication"] = "client_secret_basic"
    error = log.fail(step, "the token endpoint answered 500", "RFC 6749 §5.2")
    _timed(step, 7)
    log.end_flow(False, str(error))
    return log


class AuthViewApp(ThemedApp):
    """The Auth view alone, over ``source`` (an AuthLog, an OAuthManager or None)."""

    def __init__(self, source: Callable[[], Any], transport: str = "http", snapshot_mode: bool = False) -> None:
        super().__init__()
        self._source = source
        self._transport = transport
        self.snapshot_mode = snapshot_mode

    def compose(self) -> ComposeResult:
        yield AuthView(self._source, lambda: self._transport, spec_url=lambda: MCP, id="view-auth")

    def on_mount(self) -> None:
        self.query_one(AuthView).step_list.focus()
