"""The base of the views that follow the live session: Resources, Prompts, Tasks.

The main screen makes a session view the first time it is shown and then calls:

- ``set_session(session, facts, read_only)`` at once and whenever the connection changes
  (connected, reconnected, gone: ``session`` is None when there is no live session);
- ``list_fetched(event)`` when a list the view follows was (re)fetched
  (``core.session.events.ListChanged``: its ``kind``, ``items``, ``diff``, ``cause``);
- ``session_event(event)`` for ``ResourceUpdated`` and ``TaskUpdated``.

A view reads what happened before it existed from the session itself (``session.lists``,
``session.subscribed``, ``session.resource_updates``, ``session.tasks``). It does its I/O
in workers (``self.run_worker`` / ``@work``) and never blocks the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.containers import Vertical
from textual.widget import Widget

from ....core.session.mcp_session import McpSession
from ....core.traffic.store import TrafficStore
from ...text.traffic_text import clock_time


class SessionView(Vertical):
    """A view that follows the live session (see the module doc)."""

    def __init__(
        self,
        store: TrafficStore,
        *,
        time_format: Callable[[float], str] | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.store = store
        self.time_format = time_format or clock_time
        self.session: McpSession | None = None
        self.facts: Any = None
        self.read_only = False

    def set_session(self, session: McpSession | None, facts: Any, read_only: bool = False) -> None:
        self.session, self.facts, self.read_only = session, facts, read_only

    def list_fetched(self, event: Any) -> None:
        """A list this view follows was (re)fetched."""

    def session_event(self, event: Any) -> None:
        """A ResourceUpdated or TaskUpdated event."""

    def session_events(self, events: list[Any]) -> None:
        """Several at once (a storm of task updates, coalesced): each, unless a view does better."""
        for event in events:
            self.session_event(event)

    def first_focus(self) -> Widget | None:
        """The widget to focus the first time the view is shown (None: the first focusable)."""
        return None
