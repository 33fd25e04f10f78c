"""Waits for driving the app with Textual's Pilot, shared by the tests and scripts/screenshots.py.

They poll with a deadline instead of sleeping a fixed time, so a busy machine
makes them slower, never wrong, and a broken app fails with what was awaited.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import Notification


def shown_notifications(app: App[object]) -> list[Notification]:
    """The toasts the app holds now (Textual keeps them in a private list, with no public view)."""
    from .textual_compat import notifications

    return notifications(app)


async def wait_for(pilot, condition: Callable[[], object], timeout: float = 30.0, what: str = "condition") -> None:
    """Pause the pilot until ``condition()`` is true; fail clearly instead of hanging.

    A condition that queries a widget not mounted yet (``NoMatches``: a screen pushed but not
    composed, on a loaded machine) is "not yet". The timeout is a bound for a broken app, not a
    speed check: two xdist workers beside other jobs can take seconds for what takes milliseconds.
    """
    from textual.css.query import NoMatches
    from textual.pilot import WaitForScreenTimeout

    def met() -> object:
        try:
            return condition()
        except NoMatches:
            return False

    deadline = time.monotonic() + timeout
    while not met():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        # Textual's pause waits up to 30 s for every widget to handle a callback; a widget
        # removed meanwhile may never run it. The condition, looked at again, decides.
        with contextlib.suppress(WaitForScreenTimeout):
            await pilot.pause(0.05)


async def wait_for_form(app) -> None:
    """Wait for the composer's form-building worker (never wait_for_complete([]): that waits for all)."""
    from textual.worker import WorkerCancelled

    loading = [w for w in app.workers if w.group == "composer-load"]
    if loading:
        try:
            await app.workers.wait_for_complete(loading)
        except WorkerCancelled:  # replaced by a newer load (exclusive group)
            await wait_for_form(app)


async def ticked(pilot, interval: float, times: int = 2, what: str = "timer ticks") -> None:
    """Wait until a timer of ``interval`` seconds, started now on the app, has fired ``times`` times.

    For a test that something does NOT happen on a widget's timer of that interval: once this one
    fired twice, a running timer of the same interval had a tick in between (the proof is the
    event loop's own timer, not a sleep that a loaded machine can outlast).
    """
    fired = 0

    def tick() -> None:
        nonlocal fired
        fired += 1

    timer = pilot.app.set_interval(interval, tick, name="pilot-ticked")
    try:
        await wait_for(pilot, lambda: fired >= times, timeout=30.0 + interval * times, what=what)
    finally:
        timer.stop()


async def palette_pick(pilot, text: str) -> None:
    """Open the command palette, type ``text`` and wait until the highlighted command is one that
    shows it (the palette searches in a worker: a list for a shorter text may still be up)."""
    from textual.command import CommandList, CommandPalette

    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the command palette")
    await pilot.press(*text)
    wanted = text.lower()

    def found() -> bool:
        commands = app.screen.query_one(CommandList)
        index = commands.highlighted
        if index is None or commands.option_count == 0:
            return False
        return wanted in str(commands.get_option_at_index(index).prompt).lower()

    await wait_for(pilot, found, what=f"the command {text!r} highlighted")
