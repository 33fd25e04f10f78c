"""SIGINT, SIGTERM and SIGHUP stop the CLI the same way: the server is shut down, then we exit 128 + signal.

``timeout``, CI cancellation and a closed terminal send SIGTERM or SIGHUP, not
SIGINT; with Python's defaults those would end us at once and leave the server
(and its process group) running. ``install`` runs first thing in ``main``: until
the event loop takes over (``runner``), a stop signal unwinds the stack like
ctrl+c does (``Stopped`` is a KeyboardInterrupt), so a server started early is
still reaped. Inside the loop the runner cancels the command and the session
closes the server in the spec's order with the short waits below; a second
signal kills the server's process group at once. Stdlib only: this is imported
before anything else.
"""

from __future__ import annotations

import signal

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
CLOSE_GRACE = 0.5  # seconds for the server to exit once its stdin is closed, after a stop signal
TERM_GRACE = 1.0  # seconds for its process group to exit after SIGTERM (then SIGKILL)

received: int | None = None  # the first stop signal


class Stopped(KeyboardInterrupt):
    """A stop signal arrived outside the event loop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def note(signum: int) -> None:
    global received
    if received is None:
        received = signum


def _raise(signum: int, frame) -> None:
    first = received is None
    note(signum)
    if first:  # later ones only count: they must not break the clean-up the first one started
        raise Stopped(signum)


def install() -> None:
    """Outside the event loop: a stop signal raises ``Stopped`` (once)."""
    for sig in SIGNALS:
        signal.signal(sig, _raise)


def exit_code(code: int) -> int:
    """128 + the stop signal when one arrived (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP)."""
    return 128 + received if received is not None else code


def describe(signum: int) -> str:
    return "interrupted" if signum == signal.SIGINT else f"interrupted by {signal.Signals(signum).name}"
