"""Rows over a TrafficStore, virtualised: the reusable part of the traffic log.

A line-API ``ScrollView`` (the textual ``Log`` / toolong pattern): nothing is
copied out of the store; the view maps rows to seqs (``first_seq + row``, or a
list of matching seqs when filtered, trimmed as the store evicts) and renders
only the visible rows through an LRU cache of ``Strip``s. A 15 Hz timer polls
``store.version``; a view that is not shown does nothing per tick (its timer
pauses on ``Hide`` and it catches up once, on ``Show``). ``TrafficLog`` and the
notifications and console views subclass it with their own formatting.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from ...core.traffic.entry import TrafficEntry
from ...core.traffic.store import TrafficStore
from ..text.traffic_text import clock_time, preview_text
from .row_cursor import RowCursor, row_cursor_bindings
from .shown_timer import ShownTimer


def component_style(widget: Widget, component: str) -> Style:
    """A component class's partial style (what it does not set, the row's shows through) with its
    colours as resolved against the widget's background: a partial style turns "auto" colours
    ($text, $text-muted) into white, invisible on a light theme, and a translucent background
    ($accent 40%, the cursor) into the full colour."""
    partial = widget.get_component_rich_style(component, partial=True)
    if not partial.color and not partial.bgcolor:
        return partial
    full = widget.get_component_rich_style(component)  # a translucent background ($accent 40%) blended too
    return partial + Style(
        color=full.color if partial.color else None, bgcolor=full.bgcolor if partial.bgcolor else None
    )


class StoreLinesView(RowCursor, ScrollView, can_focus=True):
    """Rows over a TrafficStore: index, cursor, tail mode, 15 Hz polling, Strip cache."""

    DEFAULT_CSS = """
    StoreLinesView {
        background: $surface;
        color: $text;
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        & > .traffic-log--cursor { background: $panel-lighten-1; }
        &:focus > .traffic-log--cursor { background: $accent 40%; }
        & > .traffic-log--time { color: $text-muted; }
        & > .traffic-log--seq { color: $text-muted; }
        & > .traffic-log--out { color: $traffic-out; }
        & > .traffic-log--in { color: $traffic-in; }
        & > .traffic-log--local { color: $traffic-local; }
        & > .traffic-log--notification { color: $traffic-notification; }
        & > .traffic-log--stderr { color: $traffic-stderr; }
        & > .traffic-log--error { color: $traffic-error; text-style: bold; }
        & > .traffic-log--warning { color: $traffic-warning; text-style: bold; }
        & > .traffic-log--method { text-style: bold; }
        & > .traffic-log--latency { color: $text; }
        & > .traffic-log--preview { color: $text-muted; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "traffic-log--cursor",
        "traffic-log--time",
        "traffic-log--seq",
        "traffic-log--out",
        "traffic-log--in",
        "traffic-log--local",
        "traffic-log--notification",
        "traffic-log--stderr",
        "traffic-log--error",
        "traffic-log--warning",
        "traffic-log--method",
        "traffic-log--latency",
        "traffic-log--preview",
    }
    BINDINGS: ClassVar[list[BindingType]] = [*row_cursor_bindings("traffic.follow")]
    REFRESH_INTERVAL: ClassVar[float] = 1 / 15
    CACHE_SIZE: ClassVar[int] = 2048

    tail: var[bool] = var(True)
    """Follow the newest entry. Moving up turns it off; End turns it on."""

    def __init__(
        self,
        store: TrafficStore,
        *,
        time_format: Callable[[float], str] = clock_time,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.store = store
        self.time_format = time_format
        self._predicate: Callable[[TrafficEntry], bool] | None = None
        self._index: list[int] | None = None  # matching seqs, only when filtered
        self._scanned = store.first_seq - 1  # the newest seq looked at for the index
        self._seen_version = -1
        self._seen_first = store.first_seq
        self._cursor_seq: int | None = None
        self._cache: LRUCache[tuple, Strip] = LRUCache(self.CACHE_SIZE)
        self._styles: dict[str, Style] = {}
        self._moving = False  # True while the view itself scrolls (so it does not count as the user's)
        self._poll: ShownTimer | None = None
        self._rebuild_index()

    # -- what is shown ---------------------------------------------------
    def include(self, entry: TrafficEntry) -> bool:
        """Subclasses narrow the store to the entries they are about (None of that here)."""
        return True

    INCLUDES_EVERYTHING: ClassVar[bool] = True

    def _make_predicate(self) -> Callable[[TrafficEntry], bool] | None:
        return None if self.INCLUDES_EVERYTHING else self.include

    def scan_limit(self) -> int:
        """The newest seq the index may look at (a subclass whose predicate learns about entries
        later, the traffic log's query, holds the rest back until it knows)."""
        return self.store.last_seq

    def _unscanned(self, limit: int) -> list[TrafficEntry]:
        """The entries in memory after ``_scanned``, up to ``limit``."""
        start = max(self._scanned, self.store.first_seq - 1)
        return self.store.since(start)[: max(0, limit - start)]

    def _rebuild_index(self) -> None:
        self._predicate = self._make_predicate()
        store = self.store
        self._scanned = store.first_seq - 1
        if self._predicate is None:
            self._index = None
            self._scanned = store.last_seq
        else:
            predicate = self._predicate
            limit = self.scan_limit()
            self._index = [entry.seq for entry in self._unscanned(limit) if predicate(entry)]
            self._scanned = limit
        self._seen_first = store.first_seq
        self._seen_version = -1

    @property
    def row_count(self) -> int:
        return len(self.store) if self._index is None else len(self._index)

    @property
    def index_size(self) -> int:
        """Length of the seq index this view keeps (0 when it shows every entry)."""
        return 0 if self._index is None else len(self._index)

    def seq_at(self, row: int) -> int | None:
        if row < 0:
            return None
        if self._index is None:
            return self.store.first_seq + row if row < len(self.store) else None
        return self._index[row] if row < len(self._index) else None

    def row_of(self, seq: int, exact: bool = True) -> int | None:
        """The row showing ``seq`` (or, with exact=False, the nearest row at or after it)."""
        rows = self.row_count
        if not rows:
            return None
        if self._index is None:
            row = seq - self.store.first_seq
            if 0 <= row < rows:
                return row
            return None if exact else min(max(row, 0), rows - 1)
        row = bisect_left(self._index, seq)
        if row < rows and self._index[row] == seq:
            return row
        return None if exact else min(row, rows - 1)

    def entry_at(self, row: int) -> TrafficEntry | None:
        seq = self.seq_at(row)
        return None if seq is None else self.store.get(seq)

    @property
    def cursor_row(self) -> int | None:
        if self._cursor_seq is None:
            return None
        return self.row_of(self._cursor_seq, exact=False)

    @property
    def cursor_entry(self) -> TrafficEntry | None:
        row = self.cursor_row
        return None if row is None else self.entry_at(row)

    # -- polling the store -----------------------------------------------
    def on_mount(self) -> None:
        super().on_mount()
        # Not shown: no per-tick work, not even the index; shown again, one sync catches up.
        self._poll = ShownTimer(self, self.REFRESH_INTERVAL, self.sync, "traffic-poll")
        self.sync()

    def sync(self, force: bool = False) -> None:
        """Catch up with the store: extend/trim the index, resize, follow the tail, repaint."""
        store = self.store
        if store.version == self._seen_version and not force:
            return
        self._seen_version = store.version
        first = store.first_seq
        evicted_rows = 0
        if self._index is not None:
            index = self._index
            if index and index[0] < first:
                cut = bisect_left(index, first)
                del index[:cut]
                evicted_rows = cut
            limit = self.scan_limit()
            if limit > self._scanned:
                predicate = self._predicate
                index.extend(entry.seq for entry in self._unscanned(limit) if predicate(entry))
                self._scanned = limit
        else:
            evicted_rows = max(0, first - self._seen_first)
            self._scanned = max(self._scanned, store.last_seq)
        self._seen_first = first
        rows = self.row_count
        self._set_rows(rows)
        if self.tail:
            self._cursor_seq = self.seq_at(rows - 1) if rows else None
            self._scroll_rows(max(0, rows - self.scrollable_content_region.height))
        elif evicted_rows and self.scroll_y > 0:
            self._scroll_rows(max(0, round(self.scroll_y) - evicted_rows))
        if self._cursor_seq is not None and self._cursor_seq < first:
            self._cursor_seq = self.seq_at(0)
        self.refresh()

    def set_store(self, store: TrafficStore) -> None:
        """Show another timeline (e.g. a session file opened after start), following its end."""
        self.store = store
        self._cursor_seq = None
        self.tail = True
        self.refilter()

    def refilter(self) -> None:
        """Rebuild the index from the store (after the predicate changed), keeping the cursor."""
        self._rebuild_index()
        self._cache.clear()
        self.sync(force=True)
        if not self.tail:
            self._show_cursor()

    # -- rendering ---------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._cache.clear()

    def style_for(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = component_style(self, f"traffic-log--{name}")
        return style

    def format_entry(self, entry: TrafficEntry) -> Text:
        """One entry as a line of text (subclasses decide what it says)."""
        return Text(preview_text(entry.raw))

    def cache_key(self, entry: TrafficEntry) -> tuple:
        """Everything that can change how an entry looks after it was appended."""
        return (entry.seq, entry.reply_seq, entry.latency_ms, entry.problem, entry.late)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = round(self.scroll_y) + y
        entry = self.entry_at(row)
        if entry is None:
            return Strip.blank(width, self.rich_style)
        is_cursor = entry.seq == self._cursor_seq
        key = (self.cache_key(entry), is_cursor, width)
        strip = self._cache.get(key)
        if strip is None:
            text = self.format_entry(entry)
            text.no_wrap = True
            text.truncate(width, overflow="ellipsis", pad=True)
            base = self.rich_style
            if is_cursor:
                base = base + self.style_for("cursor")
            text.stylize_before(base)
            strip = Strip(text.render(self.app.console), width).crop_extend(0, width, base)
            self._cache[key] = strip
        return strip

    # -- tail mode and cursor (the rest in RowCursor) ----------------------------
    def watch_tail(self, tail: bool) -> None:
        if tail and self.is_mounted:
            self.sync(force=True)

    def _put_cursor(self, row: int) -> None:
        self._cursor_seq = self.seq_at(row)

    def move_cursor_to_seq(self, seq: int) -> bool:
        """Put the cursor on ``seq`` if this view shows it (turns tail mode off)."""
        row = self.row_of(seq)
        if row is None:
            return False
        self.tail = False
        self.move_cursor_to_row(row)
        return True

    def _show_cursor(self) -> None:
        row = self.cursor_row
        if row is not None:
            self._scroll_to_row(row)
