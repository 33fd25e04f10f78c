"""The HTTP view: every HTTP exchange under the JSON-RPC frames of a remote server.

``HttpExchangeList`` is a line-API ``ScrollView`` over ``store.http_log.exchanges``
(the traffic log's pattern): nothing is copied out of the log, only the visible
rows are rendered (through an LRU cache of ``Strip``s), and a 15 Hz timer polls
``http_log.version``, paused while the view is hidden (``ShownTimer``). The
exchanges' ids are consecutive in the log (the oldest are dropped first), so a
row is ``id - first id``: the cursor is kept by id and survives eviction.

Enter opens the exchange's detail (``screens/http_detail.py``). For a stdio
server the view says there is no HTTP level.
"""

from __future__ import annotations

from typing import Callable, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from ...core.traffic.http_log import HttpExchange, HttpLog
from ...core.traffic.store import TrafficStore
from ..http_text import exchange_line, header_line
from ..traffic_text import clock_time
from .shown_timer import ShownTimer

ROLES = ("time", "method", "rpc", "note", "mcp", "success", "warning", "error", "accent", "text-muted")


class HttpExchangeList(ScrollView, can_focus=True):
    """One line per exchange, newest last; follows the tail until the user moves up."""

    DEFAULT_CSS = """
    HttpExchangeList {
        background: $surface;
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        & > .http-list--cursor { background: $panel-lighten-1; }
        &:focus > .http-list--cursor { background: $accent 40%; }
        & > .http-list--time { color: $text-muted; }
        & > .http-list--method { text-style: bold; }
        & > .http-list--rpc { color: $traffic-out; }
        & > .http-list--note { color: $text-muted; text-style: italic; }
        & > .http-list--mcp { color: $secondary; }
        & > .http-list--success { color: $success; text-style: bold; }
        & > .http-list--warning { color: $warning; text-style: bold; }
        & > .http-list--error { color: $error; text-style: bold; }
        & > .http-list--accent { color: $accent; }
        & > .http-list--text-muted { color: $text-muted; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"http-list--cursor", *(f"http-list--{role}" for role in ROLES)}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "cursor_home", "First", show=False),
        Binding("end", "cursor_end", "Follow", id="http.follow"),
        Binding("enter", "open_exchange", "Details", id="http.open"),
    ]
    REFRESH_INTERVAL: ClassVar[float] = 1 / 15
    CACHE_SIZE: ClassVar[int] = 1024

    tail: var[bool] = var(True)

    class Opened(Message):
        """The user chose an exchange (enter or a click on the cursor row)."""

        def __init__(self, exchange_id: int) -> None:
            super().__init__()
            self.exchange_id = exchange_id

    def __init__(self, store: TrafficStore, *, time_format: Callable[[float], str] = clock_time,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.store = store
        self.time_format = time_format
        self.cursor_id: int | None = None
        self._seen_version = -1
        self._seen_log: HttpLog | None = None
        self._cache: LRUCache[tuple, Strip] = LRUCache(self.CACHE_SIZE)
        self._styles: dict[str, Style] = {}
        self._moving = False
        self._poll: ShownTimer | None = None
        self.renders = 0  # lines rendered (not from the cache): tests check the rendering stays bounded

    @property
    def http_log(self) -> HttpLog:
        return self.store.http_log

    # -- rows ------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self.http_log.exchanges)

    def exchange_at(self, row: int) -> HttpExchange | None:
        exchanges = self.http_log.exchanges
        if 0 <= row < len(exchanges):
            return exchanges[row]
        return None

    def row_of(self, exchange_id: int) -> int | None:
        exchanges = self.http_log.exchanges
        if not exchanges:
            return None
        row = exchange_id - exchanges[0].id
        if 0 <= row < len(exchanges) and exchanges[row].id == exchange_id:
            return row
        for row, exchange in enumerate(exchanges):  # ids not consecutive (a log built by hand)
            if exchange.id == exchange_id:
                return row
        return None

    @property
    def cursor_row(self) -> int | None:
        return None if self.cursor_id is None else self.row_of(self.cursor_id)

    @property
    def cursor_exchange(self) -> HttpExchange | None:
        return None if self.cursor_id is None else self.http_log.get(self.cursor_id)

    # -- polling -----------------------------------------------------------
    def on_mount(self) -> None:
        self._poll = ShownTimer(self, self.REFRESH_INTERVAL, self.sync, "http-poll")
        self.sync()

    def on_hide(self) -> None:
        if self._poll is not None:
            self._poll.hidden()

    def on_show(self) -> None:
        if self._poll is not None:
            self._poll.shown()

    def sync(self, force: bool = False) -> None:
        log = self.http_log
        if log is not self._seen_log:  # the store adopted another (a recording was opened)
            self._seen_log = log
            self._cache.clear()
            force = True
        if log.version == self._seen_version and not force:
            return
        self._seen_version = log.version
        rows = self.row_count
        self._set_rows(rows)
        if self.tail and rows:
            self.cursor_id = log.exchanges[-1].id
            self._scroll_rows(max(0, rows - self.scrollable_content_region.height))
        elif self.cursor_id is not None and self.cursor_row is None:
            self.cursor_id = log.exchanges[0].id if rows else None  # the cursor's exchange was dropped
        self.refresh()
        parent = self.parent
        if isinstance(parent, HttpView):
            parent.update_summary()

    def _set_rows(self, rows: int) -> None:
        """The scrollable height, without a layout of the whole screen when only the scrollbar
        depends on it (as ``StoreLinesView._set_rows``: overflow-y is always scroll here)."""
        size = Size(self.scrollable_content_region.width, rows)
        current = self.virtual_size
        if size == current:
            return
        if size.width == current.width and self.size and self.styles.overflow_y == "scroll":
            self.set_reactive(ScrollView.virtual_size, size)
            self._scroll_update(size)
        else:
            self.virtual_size = size

    def _scroll_rows(self, y: int) -> None:
        self._moving = True
        try:
            self.scroll_to(y=y, animate=False, immediate=True)
        finally:
            self._moving = False

    # -- rendering -----------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._cache.clear()

    def _style_map(self) -> dict[str, Style]:
        if not self._styles:
            self._styles = {role: self.get_component_rich_style(f"http-list--{role}", partial=True) for role in ROLES}
            self._styles["cursor"] = self.get_component_rich_style("http-list--cursor", partial=True)
        return self._styles

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        exchange = self.exchange_at(round(self.scroll_y) + y)
        if exchange is None:
            return Strip.blank(width, self.rich_style)
        is_cursor = exchange.id == self.cursor_id
        key = (exchange.id, exchange.state, exchange.status, exchange.event_count, exchange.response_size,
               exchange.total_ms, exchange.headers_ms, is_cursor, width)
        strip = self._cache.get(key)
        if strip is None:
            self.renders += 1
            styles = self._style_map()
            text = exchange_line(exchange, self.time_format(exchange.started), styles, width)
            text.truncate(width, overflow="ellipsis", pad=True)
            base = self.rich_style + styles["cursor"] if is_cursor else self.rich_style
            text.stylize_before(base)
            strip = Strip(text.render(self.app.console), width).crop_extend(0, width, base)
            self._cache[key] = strip
        return strip

    # -- cursor and tail ---------------------------------------------------------
    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._moving:
            return
        if new_value < old_value and self.tail:
            self.tail = False
        elif new_value > old_value and new_value >= self.max_scroll_y and not self.tail:
            self.tail = True

    def on_resize(self) -> None:
        self._cache.clear()
        self.sync(force=True)
        parent = self.parent
        if isinstance(parent, HttpView):
            parent.query_one("#http-columns", Static).update(header_line(self.scrollable_content_region.width))

    def on_focus(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._cache.clear()
        self.refresh()

    def move_cursor_to_row(self, row: int) -> None:
        rows = self.row_count
        if not rows:
            return
        row = min(max(row, 0), rows - 1)
        self.cursor_id = self.http_log.exchanges[row].id
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_y)
        if row < top:
            self._scroll_rows(row)
        elif row >= top + height:
            self._scroll_rows(row - height + 1)
        self.refresh()

    def select(self, exchange_id: int) -> bool:
        """Put the cursor on an exchange (turns following the tail off)."""
        row = self.row_of(exchange_id)
        if row is None:
            return False
        self.tail = False
        self.move_cursor_to_row(row)
        return True

    def _step(self, delta: int) -> None:
        row = self.cursor_row
        if row is None:
            row = self.row_count - 1
        if delta < 0:
            self.tail = False
        self.move_cursor_to_row(row + delta)

    def action_cursor_up(self) -> None:
        self._step(-1)

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_page_up(self) -> None:
        self._step(-max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self._step(max(1, self.scrollable_content_region.height - 1))

    def action_cursor_home(self) -> None:
        self.tail = False
        self.move_cursor_to_row(0)

    def action_cursor_end(self) -> None:
        self.tail = True
        self.move_cursor_to_row(self.row_count - 1)

    def action_open_exchange(self) -> None:
        exchange = self.cursor_exchange
        if exchange is None:
            self.notify("No HTTP exchange selected.", severity="warning")
            return
        self.post_message(self.Opened(exchange.id))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = round(self.scroll_y) + offset.y
        exchange = self.exchange_at(row)
        if exchange is None:
            return
        if exchange.id == self.cursor_id and event.chain >= 2:
            self.post_message(self.Opened(exchange.id))
            return
        self.tail = False
        self.move_cursor_to_row(row)


class HttpView(Vertical):
    """A summary line, the column titles and the list; says so when there is no HTTP level."""

    DEFAULT_CSS = """
    HttpView { height: 1fr; }
    HttpView #http-summary { height: 1; padding: 0 1; background: $boost; }
    HttpView #http-columns { height: 1; color: $text-muted; text-style: bold; }
    HttpView #http-none { padding: 1 2; color: $text-muted; height: auto; }
    HttpView HttpExchangeList { height: 1fr; }
    """

    transport: var[str] = var("")
    """The current connection's transport (stdio, http, sse), set by the screen."""

    def __init__(self, store: TrafficStore, *, time_format: Callable[[float], str] = clock_time,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.store = store
        self.exchange_list = HttpExchangeList(store, time_format=time_format, id="http-list")

    def compose(self) -> ComposeResult:
        yield Static("", id="http-summary", markup=False)
        yield Static(header_line(self.size.width or 120), id="http-columns", markup=False)
        yield Static("", id="http-none", markup=False)
        yield self.exchange_list

    def on_mount(self) -> None:
        self.update_summary()

    def watch_transport(self) -> None:
        if self.is_mounted:
            self.update_summary()

    def update_summary(self) -> None:
        if not self.is_mounted:
            return
        log = self.store.http_log
        exchanges = log.exchanges
        none = self.query_one("#http-none", Static)
        empty = not exchanges
        if empty:
            if self.transport == "stdio":
                none.update("This server runs over stdio: there is no HTTP level. The HTTP view shows the "
                            "requests, responses and SSE streams of a remote server (mcp-inspector --url URL).")
            else:
                none.update("No HTTP exchanges yet. Connected to a remote server (mcp-inspector --url URL), "
                            "every POST, GET stream and DELETE shows here.")
        none.display = empty
        self.query_one("#http-columns", Static).display = not empty
        self.exchange_list.display = not empty
        summary = Text(no_wrap=True, overflow="ellipsis")
        if empty:
            summary.append("HTTP", style="bold")
        else:
            states: dict[str, int] = {}
            if len(exchanges) <= 20_000:
                for exchange in exchanges:
                    states[exchange.state] = states.get(exchange.state, 0) + 1
            summary.append(f"{len(exchanges)} HTTP exchange{'s' if len(exchanges) != 1 else ''}", style="bold")
            for state in ("open", "failed"):
                if states.get(state):
                    summary.append(f"  ·  {states[state]} {state}")
            if log.dropped:
                summary.append(f"  ·  {log.dropped} older dropped")
            if self.transport and self.transport != "stdio":
                summary.append(f"  ·  {self.transport}")
            summary.append("   enter details · end follow", style="dim")
        self.query_one("#http-summary", Static).update(summary)

    def select(self, exchange_id: int) -> bool:
        return self.exchange_list.select(exchange_id)
