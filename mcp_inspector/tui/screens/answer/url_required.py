"""URL elicitation required (``-32042`` on a ``tools/call``, 2025-11-25): each URL the server
listed, with its message, the host it really goes to and the full URL; one opens in the browser
only when the user asks (its button, or ctrl+o on the focused one), nothing is fetched. Each is
marked done when the server's ``notifications/elicitation/complete`` for its ``elicitationId``
arrives; once all are done the call is retried by itself, and ctrl+s retries it at any time.

Only completions that arrive after the error count (frame numbers after ``after_seq``, the
error's), so a server that answers the retry with the same
error again cannot make the screen retry in a loop: the user is asked again."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from ....core.session.url_elicitation import RequiredUrl, UrlElicitationRequired
from ...text.traffic_text import clean
from .base import Answer, ServerRequestScreen, keymap_key
from .url_elicitation import URL_CSS, compose_url

REQUIRED_CSS = (
    URL_CSS.replace("UrlScreen", "UrlRequiredScreen")
    + """
UrlRequiredScreen .url-item { height: auto; margin-bottom: 1; border-left: wide $warning; padding-left: 1; }
UrlRequiredScreen .url-item.done { border-left: wide $success; }
UrlRequiredScreen .url-item Button { margin-top: 0; }
UrlRequiredScreen .url-status { color: $text-muted; }
UrlRequiredScreen .url-item.done .url-status { color: $text-success; text-style: bold; }
"""
)


class UrlRequiredScreen(ServerRequestScreen):
    """The URLs of a ``-32042`` error; dismissed with ``accept`` to retry the call, ``cancel`` to leave it."""

    DEFAULT_CSS = REQUIRED_CSS
    BINDINGS = [Binding("ctrl+o", "open_url", "Open URL", id="server-request.open-url")]
    kind = "url-required"

    def __init__(
        self,
        error: UrlElicitationRequired,
        after_seq: int = 0,
        completed: dict[str, int] | None = None,
        context: str | None = None,
    ) -> None:
        super().__init__("tools/call", {"name": error.name}, context)
        self.error = error
        self.items: list[RequiredUrl] = list(error.elicitations)
        self.done: set[int] = set()  # indexes of the URLs the server said are complete
        self.opened: set[int] = set()  # indexes of the URLs the user opened
        # the session's completions so far (elicitationId -> frame number): those after the error count
        self.early = [ident for ident, seq in (completed or {}).items() if seq > after_seq]
        self.retrying = False

    def title_text(self) -> str:
        count = len(self.items)
        return (
            f"{clean(self.error.name)[:60]} needs {'a URL' if count == 1 else f'{count} URLs'} completed first (-32042)"
        )

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="request-body"):
            yield Static(self.error.message, id="url-required-message", markup=False)
            yield Static(
                "Nothing is fetched: a page opens in your browser only if you ask. The call is "
                "retried by itself once the server says each one is complete.",
                id="url-opened",
                markup=False,
            )
            for problem in self.error.problems:
                yield Static(f"⚠ {problem}", classes="url-warning", markup=False)
            for index, item in enumerate(self.items):
                facts = item.facts
                with Vertical(classes="url-item", id=f"url-item-{index}"):
                    yield from compose_url(facts, item.message, item.elicitation_id)
                    yield Static(self._status(index), classes="url-status", id=f"url-status-{index}", markup=False)
                    yield Button(
                        f"Open {facts.host or 'URL'} in browser",
                        id=f"open-{index}",
                        disabled=not facts.can_open,
                        compact=True,
                    )
        with Horizontal(id="request-buttons"):
            yield Button("Close", id="cancel", compact=True)
            yield Button("Retry now", variant="primary", id="accept", compact=True)

    def key_hint(self) -> str:
        return " · ".join(
            [
                f"{keymap_key(self, 'server-request.open-url', 'ctrl+o')} open the focused URL",
                f"{keymap_key(self, 'server-request.accept', 'ctrl+s')} retry now",
                f"{keymap_key(self, 'cancel-server-request', 'escape')} close",
            ]
        )

    def on_mount(self) -> None:
        super().on_mount()
        for ident in self.early:  # a completion that came between the error and this screen
            self.call_after_refresh(self.mark_complete, ident)

    def focus_first(self) -> None:
        for index, item in enumerate(self.items):
            if item.facts.can_open and index not in self.done:
                self.query_one(f"#open-{index}", Button).focus()
                return
        self.query_one("#accept", Button).focus()

    def _status(self, index: int) -> str:
        if index in self.done:
            return "✓ done: the server sent notifications/elicitation/complete"
        if self.items[index].elicitation_id is None:
            return "no elicitationId: its completion cannot be told; retry by hand"
        if index in self.opened:
            return "opened in your browser: waiting for the server to say it is complete"
        return "waiting: not opened"

    def _show_status(self, index: int) -> None:
        self.query_one(f"#url-status-{index}", Static).update(self._status(index))
        self.query_one(f"#url-item-{index}").set_class(index in self.done, "done")

    def mark_complete(self, elicitation_id: str) -> None:
        """The server said ``elicitation_id`` is complete; all done: retry the call."""
        found = [i for i, item in enumerate(self.items) if item.elicitation_id == elicitation_id and i not in self.done]
        if not found or self._done:
            return
        for index in found:
            self.done.add(index)
            if self.is_mounted:
                self._show_status(index)
        if len(self.done) == len(self.items):
            self.retrying = True
            self.app.notify(
                f"Every URL is complete: calling {clean(self.error.name)[:60]} again.",
                title="URL elicitation",
                markup=False,
            )
            self.finish(Answer("accept"))

    def answer(self, action: str) -> None:
        self.finish(Answer("accept" if action == "accept" else "cancel"))

    def _focused_index(self) -> int | None:
        focused = self.focused
        for node in [focused, *(focused.ancestors if focused is not None else [])]:
            ident = getattr(node, "id", None) or ""
            for prefix in ("open-", "url-item-"):
                if ident.startswith(prefix) and ident[len(prefix) :].isdigit():
                    return int(ident[len(prefix) :])
        return None

    def action_open_url(self) -> None:
        """Open the focused URL (or the first one not opened yet) in the browser: only on request."""
        index = self._focused_index()
        if index is None:
            index = next(
                (
                    i
                    for i, item in enumerate(self.items)
                    if item.facts.can_open and i not in self.opened and i not in self.done
                ),
                None,
            )
        if index is not None:
            self.open_url(index)

    def open_url(self, index: int) -> None:
        item = self.items[index]
        if not item.facts.can_open:
            return
        self.app.open_url(item.url)
        self.opened.add(index)
        self._show_status(index)
        following = next(
            (i for i in range(index + 1, len(self.items)) if self.items[i].facts.can_open and i not in self.done), None
        )
        self.query_one(f"#open-{following}" if following is not None else "#accept", Button).focus()

    @on(Button.Pressed, "#accept, #cancel")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.answer(event.button.id or "cancel")

    @on(Button.Pressed, ".url-item Button")
    def _open_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.open_url(int((event.button.id or "open-0").removeprefix("open-")))
