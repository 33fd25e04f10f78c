"""Authorizing from the TUI: the modal of ``--oauth-open print`` and the TUI's ``AuthUi``.

``AuthPromptScreen`` shows the authorization URL in full (selectable; ``ctrl+y`` copies it),
its host, and an input where the user pastes the address the browser ended on (the redirect
URL with ``code`` and ``state``); enter submits it, escape cancels (the flow then fails with
"authorization cancelled"). ``TuiAuthUi`` is what the app gives the connection's
``OAuthManager`` as its ``ui``: ``ask_redirect_url`` opens that modal and waits for it,
``say`` is a notification. ``ConfirmForgetScreen`` asks before the Auth view clears stored
credentials.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static, TextArea

from ....core.auth.model import AuthError
from ...clipboard import copy_text

CANCELLED = "authorization cancelled"


def url_host(url: str) -> str:
    try:
        return urlsplit(url).hostname or "?"
    except ValueError:
        return "?"


def redirect_of(url: str) -> str | None:
    """The ``redirect_uri`` parameter of an authorization URL (where the browser will be sent)."""
    try:
        values = parse_qs(urlsplit(url).query).get("redirect_uri")
    except ValueError:
        return None
    return values[0] if values else None


class AuthPromptScreen(ModalScreen[str | None]):
    """The authorization URL to open, and the redirect URL to paste back."""

    # focused when the screen shows (a modal a stopped flow pushes while the app shuts down has no
    # children to query: on_mount querying the input failed a CI run)
    AUTO_FOCUS = "#auth-prompt-input"

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="auth-prompt.cancel"),
        Binding("ctrl+y", "copy_url", "Copy URL", id="auth-prompt.copy"),
    ]
    DEFAULT_CSS = """
    AuthPromptScreen { align: center middle; }
    AuthPromptScreen > Vertical { width: 100; max-width: 96%; height: auto; max-height: 96%;
                                  border: thick $primary; background: $surface; padding: 0 1; }
    AuthPromptScreen #auth-prompt-title { text-style: bold; background: $primary 30%; padding: 0 1; }
    AuthPromptScreen #auth-prompt-url { height: auto; max-height: 8; min-height: 3; margin: 1 0 0 0; }
    AuthPromptScreen #auth-prompt-help { height: auto; margin: 1 0 0 0; }
    AuthPromptScreen #auth-prompt-input { margin: 0; }
    AuthPromptScreen #auth-prompt-keys { height: 1; color: $text-muted; }
    AuthPromptScreen #auth-prompt-buttons { height: auto; align-horizontal: right; }
    AuthPromptScreen Button { margin-left: 2; min-width: 10; }
    """

    def __init__(self, url: str, redirect_uri: str | None = None) -> None:
        super().__init__()
        self.url = url
        self.redirect_uri = redirect_uri or redirect_of(url)

    def compose(self) -> ComposeResult:
        host = url_host(self.url)
        with Vertical():
            yield Static(f"Authorize at {host}", id="auth-prompt-title", markup=False)
            area = TextArea(self.url, read_only=True, soft_wrap=True, show_line_numbers=False, id="auth-prompt-url")
            yield area
            help_text = Text()
            help_text.append(
                "Open this URL in a browser (ctrl+y copies it), sign in and approve. The browser is then "
                "sent to an address"
            )
            if self.redirect_uri:
                help_text.append(" starting with ")
                help_text.append(self.redirect_uri, style="bold")
            help_text.append(" that may not load: copy that whole address from the address bar and paste it here.")
            yield Static(help_text, id="auth-prompt-help")
            yield Input(
                placeholder="the address the browser ended on (with code=… and state=…)", id="auth-prompt-input"
            )
            yield Static("enter submit · escape cancel · ctrl+y copy the URL", id="auth-prompt-keys", markup=False)
            with Horizontal(id="auth-prompt-buttons"):
                yield Button("Cancel", id="auth-prompt-cancel")
                yield Button("Submit", id="auth-prompt-submit", variant="primary")

    @on(Input.Submitted, "#auth-prompt-input")
    @on(Button.Pressed, "#auth-prompt-submit")
    def _submit(self, event: Any) -> None:
        event.stop()
        value = self.query_one("#auth-prompt-input", Input).value.strip()
        if not value:
            self.notify(
                "Paste the address the browser ended on (or escape to cancel).",
                severity="warning",
                markup=False,
                timeout=3,
            )
            return
        self.dismiss(value)

    @on(Button.Pressed, "#auth-prompt-cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_copy_url(self) -> None:
        copy_text(self.app, self.url, "the authorization URL")


class ConfirmForgetScreen(ModalScreen[bool]):
    """ "Remove the stored tokens and client of this server?" """

    BINDINGS = [
        Binding("escape,n", "dismiss(False)", "Keep them", id="auth-forget.cancel"),
        Binding("y", "dismiss(True)", "Remove", id="auth-forget.confirm"),
    ]
    DEFAULT_CSS = """
    ConfirmForgetScreen { align: center middle; }
    ConfirmForgetScreen > Vertical { width: 72; max-width: 95%; height: auto; border: thick $warning;
                                     background: $surface; padding: 1 2; }
    ConfirmForgetScreen #forget-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    ConfirmForgetScreen Button { margin-left: 2; }
    """

    def __init__(self, server: str) -> None:
        super().__init__()
        self.server = server

    def compose(self) -> ComposeResult:
        with Vertical():
            text = Text("Remove the stored credentials of ", style="bold")
            text.append(self.server)
            text.append("?")
            yield Static(text)
            yield Static(
                "The access and refresh tokens and the client registration are deleted (from memory and "
                "the token store); the next request to the server authorizes again.  y remove · n keep",
                markup=False,
            )
            with Horizontal(id="forget-buttons"):
                yield Button("Keep them", id="forget-cancel")
                yield Button("Remove", id="forget-confirm", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#forget-cancel", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "forget-confirm")


class TuiAuthUi:
    """The ``ui`` of an OAuthManager in the TUI: the print-mode modal, and notifications."""

    def __init__(self, app: App) -> None:
        self.app = app
        self._said: str | None = None  # what say() will notify, unless the modal asks at once

    async def ask_redirect_url(self, url: str, redirect_uri: str | None = None) -> str:
        """Open the modal and wait for the redirect URL; AuthError("authorization cancelled") on escape."""
        self._said = None  # the modal says it all (print mode says "open this URL" just before)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str | None] = loop.create_future()

        def done(value: str | None) -> None:
            if not answer.done():
                answer.set_result(value)

        screen = AuthPromptScreen(url, redirect_uri)
        self.app.push_screen(screen, callback=done)
        try:
            value = await answer
        except asyncio.CancelledError:  # the flow was stopped (reconnect, quit): take the modal away
            if screen.is_attached and self.app.screen is screen:
                screen.dismiss(None)
            raise
        if not value:
            raise AuthError(CANCELLED)
        return value

    def say(self, text: str) -> None:
        """A notification (browser mode: the URL opened, in case no browser came up)."""
        self._said = text
        self.app.call_later(self._notify, text)

    def _notify(self, text: str) -> None:
        if self._said == text:
            self._said = None
            self.app.notify(text, title="Authorization", markup=False, timeout=10)
