"""One HTTP exchange in full: URL, request and response headers (``Mcp-*``
highlighted; secrets were masked by the HttpLog), timings, the SSE events with
their ids, event names and ``retry``, and the traffic frames it carried, each a
key away in the traffic log (the screen dismisses with the chosen seq).

Bounded: at most ``SHOWN_EVENTS`` event rows and ``SHOWN_FRAMES`` frames are
listed, with the rest counted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ....core.traffic.http_log import HttpExchange
from ....core.traffic.store import TrafficStore
from ...text.http_text import compact_ms, short_type, status_meaning, status_style, what_for
from ...text.traffic_text import ARROWS, clean, clock_time, human_size, short_id

SHOWN_EVENTS = 200
SHOWN_FRAMES = 500


def headers_text(title: str, headers: list[tuple[str, str]], accent: str) -> Text:
    text = Text()
    text.append(f"{title}\n", style="bold")
    if not headers:
        text.append("  (none)\n", style="dim")
    for name, value in headers:
        mcp = name.lower().startswith("mcp-")
        text.append(f"  {clean(name)}: ", style=f"bold {accent}" if mcp else "bold")
        text.append(clean(value[:2000]) + "\n", style=accent if mcp else "")
    return text


def exchange_summary(exchange: HttpExchange, colours: dict[str, str]) -> Text:
    text = Text()
    text.append(f"#{exchange.id}  {exchange.method}  ", style="bold")
    if exchange.status is not None:
        text.append(
            f"{exchange.status} {clean(exchange.reason)}".rstrip(),
            style=f"bold {colours.get(status_style(exchange.status), '')}",
        )
        meaning = status_meaning(exchange.status)
        if meaning.lower() != exchange.reason.lower():
            text.append(f" ({meaning})", style="dim")
    else:
        text.append("no response yet" if exchange.state == "open" else "no response", style="italic")
    rpc = what_for(exchange)
    if rpc:
        text.append(f"  ·  {rpc}", style="bold" if exchange.rpc_method else "italic")
    if exchange.rpc_id is not None:
        text.append(f" id={short_id(exchange.rpc_id)}")
    text.append(
        f"  ·  {exchange.state}", style=colours.get({"open": "accent", "failed": "error"}.get(exchange.state, ""), "")
    )
    return text


def event_frames(exchange: HttpExchange, store: TrafficStore) -> dict[str, int]:
    """SSE event id -> the traffic entry of the frame in its data (linked through ``meta["sse_id"]``)."""
    found: dict[str, int] = {}
    for seq in exchange.frame_seqs[:SHOWN_FRAMES]:
        entry = store.get(seq)
        sse_id = entry.meta.get("sse_id") if entry is not None and isinstance(entry.meta, dict) else None
        if sse_id is not None:
            found.setdefault(str(sse_id), seq)
    return found


def exchange_body(
    exchange: HttpExchange,
    time_format: Callable[[float], str],
    accent: str,
    frames_by_event: dict[str, int] | None = None,
) -> Text:
    """Everything but the frames, bounded."""
    text = Text()
    text.append("URL  ", style="bold")
    text.append(clean(exchange.url) + "\n")
    timing = [f"started {time_format(exchange.started)}"]
    if exchange.headers_ms is not None:
        timing.append(f"headers after {compact_ms(exchange.headers_ms)}")
    if exchange.total_ms is not None:
        timing.append(f"ended after {compact_ms(exchange.total_ms)}")
    else:
        timing.append("still open")
    text.append("Timing  ", style="bold")
    text.append(" · ".join(timing) + "\n")
    sizes = [f"request {human_size(exchange.request_size)}", f"response {human_size(exchange.response_size)}"]
    if exchange.content_type:
        sizes.append(f"{clean(exchange.content_type)} ({short_type(exchange.content_type)})")
    text.append("Size  ", style="bold")
    text.append(" · ".join(sizes) + "\n")
    if exchange.note:
        text.append("For  ", style="bold")
        text.append(clean(exchange.note) + "\n")
    if exchange.resumes is not None:
        text.append("Resumes  ", style="bold")
        text.append(f"the stream of exchange #{exchange.resumes} (Last-Event-ID)\n")
    if exchange.error:
        text.append("Error  ", style="bold red")
        text.append(clean(exchange.error[:2000]) + "\n", style="red")
    text.append("\n")
    text.append_text(headers_text("Request headers", exchange.request_headers, accent))
    text.append("\n")
    if exchange.status is not None:
        text.append_text(headers_text("Response headers", exchange.response_headers, accent))
        text.append("\n")
    if exchange.event_count:
        text.append(f"SSE events ({exchange.event_count})\n", style="bold")
        for number, event in enumerate(exchange.events[:SHOWN_EVENTS], 1):
            line = f"  {number:>4}  {time_format(event.at)}  event={clean(event.event) or 'message'}"
            if event.id is not None:
                line += f"  id={clean(event.id)}"
            if event.retry is not None:
                line += f"  retry={event.retry} ms"
            line += f"  {human_size(event.size)}"
            seq = event.seq if event.seq is not None else (frames_by_event or {}).get(str(event.id))
            if seq is not None:
                line += f"  → #{seq}"
            text.append(line + "\n")
        rest = exchange.event_count - min(len(exchange.events), SHOWN_EVENTS)
        if rest > 0:
            text.append(f"  … {rest} more event{'s' if rest != 1 else ''} not listed\n", style="dim")
    return text


def carried_seqs(exchange: HttpExchange, store: TrafficStore) -> list[int]:
    """The frames the exchange carried (``frame_seqs``): the frame in its request body (linked
    when it was sent: our request, reply or notification), then what came back (linked by the
    store). An exchange recorded without the first (an older log) gets its request through the
    reply that names it."""
    seqs = list(exchange.frame_seqs)
    if exchange.rpc_id is not None and seqs:
        for seq in seqs[:20]:
            entry = store.get(seq)
            request = store.get(entry.reply_to) if entry is not None and entry.reply_to is not None else None
            if request is not None and request.msg_id == exchange.rpc_id and request.seq not in seqs:
                return [request.seq, *seqs]
    return seqs


class HttpExchangeScreen(ModalScreen[int | None]):
    """The detail of one exchange; dismisses with a frame's seq to show it in the traffic log."""

    DEFAULT_CSS = """
    HttpExchangeScreen { align: center middle; background: $background 60%; }
    HttpExchangeScreen > #http-detail {
        width: 96%; height: 92%; background: $surface; border: round $accent; padding: 0 1;
    }
    HttpExchangeScreen #http-detail-header { height: auto; max-height: 3; margin-bottom: 1; }
    HttpExchangeScreen #http-detail-body { height: 1fr; }
    HttpExchangeScreen #http-frames-caption { height: 1; color: $text-muted; }
    HttpExchangeScreen #http-frames { height: auto; max-height: 35%; min-height: 2; border: none; }
    HttpExchangeScreen #http-detail-keys { height: 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="http-detail.close"),
        Binding("q", "close", "Close", show=False, id="http-detail.close-q"),
        Binding("t", "first_frame", "First frame", id="http-detail.first-frame"),
        Binding("tab", "switch_focus", "Frames/details", show=False, id="http-detail.switch-focus"),
    ]

    def __init__(
        self, store: TrafficStore, exchange_id: int, *, time_format: Callable[[float], str] = clock_time
    ) -> None:
        super().__init__()
        self.store = store
        self.exchange_id = exchange_id
        self.time_format = time_format
        self._seen: tuple = ()

    @property
    def exchange(self) -> HttpExchange | None:
        return self.store.http_log.get(self.exchange_id)

    def compose(self) -> ComposeResult:
        with Vertical(id="http-detail"):
            yield Static(id="http-detail-header")
            with VerticalScroll(id="http-detail-body"):
                yield Static(id="http-detail-text")
            yield Label("", id="http-frames-caption")
            yield OptionList(id="http-frames")
            yield Static(
                "enter/t  frame in the traffic log    tab  frames↔details    esc  close", id="http-detail-keys"
            )

    def on_mount(self) -> None:
        self.refresh_detail()
        self.query_one("#http-frames", OptionList).focus()
        self.set_interval(0.25, self.refresh_detail)  # an open stream keeps growing

    def _colours(self) -> dict[str, str]:
        variables = self.app.theme_variables
        return {name: variables.get(name, "") for name in ("success", "warning", "error", "accent", "text-muted")}

    def refresh_detail(self) -> None:
        exchange = self.exchange
        header = self.query_one("#http-detail-header", Static)
        if exchange is None:
            header.update(f"HTTP exchange #{self.exchange_id} is no longer in memory (the oldest are dropped).")
            return
        seen = (
            exchange.event_count,
            len(exchange.frame_seqs),
            exchange.state,
            exchange.status,
            exchange.total_ms,
            exchange.response_size,
        )
        if seen == self._seen:
            return
        self._seen = seen
        colours = self._colours()
        header.update(exchange_summary(exchange, colours))
        body = exchange_body(exchange, self.time_format, colours.get("accent", ""), event_frames(exchange, self.store))
        self.query_one("#http-detail-text", Static).update(body)
        self._show_frames(exchange)

    def _show_frames(self, exchange: HttpExchange) -> None:
        frames = self.query_one("#http-frames", OptionList)
        seqs = carried_seqs(exchange, self.store)
        caption = f"Frames carried ({len(seqs)})" if seqs else "Frames carried: none"
        if len(seqs) > SHOWN_FRAMES:
            caption += f", the first {SHOWN_FRAMES} listed"
        self.query_one("#http-frames-caption", Label).update(caption)
        if frames.option_count == min(len(seqs), SHOWN_FRAMES):
            return  # the list only grows
        highlighted = frames.highlighted
        options = []
        for seq in seqs[:SHOWN_FRAMES]:
            entry = self.store.get(seq)
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append(f"#{seq} ", style="bold")
            if entry is None:
                line.append("(no longer in memory)", style="dim")
            else:
                line.append(f"{ARROWS[entry.direction]} {entry.kind.value} ")
                if entry.method:
                    line.append(clean(entry.method) + " ", style="bold")
                if entry.has_id:
                    line.append(f"id={short_id(entry.msg_id)} ")
                if entry.meta and entry.meta.get("sse_id") is not None:
                    line.append(f"sse id={clean(str(entry.meta['sse_id']))} ", style="dim")
                line.append(human_size(len(entry.raw)), style="dim")
            options.append(Option(line, id=str(seq)))
        frames.clear_options()
        frames.add_options(options)
        if options:
            frames.highlighted = min(highlighted or 0, len(options) - 1)

    @on(OptionList.OptionSelected, "#http-frames")
    def _frame_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._jump(int(event.option.id or 0))

    def _jump(self, seq: int) -> None:
        if self.store.get(seq) is None:
            self.notify(f"#{seq} is no longer in memory (see the session file).", severity="warning")
            return
        self.dismiss(seq)

    def action_first_frame(self) -> None:
        exchange = self.exchange
        seqs = carried_seqs(exchange, self.store) if exchange is not None else []
        if not seqs:
            self.notify("This exchange carried no frame.", severity="warning")
            return
        frames = self.query_one("#http-frames", OptionList)
        if frames.has_focus and frames.highlighted is not None:
            option = frames.get_option_at_index(frames.highlighted)
            self._jump(int(option.id or 0))
            return
        self._jump(seqs[0])

    def action_switch_focus(self) -> None:
        frames = self.query_one("#http-frames", OptionList)
        if frames.has_focus:
            self.query_one("#http-detail-body").focus()
        else:
            frames.focus()

    def action_close(self) -> None:
        self.dismiss(None)
