"""The side-by-side diff as a screen: a title, what differs (when it is known as paths),
and the two sides (widgets/side_diff.py). Escape closes.

It shows a replayed response against the recorded one, two frames of the traffic log
(``m`` marks one, ``=`` diffs the selected one with it), and two results of a tool's
history (F10, the same keys).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ...widgets.side_diff import SideBySideDiff

MAX_NOTES = 6  # difference lines above the two sides (the rest: "and N more")


class SideDiffScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    SideDiffScreen { align: center middle; }
    SideDiffScreen > Vertical { width: 96%; height: 92%; border: thick $accent; background: $surface; }
    SideDiffScreen #side-diff-title { padding: 0 1; background: $accent 30%; text-style: bold; }
    SideDiffScreen #side-diff-notes { padding: 0 1; height: auto; max-height: 8; color: $text-warning; }
    SideDiffScreen #side-diff-hint { color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,q", "app.pop_screen", "Close", id="side-diff.close", tooltip="Diff: close")]

    def __init__(
        self, title: str, left: str, right: str, left_title: str, right_title: str, notes: list[str] | None = None
    ) -> None:
        super().__init__()
        self.title_text = title
        self.left, self.right = left, right
        self.left_title, self.right_title = left_title, right_title
        self.notes = list(notes or [])

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="side-diff-title", markup=False)
            if self.notes:
                shown = self.notes[:MAX_NOTES]
                if len(self.notes) > MAX_NOTES:
                    shown.append(f"… and {len(self.notes) - MAX_NOTES} more")
                yield Static(Text("\n".join(shown)), id="side-diff-notes")
            yield SideBySideDiff(self.left, self.right, self.left_title, self.right_title, id="side-diff")
            yield Static("", id="side-diff-hint")

    def on_mount(self) -> None:
        diff = self.query_one(SideBySideDiff)
        changed = diff.changed_rows
        what = "no line differs" if not changed else f"{changed} line{'s' if changed != 1 else ''} differ"
        self.query_one("#side-diff-hint", Static).update(f"{what} (- left, + right) · pgup/pgdn: scroll · esc: close")
        diff.focus()
