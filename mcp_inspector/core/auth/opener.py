"""How the user authorizes: the three ``--oauth-open`` modes, behind one small interface.

``Opener.start()`` returns the redirect URI to use; ``authorize(url, state, step)`` gets the
user to the authorization URL and returns the URL the authorization server redirected to;
``close()`` releases what it holds.

- ``fetch``: GET the authorization URL ourselves (AuthHttp: logged, no redirects followed),
  follow the authorization server's own redirects (at most ``FETCH_HOPS``), and take the
  redirect that points at our redirect URI from its ``Location`` without requesting it. For
  CI against test servers that approve without a person.
- ``browser``: a loopback listener on 127.0.0.1 (an ephemeral port unless
  ``settings.redirect_port``) that exists only during the flow: it accepts the one request to
  the callback path carrying the right ``state``, answers a small page, and closes; requests
  are bounded in size and the whole wait in time. The browser is opened with ``webbrowser``
  (which honours ``$BROWSER``).
- ``print``: the URL is said (``ui.say``) and the user pastes the final redirect URL
  (``ui.ask_redirect_url``); the redirect URI points at a loopback port nobody listens on, so
  the browser shows an error page whose address is what to paste.

``default_mode()``: browser when there is a display (DISPLAY, WAYLAND_DISPLAY, macOS,
Windows), else print.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Awaitable
from typing import Any, Protocol
from urllib.parse import parse_qsl, urljoin, urlsplit

import anyio

from ..base.masking import mask_url
from ..transport.http_util import printable
from .http import AuthHttp
from .model import AuthError, AuthSettings, AuthStep

CALLBACK_PATH = "/callback"
PRINT_PORT = 33418  # print/fetch: the loopback port of the redirect URI (no listener; RFC 8252 §7.3 allows any port)
FETCH_HOPS = 5
REQUEST_LIMIT = 16 << 10  # bytes of a request the loopback listener reads at most
READ_LIMIT = 10.0  # seconds a connection to the listener may take to send its request
MAX_CONNECTIONS = 32  # connections the listener serves in a flow before it gives up (a port scan...)

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>mcp-inspector</title></head>
<body style="font-family: sans-serif; margin: 3em"><h2>{title}</h2><p>{text}</p></body></html>"""


def same_endpoint(url: str, redirect_uri: str) -> bool:
    """Does ``url`` point at ``redirect_uri`` (scheme, host, port, path; query aside)?"""
    try:
        a, b = urlsplit(url), urlsplit(redirect_uri)
        return (a.scheme.lower(), (a.hostname or "").lower(), a.port, a.path or "/") == (
            b.scheme.lower(),
            (b.hostname or "").lower(),
            b.port,
            b.path or "/",
        )
    except ValueError:
        return False


def redirect_parameters(redirect_url: str) -> dict[str, str]:
    """The query parameters of the redirect (a repeated one keeps its first value)."""
    params: dict[str, str] = {}
    try:
        query = urlsplit(redirect_url.strip()).query
    except ValueError:
        return params
    for key, value in parse_qsl(query, keep_blank_values=True):
        params.setdefault(key, value)
    return params


class AuthUi(Protocol):
    """What a flow needs from the user interface (the CLI's: ``cli/auth_ui.py``; the TUI's: its own)."""

    def ask_redirect_url(self, url: str) -> Awaitable[str]: ...

    def say(self, text: str) -> None: ...


def default_mode() -> str:
    if sys.platform in ("darwin", "win32") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return "browser"
    return "print"


class Opener(ABC):
    """How the user authorizes: ``start`` gives the redirect URI, ``authorize`` the redirect URL."""

    mode = "?"

    @abstractmethod
    async def start(self) -> str: ...

    @abstractmethod
    async def authorize(self, url: str, state: str, step: AuthStep) -> str: ...

    async def close(self) -> None:  # noqa: B027 an optional hook: most openers hold nothing to close
        pass


def make_opener(mode: str | None, http: AuthHttp, settings: AuthSettings, ui: AuthUi | None) -> Opener:
    chosen = mode or default_mode()
    if chosen == "fetch":
        return FetchOpener(http, settings)
    if chosen == "print":
        return PrintOpener(settings, ui)
    if chosen == "browser":
        return BrowserOpener(settings, ui)
    raise AuthError(f"unknown --oauth-open mode {chosen!r} (use browser, print or fetch)")


def loopback_redirect(port: int) -> str:
    return f"http://127.0.0.1:{port}{CALLBACK_PATH}"


class FetchOpener(Opener):
    mode = "fetch"

    def __init__(self, http: AuthHttp, settings: AuthSettings) -> None:
        self.http = http
        self.redirect_uri = loopback_redirect(settings.redirect_port or PRINT_PORT)

    async def start(self) -> str:
        return self.redirect_uri

    async def authorize(self, url: str, state: str, step: AuthStep) -> str:
        hops: list[dict[str, Any]] = []
        step.details["fetched"] = hops
        current = url
        for _ in range(FETCH_HOPS + 1):
            response = await self.http.request(
                "GET", current, headers={"Accept": "text/html, application/json"}, note="authorization (fetch)"
            )
            hops.append({"url": mask_url(current), "status": response.status, "exchange": response.exchange_id})
            location = response.location
            if response.status in (301, 302, 303, 307, 308) and location:
                target = urljoin(current, location.strip())
                if same_endpoint(target, self.redirect_uri):
                    return target  # never requested: the code is in its query
                if urlsplit(target).scheme not in ("http", "https"):
                    raise AuthError(
                        f"the authorization server redirected to {printable(mask_url(target))[:200]}, "
                        "neither our redirect URI nor an http(s) page"
                    )
                current = target
                continue
            if 200 <= response.status < 300:
                raise AuthError(
                    f"the authorization endpoint answered HTTP {response.status} with a page, not a redirect "
                    "to the client: a person must sign in or consent there (use --oauth-open browser or print)"
                )
            raise AuthError(
                f"the authorization endpoint answered HTTP {response.status} {response.reason}".rstrip()
                + f": {printable(response.text(200))}"
            )
        raise AuthError(f"more than {FETCH_HOPS} redirects at the authorization server, none to our redirect URI")


class PrintOpener(Opener):
    mode = "print"

    def __init__(self, settings: AuthSettings, ui: AuthUi | None) -> None:
        self.ui = ui
        self.redirect_uri = loopback_redirect(settings.redirect_port or PRINT_PORT)

    async def start(self) -> str:
        return self.redirect_uri

    async def authorize(self, url: str, state: str, step: AuthStep) -> str:
        if self.ui is None:
            raise AuthError("no way to ask for the redirect URL here: use --oauth-open fetch or browser")
        self.ui.say(
            "Open this URL in a browser and authorize; the browser then fails to load a page at "
            f"{self.redirect_uri}: copy that page's whole address (URL) and paste it here.\n\n{printable(url)}\n"
        )
        answer = (await self.ui.ask_redirect_url(url)).strip()
        if not answer:
            raise AuthError("no redirect URL was given")
        if "?" not in answer:
            raise AuthError(
                "paste the whole address of the page the browser landed on "
                f"({self.redirect_uri}?code=...&state=...), not only the code"
            )
        return answer


class BrowserOpener(Opener):
    """The loopback listener (RFC 8252 §7.3) and the system browser."""

    mode = "browser"

    def __init__(self, settings: AuthSettings, ui: AuthUi | None) -> None:
        self.ui = ui
        self.port = settings.redirect_port or 0
        self.redirect_uri = ""
        self._server: asyncio.base_events.Server | None = None
        self._state = ""
        self._result: asyncio.Future[str] | None = None
        self._connections = 0

    async def start(self) -> str:
        if self._server is None:
            try:
                self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, limit=REQUEST_LIMIT)
            except OSError as exc:
                raise AuthError(
                    f"cannot listen on 127.0.0.1:{self.port} for the redirect: {exc.strerror or exc}"
                ) from None
            port = self._server.sockets[0].getsockname()[1]
            self.redirect_uri = loopback_redirect(port)
        return self.redirect_uri

    async def authorize(self, url: str, state: str, step: AuthStep) -> str:
        if self._server is None:
            await self.start()
        self._state = state
        self._result = asyncio.get_running_loop().create_future()
        step.details["listener"] = f"127.0.0.1:{urlsplit(self.redirect_uri).port} (only during this flow)"
        import webbrowser

        try:
            opened = await anyio.to_thread.run_sync(webbrowser.open, url)
        except Exception:  # webbrowser raises for a broken $BROWSER
            opened = False
        if self.ui is not None:
            self.ui.say(
                (
                    "Opened the browser to authorize. If it did not open, visit:"
                    if opened
                    else "Could not open a browser; visit this URL to authorize:"
                )
                + f"\n\n{printable(url)}\n"
            )
        elif not opened:
            raise AuthError("could not open a browser (use --oauth-open print or fetch)")
        try:
            return await self._result
        finally:
            await self.close()

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            try:
                with anyio.move_on_after(2.0):
                    await server.wait_closed()
            except Exception:
                pass

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections += 1
        try:
            if self._connections > MAX_CONNECTIONS:
                if self._result is not None and not self._result.done():
                    self._result.set_exception(AuthError("too many connections to the redirect listener: given up"))
                return
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_LIMIT)
            except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                await self._answer(writer, 400, "Bad request", "The request could not be read.")
                return
            line = head.split(b"\r\n", 1)[0].decode("latin-1")
            parts = line.split(" ")
            if len(parts) != 3 or parts[0] != "GET":
                await self._answer(writer, 405, "Not allowed", "Only the authorization redirect is served here.")
                return
            target = "http://127.0.0.1" + parts[1]
            if urlsplit(target).path != CALLBACK_PATH:
                await self._answer(writer, 404, "Not found", "Only the authorization redirect is served here.")
                return
            params = redirect_parameters(target)
            if self._result is None or self._result.done() or params.get("state") != self._state:
                await self._answer(
                    writer,
                    400,
                    "Not this authorization",
                    "This redirect does not belong to the authorization in progress (state differs).",
                )
                return
            if "error" in params:
                await self._answer(
                    writer,
                    200,
                    "Authorization refused",
                    "The authorization server refused; mcp-inspector says why. You may close this window.",
                )
            else:
                await self._answer(
                    writer, 200, "Authorized", "mcp-inspector received the authorization. You may close this window."
                )
            self._result.set_result(self.redirect_uri + "?" + urlsplit(target).query)
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    @staticmethod
    async def _answer(writer: asyncio.StreamWriter, status: int, title: str, text: str) -> None:
        body = PAGE.format(title=title, text=text).encode("utf-8")
        head = (
            f"HTTP/1.1 {status} {title}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
        ).encode("latin-1")
        try:
            writer.write(head + body)
            with anyio.move_on_after(5.0):
                await writer.drain()
        except ConnectionError:
            pass
