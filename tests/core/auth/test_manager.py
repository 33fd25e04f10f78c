"""OAuthManager (core/auth/manager.py) through the HTTP transport's hook (http_util.open_response)
against a small authorization server + protected MCP endpoint on 127.0.0.1 (``Mini``): one flow
for concurrent 401s, a failed flow not run again by the requests that waited for it, step-up
with the union of scopes and its limits, refresh first on 401 and before expiry, re-registration
when the authorization server changes, the token store, the flow's time limit, and request
timeouts that wait while a person authorizes."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx2
import pytest
from as_fixture import DocServer, json_answer, raw

from mcp_inspector.core.auth.manager import OAuthManager
from mcp_inspector.core.auth.model import AuthError, AuthLog, AuthSettings
from mcp_inspector.core.auth.store import TokenStore
from mcp_inspector.core.traffic.http_log import HttpLog
from mcp_inspector.core.transport.base import TransportError
from mcp_inspector.core.transport.credentials import CredentialPolicy
from mcp_inspector.core.transport.http_util import open_response

pytestmark = pytest.mark.anyio
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()


def _query(path: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(path).query, keep_blank_values=True).items()}


class Mini:
    """An authorization server and a protected MCP endpoint (``/mcp``) on one DocServer.

    ``challenge_scope``: the 401's scope; ``policy(seen, scopes) -> Answer | None`` may refuse an
    authorized request (a 403...); ``refresh``: issue refresh tokens; ``expires_in``;
    ``token_error``: the token endpoint refuses every code; ``issuer_of``: the PRM's
    authorization server (another Mini for the migration test)."""

    def __init__(self, *, challenge_scope: str | None = "read", refresh: bool = True, expires_in: int = 3600) -> None:
        self.server = DocServer()
        self.url = self.server.url
        self.challenge_scope = challenge_scope
        self.refresh = refresh
        self.expires_in = expires_in
        self.token_error = False
        self.policy: Callable[[Any, set[str]], Any] | None = None
        self.issuer_of: Callable[[], str] = lambda: self.url
        self.tokens: dict[str, set[str]] = {}  # live access tokens -> scopes
        self.refresh_tokens: dict[str, set[str]] = {}
        self.codes: dict[str, set[str]] = {}
        self.counter = itertools.count(1)
        self.registered: list[str] = []
        s = self.server
        s.get(
            "/.well-known/oauth-protected-resource/mcp",
            lambda seen: json_answer(
                {
                    "resource": f"{self.url}/mcp",
                    "authorization_servers": [self.issuer_of()],
                    "scopes_supported": ["read"],
                }
            ),
        )
        s.get(
            "/.well-known/oauth-authorization-server",
            lambda seen: json_answer(
                {
                    "issuer": self.url,
                    "authorization_endpoint": f"{self.url}/authorize",
                    "token_endpoint": f"{self.url}/token",
                    "registration_endpoint": f"{self.url}/register",
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none"],
                    "authorization_response_iss_parameter_supported": True,
                }
            ),
        )
        s.post("/register", self._register)
        s.get("/authorize", self._authorize)
        s.post("/token", self._token)
        s.post("/mcp", self._mcp)

    def count(self, path: str, method: str = "GET") -> int:
        return sum(1 for seen in self.server.requests if seen.method == method and seen.path.split("?")[0] == path)

    def authorize_scopes(self) -> list[str]:
        return [
            _query(seen.path).get("scope", "") for seen in self.server.requests if seen.path.startswith("/authorize")
        ]

    def grants(self) -> list[str]:
        return [parse_qs(seen.body)["grant_type"][0] for seen in self.server.requests if seen.path == "/token"]

    def _register(self, seen):
        client_id = f"client-{len(self.registered) + 1}-of-{self.url.rsplit(':', 1)[1]}"
        self.registered.append(client_id)
        return json_answer(
            {
                "client_id": client_id,
                "redirect_uris": seen.body.get("redirect_uris"),
                "token_endpoint_auth_method": "none",
            },
            201,
        )

    def _authorize(self, seen):
        params = _query(seen.path)
        code = f"code-{next(self.counter)}"
        self.codes[code] = set(params.get("scope", "").split())
        back = {"code": code, "state": params["state"], "iss": self.url}
        return raw(302, "", Location=params["redirect_uri"] + "?" + urlencode(back))

    def _issue(self, scopes: set[str]):
        access = f"access-{next(self.counter)}"
        self.tokens[access] = scopes
        body = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "scope": " ".join(sorted(scopes)),
        }
        if self.refresh:
            refresh = f"refresh-{next(self.counter)}"
            self.refresh_tokens[refresh] = scopes
            body["refresh_token"] = refresh
        return json_answer(body)

    def _token(self, seen):
        form = {k: v[0] for k, v in parse_qs(seen.body).items()}
        if self.token_error:
            return json_answer({"error": "invalid_grant"}, 400)
        if form["grant_type"] == "authorization_code" and form.get("code") in self.codes:
            return self._issue(self.codes.pop(form["code"]))
        if form["grant_type"] == "refresh_token" and form.get("refresh_token") in self.refresh_tokens:
            return self._issue(self.refresh_tokens.pop(form["refresh_token"]))
        return json_answer({"error": "invalid_grant"}, 400)

    def _mcp(self, seen):
        header = seen.headers.get("authorization", "")
        token = header[7:] if header.startswith("Bearer ") else None
        if token not in self.tokens:
            scope = f', scope="{self.challenge_scope}"' if self.challenge_scope else ""
            return raw(
                401,
                "",
                **{
                    "WWW-Authenticate": f'Bearer resource_metadata="{self.url}/.well-known/'
                    f'oauth-protected-resource/mcp"{scope}'
                },
            )
        if self.policy is not None:
            refused = self.policy(seen, self.tokens[token])
            if refused is not None:
                return refused
        return json_answer({"jsonrpc": "2.0", "id": seen.body.get("id"), "result": {}})

    def insufficient(self, scope: str):
        return raw(403, "", **{"WWW-Authenticate": f'Bearer error="insufficient_scope", scope="{scope}"'})

    def __enter__(self) -> Mini:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.__exit__(*exc)


def manager_for(mini: Mini, store: TokenStore | None = None, **settings: Any) -> OAuthManager:
    options = {"open_mode": "fetch", **settings}
    return OAuthManager(AuthSettings(**options), f"{mini.url}/mcp", log=AuthLog(), http_log=HttpLog(), store=store)


async def post(client: httpx2.AsyncClient, manager: OAuthManager, url: str, body: bytes = PING) -> tuple[int, bytes]:
    response, _, _ = await open_response(
        client, "POST", url, {"Content-Type": "application/json"}, CredentialPolicy(url), content=body, auth=manager
    )
    try:
        return response.status_code, await response.aread()
    finally:
        await response.aclose()


async def test_concurrent_401s_run_one_flow():
    with Mini() as mini:
        manager = manager_for(mini)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            results: list[int] = []

            async def one() -> None:
                results.append((await post(client, manager, f"{mini.url}/mcp"))[0])

            async with anyio.create_task_group() as tg:
                for _ in range(5):
                    tg.start_soon(one)
        assert results == [200] * 5
        assert (
            mini.count("/authorize") == 1
            and mini.count("/register", "POST") == 1
            and mini.grants() == ["authorization_code"]
        )
        assert mini.authorize_scopes() == ["read"]  # the challenge's scope
        assert manager.log.state == "authorized"
        assert [s.kind for s in manager.log.steps][0] == "challenge"


async def test_a_failed_flow_is_not_run_again_by_the_requests_that_waited():
    with Mini() as mini:
        mini.token_error = True
        manager = manager_for(mini)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            errors: list[str] = []

            async def one() -> None:
                try:
                    await post(client, manager, f"{mini.url}/mcp")
                except TransportError as exc:
                    errors.append(str(exc))

            async with anyio.create_task_group() as tg:
                for _ in range(3):
                    tg.start_soon(one)
        assert len(errors) == 3 and all("authorization failed" in e and "invalid_grant" in e for e in errors), errors
        assert mini.count("/authorize") == 1
        assert manager.log.state == "failed"


async def test_a_401_that_arrives_after_the_failed_flow_it_was_sent_before_does_not_run_another():
    """Under load a request's 401 can come back after the flow started by another request has
    already failed: it was sent before that flow ended, so it gets that flow's error."""
    with Mini() as mini:
        mini.token_error = True
        manager = manager_for(mini)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            late: dict = {}
            await manager.prepare("POST", f"{mini.url}/mcp", {}, state=late)  # sent now, answered later
            with pytest.raises(TransportError, match="invalid_grant"):
                await post(client, manager, f"{mini.url}/mcp")  # its own 401: a flow, which fails
            with pytest.raises(AuthError, match="invalid_grant"):
                await manager.challenged(
                    "POST",
                    f"{mini.url}/mcp",
                    401,
                    httpx2.Headers({"WWW-Authenticate": "Bearer"}),
                    1,
                    sent={},
                    state=late,
                )
            assert mini.count("/authorize") == 1
            fresh: dict = {}  # a request sent after the failure may try again
            await manager.prepare("POST", f"{mini.url}/mcp", {}, state=fresh)
            with pytest.raises(AuthError):
                await manager.challenged(
                    "POST",
                    f"{mini.url}/mcp",
                    401,
                    httpx2.Headers({"WWW-Authenticate": "Bearer"}),
                    1,
                    sent={},
                    state=fresh,
                )
            assert mini.count("/authorize") == 2


async def test_step_up_asks_for_the_union_of_scopes():
    with Mini() as mini:
        mini.policy = lambda seen, scopes: None if "write" in scopes else mini.insufficient("write")
        manager = manager_for(mini)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 200
        assert mini.authorize_scopes() == ["read", "read write"]
        assert "write" in manager.tokens.scope


async def test_a_step_up_that_cannot_help_is_not_tried():
    """403 insufficient_scope for a scope the token already has: no loop of authorizations."""
    with Mini() as mini:
        mini.policy = lambda seen, scopes: mini.insufficient("read")
        manager = manager_for(mini)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 403
        assert mini.count("/authorize") == 1
        findings = [f.text for s in manager.log.steps for f in s.findings]
        assert any("would not help" in text for text in findings)


async def test_step_ups_per_request_are_limited():
    with Mini() as mini:
        more = itertools.count(1)
        mini.policy = lambda seen, scopes: mini.insufficient(f"s{next(more)}")  # always another scope
        manager = manager_for(mini, max_step_ups=2)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 403
        assert mini.count("/authorize") == 1 + 2
        assert any("step-up limit" in f.text for s in manager.log.steps for f in s.findings)


async def test_a_401_with_a_refresh_token_refreshes_first():
    with Mini() as mini:
        manager = manager_for(mini)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 200
            mini.tokens.clear()  # the server forgets every access token
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 200
        assert mini.count("/authorize") == 1 and mini.grants() == ["authorization_code", "refresh_token"]


async def test_an_expiring_token_is_refreshed_before_the_request():
    with Mini(expires_in=1) as mini:
        manager = manager_for(mini)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 200
            await anyio.sleep(1.1)  # the token's second is over
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 200
        assert mini.grants() == ["authorization_code", "refresh_token"]
        assert mini.count("/mcp", "POST") == 2 + 1  # the first 401, then one each: no 401 before the refresh


async def test_a_new_authorization_server_means_a_new_registration():
    with Mini(refresh=False) as first, Mini(refresh=False) as second:
        manager = manager_for(first)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            assert (await post(client, manager, f"{first.url}/mcp"))[0] == 200
            first.issuer_of = lambda: second.url  # the PRM now names the second server
            first.tokens.clear()
            second.tokens = first.tokens  # the resource accepts the second server's tokens
            assert (await post(client, manager, f"{first.url}/mcp"))[0] == 200
        assert second.count("/register", "POST") == 1
        seen_ids = [_query(s.path).get("client_id") for s in second.server.requests if s.path.startswith("/authorize")]
        assert seen_ids == [second.registered[0]] and first.registered[0] not in seen_ids
        assert manager.client.issuer == second.url


async def test_the_store_keeps_tokens_for_the_next_connection_and_forget_removes_them(tmp_path):
    store = TokenStore("file", directory=tmp_path)
    with Mini() as mini:
        async with httpx2.AsyncClient() as client:
            manager = manager_for(mini, store=store)
            manager.attach(client)
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 200
            again = manager_for(mini, store=store)
            again.attach(client)
            assert (await post(client, again, f"{mini.url}/mcp"))[0] == 200
            assert mini.count("/authorize") == 1
            assert again.forget() == 1
            assert store.load(f"{mini.url}/mcp") is None and again.tokens is None


async def test_restart_runs_a_flow_now():
    with Mini() as mini:
        manager = manager_for(mini)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 200
            first = manager.tokens.access_token
            await manager.restart()
        assert mini.count("/authorize") == 2 and manager.tokens.access_token != first
        assert manager.log.flows == 2


class SlowUi:
    """A person in print mode who takes ``delay`` seconds (None: forever)."""

    def __init__(self, delay: float | None) -> None:
        self.delay = delay

    def say(self, text: str) -> None:
        pass

    async def ask_redirect_url(self, url: str) -> str:
        if self.delay is None:
            await anyio.sleep_forever()
        await anyio.sleep(self.delay)
        async with httpx2.AsyncClient() as client:
            return (await client.get(url)).headers["location"]


class SayingUi(SlowUi):
    def __init__(self) -> None:
        super().__init__(0)
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)


async def test_a_corrupt_stored_file_is_said_and_the_flow_runs(tmp_path):
    from mcp_inspector.core.auth.store import url_key

    store = TokenStore("file", directory=tmp_path)
    with Mini() as mini:
        (tmp_path / f"{url_key(f'{mini.url}/mcp')[:40]}.json").write_text("{not json", encoding="utf-8")
        ui = SayingUi()
        manager = OAuthManager(AuthSettings(open_mode="fetch"), f"{mini.url}/mcp", log=AuthLog(), store=store, ui=ui)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 200
        assert mini.count("/authorize") == 1
        assert any("not valid JSON" in text for text in ui.said), ui.said


async def test_the_flow_has_its_own_time_limit():
    with Mini() as mini:
        manager = OAuthManager(
            AuthSettings(open_mode="print", flow_timeout=0.5), f"{mini.url}/mcp", log=AuthLog(), ui=SlowUi(None)
        )
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            with pytest.raises(TransportError, match="did not finish within 0.5 s"):
                await post(client, manager, f"{mini.url}/mcp")
        assert not manager.authorizing


async def test_request_timeouts_wait_while_a_person_authorizes():
    """A 0.3 s request timeout, a person taking 1 s in print mode: the request still gets its answer."""
    from mcp_inspector.core.protocol.rpc import RpcConnection
    from mcp_inspector.core.transport.http import HttpTransport

    with Mini() as mini:
        manager = OAuthManager(AuthSettings(open_mode="print"), f"{mini.url}/mcp", log=AuthLog(), ui=SlowUi(1.0))
        transport = HttpTransport(f"{mini.url}/mcp", mode="streamable-http", auth=manager)
        connection = RpcConnection(transport, default_timeout=0.3)
        async with anyio.create_task_group() as tg:
            await connection.start(tg)
            try:
                pending = await connection.send_request("ping")
                assert await pending.wait() == {}
            finally:
                await connection.aclose()
                tg.cancel_scope.cancel()
        assert manager.tokens is not None and not transport.authorizing


async def test_prepare_without_tokens_adds_nothing_and_a_flow_error_is_an_auth_error():
    with Mini() as mini:
        manager = manager_for(mini)
        headers: dict[str, str] = {}
        await manager.prepare("POST", f"{mini.url}/mcp", headers)
        assert headers == {}
        with pytest.raises(AuthError, match="not attached"):
            await manager.authorize()


async def test_a_token_endpoint_that_never_answers_ends_at_the_flows_limit():
    from as_fixture import HANG

    with Mini() as mini:
        mini.server.post("/token", HANG)
        manager = manager_for(mini, flow_timeout=1.0)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            with pytest.raises(TransportError, match="did not finish within 1 s"):
                await post(client, manager, f"{mini.url}/mcp")
        assert manager.log.state == "failed" and not manager.authorizing


async def test_a_redirect_to_another_origin_does_not_carry_the_token():
    with Mini() as mini, DocServer() as other:
        other.post("/mcp", json_answer({"jsonrpc": "2.0", "id": 1, "result": {}}))
        mini.policy = lambda seen, scopes: raw(307, "", Location=f"{other.url}/mcp")
        manager = manager_for(mini)
        async with httpx2.AsyncClient() as client:
            manager.attach(client)
            assert (await post(client, manager, f"{mini.url}/mcp"))[0] == 200
        [seen] = other.requests
        assert "authorization" not in seen.headers and "dpop" not in seen.headers
        assert mini.count("/authorize") == 1
