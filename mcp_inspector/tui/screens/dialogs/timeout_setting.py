"""The request timeout, settable in the TUI (F11 or the palette's "settings: Request timeout").

A small input prefilled with the current value in seconds (``--timeout`` at
start); ``none`` (or ``off``, ``0``) waits for ever. It applies to requests sent
from then on: the next tools/call, and every request of the live session and of
the next connections. Calls already in flight keep the timeout they were sent with.
It is saved as ``request_timeout`` in config.toml for next time (``--timeout`` given on the
command line wins over it).
"""

from __future__ import annotations

import math
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

NO_TIMEOUT = ("none", "off", "never", "0", "∞")


def parse_timeout(text: str) -> tuple[bool, float | None, str]:
    """(ok, seconds or None for no timeout, problem)."""
    value = text.strip().lower().removesuffix("s").strip()
    if value in NO_TIMEOUT:
        return True, None, ""
    try:
        seconds = float(value)
    except ValueError:
        return False, None, f"{text.strip()!r} is not a number of seconds (or none)."
    if not math.isfinite(seconds) or seconds < 0:
        return False, None, "The timeout must be a positive number of seconds (or none)."
    return True, (seconds or None), ""


def describe(seconds: float | None) -> str:
    return "none" if seconds is None else f"{seconds:g}"


class TimeoutScreen(ModalScreen[tuple[bool, float | None]]):
    """Enter sets the typed value, escape keeps the old one."""

    DEFAULT_CSS = """
    TimeoutScreen { align: center middle; }
    TimeoutScreen > Vertical {
        width: 70;
        max-width: 95%;
        height: auto;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    TimeoutScreen #timeout-title { text-style: bold; }
    TimeoutScreen #timeout-problem { color: $text-warning; height: auto; }
    TimeoutScreen #timeout-hint { color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="timeout.cancel")]

    def __init__(self, current: float | None) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Request timeout (seconds)", id="timeout-title")
            yield Input(describe(self.current), id="timeout-input", select_on_focus=True)
            yield Static("", id="timeout-problem", markup=False)
            yield Static(
                "A number of seconds, or none. Applies to new requests.\nenter: set · escape: cancel", id="timeout-hint"
            )

    def on_mount(self) -> None:
        self.query_one("#timeout-input", Input).focus()

    @on(Input.Submitted, "#timeout-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        ok, seconds, problem = parse_timeout(event.value)
        if not ok:
            self.query_one("#timeout-problem", Static).update(problem)
            return
        self.dismiss((True, seconds))

    def action_cancel(self) -> None:
        self.dismiss((False, None))


def apply_timeout(app: Any, seconds: float | None) -> None:
    """The new default for what is sent from now on (calls in flight keep theirs)."""
    app.timeout = seconds
    main = app.main
    main.timeout = seconds
    connection = main.connection
    # the connection, or the switching wrapper with its current and candidate connections
    for each in (connection, getattr(connection, "current", None), getattr(connection, "candidate", None)):
        if each is None:
            continue
        if hasattr(each, "timeout"):
            each.timeout = seconds
        session = getattr(each, "session", None)
        if session is not None:
            session.timeout = seconds
            session.connection.default_timeout = seconds


def open_timeout_setting(app: Any) -> None:
    def chosen(answer: tuple[bool, float | None] | None) -> None:
        if not answer or not answer[0]:
            return
        from ...config import timeout_toml

        apply_timeout(app, answer[1])
        text = "no timeout" if answer[1] is None else f"{answer[1]:g} s"
        app.notify(f"Request timeout: {text} (for new requests)", title="Settings", markup=False, timeout=4)
        app.keep_setting("request_timeout", timeout_toml(answer[1]), "the request timeout")  # for next time

    app.push_screen(TimeoutScreen(app.main.timeout), chosen)
