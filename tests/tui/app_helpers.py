"""Helpers for driving the whole InspectorApp in Pilot tests."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.app import InspectorApp, make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.pilot_steps import wait_for, wait_for_form  # noqa: F401  (re-exported for the tests)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
DEMO_SESSION = FIXTURES / "demo-session.jsonl"
SIZE = (120, 40)


def demo_spec(*extra: str) -> ServerSpec:
    return ServerSpec("demo", [sys.executable, "-m", "mcp_inspector.demo", *extra], source="test")


def live_app(spec: ServerSpec | None = None, **options) -> InspectorApp:
    """The app on a real demo server subprocess, with default config (no user files)."""
    options.setdefault("config", TuiConfig())
    options.setdefault("timeout", 20.0)
    return make_app(spec or demo_spec(), **options)


async def settle(app) -> None:
    """Wait for the app's short-lived workers (never the connection's, which runs until the end).

    A worker replaced by an exclusive newer one ends cancelled; that is fine here.
    """
    from textual.worker import WorkerCancelled, WorkerState

    for _ in range(50):
        busy = [
            w for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING) and w.group != "connection"
        ]
        if not busy:
            return
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete(busy)


async def checks_settled(pilot) -> None:
    """Wait until the live checks have judged every frame so far and the status bar shows their
    count (its "2 errors"): they start 1.5 s after mount (checks_state.PRELOAD_AFTER) and drain
    on a timer, so a snapshot taken sooner or later than that differed."""
    main = pilot.app.main
    checks = main.checks
    await wait_for(
        pilot,
        lambda: checks.ready and not checks.pending and main.status_bar.checks == dict(checks.counts),
        what="the live checks",
    )


async def wait_for_tools(pilot, app: InspectorApp) -> None:
    await wait_for(pilot, lambda: bool(app.main.tool_list.tools), what="the tool list")


async def choose_tool(pilot, app: InspectorApp, name: str) -> None:
    """Select a tool in the list and wait for the composer to show its form."""
    main = app.main
    assert main.tool_list.select_name(name), f"no tool {name!r} in the list"
    await wait_for(pilot, lambda: main.composer.tool is not None and main.composer.tool.get("name") == name, what=name)
    # the composer builds the form in a worker; wait for it, not for the old form still on screen
    await wait_for_form(app)
    await wait_for(pilot, lambda: main.composer.schema_form is not None, what=f"the form of {name}")


def collect_calls(into: list):
    """A ``message_hook`` for ``run_test``: every CallFinished and CallFailed the app posts goes into ``into``."""
    from mcp_inspector.tui.messages import CallFailed, CallFinished

    def hook(message) -> None:
        if isinstance(message, (CallFinished, CallFailed)):
            into.append(message)

    return hook


def outgoing(app: InspectorApp, method: str) -> list:
    from mcp_inspector.core.traffic.entry import Direction

    return [e for e in app.store if e.direction is Direction.OUT and e.method == method]


def record_row_updates(row, seen: set, text_of) -> None:
    """Add ``text_of(row)`` to ``seen`` after every update of an in-flight row while it follows a
    task, so a test sees each state the row showed (sampling it between pauses can miss a short
    one on a busy machine)."""
    original = row.update_view

    def update_view() -> None:
        original()
        if row.following_task:
            seen.add(text_of(row))

    row.update_view = update_view
