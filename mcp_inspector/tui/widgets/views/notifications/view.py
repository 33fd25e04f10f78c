"""Notifications in their own view: server logs by level, list changes, progress.

The lines come from the TrafficStore (kind NOTIFICATION), indexed like the
traffic log, through the filter of ``notifications_filter`` (method terms, a minimum
log level, runs of identical notifications folded into one row with a count). The
summary (counts from ``store.method_counts``, rates per method over the last 10 s from
a ``RateTracker`` that reads only what arrived since its last tick) is refreshed on a
slow timer, paused while the view is not shown (like the lines' poll).

Changing the server's log level only posts ``SetLevelRequested``: the host owns the
session and calls :func:`apply_log_level`, which sends ``logging/setLevel`` (legacy, when
the server declares ``logging``) or sets the level every request carries in its
``_meta`` (2026-07-28). The view is a ``SessionView``: it shows the level in force on
the live session.
"""

from __future__ import annotations

import json
import time
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label, Select, Static

from .....core.base.errors import InspectorError
from .....core.base.json_text import JsonTextError, parse_frame
from .....core.base.jsonrpc import Kind
from .....core.session.mcp_session import McpSession
from .....core.traffic.entry import TrafficEntry
from .....core.traffic.store import TrafficStore
from ....text.traffic_text import ARROWS, clean, clock_time, preview_text
from ....textual_compat import SelectOverlay
from ...shown_timer import ShownTimer
from ...store_lines import StoreLinesView
from ..session_view import SessionView
from ..traffic.filter import FilterToggle
from .filter import LOG_LEVELS, MethodSuggester, NotificationFilter, RateTracker, RunPredicate, short_method

#: Notifications bigger than this are previewed, not parsed.
PARSE_LIMIT = 64 * 1024
#: How much of a log message's data is shown on its line.
DATA_PREVIEW = 300


def _compact(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = " ".join(clean(text).split())
    return text if len(text) <= DATA_PREVIEW else text[:DATA_PREVIEW] + "…"


class NotificationLines(StoreLinesView):
    """One line per notification (or per run of identical ones), worded by method."""

    INCLUDES_EVERYTHING: ClassVar[bool] = False

    def __init__(
        self,
        store: TrafficStore,
        *,
        time_format: Callable[[float], str] = clock_time,
        filter: NotificationFilter | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        self.filter = filter or NotificationFilter()
        self.runs: RunPredicate | None = None
        super().__init__(store, time_format=time_format, id=id, classes=classes)

    def include(self, entry: TrafficEntry) -> bool:
        return entry.kind is Kind.NOTIFICATION

    def _make_predicate(self) -> Callable[[TrafficEntry], bool]:
        self.runs = RunPredicate(self.filter, self.store)  # fresh run state for each rebuild of the index
        return self.runs

    def set_filter(self, spec: NotificationFilter) -> None:
        """Show what ``spec`` lets through (one rescan of the store, then incremental again)."""
        if spec != self.filter:
            self.filter = spec
            self.refilter()

    def run_of(self, seq: int) -> list | None:
        """``[count, last seq, last ts]`` when the row of ``seq`` stands for a run of repeats."""
        return self.runs.run_of(seq) if self.runs is not None else None

    def cache_key(self, entry: TrafficEntry) -> tuple:
        run = self.run_of(entry.seq)
        return (*super().cache_key(entry), run[0] if run else 1)

    def level_style(self, level: str) -> Style:
        if level == "debug":
            return self.style_for("time")
        if level in ("info",):
            return self.style_for("in")
        if level == "notice":
            return self.style_for("notification")
        if level == "warning":
            return self.style_for("warning")
        return self.style_for("error")

    def format_entry(self, entry: TrafficEntry) -> Text:
        style = self.style_for
        run = self.run_of(entry.seq)
        text = Text.assemble(
            (self.time_format(run[3] if run is not None else entry.ts), style("time")),
            " ",
            (ARROWS[entry.direction], style(entry.direction.value)),
            " ",
        )
        if run is not None:
            text.append(f"×{run[0]} ", style("warning"))
            text.append(f"(until {self.time_format(run[2])}) ", style("time"))
        return self._describe(entry, text)

    def _describe(self, entry: TrafficEntry, text: Text) -> Text:
        style = self.style_for
        method = entry.method or "?"
        params: Any = None
        parsed = False
        if len(entry.raw) <= PARSE_LIMIT:
            try:
                params = parse_frame(entry.raw)[0].get("params")
                parsed = True
            except (JsonTextError, AttributeError):  # an opened file's entry may be anything
                params = None
        if parsed and params is None and method.endswith("/list_changed"):
            params = {}  # they carry nothing
        if not isinstance(params, dict):
            text.append(clean(method) + " ", style("notification") + style("method"))
            if not (parsed and params is None):
                text.append(preview_text(entry.raw), style("preview"))
            return text
        if method == "notifications/message":
            level = clean(str(params.get("level", "?")))[:12]
            # a column one wider than the longest level ("emergency"), then a space: never
            # "EMERGENCYEmergency-level message", and every message starts in the same column
            text.append(f"{level.upper():<{LEVEL_COLUMN}}", self.level_style(level) + style("method"))
            text.append(" ")
            if params.get("logger") is not None:
                text.append(f"[{_compact(params['logger'])}] ", style("seq"))
            text.append(_compact(params.get("data")), self.level_style(level) if level != "info" else Style())
        elif method == "notifications/progress":
            total = params.get("total")
            amount = f"{params.get('progress')}" + (f"/{total}" if total is not None else "")
            text.append("progress ", style("notification") + style("method"))
            text.append(f"{amount} ", style("latency"))
            text.append(f"token={_compact(params.get('progressToken'))} ", style("seq"))
            if params.get("message"):
                text.append(_compact(params["message"]))
        elif method.endswith("/list_changed"):
            what = clean(method.removeprefix("notifications/").removesuffix("/list_changed"))
            text.append(f"{what} list changed", style("notification") + style("method"))
        elif method == "notifications/resources/updated":
            text.append("resource updated ", style("notification") + style("method"))
            text.append(_compact(params.get("uri")))
        elif method == "notifications/cancelled":
            text.append("cancelled ", style("warning") + style("method"))
            text.append(f"request {_compact(params.get('requestId'))}", style("seq"))
            if params.get("reason"):
                text.append(f" ({_compact(params['reason'])})")
        else:
            text.append(clean(method) + " ", style("notification") + style("method"))
            text.append(_compact(params), style("preview"))
        return text


#: width of the level column in a log row: the longest level name and one space
LEVEL_COLUMN = max(len(level) for level in LOG_LEVELS) + 1

#: The level set through this view on each live session (a legacy server does not tell its own).
_APPLIED_LEVELS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def declares_logging(session: McpSession | None) -> bool:
    return session is not None and isinstance(session.capabilities, dict) and "logging" in session.capabilities


def level_state(session: McpSession | None) -> str:
    """The log level in force on ``session`` and how it is set, in words."""
    if session is None:
        return "not connected"
    if getattr(session, "era", None) == "modern":
        level = getattr(session, "log_level", None)
        return f"now: {level or 'server default'} · sent in each request's _meta (2026-07-28)"
    if not declares_logging(session):
        return "this server declares no logging capability"
    return f"now: {_APPLIED_LEVELS.get(session) or 'server default'} · logging/setLevel"


async def apply_log_level(session: McpSession, level: str) -> tuple[str, str]:
    """Set the server's log level the way the session's era does it: (severity, what happened)."""
    if getattr(session, "era", None) == "modern":
        await session.set_log_level(level)
        return (
            "information",
            f"Log level {level}: every request carries it in _meta from now on "
            "(2026-07-28 has no logging/setLevel; no request was sent).",
        )
    if not declares_logging(session):
        return "warning", "The server declares no logging capability: logging/setLevel was not sent."
    try:
        await session.set_log_level(level)
    except InspectorError as exc:
        return "error", f"logging/setLevel failed: {exc}"
    _APPLIED_LEVELS[session] = level
    return "information", f"Log level set to {level} (logging/setLevel)."


class NotificationsView(SessionView):
    """The server's log level, a filter, counts and rates, above the live list of notifications."""

    BINDINGS = [
        Binding(
            "l",
            "choose_level",
            "Log level",
            id="notifications.log-level",
            tooltip="Set the server's log level (logging/setLevel; in 2026-07-28 each request's _meta)",
        ),
        Binding(
            "slash",
            "focus_filter",
            "Filter",
            id="notifications.filter",
            tooltip="Filter by method (a part of it or a glob; !term hides)",
        ),
        Binding(
            "m",
            "choose_min_level",
            "Min level",
            id="notifications.min-level",
            tooltip="Show log messages at this level and above only",
        ),
        Binding(
            "f",
            "toggle_fold",
            "Fold repeats",
            id="notifications.fold",
            tooltip="Fold identical notifications in a row into one (on/off)",
        ),
        Binding(
            "escape",
            "back_to_list",
            "Back to the list",
            id="notifications.back",
            show=False,
            tooltip="Back to the list of notifications",
        ),
    ]
    DEFAULT_CSS = """
    NotificationsView { height: 1fr; }
    NotificationsView .notifications-bar { height: 1; background: $panel; }
    NotificationsView .notifications-bar Label { padding: 0 1; color: $text-muted; }
    NotificationsView #notifications-level { width: 16; }
    NotificationsView #notifications-level-state { width: 1fr; padding: 0 1; color: $text-muted; }
    NotificationsView #notifications-method { width: 1fr; min-width: 16; max-width: 50; }
    NotificationsView #notifications-min-level { width: 22; }
    NotificationsView #notifications-collapse { margin: 0 0 0 1; }
    NotificationsView #notifications-shown { width: auto; padding: 0 1; color: $text-muted; }
    NotificationsView #notifications-counts { height: auto; max-height: 6; padding: 0 1; color: $text-muted;
                                              background: $panel; }
    NotificationsView NotificationLines { height: 1fr; }
    """
    COUNTS_INTERVAL: ClassVar[float] = 0.5
    #: Methods named in the rates panel (the busiest in the window).
    RATE_LINES: ClassVar[int] = 4

    class SetLevelRequested(Message):
        """The user picked a log level; the host should call ``apply_log_level`` on its session."""

        def __init__(self, level: str) -> None:
            super().__init__()
            self.level = level

    def __init__(
        self,
        store: TrafficStore,
        *,
        time_format: Callable[[float], str] = clock_time,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(store, time_format=time_format, id=id, classes=classes)
        self.notification_lines = NotificationLines(store, time_format=time_format)
        self.rates = RateTracker()
        self._rate_samples: list[tuple[float, int]] = []
        self._counts_seen: Any = None
        self._counts_timer: ShownTimer | None = None
        self._debounce: Any = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="notifications-bar", id="notifications-level-bar"):
            yield Label("Server log level")
            yield Select(
                [(level, level) for level in LOG_LEVELS],
                prompt="(unchanged)",
                id="notifications-level",
                compact=True,
                tooltip="Ask the server for log messages at this level and above",
            )
            yield Static("", id="notifications-level-state")
        with Horizontal(classes="notifications-bar", id="notifications-filter-bar"):
            yield Label("Show")
            yield Input(
                placeholder="methods: message, !list_changed, tools/*",
                id="notifications-method",
                suggester=MethodSuggester(self.methods_seen),
                compact=True,
                tooltip="Terms (a part of the method or a glob), comma separated; !term hides; "
                "right arrow takes the suggestion",
            )
            yield Select(
                [(f"logs ≥ {level}", level) for level in LOG_LEVELS[1:]],
                prompt="logs: every level",
                id="notifications-min-level",
                compact=True,
                tooltip="Hide notifications/message below this level (other notifications stay)",
            )
            yield FilterToggle("fold repeats", True, id="notifications-collapse")
            yield Static("", id="notifications-shown")
        yield Static("", id="notifications-counts")
        yield self.notification_lines

    def on_mount(self) -> None:
        self._counts_timer = ShownTimer(self, self.COUNTS_INTERVAL, self.update_counts, "notification-counts")
        self.update_counts()

    def on_hide(self) -> None:
        if self._counts_timer is not None:
            self._counts_timer.hidden()

    def on_show(self) -> None:
        if self._counts_timer is not None:
            self._counts_timer.shown()

    def first_focus(self):
        return self.notification_lines

    # -- keys ------------------------------------------------------------------
    def _open_select(self, selector: str) -> None:
        select = self.query_one(selector, Select)
        select.focus()
        select.expanded = True
        self.call_after_refresh(self._highlight_current, select)

    @staticmethod
    def _highlight_current(select: Select) -> None:
        """Open on the current choice: with none chosen yet, the prompt row ("(unchanged)": the server's
        default), not on nothing (down then enter picked "(unchanged)" instead of the first level)."""
        overlay = select.query_one(SelectOverlay)
        if overlay.highlighted is None and overlay.option_count:
            overlay.highlighted = 0

    def action_choose_level(self) -> None:
        self._open_select("#notifications-level")

    def action_choose_min_level(self) -> None:
        self._open_select("#notifications-min-level")

    def action_focus_filter(self) -> None:
        self.query_one("#notifications-method", Input).focus()

    def action_toggle_fold(self) -> None:
        toggle = self.query_one("#notifications-collapse", FilterToggle)
        toggle.value = not toggle.value

    def action_back_to_list(self) -> None:
        self.notification_lines.focus()

    # -- the session and its log level -------------------------------------
    def set_session(self, session: McpSession | None, facts: Any, read_only: bool = False) -> None:
        changed = session is not self.session
        super().set_session(session, facts, read_only)
        if changed and self.is_mounted:
            select = self.query_one("#notifications-level", Select)
            with select.prevent(Select.Changed):
                select.clear()  # a new session starts at the server's default level
        self._show_level_state()

    def _show_level_state(self) -> None:
        if not self.is_mounted:
            return
        text = "read-only recording" if self.read_only else level_state(self.session)
        state = self.query_one("#notifications-level-state", Static)
        if str(state.content) != text:
            state.update(text)

    @on(Select.Changed, "#notifications-level")
    def _level_chosen(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str):
            self.post_message(self.SetLevelRequested(event.value))

    # -- the filter -----------------------------------------------------------
    def methods_seen(self) -> list[str]:
        """Notification methods seen so far, the most frequent first (for completion)."""
        counts = self.notification_counts()
        return sorted(counts, key=lambda method: -counts[method])

    def current_filter(self) -> NotificationFilter:
        level = self.query_one("#notifications-min-level", Select).value
        return NotificationFilter(
            methods=self.query_one("#notifications-method", Input).value,
            min_level=level if isinstance(level, str) else None,
            collapse=self.query_one("#notifications-collapse", FilterToggle).value,
        )

    def apply_filter(self) -> None:
        self.notification_lines.set_filter(self.current_filter())
        self._counts_seen = None
        self.update_counts()

    @on(Input.Changed, "#notifications-method")
    def _method_typed(self, event: Input.Changed) -> None:
        event.stop()
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(0.15, self.apply_filter)  # one rescan per pause in typing

    @on(Input.Submitted, "#notifications-method")
    def _method_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._debounce is not None:
            self._debounce.stop()
        self.apply_filter()
        self.notification_lines.focus()

    @on(Select.Changed, "#notifications-min-level")
    def _min_level_chosen(self, event: Select.Changed) -> None:
        event.stop()
        self.apply_filter()

    def on_filter_toggle_changed(self, event: FilterToggle.Changed) -> None:
        event.stop()
        if event.toggle.id == "notifications-collapse" and self.is_mounted:
            self.apply_filter()

    # -- counts and rates ---------------------------------------------------------
    def set_store(self, store: TrafficStore) -> None:
        """Follow another timeline (the host replaced its store)."""
        self.store = store
        self._rate_samples.clear()
        self.rates.reset()
        self._counts_seen = None
        self.notification_lines.set_store(store)
        self.update_counts()

    def notification_counts(self) -> dict[str, int]:
        """Per-method counts of notifications (both directions), from the store's running totals."""
        return {
            method: count for method, count in self.store.method_counts.items() if method.startswith("notifications/")
        }

    def rate(self, now: float | None = None) -> float:
        """Notifications per second over the last few seconds."""
        samples = self._rate_samples
        if len(samples) < 2:
            return 0.0
        (t0, n0), (t1, n1) = samples[0], samples[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else 0.0

    def method_rates(self, now: float | None = None) -> list[tuple[str, int]]:
        """(method, count) over the rate window, busiest first."""
        now = self.store.now() if now is None else now
        self.rates.update(self.store, now)
        return self.rates.counts(now).most_common()

    def update_counts(self) -> None:
        self._show_level_state()
        counts = self.notification_counts()
        total = sum(counts.values())
        now = time.monotonic()
        samples = self._rate_samples
        if samples and now - samples[-1][0] > 3.0:
            samples.clear()  # sampling paused while hidden: an average over that gap is not a rate
        samples.append((now, total))
        while len(samples) > 2 and now - samples[0][0] > 3.0:
            samples.pop(0)
        rate = self.rate()
        recent = self.method_rates()
        lines = self.notification_lines
        key = (self.store.version, round(rate), tuple(recent), lines.row_count, lines.filter)
        if key == self._counts_seen:
            return
        self._counts_seen = key
        parts = [
            f"{clean(short_method(method))[:40]} {count}"
            for method, count in sorted(counts.items(), key=lambda item: -item[1])
        ]
        summary = Text(f"{total} notification{'' if total == 1 else 's'} · {rate:.0f}/s", style="bold")
        summary.append("   " + (" · ".join(parts) if parts else "none yet"))
        window = self.rates.window
        for method, count in recent[: self.RATE_LINES]:
            summary.append(f"\n{clean(method)[:60]} ", style="bold")
            per_second = count / window
            summary.append(
                f"{count} in the last {window:.0f} s ({per_second:.1f}/s)"
                if per_second < 10
                else f"{count} in the last {window:.0f} s ({per_second:.0f}/s)"
            )
        if len(recent) > self.RATE_LINES:
            summary.append(f"\n… and {len(recent) - self.RATE_LINES} more methods")
        self.query_one("#notifications-counts", Static).update(summary)
        shown = "" if not lines.filter.narrows else f"{lines.row_count} rows shown"
        self.query_one("#notifications-shown", Static).update(shown)
