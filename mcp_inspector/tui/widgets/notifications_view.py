"""Notifications in their own view: server logs by level, list changes, progress.

The lines come from the TrafficStore (kind NOTIFICATION), indexed like the
traffic log; the counts come from ``store.method_counts`` and are refreshed on
a slow timer, paused while the view is not shown (like the lines' poll). Changing
the level only posts ``SetLevelRequested``: the host owns the session and sends
``logging/setLevel``.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Label, Select, Static

from ...core.protocol.json_text import JsonTextError, parse_frame
from ...core.protocol.jsonrpc import Kind
from ...core.traffic.entry import TrafficEntry
from ...core.traffic.store import TrafficStore
from ..traffic_text import ARROWS, clean, clock_time, preview_text
from .shown_timer import ShownTimer
from .store_lines import StoreLinesView

LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
#: Notifications bigger than this are previewed, not parsed.
PARSE_LIMIT = 64 * 1024
#: How much of a log message's data is shown on its line.
DATA_PREVIEW = 300


def _compact(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = " ".join(clean(text).split())
    return text if len(text) <= DATA_PREVIEW else text[:DATA_PREVIEW] + "…"


class NotificationLines(StoreLinesView):
    """One line per notification, worded by method."""

    INCLUDES_EVERYTHING: ClassVar[bool] = False

    def include(self, entry: TrafficEntry) -> bool:
        return entry.kind is Kind.NOTIFICATION

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
        text = Text.assemble(
            (self.time_format(entry.ts), style("time")), " ",
            (ARROWS[entry.direction], style(entry.direction.value)), " ",
        )
        method = entry.method or "?"
        params: Any = None
        parsed = False
        if len(entry.raw) <= PARSE_LIMIT:
            try:
                params = parse_frame(entry.raw)[0].get("params")
                parsed = True
            except (JsonTextError, AttributeError):  # an opened file's entry may be anything
                params = None
        if not isinstance(params, dict):
            text.append(clean(method) + " ", style("notification") + style("method"))
            if not (parsed and params is None):
                text.append(preview_text(entry.raw), style("preview"))
            return text
        if method == "notifications/message":
            level = clean(str(params.get("level", "?")))[:12]
            text.append(f"{level.upper():<9}", self.level_style(level) + style("method"))
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


class NotificationsView(Vertical):
    """Counts, rate and a level selector above the live list of notifications."""

    DEFAULT_CSS = """
    NotificationsView { height: 1fr; }
    NotificationsView #notifications-bar { height: 3; background: $panel; }
    NotificationsView #notifications-bar Label { padding: 1 1 0 1; }
    NotificationsView #notifications-level { width: 22; }
    NotificationsView #notifications-counts { width: 1fr; padding: 0 1; height: 3; color: $text-muted; }
    NotificationsView NotificationLines { height: 1fr; }
    """
    COUNTS_INTERVAL: ClassVar[float] = 0.5

    class SetLevelRequested(Message):
        """The user picked a log level; the host should send ``logging/setLevel``."""

        def __init__(self, level: str) -> None:
            super().__init__()
            self.level = level

    def __init__(self, store: TrafficStore, *, time_format: Callable[[float], str] = clock_time,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.store = store
        self.notification_lines = NotificationLines(store, time_format=time_format)
        self._rate_samples: list[tuple[float, int]] = []
        self._counts_seen: tuple[int, int] | None = None
        self._counts_timer: ShownTimer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="notifications-bar"):
            yield Label("Server log level")
            yield Select([(level, level) for level in LOG_LEVELS], prompt="(unchanged)", id="notifications-level")
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

    def set_store(self, store: TrafficStore) -> None:
        """Follow another timeline (the host replaced its store)."""
        self.store = store
        self._rate_samples.clear()
        self._counts_seen = None
        self.notification_lines.set_store(store)
        self.update_counts()

    def notification_counts(self) -> dict[str, int]:
        """Per-method counts of notifications (both directions), from the store's running totals."""
        return {method: count for method, count in self.store.method_counts.items()
                if method.startswith("notifications/")}

    def rate(self, now: float | None = None) -> float:
        """Notifications per second over the last few seconds."""
        samples = self._rate_samples
        if len(samples) < 2:
            return 0.0
        (t0, n0), (t1, n1) = samples[0], samples[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else 0.0

    def update_counts(self) -> None:
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
        key = (self.store.version, round(rate))
        if key == self._counts_seen:
            return
        self._counts_seen = key
        parts = [f"{clean(method.removeprefix('notifications/'))[:40]} {count}"
                 for method, count in sorted(counts.items(), key=lambda item: -item[1])]
        summary = Text(f"{total} notification{'' if total == 1 else 's'} · {rate:.0f}/s\n", style="bold")
        summary.append(" · ".join(parts) if parts else "none yet")
        self.query_one("#notifications-counts", Static).update(summary)

    @on(Select.Changed, "#notifications-level")
    def _level_chosen(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str):
            self.post_message(self.SetLevelRequested(event.value))
