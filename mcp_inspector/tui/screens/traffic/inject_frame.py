"""ctrl+e when attached to a proxy (``mcp-inspector attach``): send a frame into the host's live session.

A deliberate act, said on the screen: the server takes the frame as the host's. The proxy gives a
request an id of its own (it cannot collide with the host's), takes the server's reply out of the
host's stream and sends it here alone, its id back to the one written (core/proxy/inject.py). Both
frames are in the traffic log, marked injected. Only a request or a notification, only into a
stdio proxy (an HTTP proxy refuses, and says so under the editor).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from ....core.base.errors import InspectorError
from ....core.protocol import raw_templates as templates
from ....core.protocol.raw import describe
from ....core.proxy.feed import FeedError
from ....core.proxy.viewer import Injected, LiveFeed
from ...keymap import screen_palette_commands
from ...widgets.result.json_text import json_code_editor
from .pick_list import PickList

WARNING = (
    "⚠ Attached to proxy {name}: a frame sent from here goes into the host's live session, and the "
    "server takes it as the host's. The reply comes back here only (the proxy gives the request an id "
    "of its own); both are recorded, marked injected."
)
TEMPLATES: list[tuple[str | None, str, Any]] = [("p", "ping", "ping"), ("t", "tools/list", "tools/list")]
PALETTE = [("send the frame into the session", "send"), ("templates", "templates"), ("close the screen", "close")]


class InjectFrameScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    InjectFrameScreen { align: center middle; }
    InjectFrameScreen > Vertical { width: 100%; height: 100%; border: thick $warning; background: $surface; }
    InjectFrameScreen #inject-title { background: $warning 30%; padding: 0 1; text-style: bold; height: 1; }
    InjectFrameScreen #inject-warning { padding: 0 1; height: auto; color: $text-warning; }
    InjectFrameScreen #inject-kind { padding: 0 1; height: 1; }
    InjectFrameScreen #inject-editor { height: 1fr; min-height: 6; }
    InjectFrameScreen #inject-status { padding: 0 1; height: auto; max-height: 3; }
    InjectFrameScreen #inject-status.-bad { color: $text-error; }
    InjectFrameScreen #inject-reply { height: 1fr; min-height: 4; border: round $primary 50%; }
    InjectFrameScreen #inject-reply-text { padding: 0 1; }
    InjectFrameScreen #inject-keys { padding: 0 1; height: auto; color: $text-muted; }
    """
    BINDINGS = [
        Binding("ctrl+s", "send", "Send", id="inject-frame.send", tooltip="Send the frame into the host's session"),
        Binding("ctrl+t", "templates", "Templates", id="inject-frame.templates", tooltip="Templates: ping, tools/list"),
        Binding("escape", "close", "Close", id="inject-frame.close", tooltip="Close the screen"),
    ]

    class Sent(Message):
        def __init__(self, tag: int | None, error: str | None = None) -> None:
            super().__init__()
            self.tag = tag
            self.error = error

    def __init__(self, feed: LiveFeed, listeners: list[Callable[[Injected], None]]) -> None:
        super().__init__()
        self.feed = feed
        self.listeners = listeners  # the attached main screen's: each answer to a frame sent
        self.name_shown = str(feed.header.get("name") or "?")
        self.watching: int | None = None  # tag of the last frame sent: its answer is shown
        self._answers: dict[int, Injected] = {}
        self._ids = 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Send into {self.name_shown}'s session"), id="inject-title")
            yield Static(WARNING.format(name=self.name_shown), id="inject-warning", markup=False)
            yield Static("", id="inject-kind", markup=False)
            yield json_code_editor(self._template("ping"), id="inject-editor", tab_behavior="focus", soft_wrap=True)
            yield Static("", id="inject-status", markup=False)
            with VerticalScroll(id="inject-reply"):
                yield Static("The reply shows here.", id="inject-reply-text", markup=False)
            yield Static("ctrl+s send · ctrl+t templates · esc", id="inject-keys", markup=False)

    def on_mount(self) -> None:
        self.listeners.append(self._on_answer)
        self._show_kind()
        self.editor.focus()

    def on_unmount(self) -> None:
        if self._on_answer in self.listeners:
            self.listeners.remove(self._on_answer)

    @property
    def editor(self) -> TextArea:
        return self.query_one("#inject-editor", TextArea)

    def _status(self, text: str, bad: bool = False) -> None:
        status = self.query_one("#inject-status", Static)
        status.update(text)
        status.set_class(bad, "-bad")

    @on(TextArea.Changed, "#inject-editor")
    def _show_kind(self) -> None:
        self.query_one("#inject-kind", Static).update(describe(self.editor.text).text)

    def _template(self, method: str) -> str:
        self._ids += 1
        return templates.request(f"viewer-{self._ids}", method, None if method == "ping" else {})

    def action_templates(self) -> None:
        self.app.push_screen(PickList("Templates (a letter or enter picks one)", TEMPLATES), callback=self._use)

    def _use(self, method: str | None) -> None:
        if method is not None:
            self.editor.load_text(self._template(method))
            self.editor.focus()

    def action_send(self) -> None:
        hint = describe(self.editor.text)
        if hint.kind not in ("request", "notification"):
            self._status(f"Not sent: only a request or a notification goes into the session ({hint.text}).", bad=True)
            return
        self._status("Sending…")
        self._send(self.editor.text)

    @work(thread=True, group="inject-frame", exit_on_error=False)
    def _send(self, text: str) -> None:
        try:
            self.post_message(self.Sent(self.feed.send(text)))
        except (FeedError, InspectorError) as exc:
            self.post_message(self.Sent(None, str(exc)))

    @on(Sent)
    def _sent(self, message: Sent) -> None:
        if message.tag is None:
            self._status(f"Not sent: {message.error}", bad=True)
            return
        self.watching = message.tag
        self._status(f"Sent into {self.name_shown}'s session (frame {message.tag}).")
        answer = self._answers.get(message.tag)
        if answer is not None:
            self._show(answer)
        else:
            self._reply(Text("Waiting for the proxy…", style="italic"))

    def _on_answer(self, answer: Injected) -> None:
        """Called by the attached screen (on the event loop) for each answer to this viewer."""
        self._answers[answer.tag] = answer
        while len(self._answers) > 64:
            self._answers.pop(next(iter(self._answers)))
        if answer.tag == self.watching:
            self._show(answer)

    def _show(self, answer: Injected) -> None:
        if answer.refused is not None:
            self._status(f"Refused by the proxy: {answer.refused}", bad=True)
            self._reply(Text("Nothing was sent.", style="italic"))
        elif answer.reply is not None:
            head = Text("The server's reply (to this viewer only):\n", style="bold")
            try:
                pretty = json.dumps(json.loads(answer.reply), indent=2, ensure_ascii=False)
            except ValueError:
                pretty = answer.reply
            head.append_text(JSONHighlighter()(Text(pretty[:20_000])))
            self._reply(head)
        else:
            self._reply(Text("Sent: a notification, no reply is expected.", style="italic"))

    def _reply(self, text: Text) -> None:
        self.query_one("#inject-reply-text", Static).update(text)

    def action_close(self) -> None:
        self.dismiss(None)

    def palette_commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        return screen_palette_commands(self, "inject frame", PALETTE)
