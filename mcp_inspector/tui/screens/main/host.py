"""What the main screen's collaborators use of the screen they serve: a typed seam.

Each part of the main screen (the views, watch and restart, the checks...) is a plain class that
owns its state and is given the screen as its host. It sees the host through a ``Protocol``: the
Textual services every part needs (``ScreenHost``: notify, workers, timers) and, in the part's own
module, the few things of the main screen it reads or asks for. The screen satisfies them
structurally (mypy checks it where the part is made), so no part imports the screen.
"""

from __future__ import annotations

from typing import Any, Protocol

from textual.app import App
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.timer import Timer, TimerCallback
from textual.worker import ResultType, Worker, WorkType


class ScreenHost(Protocol):
    """The Textual services of the screen a part runs on (its workers and timers are the screen's)."""

    @property
    def app(self) -> App[Any]: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def post_message(self, message: Message) -> bool: ...

    def run_worker(
        self,
        work: WorkType[ResultType],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[ResultType]: ...

    def set_interval(
        self,
        interval: float,
        callback: TimerCallback | None = None,
        *,
        name: str | None = None,
        repeat: int = 0,
        pause: bool = False,
    ) -> Timer: ...

    def set_timer(
        self,
        delay: float,
        callback: TimerCallback | None = None,
        *,
        name: str | None = None,
        pause: bool = False,
    ) -> Timer: ...
