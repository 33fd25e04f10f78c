"""The authorization code grant (core/auth/code_flow.py) and the three ways to open it
(core/auth/opener.py) against real HTTP servers on 127.0.0.1: the authorization request's
parameters (PKCE S256, state, resource), the redirect's checks (state; iss by RFC 9207 simple
string comparison), fetch mode following the authorization server's own redirects and never
requesting the redirect URI, the browser mode's loopback listener (one request with the right
state, then gone), print mode through an AuthUi."""

from __future__ import annotations

import base64
import hashlib
import socket
import sys
import textwrap
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx2
import pytest
from as_fixture import DocServer, json_answer, raw

from mcp_inspector.core.auth.code_flow import authorization_code, authorization_url, check_redirect, make_pkce
from mcp_inspector.core.auth.http import AuthHttp
from mcp_inspector.core.auth.model import AuthError, AuthLog, AuthSettings, ClientInfo, ServerAuthInfo, TokenSet
from mcp_inspector.core.auth.opener import BrowserOpener, FetchOpener, PrintOpener, default_mode, make_opener
from mcp_inspector.core.traffic.http_log import HttpLog

pytestmark = pytest.mark.anyio
RESOURCE = "http://127.0.0.1:1/mcp"


def info_for(url: str, *, iss_supported: bool | None = True, issuer: str | None = None) -> ServerAuthInfo:
    metadata = {
        "issuer": issuer or url,
        "authorization_endpoint": f"{url}/authorize?tenant=t1",
        "token_endpoint": f"{url}/token",
        "code_challenge_methods_supported": ["S256"],
    }
    if iss_supported is not None:
        metadata["authorization_response_iss_parameter_supported"] = iss_supported
    return ServerAuthInfo(
        resource=RESOURCE,
        issuer=issuer or url,
        metadata=metadata,
        resource_metadata={"resource": RESOURCE, "authorization_servers": [url]},
    )


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def approving(server: DocServer, *, iss: str | None = "correct", extra: dict | None = None):
    """An /authorize that redirects at once with a code (and ``iss``), like the suite's mock."""

    def answer(seen):
        params = query(seen.path)
        back = {"code": "code-" + params["state"][:6], "state": params["state"]}
        if iss == "correct":
            back["iss"] = server.url
        elif iss is not None:
            back["iss"] = iss
        back.update(extra or {})
        return raw(302, "", Location=params["redirect_uri"] + "?" + urlencode(back))

    return answer


def verifying_token(server: DocServer):
    def answer(seen):
        body = {k: v[0] for k, v in parse_qs(seen.body).items()}
        [auth] = [s for s in server.requests if s.path.startswith("/authorize")][-1:]
        challenge = query(auth.path)["code_challenge"]
        digest = base64.urlsafe_b64encode(hashlib.sha256(body["code_verifier"].encode()).digest()).rstrip(b"=").decode()
        if digest != challenge:
            return json_answer({"error": "invalid_grant", "error_description": "PKCE"}, 400)
        return json_answer({"access_token": "at-" + body["code"], "token_type": "Bearer", "expires_in": 60})

    return answer


async def run_flow(info: ServerAuthInfo, opener_for, *, scope: str | None = "mcp"):
    log = AuthLog()
    async with httpx2.AsyncClient() as client:
        http = AuthHttp(client, log, HttpLog())
        opener = opener_for(http)
        try:
            result = await authorization_code(http, info, ClientInfo("client-1"), AuthSettings(), opener, scope=scope)
        except AuthError as exc:
            result = exc
        finally:
            await opener.close()
    return result, log


def test_pkce_pair_is_s256():
    verifier, challenge = make_pkce()
    assert 43 <= len(verifier) <= 128 and "=" not in verifier
    assert challenge == base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    assert make_pkce()[0] != verifier


def test_authorization_url_parameters_keep_the_endpoints_query():
    info = info_for("http://127.0.0.1:9")
    url, params = authorization_url(
        info, ClientInfo("cid"), "http://127.0.0.1:5/callback", state="st", challenge="ch", scope="a b"
    )
    got = query(url)
    assert url.startswith("http://127.0.0.1:9/authorize?")
    assert got == {
        "tenant": "t1",
        "response_type": "code",
        "client_id": "cid",
        "redirect_uri": "http://127.0.0.1:5/callback",
        "code_challenge": "ch",
        "code_challenge_method": "S256",
        "state": "st",
        "scope": "a b",
        "resource": RESOURCE,
    }
    assert params["scope"] == "a b"


async def test_fetch_flow_end_to_end_never_requesting_the_redirect_uri():
    with DocServer() as server:
        server.get("/authorize", lambda seen: raw(302, "", Location="/login?step=2&" + urlsplit(seen.path).query))
        server.get("/login", approving(server))
        server.post("/token", verifying_token(server))
        settings = AuthSettings(redirect_port=server.port)  # the redirect URI is on this server: it must not be asked
        tokens, log = await run_flow(info_for(server.url), lambda http: FetchOpener(http, settings))
    assert isinstance(tokens, TokenSet), tokens
    assert tokens.access_token.startswith("at-code-")
    assert [seen.path.split("?")[0] for seen in server.requests] == ["/authorize", "/login", "/token"]
    kinds = [step.kind for step in log.steps]
    assert kinds == ["authorization", "redirect", "token"]
    assert all(step.status == "ok" for step in log.steps), [(s.kind, s.findings) for s in log.steps]
    redirect = log.steps[1]
    assert "iss equals the authorization server's issuer" in [f.text for f in redirect.findings]


@pytest.mark.parametrize(
    "iss_supported,iss,words",
    [
        (True, None, "has no iss"),  # advertised, missing
        (True, "https://evil.example.com", "is not the issuer"),
        (None, "https://evil.example.com", "is not the issuer"),  # not advertised, present and wrong
        (True, "normalized", "is not the issuer"),  # the issuer with a trailing slash: not the same string
    ],
)
async def test_iss_is_checked_by_simple_string_comparison(iss_supported, iss, words):
    with DocServer() as server:
        value = server.url + "/" if iss == "normalized" else iss
        server.get("/authorize", approving(server, iss=value))
        server.post("/token", verifying_token(server))
        error, log = await run_flow(
            info_for(server.url, iss_supported=iss_supported), lambda http: FetchOpener(http, AuthSettings())
        )
    assert isinstance(error, AuthError) and words in str(error), error
    assert "RFC 9207" in (error.spec or "")
    assert not any(seen.path == "/token" for seen in server.requests)
    assert log.steps[-1].kind == "redirect" and log.steps[-1].status == "failed"


async def test_no_iss_when_not_advertised_is_accepted():
    with DocServer() as server:
        server.get("/authorize", approving(server, iss=None))
        server.post("/token", verifying_token(server))
        tokens, _ = await run_flow(
            info_for(server.url, iss_supported=None), lambda http: FetchOpener(http, AuthSettings())
        )
    assert isinstance(tokens, TokenSet), tokens


async def test_state_mismatch_and_refusal_are_errors():
    log = AuthLog()
    info = info_for("http://127.0.0.1:9", iss_supported=None)
    async with httpx2.AsyncClient() as client:
        http = AuthHttp(client, log, None)
        redirect = "http://127.0.0.1:5/callback"
        with pytest.raises(AuthError, match="different state"):
            await check_redirect(http, info, redirect + "?code=c&state=other", redirect, "mine")
        with pytest.raises(AuthError, match="has no state"):
            await check_redirect(http, info, redirect + "?code=c", redirect, "mine")
        with pytest.raises(AuthError, match="refused: access_denied: no way"):
            await check_redirect(
                http, info, redirect + "?error=access_denied&error_description=no+way&state=mine", redirect, "mine"
            )
        with pytest.raises(AuthError, match="does not go to our redirect URI"):
            await check_redirect(http, info, "http://127.0.0.1:6/elsewhere?code=c&state=mine", redirect, "mine")
        with pytest.raises(AuthError, match="no code"):
            await check_redirect(http, info, redirect + "?state=mine", redirect, "mine")
        assert await check_redirect(http, info, redirect + "?code=the-code&state=mine", redirect, "mine") == "the-code"
    # the code is masked in what the step shows
    assert "the-code" not in str(log.steps[-1].details)


async def test_fetch_mode_says_a_person_is_needed_when_the_server_shows_a_page():
    with DocServer() as server:
        server.get("/authorize", raw(200, "<html><form>sign in</form></html>", "text/html"))
        error, _ = await run_flow(info_for(server.url), lambda http: FetchOpener(http, AuthSettings()))
    assert isinstance(error, AuthError) and "--oauth-open browser or print" in str(error)


class PastingUi:
    """A person in print mode: opens the URL (no redirects followed) and pastes where it led."""

    def __init__(self, answer=None) -> None:
        self.said: list[str] = []
        self.answer = answer

    def say(self, text: str) -> None:
        self.said.append(text)

    async def ask_redirect_url(self, url: str) -> str:
        if self.answer is not None:
            return self.answer
        async with httpx2.AsyncClient() as client:
            response = await client.get(url)
        return response.headers["location"]


async def test_print_mode_uses_the_pasted_redirect():
    ui = PastingUi()
    with DocServer() as server:
        server.get("/authorize", approving(server))
        server.post("/token", verifying_token(server))
        tokens, _ = await run_flow(info_for(server.url), lambda http: PrintOpener(AuthSettings(), ui))
    assert isinstance(tokens, TokenSet), tokens
    assert "/authorize?" in ui.said[0] and "127.0.0.1:33418/callback" in ui.said[0]


async def test_print_mode_wants_the_whole_url_and_a_ui():
    with DocServer() as server:
        server.get("/authorize", approving(server))
        error, _ = await run_flow(
            info_for(server.url), lambda http: PrintOpener(AuthSettings(), PastingUi("just-a-code"))
        )
        assert isinstance(error, AuthError) and "whole address" in str(error)
        error, _ = await run_flow(info_for(server.url), lambda http: PrintOpener(AuthSettings(), None))
        assert isinstance(error, AuthError) and "use --oauth-open fetch or browser" in str(error)


def test_default_mode_follows_the_display(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if sys.platform not in ("darwin", "win32"):
        assert default_mode() == "print"
    monkeypatch.setenv("DISPLAY", ":0")
    assert default_mode() == "browser"
    with pytest.raises(AuthError, match="unknown --oauth-open"):
        make_opener("telepathy", None, AuthSettings(), None)  # type: ignore[arg-type]


def _raw_request(port: int, data: bytes) -> bytes:
    """Send bytes as they are (a request too big for an HTTP client to build); the answer or b""."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(data)
            return sock.recv(4096)
        except OSError:  # the listener answered and closed while we were still sending
            return b""


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


async def test_browser_listener_takes_one_request_with_the_right_state_then_closes():
    opener = BrowserOpener(AuthSettings(), None)
    redirect = await opener.start()
    port = urlsplit(redirect).port
    assert redirect == f"http://127.0.0.1:{port}/callback" and _port_open(port)
    opener._state = "right-state"
    opener._result = __import__("asyncio").get_running_loop().create_future()
    async with httpx2.AsyncClient() as client:
        assert (await client.get(f"http://127.0.0.1:{port}/other")).status_code == 404
        assert (await client.post(redirect, content=b"x")).status_code == 405
        wrong = await client.get(redirect + "?code=c&state=wrong")
        assert wrong.status_code == 400 and not opener._result.done()
        answer = await anyio.to_thread.run_sync(
            _raw_request, port, b"GET /callback?state=right-state HTTP/1.1\r\nX-Pad: " + b"x" * 70_000 + b"\r\n\r\n"
        )
        assert answer.startswith(b"HTTP/1.1 400") or answer == b"", answer[:80]
        assert not opener._result.done()
        good = await client.get(redirect + "?code=the-code&state=right-state")
        assert good.status_code == 200 and "You may close this window" in good.text
    assert await opener._result == redirect + "?code=the-code&state=right-state"
    await opener.close()
    assert not _port_open(port)


async def test_browser_mode_opens_browser_and_the_listener_is_gone_after(tmp_path, monkeypatch):
    """$BROWSER (honoured by webbrowser) names a script that does what a browser does."""
    script = tmp_path / "browser.py"
    script.write_text(
        textwrap.dedent("""
        import sys, urllib.request, urllib.error
        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *a, **k):
                return None
        try:
            urllib.request.build_opener(NoRedirect).open(sys.argv[1], timeout=10)
        except urllib.error.HTTPError as exc:
            urllib.request.urlopen(exc.headers["Location"], timeout=10).read()
    """)
    )
    import webbrowser

    monkeypatch.setenv("BROWSER", f"{sys.executable} {script} %s")
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # read $BROWSER again
    monkeypatch.setattr(webbrowser, "_browsers", {})
    ui = PastingUi()
    with DocServer() as server:
        server.get("/authorize", approving(server))
        server.post("/token", verifying_token(server))
        holder: list[BrowserOpener] = []

        def make(http):
            holder.append(BrowserOpener(AuthSettings(), ui))
            return holder[0]

        with anyio.fail_after(30):
            tokens, log = await run_flow(info_for(server.url), make)
    assert isinstance(tokens, TokenSet), tokens
    port = urlsplit(holder[0].redirect_uri).port
    assert not _port_open(port)
    assert "only during this flow" in log.steps[0].details["listener"]


@pytest.mark.parametrize(
    "location,words",
    [
        ("/authorize?again=1", "more than 5 redirects"),
        ("javascript:alert(1)", "neither our redirect URI nor an http(s) page"),
    ],
)
async def test_fetch_mode_bounds_a_hostile_servers_redirects(location, words):
    with DocServer() as server:
        server.get("/authorize", raw(302, "", Location=location))
        error, _ = await run_flow(info_for(server.url), lambda http: FetchOpener(http, AuthSettings()))
    assert isinstance(error, AuthError) and words in str(error), error
    assert len(server.requests) <= 6
