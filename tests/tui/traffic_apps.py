"""Small standalone apps and store builders for the traffic widget tests."""

from __future__ import annotations

import json
from typing import Any

from textual.app import App, ComposeResult

from mcp_inspector.core.base import jsonrpc
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.screens.opener import ScreenDialogs
from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog, TrafficPanel

BASE_TS = 1_700_000_000.0


def fixed_time(ts: float) -> str:
    """A deterministic timestamp (seconds since BASE_TS) for snapshots."""
    offset = ts - BASE_TS
    minutes, seconds = divmod(offset, 60)
    return f"00:{int(minutes):02d}:{seconds:06.3f}"


class ThemedApp(App):
    """Any app hosting traffic widgets needs the app's theme variables."""

    @property
    def dialogs(self) -> ScreenDialogs:  # the screens its widgets open (widgets/dialogs.py)
        return ScreenDialogs(self)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)


class LogApp(ThemedApp):
    def __init__(self, store: TrafficStore, *, panel: bool = False, **log_options: Any) -> None:
        super().__init__()
        self.store = store
        self.panel = panel
        self.log_options = log_options
        self.selected: list[int] = []  # seqs from TrafficLog.EntrySelected
        self.exports: list = []  # TrafficLog.Exported messages

    def compose(self) -> ComposeResult:
        if self.panel:
            yield TrafficPanel(self.store, **self.log_options)
        else:
            yield TrafficLog(self.store, **self.log_options)

    def on_mount(self) -> None:
        self.query_one(TrafficLog).focus()

    def on_traffic_log_entry_selected(self, message: TrafficLog.EntrySelected) -> None:
        self.selected.append(message.seq)

    def on_traffic_log_exported(self, message: TrafficLog.Exported) -> None:
        self.exports.append(message)


def frame(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def add_exchange(
    store: TrafficStore,
    msg_id: int,
    method: str,
    params: dict | None,
    result: Any,
    *,
    ts: float,
    latency_ms: float = 12.3,
    error: tuple[int, str] | None = None,
):
    """A request and its reply, linked like the RPC layer links them."""
    request = store.append(
        Direction.OUT,
        Kind.REQUEST,
        frame(jsonrpc.request(msg_id, method, params)),
        method=method,
        msg_id=msg_id,
        has_id=True,
        ts=ts,
    )
    if error is not None:
        raw = frame(jsonrpc.error_response(msg_id, *error))
        reply = store.append(
            Direction.IN, Kind.ERROR, raw, msg_id=msg_id, has_id=True, error_code=error[0], ts=ts + latency_ms / 1000
        )
    else:
        reply = store.append(
            Direction.IN,
            Kind.RESPONSE,
            frame(jsonrpc.response(msg_id, result)),
            msg_id=msg_id,
            has_id=True,
            ts=ts + latency_ms / 1000,
        )
    store.link(request, reply, latency_ms)
    return request, reply


def sample_store() -> TrafficStore:
    """A fixed timeline with an entry of every kind (for snapshots and view tests)."""
    store = TrafficStore(cap=1000)
    t = BASE_TS
    store.append(Direction.LOCAL, Kind.EVENT, b"started: python -m demo (pid 4242)", ts=t)
    add_exchange(
        store,
        1,
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}},
        {"protocolVersion": "2025-11-25", "serverInfo": {"name": "demo", "version": "1.0"}},
        ts=t + 0.010,
        latency_ms=48.2,
    )
    store.append(
        Direction.OUT,
        Kind.NOTIFICATION,
        frame(jsonrpc.notification("notifications/initialized")),
        method="notifications/initialized",
        ts=t + 0.070,
    )
    store.append(Direction.IN, Kind.STDERR, b"INFO demo server ready", ts=t + 0.080)
    add_exchange(
        store, 2, "tools/list", None, {"tools": [{"name": "echo"}, {"name": "add"}]}, ts=t + 0.100, latency_ms=3.1
    )
    add_exchange(
        store,
        3,
        "tools/call",
        {"name": "echo", "arguments": {"text": "hello"}},
        {"content": [{"type": "text", "text": "hello"}]},
        ts=t + 1.000,
        latency_ms=7.9,
    )
    store.append(
        Direction.IN,
        Kind.NOTIFICATION,
        frame(
            jsonrpc.notification("notifications/message", {"level": "warning", "logger": "demo", "data": "disk low"})
        ),
        method="notifications/message",
        ts=t + 1.100,
    )
    add_exchange(
        store,
        4,
        "tools/call",
        {"name": "nope", "arguments": {}},
        None,
        ts=t + 1.200,
        latency_ms=1.4,
        error=(-32602, "Unknown tool: nope"),
    )
    store.append(
        Direction.IN, Kind.INVALID, b"Loading... 100%", problem="not JSON: Expecting value at 1:1", ts=t + 1.300
    )
    late = store.append(
        Direction.IN,
        Kind.RESPONSE,
        frame(jsonrpc.response(9, {"content": []})),
        msg_id=9,
        has_id=True,
        ts=t + 2.000,
        late=True,
        problem="late: arrived after the request ended (timed out)",
    )
    late.latency_ms = 3100.0
    store.append(
        Direction.IN, Kind.BATCH, b'[{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}]', ts=t + 2.100
    )
    big = frame({"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": "x" * 5000}]}})
    store.append(Direction.IN, Kind.RESPONSE, big, msg_id=5, has_id=True, ts=t + 2.200)
    store.append(Direction.LOCAL, Kind.EVENT, b"exited with code 0", ts=t + 3.000)
    return store


def screen_text(app: App) -> str:
    """The current screen as plain text (what a user would read)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text.rstrip() for strip in strips)


def send_key(app: App, key: str) -> None:
    """Deliver a key the way the terminal driver does, without Pilot's wait-for-idle
    (which measures the test harness, not the app, while a flood keeps the loop busy)."""
    from textual import events

    event = events.Key(key, None)
    event.set_sender(app)
    app._driver.send_message(event)
