"""A tool's whole definition: the full description (the list cuts it), the
input and output schema, annotations, icons and ``_meta``, and the legend of the
RO/DESTR/IDEM/OPEN chips. Also the optional confirmation before calling a tool
marked destructive (``destructiveHint: true``; off unless the user turns it on).
"""

from __future__ import annotations

import json
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...widgets.tool_list import tool_title

# what each chip means, in the spec's words (all are hints: a server may say anything)
LEGEND = (
    ("RO", "readOnlyHint", "read-only: does not modify its environment"),
    ("DESTR", "destructiveHint", "destructive: may delete or overwrite (only meaningful when not read-only)"),
    ("IDEM", "idempotentHint", "idempotent: calling again with the same arguments has no further effect"),
    ("OPEN", "openWorldHint", "open-world: talks to things outside the server (the web, other systems)"),
)
SECTIONS = (
    ("inputSchema", "Input schema"),
    ("outputSchema", "Output schema"),
    ("annotations", "Annotations"),
    ("icons", "Icons"),
    ("execution", "Execution"),
    ("_meta", "_meta"),
)


def is_destructive(tool: dict[str, Any] | None) -> bool:
    """The server marked the tool destructive (explicitly: the spec's default is not a marking)."""
    annotations = (tool or {}).get("annotations")
    return (
        isinstance(annotations, dict)
        and annotations.get("destructiveHint") is True
        and annotations.get("readOnlyHint") is not True
    )


def legend_text(tool: dict[str, Any] | None = None) -> Table:
    """The chips and their meaning; with a tool, each says whether that tool sets it.

    A grid (chip, hint, value, meaning): the meaning wraps inside its own column, so a long one
    does not run into the next chip's line (``RO readOnlyHint: false read-only: does not…``).
    """
    annotations = (tool or {}).get("annotations")
    annotations = annotations if isinstance(annotations, dict) else {}
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1)
    for chip, key, meaning in LEGEND:
        value = annotations.get(key)
        shown = Text("set", style="bold") if value is True else Text("false" if value is False else "—", style="dim")
        grid.add_row(chip, key, shown, meaning)
    return grid


def definition_text(tool: dict[str, Any]) -> Text:
    """Every part of the definition, as pretty JSON under a heading; what the server sent, unchanged."""
    text = Text()
    shown = {"name", "title", "description"}
    for key, heading in SECTIONS:
        if key not in tool:
            continue
        shown.add(key)
        text.append(f"{heading}\n", style="bold underline")
        text.append(json.dumps(tool[key], indent=2, ensure_ascii=False) + "\n\n")
    rest = {k: v for k, v in tool.items() if k not in shown and not k.startswith("x-inspector")}
    if rest:
        text.append("Other fields\n", style="bold underline")
        text.append(json.dumps(rest, indent=2, ensure_ascii=False) + "\n")
    return text


class ToolDetailScreen(ModalScreen[None]):
    """The selected tool in full. Escape (or q) closes; the arrows and page keys scroll."""

    DEFAULT_CSS = """
    ToolDetailScreen { align: center middle; }
    ToolDetailScreen > Vertical {
        width: 95%;
        max-width: 120;
        height: 90%;
        border: thick $accent;
        background: $surface;
    }
    ToolDetailScreen #tool-detail-title { padding: 0 1; background: $accent 30%; text-style: bold; }
    ToolDetailScreen VerticalScroll { padding: 0 1; }
    ToolDetailScreen .tool-detail-heading { text-style: bold underline; margin-top: 1; }
    ToolDetailScreen #tool-detail-hint { color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,q", "app.pop_screen", "Close", id="tool-detail.close")]

    def __init__(self, tool: dict[str, Any]) -> None:
        super().__init__()
        self.tool = tool

    def compose(self) -> ComposeResult:
        tool = self.tool
        name = str(tool.get("name", ""))
        title = tool_title(tool)
        with Vertical():
            yield Static(
                f"Tool: {title}" + (f"  ({name})" if name != title else ""), id="tool-detail-title", markup=False
            )
            with VerticalScroll(id="tool-detail-body"):
                yield Static("Description", classes="tool-detail-heading")
                description = tool.get("description")
                yield Static(
                    description if isinstance(description, str) and description else "(no description)",
                    id="tool-detail-description",
                    markup=False,
                )
                yield Static("Annotations (hints from the server, not guarantees)", classes="tool-detail-heading")
                yield Static(legend_text(tool), id="tool-detail-legend")
                yield Static("Definition", classes="tool-detail-heading")
                yield Static(definition_text(tool), id="tool-detail-definition")
            yield Static("↑↓ pgup pgdn: scroll · escape: close", id="tool-detail-hint")

    def on_mount(self) -> None:
        self.query_one("#tool-detail-body").focus()


class ConfirmDestructiveScreen(ModalScreen[bool]):
    """Before calling a tool marked destructive (when the setting is on): y or enter calls, escape or n does not."""

    DEFAULT_CSS = """
    ConfirmDestructiveScreen { align: center middle; }
    ConfirmDestructiveScreen > Vertical {
        width: 80%;
        max-width: 80;
        height: auto;
        border: thick $error;
        background: $surface;
        padding: 0 1;
    }
    ConfirmDestructiveScreen #destructive-hint { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape,n", "dismiss(False)", "Don't call", id="confirm-destructive.no"),
        Binding("y,enter", "dismiss(True)", "Call", id="confirm-destructive.yes"),
    ]

    def __init__(self, tool_name: str) -> None:
        super().__init__()
        self.tool_name = tool_name

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text.assemble(
                    ("Call a destructive tool?\n", "bold"),
                    (self.tool_name, "bold"),
                    " is marked destructiveHint: true (it may delete or overwrite).",
                )
            )
            yield Static(
                "y or enter: call · n or escape: don't (turn this off in the palette: settings)", id="destructive-hint"
            )


def confirm_destructive_then(widget: Any, tool: dict[str, Any] | None, go: Any) -> None:
    """Run ``go()`` now, or after a yes when the setting is on and the tool is marked destructive."""
    if not getattr(widget.app, "confirm_destructive", False) or not is_destructive(tool):
        go()
        return
    name = str((tool or {}).get("name", ""))

    def answered(yes: bool | None) -> None:
        if yes:
            go()
        else:
            widget.notify(f"{name} was not called.", timeout=3, markup=False)

    widget.app.push_screen(ConfirmDestructiveScreen(name), answered)
