"""URL-mode ``elicitation/create``: the full URL and the host it really goes to, with warnings
for what is odd about it (``url_facts``, in core: the CLI says the same); opened in the browser
only when the user asks (ctrl+o), never fetched by the inspector. Accept says the user consented
(the page's outcome comes later, in ``notifications/elicitation/complete`` when the server
sends one). A ``-32042`` error's URLs: url_required.py."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Static

from ....core.schema.elicitation_form import elicit_result
from ....core.session.url_elicitation import UrlFacts, url_facts
from ...text.traffic_text import clean
from .base import Answer, ServerRequestScreen, keymap_key


def compose_url(facts: UrlFacts, message: Any, elicitation_id: Any, ids: bool = False) -> ComposeResult:
    """The lines that show one URL: the server's message, the host, the full URL, the warnings
    (``ids``: the one URL of the screen, its parts with ids)."""

    def named(part: str) -> str | None:
        return f"url-{part}" if ids else None

    if isinstance(message, str) and message:
        yield Static(message, id=named("message"), classes="url-message", markup=False)
    yield Static(f"Opens a page on {facts.host or '(no host)'}", id=named("host"), classes="url-host", markup=False)
    yield Static(facts.url or "(no URL)", id=named("full"), classes="url-full", markup=False)
    for warning in facts.warnings:
        yield Static(f"⚠ {warning}", classes="url-warning", markup=False)
    if isinstance(elicitation_id, str):
        yield Static(f"elicitationId {clean(elicitation_id[:80])}", classes="url-id", markup=False)


URL_CSS = """
UrlScreen #request-body > Static { height: auto; }
UrlScreen .url-message { margin-bottom: 1; }
UrlScreen .url-host { text-style: bold; color: $text-accent; }
UrlScreen .url-full { background: $boost; }
UrlScreen .url-warning { color: $text-warning; }
UrlScreen .url-id { color: $text-muted; }
UrlScreen #url-opened { color: $text-success; }
"""


class UrlScreen(ServerRequestScreen):
    """A URL-mode elicitation: consent first; ctrl+o opens the page in the browser."""

    DEFAULT_CSS = URL_CSS
    BINDINGS = [Binding("ctrl+o", "open_url", "Open URL", id="server-request.open-url")]
    kind = "url"

    def __init__(self, method: str, params: dict | None, context: str | None = None) -> None:
        super().__init__(method, params, context)
        self.url = url_facts(self.params.get("url"))
        self.opened = False  # the user opened the URL

    def title_text(self) -> str:
        return f"The server asks: {self.method} (URL)"

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="request-body"):
            yield from compose_url(self.url, self.params.get("message"), self.params.get("elicitationId"), ids=True)
            yield Static(
                "Nothing is fetched: the page opens in your browser only if you ask.", id="url-opened", markup=False
            )
        with Horizontal(id="request-buttons"):
            yield Button("Open in browser", id="open-url", disabled=not self.url.can_open, compact=True)
            yield Button("Cancel", id="cancel", compact=True)
            yield Button("Decline", id="decline", compact=True)
            yield Button("Accept", variant="primary", id="accept", compact=True)

    def hints(self) -> list[str]:
        return [f"{keymap_key(self, 'server-request.open-url', 'ctrl+o')} open in browser"] if self.url.can_open else []

    def focus_first(self) -> None:
        self.query_one("#open-url" if self.url.can_open else "#decline", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_url":
            return self.url.can_open
        return True

    def answer(self, action: str) -> None:
        self.finish(Answer(action, result=elicit_result(action) if action != "accept" else {"action": "accept"}))

    def action_open_url(self) -> None:
        """Open the URL in the browser: only ever on the user's explicit request."""
        if not self.url.can_open:
            return
        self.app.open_url(self.params["url"])
        self.opened = True
        self.query_one("#url-opened", Static).update(
            f"Opened in your browser: {self.url.host}. Accept once you are done there."
        )
        self.query_one("#accept", Button).focus()

    @on(Button.Pressed, "#accept, #decline, #cancel")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.answer(event.button.id or "cancel")

    @on(Button.Pressed, "#open-url")
    def _open_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_open_url()
