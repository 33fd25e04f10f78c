"""The screens widgets open, pushed for them (``widgets/dialogs.Dialogs``): the app's ``dialogs``.

Widgets do not import screens (folders depend one way); the app holds a ``ScreenDialogs`` and a
widget calls it through the Protocol. The screens are imported when first opened, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the app imports this module at start: nothing more than it needs then
    from textual.app import App
    from textual.widget import Widget

    from ...core.session.tooldiff import ItemChange
    from ...core.traffic.store import TrafficStore


class ScreenDialogs:
    """``widgets/dialogs.Dialogs`` for one app."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app

    def save_as(self, widget: Widget, produce: Callable[[], bytes], stem: str, suffix: str, what: str) -> None:
        from .dialogs.save_as import save_as

        save_as(widget, produce, stem, suffix, what)

    def ask_path(
        self, widget: Widget, suggestion: Path, what: str, chosen: Callable[[Path], None], create_parent: bool = False
    ) -> None:
        from .dialogs.save_as import ask_path

        ask_path(widget, suggestion, what, chosen, create_parent=create_parent)

    def confirm_destructive_then(self, widget: Widget, tool: dict[str, Any] | None, go: Callable[[], None]) -> None:
        from .dialogs.tool_detail import confirm_destructive_then

        confirm_destructive_then(widget, tool, go)

    def confirm_forget(self, what: str, chosen: Callable[[bool | None], None]) -> None:
        from .dialogs.auth_prompt import ConfirmForgetScreen

        self.app.push_screen(ConfirmForgetScreen(what), callback=chosen)

    def item_diff(self, change: ItemChange) -> None:
        from .dialogs.tool_diff import ToolDiffScreen

        self.app.push_screen(ToolDiffScreen(change))

    def side_diff(self, title: str, left: str, right: str, left_title: str, right_title: str) -> None:
        from .traffic.side_diff import SideDiffScreen

        self.app.push_screen(SideDiffScreen(title, left, right, left_title, right_title))

    def frame_detail(
        self,
        store: TrafficStore,
        seq: int,
        time_format: Callable[[float], str],
        on_jump: Callable[[int], object] | None = None,
    ) -> None:
        from .traffic.frame_detail import FrameDetailScreen

        self.app.push_screen(FrameDetailScreen(store, seq, time_format=time_format, on_jump=on_jump))
