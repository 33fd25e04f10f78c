"""A widget's repeating refresh that costs nothing while the widget is not shown."""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget


class ShownTimer:
    """Runs ``work`` every ``interval`` seconds, but only while ``widget`` is on screen and its
    screen is the active one (not behind a modal).

    Hidden (its view switched away, or mounted hidden), the timer pauses; shown again,
    ``work`` runs once to catch up and the timer resumes. The widget forwards its
    ``on_hide``/``on_show`` to :meth:`hidden`/:meth:`shown`; a tick that finds the widget
    off screen before the Hide event arrived pauses the timer too.
    """

    def __init__(
        self,
        widget: Widget,
        interval: float,
        work: Callable[[], object],
        name: str,
        covered: Callable[[], object] | None = None,
    ) -> None:
        self._widget = widget
        self._work = work
        self._covered = covered  # called on each tick while another screen is on top
        self._timer = widget.set_interval(interval, self._tick, name=name)

    def _tick(self) -> None:
        widget = self._widget
        if not widget.is_on_screen:
            self._timer.pause()
        elif widget.screen is widget.app.screen:
            self._work()
        elif self._covered is not None:
            self._covered()
        # else a screen is on top of the widget's (a modal: its screen is drawn dimmed behind it):
        # no work, the timer keeps going and the first tick after it closes catches up. Every
        # refresh behind a modal redraws the whole dimmed screen (0.05-0.15 s of CPU at 120x40):
        # the in-flight row's 10 ticks a second under an answering modal kept a core busy.

    def hidden(self) -> None:
        self._timer.pause()

    def shown(self) -> None:
        self._work()
        self._timer.resume()
