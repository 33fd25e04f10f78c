"""The frame every answering screen shares: title, context (which MRTR round of which call
asks), a body that scrolls, the key hints, and the keys (ids for ``[keymap]``): ctrl+s accept,
ctrl+r decline, escape cancel. ``ServerRequestScreen(method, params, context)`` picks the
subclass for the request (see ``server_request.pick_screen``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...keymap import display_key


@dataclass
class Answer:
    action: str  # accept | decline | cancel
    text: str = ""  # the raw answer typed (an elicitation's JSON content)
    result: dict | None = None  # a ready result (the form, URL mode, sampling): sent as it is


def keymap_key(screen: Any, binding_id: str, default: str) -> str:
    """The first key bound to ``binding_id`` after the user's remapping, for hints."""
    keymap = getattr(screen.app, "keymap", None) if screen.is_attached else None
    keymap = keymap if isinstance(keymap, dict) else {}
    return display_key(keymap.get(binding_id, default)).split(",")[0]


class ServerRequestScreen(ModalScreen[Answer]):
    """Base of the answering screens; constructing it directly builds the right subclass."""

    DEFAULT_CSS = """
    ServerRequestScreen { align: center middle; }
    ServerRequestScreen > #request-box {
        width: 90;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        border: thick $warning;
        background: $surface;
    }
    ServerRequestScreen #request-title { background: $warning 30%; padding: 0 1; text-style: bold; }
    ServerRequestScreen #request-context { padding: 0 1; color: $text-muted; }
    ServerRequestScreen #request-queue { padding: 0 1; color: $text-warning; text-style: bold; }
    ServerRequestScreen #request-queue.-empty { display: none; }
    ServerRequestScreen #request-server { padding: 0 1; text-style: bold; }
    ServerRequestScreen #request-server.-hidden-server { color: $text-warning; }
    ServerRequestScreen #request-note {
        padding: 0 1;
        color: $text-warning;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    ServerRequestScreen #request-body { height: auto; padding: 0 1; }
    ServerRequestScreen #request-buttons { height: auto; align-horizontal: right; }
    ServerRequestScreen #request-buttons Button { margin-left: 1; }
    ServerRequestScreen #request-keys { padding: 0 1; color: $text-muted; text-align: right; }
    """
    BINDINGS = [
        Binding("ctrl+s", "answer('accept')", "Accept", id="server-request.accept"),
        Binding("ctrl+r", "answer('decline')", "Decline", id="server-request.decline"),
        Binding("escape", "answer('cancel')", "Cancel", id="cancel-server-request"),
    ]
    kind = "raw"
    #: the body's share of the terminal's height at most (None: all the room there is)
    body_share: float | None = None

    #: picks the subclass for a request; ``server_request`` (which knows them all) sets it when imported
    picker: Callable[[str, dict], type[ServerRequestScreen]] | None = None

    def __new__(cls, method: str, params: dict | None = None, *args: Any, **kwargs: Any) -> ServerRequestScreen:
        picker = ServerRequestScreen.picker
        if cls is ServerRequestScreen and picker is not None:
            cls = picker(method, params if isinstance(params, dict) else {})
        return super().__new__(cls)

    def __init__(self, method: str, params: dict | None, context: str | None = None) -> None:
        super().__init__()
        self.method = method
        self.params = params if isinstance(params, dict) else {}
        self.context = context  # which round of which request asks (MRTR), shown under the title
        self.form = None  # the ElicitationForm (form mode only)
        self.url = None  # the UrlFacts (URL mode only)
        self.origin: str | None = None  # the name of the server that asks (set before the screen is shown)
        self.origin_hidden = False  # that server is not the one on screen (a switch waits for it)
        self.queue_line = ""  # how many requests wait after this one, how many were refused (queue.py)
        self._done = False
        self._withdrawn = False  # the request ended without this screen (``withdraw``)
        self._built = False  # mounted: its parts are whole (``on_mount``)

    # -- what subclasses give --------------------------------------------
    def title_text(self) -> str:
        return f"The server asks: {self.method}"

    def compose_body(self) -> ComposeResult:
        yield from ()

    def hints(self) -> list[str]:
        """Key hints shown before accept/decline/cancel."""
        return []

    def scroller(self) -> VerticalScroll | None:
        found = self.query("#request-body")
        return found.first(VerticalScroll) if found else None

    def focus_first(self) -> None:
        pass

    def answer(self, action: str) -> None:
        self.finish(Answer(action))

    # -- the frame -------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(id="request-box"):
            yield Static(self.title_text(), id="request-title", markup=False)
            if self.origin:
                yield Static(
                    self.origin_text(),
                    id="request-server",
                    markup=False,
                    classes="-hidden-server" if self.origin_hidden else "",
                )
            if self.context:
                yield Static(self.context, id="request-context", markup=False)
            yield Static(self.queue_line, id="request-queue", markup=False, classes="" if self.queue_line else "-empty")
            yield from self.compose_body()
            yield Static(self.key_hint(), id="request-keys", markup=False)

    def show_queue_line(self, text: str) -> None:
        """Say how many requests wait after this one (and how many were refused)."""
        if text == self.queue_line:
            return
        self.queue_line = text
        # the line is composed with queue_line; a screen being dismissed may have lost its children
        line = self.query_one_optional("#request-queue", Static) if self.is_mounted else None
        if line is not None:
            line.update(text)
            line.set_class(not text, "-empty")
            self.call_after_refresh(self._fit)

    def origin_text(self) -> str:
        if self.origin_hidden:
            return f"From {self.origin}: the server being switched to, not the one on screen behind this"
        return f"From {self.origin}"

    def key_hint(self) -> str:
        return " · ".join(
            self.hints()
            + [
                f"{keymap_key(self, 'server-request.accept', 'ctrl+s')} accept",
                f"{keymap_key(self, 'server-request.decline', 'ctrl+r')} decline",
                f"{keymap_key(self, 'cancel-server-request', 'escape')} cancel",
            ]
        )

    def on_mount(self) -> None:
        self._built = True
        if self._withdrawn:  # while it was being built: it leaves now that its parts are whole
            self.on_screen_resume()
            return
        self.query_one("#request-keys", Static).update(self.key_hint())
        self.call_after_refresh(self._fit)
        self.call_after_refresh(self._focus_first_if_shown)

    def _still_shown(self) -> bool:
        """Still for the user: neither answered nor withdrawn, and in the DOM. A step deferred to
        after a refresh may come once the screen was taken down and its children removed."""
        return not self._done and self.is_attached

    def _focus_first_if_shown(self) -> None:
        if self._still_shown():
            self.focus_first()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def withdraw(self) -> None:
        """The request ended without this screen (the server cancelled it, or a response sent by
        hand answered it): it leaves now if it is on top, else as soon as it comes back on top."""
        self._done = True
        self._withdrawn = True
        self.on_screen_resume()

    def on_screen_resume(self) -> None:
        # Never taken down while being built (on_mount does it then): removing a screen mid-mount
        # prunes the parts of a Select in it before the Select's own Mount handler runs, which
        # then fails on them (NoMatches) and ends the app.
        if self._withdrawn and self._built and self.is_attached and self.app.screen is self:
            self.app.pop_screen()

    def _fit(self) -> None:
        """Give the scrolling part what the box has left once everything else is shown, so the
        buttons stay on screen whatever the terminal size (a container of height auto does not
        shrink its children to its max-height)."""
        if not self._still_shown():
            return
        body = self.scroller()
        if body is None:
            return
        box = self.query_one("#request-box", Vertical)
        limit = int(self.size.height * 0.9) - box.styles.gutter.height

        def rows(widget) -> int:
            height = widget.outer_size.height + widget.styles.margin.top + widget.styles.margin.bottom
            return max(height, 1) if widget.id == "elicitation-error" else height  # room for the reason

        used = 0
        for child in box.children:
            if child is body:
                continue
            if child in body.ancestors:  # a container holding the body (the elicitation form)
                used += child.styles.gutter.height + sum(
                    rows(part) for part in child.children if part is not body and part not in body.ancestors
                )
            else:
                used += rows(child)
        room = max(3, limit - used)
        if self.body_share is not None:
            room = min(room, max(3, int(self.size.height * self.body_share)))
        if body.styles.max_height is None or body.styles.max_height.value != room:
            body.styles.max_height = room

    def action_answer(self, action: str) -> None:
        self.answer(action)

    def finish(self, answer: Answer) -> None:
        if self._done:
            return
        self._done = True
        self.dismiss(answer)
