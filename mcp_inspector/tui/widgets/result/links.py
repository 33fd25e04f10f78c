"""A resource_link or an embedded text resource in a tool result, openable in the Resources view."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Button

from ...messages import OpenResource


class ResourceBlock(Vertical, can_focus=True):
    """A resource_link or an embedded text resource in a result: enter or v opens it in the
    Resources view (a link is read there; embedded contents are shown as they came)."""

    BINDINGS = [Binding("enter,v", "open_resource", "Open in Resources", id="open-resource")]

    def __init__(self, *children: Widget, uri: str, contents: dict[str, Any] | None) -> None:
        super().__init__(*children, classes="block resource-block")
        self.uri = uri
        self.contents = contents

    def compose(self) -> ComposeResult:
        yield Button("Open in Resources (v)", classes="open-resource", compact=True)

    @on(Button.Pressed, ".open-resource")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_open_resource()

    def action_open_resource(self) -> None:
        self.post_message(OpenResource(self.uri, self.contents))
