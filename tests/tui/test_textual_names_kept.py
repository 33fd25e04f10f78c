"""The app and the main screen keep Textual's methods: no attribute of ours hides one.

``MainScreen.watch`` (the watch-and-restart part) and ``InspectorApp.watch`` (the --watch paths)
once hid ``DOMNode.watch(obj, attribute, callback)``, which Textual's ``data_bind`` calls on the
node; any call of it then raised TypeError. The parts are ``file_watch`` and ``watch_paths`` now.
"""

from __future__ import annotations

import inspect

import pytest
from textual.app import App
from textual.screen import Screen

from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.app import InspectorApp
from mcp_inspector.tui.screens.main.screen import MainScreen

pytestmark = pytest.mark.usefixtures("isolated_state")


def hidden(obj: object, base: type) -> list[str]:
    """Public attributes set on ``obj`` whose names are methods of Textual's ``base``."""
    return sorted(
        name for name in vars(obj) if not name.startswith("_") and inspect.isfunction(getattr(base, name, None))
    )


def test_no_attribute_hides_a_textual_method() -> None:
    app = InspectorApp(None, watch=["."])
    screen = MainScreen(TrafficStore(), None, watch=["."])
    assert hidden(app, App) == [] and hidden(screen, Screen) == []
    assert callable(app.watch) and callable(screen.watch)
    assert app.watch_paths == ["."] and screen.file_watch.given == ["."]
