"""``OAuthManager``: the OAuth client of one connection to one protected MCP server.

The HTTP transport calls it around each request (``core/transport/http_util.open_response``):
``prepare`` adds ``Authorization`` (and a DPoP proof) before a request goes out, to the
server's origin only (``transport.credentials.CredentialPolicy``: none for another origin);
``challenged`` is called on a 401, a 403 ``insufficient_scope`` or a DPoP ``use_dpop_nonce``
challenge, runs what answers it, and says whether to send the request again.

What it runs:

- a whole flow (``authorize``): discovery (``discovery.discover``), registration
  (``registration.register``; again when the protected resource's authorization server
  changed), then the authorization code grant (``code_flow``) or a grant without a user
  (``grants.obtain_without_user``), and the tokens saved in the ``TokenStore``;
- a refresh before the access token expires, and first on a 401 when there is a refresh token;
- a step-up on 403 ``insufficient_scope``: a new flow asking for the union of the scopes so
  far and the challenge's, at most ``settings.max_step_ups`` times per request, and not when
  the challenge asks for nothing the token does not already have (a server that will never
  be satisfied does not get a loop of authorizations).

Scopes asked: ``--scope``, else the challenge's ``scope``, else the protected resource
metadata's ``scopes_supported``, else none; ``offline_access`` is added when the
authorization server lists it in ``scopes_supported`` (and only then).

Concurrent requests that meet a 401 together run one flow (a lock): the others retry with
its token. While a flow runs, ``authorizing`` is True: the session's request timeouts wait
(a person may take minutes in a browser); the flow has its own limit, ``flow_timeout``.
Every step goes to the ``AuthLog`` the Auth view shows.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import anyio

from ..base.masking import mask_headers, mask_url, remember_secret
from ..transport.credentials import CredentialPolicy
from .http import AuthHttp
from .model import AuthError, AuthLog, AuthSettings, ClientInfo, ServerAuthInfo, TokenSet
from .opener import AuthUi, make_opener

if TYPE_CHECKING:
    import httpx2

    from ..traffic.http_log import HttpLog
    from .challenge import Challenge
    from .store import TokenStore

SPEC_STEP_UP = "MCP authorization: Scope Challenge Handling (step-up)"
REFRESH_MARGIN = 30.0  # seconds before expiry a token is refreshed


def _scopes(text: str | None) -> list[str]:
    return [word for word in (text or "").split() if word]


def _union(*groups: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for group in groups:
        for scope in group:
            seen.setdefault(scope, None)
    return list(seen)


class OAuthManager:
    def __init__(
        self,
        settings: AuthSettings,
        server_url: str,
        *,
        log: AuthLog,
        http_log: HttpLog | None = None,
        store: TokenStore | None = None,
        ui: AuthUi | None = None,
    ) -> None:
        self.settings = settings
        self.server_url = server_url
        #: the token goes only to the server's origin (the transports' rule: ``CredentialPolicy``)
        self.credentials = CredentialPolicy(server_url)
        self.log = log
        self.http_log = http_log
        self.store = store
        self.ui = ui
        self.http: AuthHttp | None = None
        self.info: ServerAuthInfo | None = None
        self.client: ClientInfo | None = None
        self.tokens: TokenSet | None = None
        self.protocol_version: str | None = None  # the transport sets it (discovery's fallbacks depend on it)
        self.authorizing = False  # a flow is running: request timeouts wait
        self.scope_asked: list[str] = []  # the scopes of the last flow (a step-up asks for their union with more)
        self.last_error: AuthError | None = None
        self._generation = 0  # flows and refreshes finished (a request that waited for the lock sees it moved)
        self._fresh_from_flow = False  # the current token came from a full flow of this process
        self._loaded = False
        self._obtained_at: float | None = None  # when the current token came (None: from the store)
        self._lock: anyio.Lock | None = None
        self._dpop: Any = None  # dpop.DpopKey
        self._nonces: Any = None  # dpop.DpopNonces
        self._retry_to_log = False  # a flow or refresh just ended: the next re-sent request is its last step

    # -- wiring ----------------------------------------------------------------
    def attach(self, client: httpx2.AsyncClient) -> None:
        """The connection's HTTP client: every request of a flow goes on it (and into the HttpLog)."""
        self.http = AuthHttp(client, self.log, self.http_log)

    def _http(self) -> AuthHttp:
        if self.http is None:
            raise AuthError("the OAuth client is not attached to a connection")
        return self.http

    def _locked(self) -> anyio.Lock:
        if self._lock is None:
            self._lock = anyio.Lock()
        return self._lock

    def _nonce_store(self) -> Any:
        if self._nonces is None:
            from .dpop import DpopNonces

            self._nonces = DpopNonces()
        return self._nonces

    # -- the store ---------------------------------------------------------------
    def _load(self) -> None:
        self._loaded = True
        if self.store is None:
            return
        try:
            stored = self.store.load(self.server_url)
        except Exception as exc:  # a broken store must not stop the connection
            self.log.summary = f"stored credentials not read: {exc}"
            return
        for note in getattr(self.store, "notes", []):  # a corrupt or foreign file skipped: say so
            if self.ui is not None:
                self.ui.say(note)
        if stored is None:
            return
        self.client = stored.client
        tokens = stored.tokens
        if tokens is not None and tokens.token_type == "DPoP":
            tokens = None  # bound to a key this process does not have
        if tokens is not None and tokens.access_token:
            self.tokens = tokens
            self.scope_asked = _scopes(tokens.scope)
            remember_secret(tokens.access_token, tokens.refresh_token)
            self.log.state = "authorized"
            self.log.summary = "using stored tokens"
            self.log.version += 1

    def _save(self) -> None:
        if self.store is None or self.info is None:
            return
        from .store import StoredAuth

        try:
            self.store.save(StoredAuth(self.server_url, self.info.resource, self.info.issuer, self.client, self.tokens))
        except Exception as exc:
            self.log.summary += f" (not stored: {exc})"
            self.log.version += 1

    def forget(self) -> int:
        """Forget the tokens and client, here and in the store; how many stored entries went."""
        self.tokens = None
        self.client = None
        self.info = None
        self.scope_asked = []
        self.log.state = "none"
        self.log.summary = "credentials forgotten"
        self.log.version += 1
        if self.store is None:
            return 0
        try:
            return self.store.forget(self.server_url)
        except Exception as exc:
            raise AuthError(f"the stored credentials could not be removed: {exc}") from None

    # -- around each request ----------------------------------------------------
    async def prepare(
        self, method: str, url: str, headers: dict[str, str], *, state: dict[str, Any] | None = None
    ) -> None:
        """Add the credentials to a request about to be sent (refreshing an expiring token first);
        ``state`` (the request's own) remembers which flows had ended when it was first sent."""
        if state is not None:
            state.setdefault("generation", self._generation)
        if not self.credentials.allows(url):  # another origin: no token, no proof, and no refresh for it
            for name in [name for name in headers if name.lower() in ("authorization", "dpop")]:
                del headers[name]
            return
        if not self._loaded:
            self._load()
        tokens = self.tokens
        if tokens is not None and tokens.refresh_token and tokens.expired(self._margin()) and not self.authorizing:
            async with self._locked():
                if self.tokens is tokens:
                    await self._refresh("the access token expires")
        tokens = self.tokens
        if tokens is None:
            return
        for name in [name for name in headers if name.lower() in ("authorization", "dpop")]:
            del headers[name]
        if tokens.token_type == "DPoP" and self._dpop is not None:
            headers.update(self._dpop.request_headers(method, url, tokens.access_token, self._nonce_store()))
        else:
            headers["Authorization"] = f"Bearer {tokens.access_token}"

    async def retried(self, method: str, url: str, status: int, exchange_id: int | None = None) -> None:
        """The request a flow (or refresh) was for, sent again with the new credentials: its
        answer is the flow's last step (once per flow; other requests that waited are not)."""
        if not self._retry_to_log:
            return
        self._retry_to_log = False
        step = await self.log.step("retry", f"The MCP request again, with the new token: {method} {mask_url(url)}")
        step.request = {"method": method, "url": mask_url(url)}
        step.response = {"status": status}
        step.exchange_id = exchange_id
        accepted = status < 400
        step.check(
            accepted,
            "the server accepts the request with the new access token"
            if accepted
            else f"the server still answers HTTP {status} with the new access token",
            "MCP 2025-11-25 authorization §Access Token Usage",
        )
        self.log.done(step, None if accepted else "warning")

    def _margin(self) -> float:
        """Seconds before expiry a token is refreshed: REFRESH_MARGIN, or a quarter of a
        shorter lifetime (a token that lives 10 s is not refreshed the moment it comes)."""
        tokens = self.tokens
        if tokens is None or tokens.expires_at is None or self._obtained_at is None:
            return REFRESH_MARGIN
        return min(REFRESH_MARGIN, max(0.0, tokens.expires_at - self._obtained_at) / 4)

    def _got(self, tokens: TokenSet) -> None:
        self.tokens = tokens
        self._obtained_at = time.time()
        remember_secret(tokens.access_token, tokens.refresh_token)

    async def challenged(
        self,
        method: str,
        url: str,
        status: int,
        headers: Any,
        attempt: int,
        *,
        sent: dict[str, str] | None = None,
        state: dict[str, Any] | None = None,
    ) -> bool:
        """The server answered ``status`` with ``headers`` (a 401, 403, or a DPoP nonce
        challenge) to the ``attempt``-th sending of a request whose headers were ``sent``;
        ``state`` is the request's own (its step-ups are counted there).
        True: send it again (with what ``prepare`` adds now). Raises AuthError when a flow fails."""
        state = state if state is not None else {"step_ups": max(0, attempt - 2)}
        if not self.credentials.allows(url):
            return False  # another origin's challenge: no flow runs (its token could only go to it)
        from .challenge import auth_challenge, insufficient_scope, parse_www_authenticate
        from .dpop import nonce_challenge

        values = (
            headers.get_list("www-authenticate")
            if hasattr(headers, "get_list")
            else [
                value
                for name, value in (headers.items() if isinstance(headers, dict) else headers)
                if name.lower() == "www-authenticate"
            ]
        )
        challenges = parse_www_authenticate(values)
        used = self._token_in(sent)
        if self._dpop is not None and nonce_challenge(status, headers):
            self._nonce_store().remember(url, headers)
            return attempt <= 2
        # a flow that ended (and failed) after the request went out is the one it waited for,
        # even when its 401 arrives after that flow ended (a slow server): not run again at once
        generation = state.get("generation", self._generation)
        if status == 401:
            async with self._locked():
                if self.tokens is not None and used != self.tokens.access_token:
                    return True  # another request got a newer token meanwhile
                if self._generation != generation and self.last_error is not None:
                    raise self.last_error  # the flow it waited for failed: not run again at once
                challenge = auth_challenge(challenges)
                await self._challenge_step(method, url, status, headers, challenges)
                if used is not None and self._fresh_from_flow and attempt > 1:
                    raise AuthError(
                        f"the server answered {status} again to the token just obtained "
                        f"(WWW-Authenticate: {', '.join(values)[:200] or 'none'})"
                    )
                if (
                    used is not None
                    and self.tokens is not None
                    and self.tokens.refresh_token
                    and await self._refresh("the server refused the access token (401)")
                ):
                    return True
                await self._flow("the server asks for authorization (HTTP 401)", challenge)
                return True
        if status == 403:
            challenge = insufficient_scope(status, challenges)
            if challenge is None:
                return False
            async with self._locked():
                if self.tokens is not None and used != self.tokens.access_token:
                    return True
                step = await self._challenge_step(method, url, status, headers, challenges)
                needed = _scopes(challenge.scope)
                have = _union(self.scope_asked, _scopes(self.tokens.scope if self.tokens else None))
                if state.get("step_ups", 0) >= self.settings.max_step_ups:
                    step.check(
                        False,
                        f"step-up limit reached ({self.settings.max_step_ups} per request): not retried",
                        SPEC_STEP_UP,
                    )
                    self.log.done(step)
                    return False
                if used is not None and not [scope for scope in needed if scope not in have]:
                    step.check(
                        False,
                        "the server wants scopes the token was already granted or asked for "
                        f"({' '.join(needed) or 'none named'}): authorizing again would not help",
                        SPEC_STEP_UP,
                    )
                    self.log.done(step)
                    return False
                self.log.done(step)
                state["step_ups"] = state.get("step_ups", 0) + 1
                await self._flow(
                    f"the server asks for more scope (403 insufficient_scope: {' '.join(needed)})",
                    challenge,
                    scopes=_union(self.scope_asked, needed),
                )
                return True
        return False

    @staticmethod
    def _token_in(sent: dict[str, str] | None) -> str | None:
        for name, value in (sent or {}).items():
            if name.lower() == "authorization":
                parts = value.split(None, 1)
                return parts[1].strip() if len(parts) == 2 else None
        return None

    async def _challenge_step(self, method: str, url: str, status: int, headers: Any, challenges: list[Challenge]):
        from ..base.masking import mask_url

        step = await self.log.step("challenge", f"HTTP {status} from the MCP server ({method} {mask_url(url)})")
        pairs = (
            list(headers.multi_items())
            if hasattr(headers, "multi_items")
            else list(headers.items() if isinstance(headers, dict) else headers)
        )
        step.response = {"status": status, "headers": mask_headers(pairs), "body": None}
        step.details["challenges"] = [{"scheme": c.scheme, **c.params} for c in challenges]
        if status == 401:
            step.check(
                bool(challenges),
                "WWW-Authenticate names the scheme (and resource_metadata)"
                if challenges
                else "a 401 without a WWW-Authenticate challenge",
                "RFC 9728 §5.1; RFC 6750 §3",
            )
        self.log.done(step)
        return step

    # -- flows -----------------------------------------------------------------
    async def _flow(self, reason: str, challenge: Challenge | None, scopes: list[str] | None = None) -> TokenSet:
        """A whole flow under the lock's owner, with its time limit; failures remembered for
        the requests that waited for it."""
        try:
            return await self.authorize(reason, challenge=challenge, scopes=scopes)
        except AuthError as exc:
            self.last_error = exc
            raise

    async def restart(self) -> TokenSet:
        """Forget the tokens in memory and run a flow now (the Auth view's restart)."""
        async with self._locked():
            self.tokens = None
            tokens = await self._flow("restarted by the user", None)
            self._retry_to_log = False  # no request waits for this flow
            return tokens

    async def authorize(
        self, reason: str = "authorize", *, challenge: Challenge | None = None, scopes: list[str] | None = None
    ) -> TokenSet:
        """One whole flow; the new tokens (also kept and stored), or AuthError."""
        self.log.begin_flow(reason)
        self.authorizing = True
        try:
            with anyio.fail_after(self.settings.flow_timeout):
                tokens = await self._run_flow(challenge, scopes)
        except TimeoutError:
            error = AuthError(
                f"the authorization did not finish within {self.settings.flow_timeout:g} s (--oauth-timeout)"
            )
            self.log.end_flow(False, str(error))
            raise error from None
        except AuthError as exc:
            self.log.end_flow(False, str(exc))
            raise
        finally:
            self.authorizing = False
            self._generation += 1
        self.last_error = None
        granted = f" (scope: {tokens.scope})" if tokens.scope else ""
        self.log.end_flow(True, f"authorized with {self.info.issuer if self.info else 'the server'}{granted}")
        self._retry_to_log = True
        return tokens

    async def _run_flow(self, challenge: Challenge | None, scopes: list[str] | None) -> TokenSet:
        from .code_flow import authorization_code
        from .discovery import discover
        from .dpop import wants_dpop
        from .registration import register

        http = self._http()
        previous = self.info
        grant = self.settings.grant or "authorization_code"
        # PKCE is for the code grant: a server without S256 can still serve client credentials & co.
        info = await discover(
            http,
            self.server_url,
            challenge=challenge,
            protocol_version=self.protocol_version,
            previous=previous,
            require_pkce=grant == "authorization_code",
        )
        if grant == "authorization_code":
            from .code_flow import authorization_endpoint

            authorization_endpoint(info)  # a flow that cannot send the user anywhere registers nothing
        stored = self.client
        if stored is not None and stored.issuer is not None and stored.issuer != info.issuer:
            stored = None  # registered with another authorization server: never presented to this one
        if previous is not None and previous.issuer != info.issuer:
            stored = None
        opener = (
            make_opener(self.settings.open_mode, http, self.settings, self.ui)
            if grant == "authorization_code"
            else None
        )
        try:
            redirect_uris = [await opener.start()] if opener is not None else []
            client = await register(http, info, self.settings, redirect_uris, stored=stored)
            if client.issuer is None:
                client.issuer = info.issuer
            remember_secret(client.client_secret)
            asked = self._choose_scopes(info, challenge, scopes, grant)
            scope = " ".join(asked) or None
            dpop = None
            if wants_dpop(info, self.settings):
                from .dpop import DpopKey, choose_algorithm

                if self._dpop is None:
                    self._dpop = DpopKey.generate(choose_algorithm(info))
                dpop = self._dpop
            if opener is not None:
                tokens = await authorization_code(
                    http, info, client, self.settings, opener, scope=scope, dpop=dpop, nonces=self._nonce_store()
                )
            else:
                from .grants import obtain_without_user

                tokens = await obtain_without_user(
                    http, info, client, self.settings, scope, dpop, nonces=self._nonce_store()
                )
        finally:
            if opener is not None:
                await opener.close()
        self._got(tokens)
        self.info, self.client = info, client
        self.scope_asked = asked
        self._fresh_from_flow = True
        self._save()
        return tokens

    def _choose_scopes(
        self, info: ServerAuthInfo, challenge: Challenge | None, scopes: list[str] | None, grant: str
    ) -> list[str]:
        if self.settings.scopes:
            chosen = _union(list(self.settings.scopes), scopes or [])
        elif scopes:
            chosen = list(scopes)
        elif challenge is not None and _scopes(challenge.scope):
            chosen = _scopes(challenge.scope)
        else:
            supported = (info.resource_metadata or {}).get("scopes_supported")
            chosen = [s for s in supported if isinstance(s, str) and s] if isinstance(supported, list) else []
        as_scopes = info.metadata.get("scopes_supported")
        offline = isinstance(as_scopes, list) and "offline_access" in as_scopes
        if grant == "authorization_code" and chosen and offline and "offline_access" not in chosen:
            chosen.append("offline_access")
        elif not offline and "offline_access" in chosen and not self.settings.scopes:
            chosen.remove("offline_access")
        return chosen

    async def _refresh(self, reason: str) -> bool:
        """A refresh grant; True when it gave a new access token. A failed refresh drops the
        refresh token (the caller then runs a whole flow)."""
        tokens = self.tokens
        if tokens is None or not tokens.refresh_token or self.client is None:
            return False
        from .token_request import refresh_tokens

        self.log.begin_flow(reason)
        try:
            if self.info is None:
                from .discovery import discover

                self.info = await discover(
                    self._http(),
                    self.server_url,
                    challenge=None,
                    protocol_version=self.protocol_version,
                    require_pkce=(self.settings.grant or "authorization_code") == "authorization_code",
                )
            fresh = await refresh_tokens(
                self._http(),
                self.info,
                self.client,
                self.settings,
                tokens,
                dpop=self._dpop if tokens.token_type == "DPoP" else None,
                nonces=self._nonce_store(),
            )
        except AuthError as exc:
            tokens.refresh_token = None
            self.log.end_flow(False, f"refresh failed: {exc}")
            return False
        finally:
            self._generation += 1
        self._got(fresh)
        self._fresh_from_flow = False
        self._save()
        self.log.end_flow(
            True,
            "access token refreshed"
            + (f" (expires in {fresh.expires_at - time.time():.0f} s)" if fresh.expires_at else ""),
        )
        self._retry_to_log = True
        return True
