"""HttpLog contents for the HTTP view tests and snapshots: what an HTTP transport records
for a short 2026-07-28 session, with a clock the test controls (deterministic times)."""

from __future__ import annotations

from textual.app import ComposeResult
from traffic_apps import BASE_TS, ThemedApp, fixed_time

from mcp_inspector.core.traffic.http_log import HttpLog
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.widgets.views.http_view import HttpView

URL = "https://mcp.example.com/mcp?api_key=sk-live-0123456789abcdef"


class Clock:
    def __init__(self, start: float = BASE_TS) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, ms: float) -> None:
        self.now += ms / 1000


def request_headers(method: str, name: str | None = None) -> list[tuple[str, str]]:
    headers = [
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("Authorization", "Bearer sk-live-0123456789abcdef"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ]
    if name:
        headers.append(("Mcp-Name", name))
    return headers


def modern_session(clock: Clock, log: HttpLog) -> None:
    """discover, tools/list, a listen stream left open, a tools/call answered on SSE with progress,
    a call refused with 400 + -32020, and a stream cut mid-reply."""

    def post(
        method: str,
        rpc_id: int,
        name: str | None = None,
        *,
        status: int = 200,
        reason: str = "OK",
        content_type: str = "application/json",
        size: int = 0,
        ms: float = 12.0,
        events: int = 0,
        open_: bool = False,
        error: str | None = None,
    ) -> None:
        exchange = log.begin(
            "POST", URL, request_headers(method, name), rpc_method=method, rpc_id=rpc_id, request_size=180 + rpc_id
        )
        clock.advance(ms * 0.8)
        log.response(exchange, status, reason, [("content-type", content_type), ("x-request-id", f"r-{rpc_id}")])
        for number in range(events):
            clock.advance(ms * 0.1)
            log.event(exchange, "message", f"{rpc_id}-{number}", 120, retry=3000 if number == 0 else None)
        if size:
            log.body(exchange, size)
        clock.advance(ms * 0.2)
        if not open_:
            log.finish(exchange, error)
        clock.advance(40)

    post("server/discover", 1, size=412, ms=35.5)
    post("tools/list", 2, size=1730, ms=18.25)
    post("subscriptions/listen", 3, content_type="text/event-stream", events=1, ms=9.0, open_=True)
    post("tools/call", 4, "long_running", content_type="text/event-stream", events=4, ms=1500)
    post("tools/call", 5, "echo", status=400, reason="Bad Request", size=160, ms=6.0)
    post(
        "tools/call",
        6,
        "flaky",
        content_type="text/event-stream",
        events=1,
        ms=80,
        error="the stream ended before the reply (not resumable)",
    )


class HttpViewApp(ThemedApp):
    """The HTTP view alone over a store whose HttpLog uses ``clock``."""

    def __init__(self, store: TrafficStore, transport: str = "http") -> None:
        super().__init__()
        self.store = store
        self.transport = transport
        self.opened: list[int] = []

    def compose(self) -> ComposeResult:
        view = HttpView(self.store, time_format=fixed_time, id="view-http")
        view.transport = self.transport
        yield view

    def on_http_exchange_list_opened(self, message) -> None:
        self.opened.append(message.exchange_id)
