"""The Tasks view (being built for issue 9; see session_view.py for how it is fed)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from .session_view import SessionView


class TasksView(SessionView):
    def compose(self) -> ComposeResult:
        yield Static("The Tasks view is not built yet.")
