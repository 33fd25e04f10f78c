"""The HTTP view: every HTTP exchange under the JSON-RPC frames of a remote server.

``HttpExchangeList`` is a line-API ``ScrollView`` over ``store.http_log.exchanges``
(the traffic log's pattern): nothing is copied out of the log, only the visible
rows are rendered (through an LRU cache of ``Strip``s), and a 15 Hz timer polls
``http_log.version``, paused while the view is hidden (``ShownTimer``). The
exchanges' ids are consecutive in the log (the oldest are dropped first), so a
row is ``id - first id``: the cursor is kept by id and survives eviction.

Enter opens the exchange's detail (``screens/traffic/http_detail.py``). For a stdio
server the view says there is no HTTP level.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from ....core.traffic.http_log import HttpExchange, HttpLog
from ....core.traffic.store import TrafficStore
from ...text.http_text import exchange_line, header_line
from ...text.traffic_text import clock_time
from ..row_cursor import RowCursor, row_cursor_bindings
from ..shown_timer import ShownTimer
from ..store_lines import component_style

ROLES = ("time", "method", "rpc", "note", "mcp", "success", "warning", "error", "accent", "text-muted")


class HttpExchangeList(RowCursor, ScrollView, can_focus=True):
    """One line per exchange, newest last; follows the tail until the user moves up."""

    DEFAULT_CSS = """
    HttpExchangeList {
        background: $surface;
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        & > .http-list--cursor { background: $panel-lighten-1; }
        &:focus > .http-list--cursor { background: $accent 20%; }
        & > .http-list--time { color: $text-muted; }
        & > .http-list--method { text-style: bold; }
        & > .http-list--rpc { color: $traffic-out; }
        & > .http-list--note { color: $text-muted; text-style: italic; }
        & > .http-list--mcp { color: $traffic-notification; }
        & > .http-list--success { color: $traffic-in; text-style: bold; }
        & > .http-list--warning { color: $traffic-warning; text-style: bold; }
        & > .http-list--error { color: $traffic-error; text-style: bold; }
        & > .http-list--accent { color: $accent; }
        & > .http-list--text-muted { color: $text-muted; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"http-list--cursor", *(f"http-list--{role}" for role in ROLES)}
    BINDINGS: ClassVar[list[BindingType]] = [
        *row_cursor_bindings("http.follow"),
        Binding("enter", "open_exchange", "Details", id="http.open"),
    ]
    REFRESH_INTERVAL: ClassVar[float] = 1 / 15
    CACHE_SIZE: ClassVar[int] = 1024
    SET_ROWS_NEEDS_FIXED_HEIGHT: ClassVar[bool] = False  # overflow-y alone decides (see RowCursor._set_rows)

    tail: var[bool] = var(True)

    class Opened(Message):
        """The user chose an exchange (enter or a click on the cursor row)."""

        def __init__(self, exchange_id: int) -> None:
            super().__init__()
            self.exchange_id = exchange_id

    def __init__(
        self,
        store: TrafficStore,
        *,
        time_format: Callable[[float], str] = clock_time,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
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

    # -- rendering -----------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._cache.clear()

    def _style_map(self) -> dict[str, Style]:
        if not self._styles:
            # the muted roles resolved against the list's background ($text-muted is "auto": white on light)
            self._styles = {role: component_style(self, f"http-list--{role}") for role in ROLES}
            self._styles["cursor"] = component_style(self, "http-list--cursor")
        return self._styles

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        exchange = self.exchange_at(round(self.scroll_y) + y)
        if exchange is None:
            return Strip.blank(width, self.rich_style)
        is_cursor = exchange.id == self.cursor_id
        key = (
            exchange.id,
            exchange.state,
            exchange.status,
            exchange.event_count,
            exchange.response_size,
            exchange.total_ms,
            exchange.headers_ms,
            is_cursor,
            width,
        )
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

    # -- cursor and tail (the rest in RowCursor) ------------------------------------
    def _put_cursor(self, row: int) -> None:
        self.cursor_id = self.http_log.exchanges[row].id

    def _resized(self) -> None:
        parent = self.parent
        if isinstance(parent, HttpView):
            parent.query_one("#http-columns", Static).update(header_line(self.scrollable_content_region.width))

    def select(self, exchange_id: int) -> bool:
        """Put the cursor on an exchange (turns following the tail off)."""
        row = self.row_of(exchange_id)
        if row is None:
            return False
        self.tail = False
        self.move_cursor_to_row(row)
        return True

    def action_open_exchange(self) -> None:
        exchange = self.cursor_exchange
        if exchange is None:
            self.notify("No HTTP exchange selected.", severity="warning")
            return
        self.post_message(self.Opened(exchange.id))

    def _click_handled(self, row: int, event: events.Click) -> bool:
        """A second click on the cursor's exchange opens it."""
        exchange = self.exchange_at(row)
        if exchange is None:
            return True  # no exchange there: nothing to do
        if exchange.id == self.cursor_id and event.chain >= 2:
            self.post_message(self.Opened(exchange.id))
            return True
        return False


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

    def __init__(
        self,
        store: TrafficStore,
        *,
        time_format: Callable[[float], str] = clock_time,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
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
                none.update(
                    "This server runs over stdio: there is no HTTP level. The HTTP view shows the "
                    "requests, responses and SSE streams of a remote server (mcp-inspector --url URL)."
                )
            else:
                none.update(
                    "No HTTP exchanges yet. Connected to a remote server (mcp-inspector --url URL), "
                    "every POST, GET stream and DELETE shows here."
                )
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
