"""A widget's repeating refresh that costs nothing while the widget is not shown."""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget


class ShownTimer:
    """Runs ``work`` every ``interval`` seconds, but only while ``widget`` is on screen.

    Hidden (its view switched away, or mounted hidden), the timer pauses; shown again,
    ``work`` runs once to catch up and the timer resumes. The widget forwards its
    ``on_hide``/``on_show`` to :meth:`hidden`/:meth:`shown`; a tick that finds the widget
    off screen before the Hide event arrived pauses the timer too.
    """

    def __init__(self, widget: Widget, interval: float, work: Callable[[], object], name: str) -> None:
        self._widget = widget
        self._work = work
        self._timer = widget.set_interval(interval, self._tick, name=name)

    def _tick(self) -> None:
        if self._widget.is_on_screen:
            self._work()
        else:
            self._timer.pause()

    def hidden(self) -> None:
        self._timer.pause()

    def shown(self) -> None:
        self._work()
        self._timer.resume()
