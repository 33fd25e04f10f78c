"""The raw frame screen (ctrl+e, palette "raw frame: send a JSON-RPC frame by hand").

A JSON editor whose text is sent as one frame through the live session's transport
(core/protocol/raw.py): a request to any method, a notification, a response to a server
request waiting for an answer, a batch, or, with "as is" (ctrl+n), any text at all. The
kind of frame shows as you type (a parse error with its line and column). ctrl+t picks a
template (ping, tools/list, logging/setLevel, notifications/cancelled for a request in
flight, a response to a server request, a batch, invalid JSON on purpose). The reply, when
it comes, shows under the editor with its latency; the pair is linked in the traffic log
(``j`` there jumps between them). The last 50 frames sent to each server are kept
(core/config/raw_history.py): ctrl+up / ctrl+down recall them, ctrl+o lists them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from ....core.base.errors import ConnectionLost, InspectorError, RequestTimeout
from ....core.base.json_text import JsonTextError, parse_frame
from ....core.base.jsonrpc import Kind
from ....core.config.raw_history import RawHistory
from ....core.protocol import raw_templates as templates
from ....core.protocol.raw import FrameRefused, IdInFlight, RawSent, describe, fresh_id, prepare, send_frame
from ....core.session.mcp_session import McpSession
from ....core.traffic.entry import Direction, TrafficEntry
from ....core.traffic.store import TrafficStore
from ...keymap import screen_palette_commands
from ...text.traffic_text import clean
from ...widgets.result.json_text import json_code_editor
from .pick_list import PickList

REPLY_SHOWN_CHARS = 20_000  # of a reply's pretty JSON (the traffic log has all of it)
MODERN_NOTE = (
    "2026-07-28: no session and no initialize; a request carries its own _meta (the templates add "
    "it); servers send no requests, so there is nothing to answer; ping and logging/setLevel are gone."
)
PALETTE = [
    ("send the frame", "send"),
    ("templates", "templates"),
    ("history: the frame sent before", "history(-1)"),
    ("history: the frame sent after", "history(1)"),
    ("history: list the frames sent", "history_list"),
    ("send as is (on/off)", "toggle_as_is"),
    ("close the screen", "close"),
]
TEMPLATE_CHOICES = [
    ("p", "ping", "ping"),
    ("t", "tools/list", "tools/list"),
    ("l", "logging/setLevel … (pick the level)", "setLevel"),
    ("c", "notifications/cancelled … (pick a request in flight)", "cancel"),
    ("r", "a response to a server request … (pick one waiting for an answer)", "response"),
    ("b", "a batch: ping and tools/list in one frame", "batch"),
    ("i", "invalid JSON, on purpose (sent as is)", "invalid"),
]


class RawFrameScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    RawFrameScreen { align: center middle; }
    RawFrameScreen > Vertical { width: 100%; height: 100%; border: thick $primary; background: $surface; }
    RawFrameScreen #raw-title { background: $primary 30%; padding: 0 1; text-style: bold; height: 1; }
    RawFrameScreen #raw-kind { padding: 0 1; height: 1; }
    RawFrameScreen #raw-kind.-ok { color: $text-success; }
    RawFrameScreen #raw-kind.-bad { color: $text-warning; }
    RawFrameScreen #raw-note { padding: 0 1; height: auto; max-height: 3; color: $text-muted; }
    RawFrameScreen #raw-editor { height: 1fr; min-height: 8; }
    RawFrameScreen #raw-status { padding: 0 1; height: auto; max-height: 3; }
    RawFrameScreen #raw-status.-bad { color: $text-error; }
    RawFrameScreen #raw-reply { height: 1fr; min-height: 4; border: round $primary 50%; }
    RawFrameScreen #raw-reply:focus { border: round $accent; }
    RawFrameScreen #raw-reply-text { padding: 0 1; }
    RawFrameScreen #raw-keys { padding: 0 1; height: auto; color: $text-muted; }
    """
    BINDINGS = [
        Binding("ctrl+s", "send", "Send", id="raw-frame.send", tooltip="Send the frame"),
        Binding(
            "ctrl+t",
            "templates",
            "Templates",
            id="raw-frame.templates",
            tooltip="Templates: ping, tools/list, setLevel, cancelled, a response, a batch, invalid JSON",
        ),
        Binding("ctrl+up", "history(-1)", "Older", id="raw-frame.older", tooltip="History: the frame sent before"),
        Binding("ctrl+down", "history(1)", "Newer", id="raw-frame.newer", tooltip="History: the frame sent after"),
        Binding(
            "ctrl+o",
            "history_list",
            "History",
            id="raw-frame.history",
            tooltip="History: the last 50 frames sent to this server, to pick one",
        ),
        Binding(
            "ctrl+n",
            "toggle_as_is",
            "As is",
            id="raw-frame.as-is",
            tooltip="Send as is (on/off): the text unchanged, not checked (invalid JSON on purpose)",
        ),
        Binding("escape", "close", "Close", id="raw-frame.close", tooltip="Close the raw frame screen"),
    ]

    class Sent(Message):
        def __init__(self, sent: RawSent, warnings: list[str]) -> None:
            super().__init__()
            self.sent = sent
            self.warnings = warnings

    class Failed(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Settled(Message):
        """Every request the frame carried ended (answered, timed out, cancelled, lost)."""

        def __init__(self, seq: int, problems: list[str]) -> None:
            super().__init__()
            self.seq = seq
            self.problems = problems

    class ReplyArrived(Message):
        def __init__(self, entry: TrafficEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(
        self,
        server_name: str,
        server_key: str | None,
        live: Callable[[], Any],
        store: TrafficStore,
        history: RawHistory | None,
        text: str = "",
    ) -> None:
        super().__init__()
        self.server_name = server_name
        self.server_key = server_key
        self.live = live  # () -> the live McpSession, or None
        self.store = store
        self.history = history
        self.as_is = False
        self.watching: int | None = None  # seq of the last frame sent: its reply is shown
        self._replies: dict[int, TrafficEntry] = {}  # replies to frames sent from here, by the frame's seq
        self._frames = history.frames(server_key) if history is not None and server_key else []
        self._recall: int | None = None  # index in _frames being shown (None: the text being written)
        self._draft = text
        self._stop_listening: Callable[[], None] | None = None
        self._local_ids = 0  # ids for templates when not connected

    # -- layout --------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self._title()), id="raw-title")
            yield Static("", id="raw-kind", markup=False)
            yield Static("", id="raw-note", markup=False)
            yield json_code_editor(self._draft, id="raw-editor", tab_behavior="focus", soft_wrap=True)
            yield Static("", id="raw-status", markup=False)
            with VerticalScroll(id="raw-reply"):
                yield Static("The reply shows here.", id="raw-reply-text", markup=False)
            yield Static(
                "ctrl+s send · ctrl+t templates · ctrl+↑/↓/o history · ctrl+n as is · esc", id="raw-keys", markup=False
            )

    def on_mount(self) -> None:
        self._stop_listening = self.store.add_listener(self._on_entry)
        self._show_kind()
        self._show_note()
        notes = []
        if self.history is not None and self.history.warning:
            notes.append(self.history.warning)
        if self.live() is None:
            notes.append("Not connected: a frame can be written here, not sent (f7 picks a server).")
        if notes:
            self._status(" ".join(notes), bad=True)
        self.query_one("#raw-editor", TextArea).focus()

    def on_unmount(self) -> None:
        if self._stop_listening is not None:
            with contextlib.suppress(ValueError):
                self._stop_listening()

    def _title(self) -> str:
        session = self.live()
        if session is None:
            return f"Raw frame → {self.server_name} (not connected)"
        kind = getattr(session.transport, "kind", "?")
        version = session.protocol_version or "?"
        return f"Raw frame → {self.server_name} ({kind}, {version})"

    @property
    def editor(self) -> TextArea:
        return self.query_one("#raw-editor", TextArea)

    def _status(self, text: str, bad: bool = False) -> None:
        status = self.query_one("#raw-status", Static)
        status.update(text)
        status.set_class(bad, "-bad")

    def _show_note(self, extra: str = "") -> None:
        parts = []
        session = self.live()
        if session is not None and getattr(session, "era", None) == "modern":
            parts.append(MODERN_NOTE)
        if self.as_is:
            parts.append("As is: ON: the text goes unchanged, without any check (ctrl+n turns it off).")
        if extra:
            parts.append(extra)
        note = self.query_one("#raw-note", Static)
        note.update(" ".join(parts))
        note.display = bool(parts)

    @on(TextArea.Changed, "#raw-editor")
    def _changed(self) -> None:
        self._show_kind()

    def _show_kind(self) -> None:
        hint = describe(self.editor.text)
        kind = self.query_one("#raw-kind", Static)
        text = hint.text
        if self.as_is and not hint.sendable and hint.kind != "empty":
            text += ": sent as is"
        kind.update(text)
        kind.set_class(hint.sendable, "-ok")
        kind.set_class(not hint.sendable, "-bad")

    # -- sending -------------------------------------------------------
    def action_send(self) -> None:
        session = self.live()
        if session is None:
            self._status("Not connected: nothing was sent (f7 picks a server; ctrl+r reconnects).", bad=True)
            return
        text = self.editor.text
        if not text.strip() and not self.as_is:
            self._status("Nothing to send: type a frame or pick a template (ctrl+t).", bad=True)
            return
        stdio = getattr(session.transport, "kind", "") == "stdio"
        try:
            data, warnings = prepare(text, as_is=self.as_is, stdio=stdio)
        except FrameRefused as exc:
            self._status(f"Not sent: {exc}", bad=True)
            return
        self._status("Sending…")
        self.app.run_worker(
            self._send(session, data, text, self.as_is, warnings), group="raw-frame", exit_on_error=False
        )

    async def _send(self, session: McpSession, data: bytes, text: str, as_is: bool, warnings: list[str]) -> None:
        """An app worker (it outlives the screen: closing it must not stop waiting, which would cancel)."""
        try:
            sent = await send_frame(session.connection, data)
        except IdInFlight as exc:
            self.post_message(self.Failed(f"Not sent: {exc}"))
            return
        except InspectorError as exc:
            self.post_message(self.Failed(f"Not sent: {exc}"))
            return
        self.post_message(self.Sent(sent, warnings))
        if self.history is not None and self.server_key:
            problem = await asyncio.to_thread(self.history.add, self.server_key, text, as_is)
            if problem:
                self.post_message(self.Failed(problem))
        problems = []
        for pending in sent.waits:
            try:
                await pending.wait()
            except RequestTimeout as exc:
                problems.append(f"{exc} (notifications/cancelled was sent)")
            except ConnectionLost as exc:
                problems.append(f"the connection closed before the reply: {exc}")
            except Exception:  # an error reply, a cancel: the reply (or its absence) says it
                pass
        if sent.waits:
            self.post_message(self.Settled(sent.entry.seq, problems))

    @on(Sent)
    def _sent(self, message: Sent) -> None:
        sent = message.sent
        entry = sent.entry
        self.watching = entry.seq
        self.query_one("#raw-title", Static).update(Text(self._title()))  # the server may have been reconnected
        self._recall = None
        self._frames = (
            self.history.frames(self.server_key) if self.history is not None and self.server_key else self._frames
        )
        lines = [f"Sent #{entry.seq}: {self._what(sent)}."]
        lines += [f"⚠ {note}" for note in message.warnings + sent.notes]
        bad = bool(message.warnings or sent.notes)
        self._status(" ".join(lines), bad=bad)
        reply = self._replies.get(entry.seq)
        if reply is not None:
            self._show_reply(reply)
        elif sent.expects_reply:
            self._reply_text(Text(f"Waiting for the reply to #{entry.seq}…", style="italic"))
        else:
            self._reply_text(Text("Nothing is awaited for this frame.", style="italic"))

    def _what(self, sent: RawSent) -> str:
        entry = sent.entry
        if sent.kind is Kind.REQUEST:
            return f"request {clean(entry.method or '')} (id {json.dumps(entry.msg_id)})"
        if sent.kind is Kind.BATCH:
            return f"a batch with {len(sent.members)} request(s)"
        if sent.kind is Kind.NOTIFICATION:
            what = f"notification {clean(entry.method or '')}: no reply is expected"
            if sent.cancelled is not None:
                seq = sent.cancelled.entry.seq if sent.cancelled.entry is not None else "?"
                what += f"; request #{seq} ({clean(sent.cancelled.method)}) ended here too"
            return what
        if sent.kind in (Kind.RESPONSE, Kind.ERROR):
            what = "an error response" if sent.kind is Kind.ERROR else "a response"
            if sent.answered is not None:
                what += (
                    f" answering the server's #{sent.answered.entry.seq} {clean(sent.answered.method)} "
                    "(its answering screen is withdrawn)"
                )
            return what
        return (
            "as is, not JSON-RPC: the server may answer with an error (shown below) or say nothing"
            if sent.pending is None
            else f"as is, an invalid request with id {json.dumps(entry.msg_id)}"
        )

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        self._status(message.text, bad=True)

    @on(Settled)
    def _settled(self, message: Settled) -> None:
        if message.seq == self.watching and message.problems and message.seq not in self._replies:
            self._reply_text(Text("; ".join(message.problems), style="bold"))

    # -- replies ---------------------------------------------------------
    def _on_entry(self, entry: TrafficEntry) -> None:
        """A store listener (called where frames are recorded, on the event loop): replies to
        frames sent by hand go to the screen as messages."""
        if entry.reply_to is None or entry.direction is Direction.OUT or entry.kind in (Kind.NOTIFICATION, Kind.STDERR):
            return
        request = self.store.get(entry.reply_to)
        if request is not None and isinstance(request.meta, dict) and request.meta.get("by_hand"):
            self.post_message(self.ReplyArrived(entry))

    @on(ReplyArrived)
    def _reply_arrived(self, message: ReplyArrived) -> None:
        entry = message.entry
        assert entry.reply_to is not None
        self._replies[entry.reply_to] = entry
        while len(self._replies) > 64:
            self._replies.pop(next(iter(self._replies)))
        if entry.reply_to == self.watching:
            self._show_reply(entry)

    def _show_reply(self, entry: TrafficEntry) -> None:
        head = Text()
        label = {
            Kind.RESPONSE: "response",
            Kind.ERROR: "error",
            Kind.BATCH: "batch",
            Kind.INVALID: "invalid frame",
            Kind.EVENT: "not delivered",
        }.get(entry.kind, entry.kind.value)
        head.append(f"#{entry.seq} {label}", style="bold")
        if entry.error_code is not None:
            head.append(f" {entry.error_code}", style="bold")
        head.append(f" to #{entry.reply_to}")
        if entry.latency_ms is not None:
            head.append(f" · {entry.latency_ms:.0f} ms")
        if entry.problem:
            head.append(f" · ⚠ {clean(entry.problem)[:200]}")
        head.append("   (j in the traffic log jumps between them)\n", style="dim")
        head.append_text(JSONHighlighter()(Text(_pretty(entry.raw))))
        self._reply_text(head)

    def _reply_text(self, text: Text) -> None:
        self.query_one("#raw-reply-text", Static).update(text)
        self.query_one("#raw-reply", VerticalScroll).scroll_home(animate=False)

    # -- templates -------------------------------------------------------
    def _fresh_id(self) -> str:
        session = self.live()
        if session is not None:
            return fresh_id(session.connection)
        self._local_ids += 1
        return f"raw-{self._local_ids}"

    def _meta(self) -> dict | None:
        session = self.live()
        request_meta = getattr(session, "request_meta", None)
        return request_meta() if callable(request_meta) else None

    def action_templates(self) -> None:
        self.app.push_screen(
            PickList("Templates (a letter or enter picks one; escape closes)", TEMPLATE_CHOICES),
            callback=self._template,
        )

    def _template(self, choice: str | None) -> None:
        if choice is None:
            return
        session = self.live()
        modern = session is not None and getattr(session, "era", None) == "modern"
        if choice in ("ping", "tools/list"):
            self._use(
                templates.request(self._fresh_id(), choice, None if choice == "ping" else {}, self._meta()),
                templates.REMOVED_IN_MODERN.get(choice, "") if modern else "",
            )
        elif choice == "setLevel":
            levels = [(str(n + 1), level, level) for n, level in enumerate(templates.LOG_LEVELS)]
            self.app.push_screen(PickList("logging/setLevel: the level", levels), callback=self._set_level)
        elif choice == "cancel":
            self._pick_in_flight()
        elif choice == "response":
            self._pick_server_request()
        elif choice == "batch":
            self._use(templates.batch(self._fresh_id(), self._fresh_id(), self._meta()))
        elif choice == "invalid":
            self._use(templates.INVALID_JSON, as_is=True)

    def _set_level(self, level: str | None) -> None:
        if level is None:
            return
        session = self.live()
        modern = session is not None and getattr(session, "era", None) == "modern"
        self._use(
            templates.request(self._fresh_id(), "logging/setLevel", {"level": level}, self._meta()),
            templates.REMOVED_IN_MODERN["logging/setLevel"] if modern else "",
        )

    def _pick_in_flight(self) -> None:
        session = self.live()
        pending = [p for p in (session.connection.pending if session is not None else []) if not p.done]
        if not pending:
            self._status(
                "No request is in flight to cancel (start a long call first, e.g. long_running_task).", bad=True
            )
            return
        now = time.perf_counter()
        choices = [
            (
                None,
                f"#{p.entry.seq if p.entry else '?'}  id {json.dumps(p.id)}  {clean(p.method)}  "
                f"({now - p.started:.1f} s)",
                p.id,
            )
            for p in pending
        ]
        self.app.push_screen(
            PickList("notifications/cancelled: which request?", choices),
            callback=lambda msg_id: None if msg_id is None else self._use(templates.cancelled(msg_id)),
        )

    def _pick_server_request(self) -> None:
        session = self.live()
        waiting = session.connection.server_requests if session is not None else []
        if not waiting:
            why = (
                "2026-07-28 servers send no requests (they ask through MRTR results)"
                if session is not None and getattr(session, "era", None) == "modern"
                else "no server request is waiting for an answer (e.g. call ask_the_client on the demo)"
            )
            self._status(f"No response to write: {why}.", bad=True)
            return
        choices = [
            (None, f"#{r.entry.seq}  id {json.dumps(r.id)}  {clean(r.method)}", (r.id, r.method)) for r in waiting
        ]

        def chosen(value: tuple[Any, str] | None) -> None:
            if value is not None:
                self._use(templates.response(*value))

        self.app.push_screen(PickList("A response to which server request?", choices), callback=chosen)

    def _use(self, text: str, note: str = "", as_is: bool = False) -> None:
        self.as_is = as_is
        self._recall = None
        self.editor.load_text(text)
        self._show_kind()
        self._show_note(note)
        self.editor.focus()

    # -- history ---------------------------------------------------------
    def action_history(self, step: int) -> None:
        if not self._frames:
            self._status("No frame sent to this server yet: the history is empty.")
            return
        if self._recall is None:
            if step > 0:
                return
            self._draft = self.editor.text
            index = len(self._frames) - 1
        else:
            index = self._recall + step
        if index >= len(self._frames):
            self._recall = None
            self.editor.load_text(self._draft)
            self._status("Back to the frame being written.")
            return
        index = max(0, index)
        self._show_history(index)

    def _show_history(self, index: int) -> None:
        frame = self._frames[index]
        self._recall = index
        self.as_is = bool(frame.get("as_is"))
        self.editor.load_text(frame["text"])
        self._show_kind()
        self._show_note()
        sent_at = frame.get("sent_at")
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(sent_at)) if isinstance(sent_at, (int, float)) else "?"
        self._status(f"History {index + 1}/{len(self._frames)} (sent {when}): ctrl+s sends it again.")

    def action_history_list(self) -> None:
        if not self._frames:
            self._status("No frame sent to this server yet: the history is empty.")
            return
        choices = [(None, _one_line(frame["text"]), index) for index, frame in reversed(list(enumerate(self._frames)))]
        self.app.push_screen(
            PickList(f"Frames sent to {self.server_name} (newest first)", choices),
            callback=lambda index: None if index is None else self._show_history(index),
        )

    def action_toggle_as_is(self) -> None:
        self.as_is = not self.as_is
        self._show_kind()
        self._show_note()

    def action_close(self) -> None:
        self.dismiss(None)

    def palette_commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        """This screen's actions in the command palette (opened over it), with their keys."""
        return screen_palette_commands(self, "raw frame", PALETTE)


def _pretty(raw: bytes) -> str:
    try:
        value, _ = parse_frame(raw)
        text = json.dumps(value, indent=2, ensure_ascii=False)
    except (JsonTextError, ValueError, RecursionError):
        text = raw.decode("utf-8", errors="replace")
    return (
        text
        if len(text) <= REPLY_SHOWN_CHARS
        else text[:REPLY_SHOWN_CHARS] + "\n… (the whole frame is in the traffic log)"
    )


def _one_line(text: str, limit: int = 100) -> str:
    line = " ".join(text.split())
    return clean(line if len(line) <= limit else line[: limit - 1] + "…")


def open_raw_frame(app: Any) -> None:
    """ctrl+e / the palette: the raw frame screen for the server on the main screen."""
    if any(isinstance(screen, RawFrameScreen) for screen in app.screen_stack):
        return  # open already (its pickers may be on top)
    main = app.main
    if main.attach is not None:  # attached to a proxy: into the host's session, deliberately
        from .inject_frame import InjectFrameScreen

        app.push_screen(InjectFrameScreen(main.attach.feed, main.attach.inject_listeners))
        app.notify("Frames sent from here go into the host's live session.", severity="warning", timeout=6)
        return
    if main.read_only:
        app.notify("A recording is read-only: connect to a server to send frames (f7).", severity="warning")
        return
    spec = main.spec
    history = getattr(app, "raw_history", None)
    if history is None:
        history = app.raw_history = RawHistory()
    name = spec.name if spec is not None else "no server"
    app.push_screen(
        RawFrameScreen(name, spec.key if spec is not None else None, lambda: main.connection.live, app.store, history)
    )
