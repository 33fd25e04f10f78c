"""The screens a widget opens (save-as, a diff, a frame's detail, a confirmation), reached through
the app: widgets never import ``tui/screens`` (folders depend one way: tests/test_import_graph.py).

The app that hosts the widgets sets ``dialogs`` to an object with these methods
(``screens/opener.ScreenDialogs``: InspectorApp, and the tests' small apps); a widget asks
``dialogs(self)`` for it. Each method pushes its screen at once, as the widget did before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from textual.widget import Widget

from ...core.session.tooldiff import ItemChange
from ...core.traffic.store import TrafficStore


class Dialogs(Protocol):
    """What widgets ask the app to open."""

    def save_as(self, widget: Widget, produce: Callable[[], bytes], stem: str, suffix: str, what: str) -> None:
        """Ask where (prefilled with a free name), then write ``produce()`` there (``widget.saved_path``)."""

    def ask_path(
        self, widget: Widget, suggestion: Path, what: str, chosen: Callable[[Path], None], create_parent: bool = False
    ) -> None:
        """Ask where to write; ``chosen(path)`` once the user confirmed one ("Not saved." otherwise)."""

    def confirm_destructive_then(self, widget: Widget, tool: dict[str, Any] | None, go: Callable[[], None]) -> None:
        """Run ``go()`` now, or after a yes when the setting is on and the tool is marked destructive."""

    def confirm_forget(self, what: str, chosen: Callable[[bool | None], None]) -> None:
        """Ask before the stored credentials for ``what`` are forgotten."""

    def item_diff(self, change: ItemChange) -> None:
        """The before and after of a tool, resource or prompt that changed."""

    def side_diff(self, title: str, left: str, right: str, left_title: str, right_title: str) -> None:
        """Two texts side by side, their differences marked."""

    def frame_detail(
        self,
        store: TrafficStore,
        seq: int,
        time_format: Callable[[float], str],
        on_jump: Callable[[int], object] | None = None,
    ) -> None:
        """One traffic entry whole; ``on_jump(seq)`` when the user moves to a linked one."""


def dialogs(widget: Widget) -> Dialogs:
    """The app's ``dialogs``; an app that hosts these widgets without one is a programming error."""
    found: Dialogs | None = getattr(widget.app, "dialogs", None)
    if found is None:
        raise LookupError(f"{type(widget.app).__name__} has no dialogs (screens/opener.py)")
    return found
