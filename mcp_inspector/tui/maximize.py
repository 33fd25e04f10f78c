"""One key (ctrl+z, "zoom") maximizes the panel the focus is in and restores it (issue 21).

The panels that maximize whole are marked ``MAXIMIZE_PANEL`` (the composer with its form,
the result, the traffic log); elsewhere Textual's own choice for the focused widget is used
(the frame detail's pretty or raw JSON). In the tool list the same key widens the list
instead (its own binding, ``tools.widen``): a tool list alone on the screen helps no one.
Escape restores too (Textual's ESCAPE_TO_MINIMIZE).
"""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Input


def panel_to_maximize(focused: Widget | None) -> Widget | None:
    if focused is None:
        return None
    for node in focused.ancestors_with_self:
        if getattr(type(node), "MAXIMIZE_PANEL", False) and isinstance(node, Widget):
            return node
    # a scrolling view (a TextArea, a list) says so itself; an Input (a ScrollView too) alone on the
    # screen helps no one
    return focused if type(focused).ALLOW_MAXIMIZE is True and not isinstance(focused, Input) else None


def toggle_maximize(app: Any) -> None:
    screen = app.screen
    if screen.maximized is not None:
        screen.minimize()
        return
    panel = panel_to_maximize(screen.focused)
    if panel is None or not screen.maximize(panel, container=False):
        app.notify("Nothing here to maximize: focus the form, the result or the traffic first.", severity="warning")
