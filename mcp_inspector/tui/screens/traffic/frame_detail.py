"""One timeline entry in full: pretty JSON beside the exact raw text.

Big frames are shown in part (the first ~200 KB) so opening a 50 MB result
never freezes the UI; copy still takes the whole raw frame. The screen can
walk a request/response pair in place and tells the log to follow.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static, TextArea

from ....core.base.json_text import JsonTextError, parse_frame
from ....core.base.jsonrpc import ERROR_NAMES, Kind
from ....core.base.masking import scrub
from ....core.telemetry.api import frame_trace
from ....core.traffic.entry import TrafficEntry
from ....core.traffic.store import TrafficStore
from ... import textual_compat
from ...text.http_text import explain_error, status_meaning
from ...text.traffic_text import ARROWS, clean, clock_time, format_latency, human_size, linked_seq, mrtr_round, short_id
from ...widgets.result.json_text import JSON_HIGHLIGHTS

#: How much of a frame the text areas show.
DISPLAY_LIMIT = 200 * 1024
#: Frames bigger than this are not parsed for the pretty view (parsing holds the event loop).
PRETTY_PARSE_LIMIT = 2 * 1024 * 1024
_JSON_KINDS = (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR, Kind.BATCH, Kind.INVALID)


class JsonTextArea(TextArea):
    """A read-only code view that highlights JSON without the query that crashes tree-sitter 0.26
    (see ``widgets/result/json_text.py``)."""

    def __init__(self, text: str = "", *, json: bool = True, id: str | None = None, classes: str | None = None) -> None:
        textual_compat.install()  # replaced documents are freed (textual_compat.py)
        super().__init__(
            text,
            language=None,
            theme="monokai",
            soft_wrap=True,  # at 80 columns a long line was cut with no mark ("name": "create_ticket)
            tab_behavior="indent",
            read_only=True,
            show_line_numbers=True,
            id=id,
            classes=classes,
        )
        language = textual_compat.get_language("json")
        self._has_json = language is not None
        if language is not None:
            self.register_language("json", language, JSON_HIGHLIGHTS)
        self.set_json(json)

    def set_json(self, on: bool) -> None:
        """Highlight as JSON (when tree-sitter has it) or show plain text."""
        self.language = "json" if on and self._has_json else None


def pretty_json(raw: bytes) -> tuple[str, str, bool]:
    """(text, caption, is_json) for the pretty pane, bounded to DISPLAY_LIMIT characters."""
    size = len(raw)
    if size > PRETTY_PARSE_LIMIT:
        head = raw[:DISPLAY_LIMIT].decode("utf-8", errors="replace")
        return (
            head,
            f"Pretty JSON: frame is {human_size(size)}, too big to reformat; first {human_size(DISPLAY_LIMIT)} as sent",
            True,
        )
    try:
        message, _ = parse_frame(raw)  # any depth, encoding or number: a reason, never a crash
    except JsonTextError as exc:
        reason = str(exc)
        return raw[:DISPLAY_LIMIT].decode("utf-8", errors="replace"), reason[:1].upper() + reason[1:], False
    text = json.dumps(message, indent=2, ensure_ascii=False)
    if len(text) > DISPLAY_LIMIT:
        return text[:DISPLAY_LIMIT], f"Pretty JSON: first {human_size(DISPLAY_LIMIT)} of {human_size(len(text))}", True
    return text, "Pretty JSON", True


def raw_text(raw: bytes) -> tuple[str, str]:
    text = raw[:DISPLAY_LIMIT].decode("utf-8", errors="replace")
    if len(raw) > DISPLAY_LIMIT:
        return text, f"Raw: first {human_size(DISPLAY_LIMIT)} of {human_size(len(raw))} (copy takes all of it)"
    return text, f"Raw ({human_size(len(raw))}, exactly as on the wire)"


def describe_entry(entry: TrafficEntry, store: TrafficStore, time_format: Callable[[float], str]) -> Text:
    """The header: what the entry is, when, and how it relates to others."""
    text = Text()
    text.append(f"#{entry.seq}  ", "bold")
    text.append(f"{time_format(entry.ts)}  ")
    text.append(f"{ARROWS[entry.direction]} {entry.direction.value}  ")
    text.append(entry.kind.value, "bold")
    if entry.method:
        text.append(f"  {clean(entry.method)}", "bold")
    if entry.has_id:
        text.append(f"  id={short_id(entry.msg_id)}")
    if entry.error_code is not None:
        text.append(f"  code {entry.error_code} {ERROR_NAMES.get(entry.error_code, '')}".rstrip())
    links = []
    if entry.reply_to is not None:
        request = store.get(entry.reply_to)
        about = f" ({clean(request.method)})" if request is not None and request.method else ""
        links.append(f"reply to #{entry.reply_to}{about}")
    if entry.reply_seq is not None:
        links.append(f"answered by #{entry.reply_seq}")
    if entry.latency_ms is not None:
        links.append(f"latency {format_latency(entry.latency_ms)}")
    rounds = mrtr_round(entry, store)
    if rounds is not None:
        links.append(f"input round {rounds[1]} of #{rounds[0]} (MRTR retry)")
    if links:
        text.append("\n" + "  ·  ".join(links))
    if entry.late:
        text.append("\nlate: arrived after the request ended", "bold yellow")
    if entry.problem and not (entry.late and entry.problem.startswith("late")):
        text.append(f"\nproblem: {clean(entry.problem)}", "bold red")
    trace = trace_line(entry, store)
    if trace is not None:
        text.append(f"\n{trace}")
    http = http_line(entry, store)
    if http is not None:
        text.append("\n")
        text.append_text(http)
    return text


def trace_line(entry: TrafficEntry, store: TrafficStore) -> str | None:
    """The W3C trace context the frame carries in ``params._meta`` (sent while tracing is on, or
    a host's through the proxy); a reply shows its request's, which its span covers."""
    found = frame_trace(entry.raw)
    if found is not None:
        return f"trace {found[0]}  span {found[1]}"
    request = store.get(entry.reply_to) if entry.reply_to is not None else None
    found = frame_trace(request.raw) if request is not None else None
    if found is None:
        return None
    return f"trace {found[0]}  span {found[1]} (of #{entry.reply_to})"


ERROR_PARSE_LIMIT = 64 * 1024


def error_object(entry: TrafficEntry) -> dict | None:
    """The ``error`` member of an error response (small frames only)."""
    if entry.kind is not Kind.ERROR or len(entry.raw) > ERROR_PARSE_LIMIT:
        return None
    try:
        message, _ = parse_frame(entry.raw)
    except JsonTextError:
        return None
    error = message.get("error") if isinstance(message, dict) else None
    return error if isinstance(error, dict) else None


def http_line(entry: TrafficEntry, store: TrafficStore) -> Text | None:
    """The HTTP exchange that carried an entry, and what its status or typed error means."""
    meta = entry.meta if isinstance(entry.meta, dict) else {}
    status = meta.get("status") if isinstance(meta.get("status"), int) else None
    exchange_id = store.exchange_of(entry)
    error = error_object(entry)
    text = Text()
    if isinstance(exchange_id, int):
        exchange = store.http_log.get(exchange_id)
        text.append(f"HTTP exchange #{exchange_id}", "bold")
        if exchange is not None:
            text.append(f" {exchange.method}")
            status = status if status is not None else exchange.status
        if status is not None:
            text.append(f" {status} ({status_meaning(status)})")
        if meta.get("sse_id") is not None:
            text.append(f"  ·  SSE id {clean(str(meta['sse_id']))}")
        text.append("  (h opens it in the HTTP view)", "dim")
    code = error.get("code") if error is not None and isinstance(error.get("code"), int) else entry.error_code
    message = error.get("message") if error is not None and isinstance(error.get("message"), str) else ""
    meaning = explain_error(code, message, error.get("data") if error is not None else None, status)
    if meaning:
        if text.plain:
            text.append("\n")
        text.append(f"meaning: {meaning}", "bold yellow")
    return text if text.plain else None


KEYS_LINE = "j  jump request↔response    c  copy raw    p  copy pretty    esc  close"


class FrameDetailScreen(ModalScreen[None]):
    """Pretty and raw views of one entry, with jump to its request/response."""

    DEFAULT_CSS = """
    FrameDetailScreen { align: center middle; background: $background 60%; }
    FrameDetailScreen > #frame-detail {
        width: 96%; height: 92%; background: $surface; border: round $accent; padding: 0 1;
    }
    FrameDetailScreen #frame-header { height: auto; max-height: 6; margin-bottom: 1; }
    FrameDetailScreen #frame-panes { height: 1fr; }
    FrameDetailScreen .frame-pane { width: 1fr; height: 1fr; }
    FrameDetailScreen .frame-caption { color: $text-muted; height: 1; }
    FrameDetailScreen TextArea { height: 1fr; }
    FrameDetailScreen #frame-keys { height: 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="frame.close"),
        Binding("q", "close", "Close", show=False),
        Binding("j", "jump_linked", "Req↔resp", id="frame.jump"),
        Binding("c", "copy_raw", "Copy raw", id="frame.copy"),
        Binding("p", "copy_pretty", "Copy pretty", id="frame.copy-pretty", show=False),
        Binding("h", "open_exchange", "HTTP exchange", id="frame.http"),
    ]

    def __init__(
        self,
        store: TrafficStore,
        seq: int,
        *,
        time_format: Callable[[float], str] = clock_time,
        on_jump: Callable[[int], object] | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.seq = seq
        self.time_format = time_format
        self.on_jump = on_jump  # lets the log move its cursor to where the user jumped

    def compose(self) -> ComposeResult:
        with Vertical(id="frame-detail"):
            yield Static(id="frame-header")
            with Horizontal(id="frame-panes"):
                with Vertical(classes="frame-pane"):
                    yield Label("", id="pretty-caption", classes="frame-caption")
                    yield JsonTextArea("", id="frame-pretty")
                with Vertical(classes="frame-pane"):
                    yield Label("", id="raw-caption", classes="frame-caption")
                    yield TextArea("", read_only=True, soft_wrap=True, id="frame-raw")
            yield Static(KEYS_LINE, id="frame-keys")

    def on_mount(self) -> None:
        self.show_entry(self.seq)
        self.query_one("#frame-pretty", TextArea).focus()

    @property
    def entry(self) -> TrafficEntry | None:
        return self.store.get(self.seq)

    def show_entry(self, seq: int) -> None:
        self.seq = seq
        entry = self.entry
        header = self.query_one("#frame-header", Static)
        pretty = self.query_one("#frame-pretty", JsonTextArea)
        raw = self.query_one("#frame-raw", TextArea)
        if entry is None:
            header.update(f"#{seq} is no longer in memory (older entries live in the session file).")
            pretty.load_text("")
            raw.load_text("")
            return
        header.update(describe_entry(entry, self.store, self.time_format))
        over_http = isinstance(entry.meta, dict) and isinstance(entry.meta.get("exchange"), int)
        self.query_one("#frame-keys", Static).update(
            KEYS_LINE.replace("    esc", "    h  HTTP exchange    esc") if over_http else KEYS_LINE
        )
        if entry.kind in _JSON_KINDS:
            text, caption, is_json = pretty_json(entry.raw)
        else:
            text, caption, is_json = raw_text(entry.raw)[0], f"{entry.kind.value} line (not a frame)", False
        pretty.set_json(is_json)
        pretty.load_text(scrub(text))  # a secret we hold (an OAuth token) echoed by the server: masked
        self.query_one("#pretty-caption", Label).update(caption)
        raw_body, raw_caption = raw_text(entry.raw)
        raw.load_text(scrub(raw_body))
        self.query_one("#raw-caption", Label).update(raw_caption)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_jump_linked(self) -> None:
        entry = self.entry
        target = linked_seq(entry) if entry is not None else None
        if target is None:
            self.notify("This entry has no linked request or response.", severity="warning")
            return
        if self.store.get(target) is None:
            self.notify(f"#{target} is no longer in memory.", severity="warning")
            return
        self.show_entry(target)
        if self.on_jump is not None:
            self.on_jump(target)

    def action_open_exchange(self) -> None:
        entry = self.entry
        exchange_id = self.store.exchange_of(entry) if entry is not None else None
        if exchange_id is None:
            self.notify("This entry was not carried over HTTP.", severity="warning")
            return
        opener = getattr(self.app, "open_http_exchange", None)
        if opener is None:
            self.notify("There is no HTTP view here.", severity="warning")
            return
        self.dismiss(None)
        opener(exchange_id)

    def action_copy_raw(self) -> None:
        entry = self.entry
        if entry is None:
            return
        self.app.copy_to_clipboard(entry.text)
        self.notify(f"Frame #{entry.seq} ({human_size(len(entry.raw))})", title="Copied to clipboard")

    def action_copy_pretty(self) -> None:
        entry = self.entry
        if entry is None:
            return
        self.app.copy_to_clipboard(self.query_one("#frame-pretty", TextArea).text)
        self.notify(f"Pretty view of #{entry.seq}", title="Copied to clipboard")
