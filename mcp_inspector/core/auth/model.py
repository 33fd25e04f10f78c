"""The shapes the OAuth client shares: what the user chose, what was discovered, the client
it registered as, the tokens it holds, and the steps of a flow as the Auth view shows them.

Who fills what (``core/auth/``):

- ``AuthSettings``: the command line (``--client-id``, ``--oauth-open``...) or a config entry.
- ``ServerAuthInfo``: ``discovery`` (RFC 9728 protected resource metadata, RFC 8414 / OpenID
  Connect authorization server metadata, the 2025-03-26 fallbacks).
- ``ClientInfo``: ``registration`` (pre-registered, Client ID Metadata Document, Dynamic
  Client Registration).
- ``TokenSet``: ``token_request`` (every grant goes through it), kept by ``store``.
- ``AuthStep`` in an ``AuthLog``: every module, through ``AuthLog.step`` (the debugger view
  reads the log; nothing secret is put in it, see ``masking``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..transport.base import AuthHookError

OpenMode = Literal["browser", "print", "fetch"]
OPEN_MODES: tuple[str, ...] = ("browser", "print", "fetch")
#: The grants a user can choose; "authorization_code" is the interactive default.
GRANTS: tuple[str, ...] = ("authorization_code", "client_credentials", "jwt_bearer", "enterprise")
TOKEN_AUTH_METHODS: tuple[str, ...] = ("client_secret_basic", "client_secret_post", "none", "private_key_jwt")
STORES: tuple[str, ...] = ("file", "keyring", "none")


@dataclass
class AuthSettings:
    """What the user told us about authorizing to one server (all optional; secrets stay out of repr)."""

    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    client_metadata_url: str | None = None  # a Client ID Metadata Document URL (used as client_id)
    token_auth_method: str | None = None  # forces one of TOKEN_AUTH_METHODS
    private_key_pem: str | None = field(
        default=None, repr=False
    )  # for private_key_jwt (client authentication or assertion)
    signing_algorithm: str | None = None  # of that key: RS256, ES256... (default from the key)
    scopes: list[str] | None = None  # overrides WWW-Authenticate / scopes_supported
    open_mode: str | None = None  # OPEN_MODES; None: browser with a display, else print
    grant: str = "authorization_code"  # GRANTS
    assertion: str | None = field(default=None, repr=False)  # jwt_bearer: the workload identity JWT
    idp_issuer: str | None = None  # enterprise: the identity provider
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = field(default=None, repr=False)
    id_token: str | None = field(default=None, repr=False)  # enterprise: the user's identity assertion at the IdP
    dpop: bool | None = None  # None: when the authorization server supports it
    store: str = "file"  # STORES
    redirect_port: int = 0  # the loopback listener's port (0: ephemeral)
    client_name: str = "mcp-inspector"
    max_step_ups: int = 3  # 403 insufficient_scope re-authorizations per request
    flow_timeout: float = 300.0  # seconds a whole flow may take (a person authorizing in a browser)


@dataclass
class ServerAuthInfo:
    """What discovery found for one protected resource."""

    resource: str  # the canonical URI of the MCP server (RFC 8707 ``resource``)
    resource_metadata_url: str | None = None
    resource_metadata: dict[str, Any] | None = None  # RFC 9728 document, None: not found (2025-03-26)
    issuer: str | None = None  # the authorization server chosen
    metadata_url: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)  # RFC 8414 / OIDC document (or the defaults)
    defaults_used: bool = False  # 2025-03-26: no metadata at all, default endpoints
    #: endpoints of the metadata refused as unusable (not http(s), control characters): name -> value as shown
    refused: dict[str, str] = field(default_factory=dict)

    @property
    def authorization_endpoint(self) -> str | None:
        return self.metadata.get("authorization_endpoint")

    @property
    def token_endpoint(self) -> str | None:
        return self.metadata.get("token_endpoint")

    @property
    def registration_endpoint(self) -> str | None:
        return self.metadata.get("registration_endpoint")


@dataclass
class ClientInfo:
    """The client as the authorization server knows it."""

    client_id: str
    client_secret: str | None = field(default=None, repr=False)
    token_auth_method: str = "none"
    registered_via: Literal["pre-registered", "metadata-document", "dynamic", "stored"] = "pre-registered"
    issuer: str | None = None  # the authorization server it is registered with
    redirect_uris: list[str] = field(default_factory=list)
    registration: dict[str, Any] | None = None  # the DCR response (masked before it is shown)


@dataclass
class TokenSet:
    access_token: str = field(repr=False)
    token_type: str = "Bearer"  # "Bearer" or "DPoP"
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None  # epoch seconds
    scope: str | None = None  # as granted (or as asked when the response has none)
    issuer: str | None = None
    resource: str | None = None
    client_id: str | None = None
    dpop_jkt: str | None = None  # the thumbprint of the DPoP key the token is bound to

    def expired(self, margin: float = 30.0) -> bool:
        return self.expires_at is not None and time.time() > self.expires_at - margin


class AuthError(AuthHookError):
    """Authorization failed; ``step`` is the number of the AuthStep that says where, ``spec``
    the spec document (and section) broken, when the server is at fault."""

    def __init__(self, message: str, *, step: int | None = None, spec: str | None = None) -> None:
        super().__init__(message)
        self.step = step
        self.spec = spec


StepStatus = Literal["running", "ok", "warning", "failed", "skipped"]


@dataclass(eq=False)
class Finding:
    """What the spec expects at a step, and whether the server did it."""

    ok: bool
    text: str
    spec: str | None = None  # e.g. "RFC 9728 §3.1", "MCP 2025-11-25 authorization §2.3"


@dataclass(eq=False)
class AuthStep:
    """One step of a flow: a request made (or a decision), what came back, what was checked."""

    number: int
    # challenge | resource-metadata | server-metadata | registration | authorization | redirect | token
    # | refresh | retry | step-up | store | ...
    kind: str
    title: str  # one line: "Protected resource metadata from /.well-known/oauth-protected-resource/mcp"
    status: StepStatus = "running"
    started: float = field(default_factory=time.time)
    ended: float | None = None
    request: dict[str, Any] | None = None  # {"method", "url", "headers", "body"}: masked
    response: dict[str, Any] | None = None  # {"status", "headers", "body"}: masked; body parsed JSON when it is
    details: dict[str, Any] = field(default_factory=dict)  # parameters, decoded claims, scopes asked/granted...
    findings: list[Finding] = field(default_factory=list)
    exchange_id: int | None = None  # the HttpLog exchange, when the step was an HTTP request

    def check(self, ok: bool, text: str, spec: str | None = None) -> bool:
        self.findings.append(Finding(ok, text, spec))
        return ok


Gate = Callable[["AuthStep"], Awaitable[None]]
Listener = Callable[["AuthStep"], None]


class AuthLog:
    """Every step of every flow of a connection, in order; the Auth view polls ``version``.

    ``gate`` (set by the view's step-by-step mode) is awaited before each new step runs:
    the flow waits there until the user lets it go on."""

    MAX_STEPS = 2_000

    def __init__(self) -> None:
        self.steps: list[AuthStep] = []
        self.flows = 0  # flows started; a flow's first step has ``details["flow"]``
        self.version = 0
        self.gate: Gate | None = None
        self.state: str = "none"  # none | authorizing | authorized | failed
        self.summary: str = ""  # one line for the status bar and the view's head
        self._listeners: list[Listener] = []
        self._next = 1

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def begin_flow(self, why: str) -> None:
        self.flows += 1
        self.state = "authorizing"
        self.summary = why
        self.version += 1

    def end_flow(self, ok: bool, summary: str) -> None:
        self.state = "authorized" if ok else "failed"
        self.summary = summary
        self.version += 1

    async def step(self, kind: str, title: str, **fields: Any) -> AuthStep:
        """A new step, running; awaits the gate first (step-by-step mode)."""
        step = AuthStep(self._next, kind, title, **fields)
        step.details.setdefault("flow", self.flows)
        self._next += 1
        if self.gate is not None:
            await self.gate(step)
        if len(self.steps) >= self.MAX_STEPS:
            del self.steps[: len(self.steps) - self.MAX_STEPS + 1]
        self.steps.append(step)
        self.changed(step)
        return step

    def done(self, step: AuthStep, status: StepStatus | None = None) -> AuthStep:
        """End a step: ``status`` or, by default, failed/warning/ok from its findings."""
        if status is None:
            status = "ok" if all(f.ok for f in step.findings) else "warning"
        step.status = status
        step.ended = time.time()
        self.changed(step)
        return step

    def fail(self, step: AuthStep, message: str, spec: str | None = None) -> AuthError:
        """End a step as failed and return the error to raise."""
        step.findings.append(Finding(False, message, spec))
        self.done(step, "failed")
        return AuthError(message, step=step.number, spec=spec)

    def changed(self, step: AuthStep) -> None:
        self.version += 1
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a view bug must not break a flow
                listener(step)

    def clear(self) -> None:
        self.steps.clear()
        self.state = "none"
        self.summary = ""
        self.version += 1
