"""A modal showing how one tool changed after tools/list_changed (or since the last connection):
its changes classified as ``mcp-inspector diff`` classifies them (breaking, changed impact
unknown, compatible, cosmetic: core/surface/diff.py), then one unified diff per changed field
(description, inputSchema, annotations...). :func:`verdict` gives the same words for a whole
list change (the "Tool list changed" notice)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ....core.session.tooldiff import ItemChange, ListDiff
from ....core.surface.diff import Change, breaks, classify, counts_text, diff_list
from .surface_compare import changes_text


def classified(diff: ListDiff) -> list[Change]:
    """The tools added, removed and changed, classified (only those: the unchanged ones are not
    walked again on every list_changed)."""
    return classify("tools", diff)


def list_key(item: dict) -> str:
    """The snapshot list an item of this dialog is from (it shows changed resources too)."""
    return "resourceTemplates" if "uriTemplate" in item else "resources" if "uri" in item else "tools"


def verdict(diff: ListDiff) -> tuple[str, bool]:
    """``1 breaking, 2 compatible`` for a list change, and whether a change breaks a client (or
    its impact is unknown)."""
    changes = classified(diff)
    return counts_text(changes), breaks(changes)


def diff_text(change: ItemChange, added: str = "green", removed: str = "red") -> Text:
    """Every changed field's unified diff, coloured line by line."""
    out = Text()
    for number, field in enumerate(change.fields):
        if number:
            out.append("\n")
        out.append(f"{field}\n", style="bold underline")
        diff = change.field_diff(field)
        if not diff:
            out.append("  (no textual difference)\n", style="dim")
            continue
        for line in diff.splitlines():
            if line.startswith(("+++", "---")):
                out.append(line + "\n", style="bold dim")
            elif line.startswith("@@"):
                out.append(line + "\n", style="cyan")
            elif line.startswith("+"):
                out.append(line + "\n", style=added)
            elif line.startswith("-"):
                out.append(line + "\n", style=removed)
            else:
                out.append(line + "\n")
    return out


class ToolDiffScreen(ModalScreen[None]):
    """What changed in a modified tool. Escape closes."""

    DEFAULT_CSS = """
    ToolDiffScreen { align: center middle; }
    ToolDiffScreen > Vertical { width: 90%; max-width: 110; height: 80%; border: thick $accent; background: $surface; }
    ToolDiffScreen #diff-title { padding: 0 1; background: $accent 30%; text-style: bold; }
    ToolDiffScreen VerticalScroll { padding: 0 1; }
    ToolDiffScreen #diff-hint { color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,q,ctrl+g", "app.pop_screen", "Close", id="close-diff")]

    def __init__(self, change: ItemChange) -> None:
        super().__init__()
        self.change = change

    def on_mount(self) -> None:
        # the "Tool list changed … (ctrl+g shows the diff)" notice led here and drew over this
        # dialog's border (a toast sits above every screen): its job is done, it goes
        self.app.clear_notifications()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                f"Tool changed: {self.change.name} ({', '.join(self.change.fields)})", id="diff-title", markup=False
            )
            with VerticalScroll():
                changes = diff_list(list_key(self.change.after), [self.change.before], [self.change.after])
                yield Static(changes_text(changes, "No change that a client would see."), id="diff-verdict")
                added = self.app.theme_variables.get("tool-added", "green")
                removed = self.app.theme_variables.get("tool-removed", "red")
                yield Static(diff_text(self.change, added, removed), id="diff-body")
            yield Static("escape: close", id="diff-hint")
