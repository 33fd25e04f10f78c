"""The server's requests waiting for the user: ONE answering screen at a time, the rest in line.

A server may ask many things at once (a flood: a thousand ``elicitation/create`` in one
write). Each asks through ``AnswerQueue.ask(make)``: the first is shown, the others wait in
line, built only when their turn comes; the screen on show says how many wait after it and how
many were refused (the core answers those beyond ``MAX_WAITING_SERVER_REQUESTS`` per connection
with an error at once and tells the handler's ``mcp_refused`` hook, protocol/incoming.py). When
a screen is answered, the next waiting one replaces it; a request that ends without its screen
(the server cancelled it, a response sent by hand answered it) leaves the line, or leaves the
screen if it is on show. So the screen stack holds one answering screen however many wait, and
the app stays responsive (ctrl+q quits) during a flood.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ....core.protocol.incoming import MAX_WAITING_SERVER_REQUESTS, TOO_MANY_WAITING
from .base import Answer, ServerRequestScreen


class _Host(Protocol):
    """What the queue needs of the app."""

    def push_screen(self, screen: Any, callback: Any = ...) -> Any: ...

    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...


@dataclass(eq=False)
class _Waiting:
    make: Callable[[], ServerRequestScreen]
    future: asyncio.Future = field(repr=False)
    screen: ServerRequestScreen | None = None


def queue_text(waiting: int, refused: int) -> str:
    """The line an answering screen shows about the others ("" when none wait and none were refused)."""
    parts = []
    if waiting:
        parts.append(f"{waiting} more request{'s' if waiting != 1 else ''} waiting after this one")
    if refused:
        parts.append(
            f"{refused} refused with error {TOO_MANY_WAITING}: more than {MAX_WAITING_SERVER_REQUESTS} waited at once"
        )
    return " · ".join(parts)


class AnswerQueue:
    """One line of waiting server requests for the whole app (every server it talks to)."""

    def __init__(self, app: Callable[[], _Host]) -> None:
        self._app = app
        self._line: deque[_Waiting] = deque()
        self._shown: _Waiting | None = None
        self.refused = 0
        self._update_due = False

    @property
    def waiting(self) -> int:
        """Requests in line behind the one on show."""
        return len(self._line)

    @property
    def shown(self) -> ServerRequestScreen | None:
        return self._shown.screen if self._shown is not None else None

    async def ask(self, make: Callable[[], ServerRequestScreen]) -> Answer:
        """Show the screen ``make()`` builds when its turn comes; the user's answer. Cancelled
        (the server cancelled, the connection ended): the request leaves the line or the screen."""
        item = _Waiting(make, asyncio.get_running_loop().create_future())
        self._line.append(item)
        if self._shown is None:
            self._next()
        else:
            self._update()
        try:
            return await item.future
        except BaseException:
            self._leave(item)
            raise

    def count_refused(self, method: str) -> None:
        """The ``mcp_refused`` hook: one more request refused because too many waited."""
        self.refused += 1
        self._update()

    # -- the line --------------------------------------------------------
    def _next(self) -> None:
        """Show the first request in line that still waits, unless a screen is on show."""
        if self._shown is not None:
            return
        while self._line:
            item = self._line.popleft()
            if item.future.done():
                continue
            screen = item.screen = item.make()
            screen.queue_line = queue_text(len(self._line), self.refused)
            self._shown = item
            self._app().push_screen(screen, callback=lambda answer, item=item: self._answered(item, answer))
            return

    def _answered(self, item: _Waiting, answer: Answer) -> None:
        if not item.future.done():
            item.future.set_result(answer)
        if self._shown is item:
            self._shown = None
            self._next()

    def _leave(self, item: _Waiting) -> None:
        if self._shown is item:
            self._shown = None
            if item.screen is not None:
                item.screen.withdraw()
            # later: when a connection ends, every waiting request leaves in the same turn of
            # the loop; the next screen must not be built for one that is leaving too
            self._app().call_later(self._next)
            return
        try:
            self._line.remove(item)
        except ValueError:
            return
        self._update()

    def _update(self) -> None:
        """Refresh the count on the screen on show, once per turn of the event loop (a flood of
        a thousand requests read at once is one update, not a thousand)."""
        if self._update_due or self._shown is None:
            return
        self._update_due = True
        self._app().call_later(self._refresh)

    def _refresh(self) -> None:
        self._update_due = False
        screen = self.shown
        if screen is not None:
            screen.show_queue_line(queue_text(len(self._line), self.refused))
