"""ctrl+w (palette "surface: compare with a snapshot…"): the connected server's surface against
a snapshot file (``mcp-inspector snapshot``), classified by core/surface/diff.py like the CLI's
``diff``: breaking first, each change with its JSON pointer, in a modal that looks like ctrl+g's.

The file is read bounded in a thread (core/surface/snapshot.read_file); the live surface is made
from the lists the session holds already (collect with ``reuse``: the TUI keeps them current on
list_changed), a kind not listed yet is fetched. A file that is not a snapshot closes the modal
with a notification saying why. A two-era snapshot (``snapshot --era both``) is compared in the
era the session speaks (core/surface/eras.py); the notes say which era was not compared.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from ....core.surface import snapshot as surface_snapshot
from ....core.surface.collect import ListingSession, collect
from ....core.surface.diff import KINDS, TITLES, Change, counts_text
from ....core.surface.eras import Comparison
from ....core.surface.eras import compare as compare_eras
from ...widgets.result.files import output_dir
from .path_prompt import PathPromptScreen

#: each kind's mark (in the text, not only in colour), heading (the CLI diff's words) and style
MARKS = {
    "breaking": ("✖", TITLES["breaking"], "bold red"),
    "unknown": ("?", TITLES["unknown"], "bold yellow"),
    "compatible": ("+", TITLES["compatible"], "green"),
    "cosmetic": ("·", TITLES["cosmetic"], "dim"),
}


class SnapshotPathScreen(PathPromptScreen):
    """Which snapshot file: enter compares, escape cancels (the file is checked when it is read)."""

    ID_PREFIX = "compare-snapshot"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="compare-snapshot.cancel")]

    def __init__(self, suggestion: str) -> None:
        super().__init__(
            "Compare the connected server with a snapshot",
            suggestion,
            "a file made by mcp-inspector snapshot · enter: compare · escape: cancel",
        )


def changes_text(
    changes: list[Change], empty: str = "No changes: the server offers what the snapshot recorded."
) -> Text:
    """The changes grouped by kind, breaking first: a heading per kind, a line per change (the
    ctrl+g diff of a changed tool shows its own this way too)."""
    out = Text()
    if not changes:
        out.append(empty, style="green")
        return out
    for kind in KINDS:
        mine = [c for c in changes if c.kind == kind]
        if not mine:
            continue
        mark, title, style = MARKS[kind]
        if out:
            out.append("\n")
        out.append(f"{mark} {title} ({len(mine)})\n", style=f"{style} underline" if kind == "breaking" else style)
        for change in mine:
            out.append(f"  {mark} ", style=style)
            out.append(change.path, style="cyan")
            out.append(f": {change.message}\n")
    return out


def compare(old: dict[str, Any], live_text: str, name: str = "the snapshot") -> Comparison:
    """The classified changes from the snapshot to the live surface (its canonical text), era by
    era when the snapshot holds two."""
    return compare_eras(old, json.loads(live_text), old_name=name, new_name="the server")


class SurfaceDiffScreen(ModalScreen[None]):
    """The comparison of one snapshot file with the live server: runs on mount. Escape closes."""

    DEFAULT_CSS = """
    SurfaceDiffScreen { align: center middle; }
    SurfaceDiffScreen > Vertical {
        width: 90%; max-width: 110; height: 80%; border: thick $accent; background: $surface;
    }
    SurfaceDiffScreen #surface-diff-title { padding: 0 1; background: $accent 30%; text-style: bold; }
    SurfaceDiffScreen #surface-diff-notes { padding: 0 1; height: auto; color: $text-warning; }
    SurfaceDiffScreen VerticalScroll { padding: 0 1; }
    SurfaceDiffScreen #surface-diff-hint { color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,q", "close", "Close", id="surface-diff.close")]

    class Compared(Message):
        def __init__(self, changes: list[Change] | None, notes: list[str], problem: str = "") -> None:
            super().__init__()
            self.changes = changes
            self.notes = notes
            self.problem = problem

    def __init__(self, path: Path, session: ListingSession) -> None:
        super().__init__()
        self.path = path
        self.session = session
        self.changes: list[Change] | None = None  # None until compared

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Compared with {self.path.name}: reading…", id="surface-diff-title", markup=False)
            yield Static("", id="surface-diff-notes", markup=False)
            with VerticalScroll(id="surface-diff-scroll"):
                yield Static("", id="surface-diff-body")
            yield Static("was: the snapshot · now: the server · up/down scroll · escape: close", id="surface-diff-hint")

    def on_mount(self) -> None:
        self.query_one("#surface-diff-notes", Static).display = False
        self.query_one(VerticalScroll).focus()
        self.run_worker(self._compare(), group="compare-snapshot", exclusive=True, exit_on_error=False)

    async def _compare(self) -> None:
        try:
            old = await anyio.to_thread.run_sync(surface_snapshot.read_file, self.path)
        except surface_snapshot.SnapshotError as exc:
            self.post_message(self.Compared(None, [], str(exc)))
            return
        notes: list[str] = []
        try:
            live = await collect(self.session, notes.append, reuse=True)
        except Exception as exc:  # the server went away mid-listing
            self.post_message(self.Compared(None, notes, f"could not list the server's surface: {exc}"))
            return
        live_text = surface_snapshot.dumps(live)  # here: the session's lists as they are now
        try:
            comparison = await anyio.to_thread.run_sync(compare, old, live_text, self.path.name)
        except Exception as exc:  # a crafted snapshot the classifier could not walk
            self.post_message(self.Compared(None, notes, f"{self.path}: could not compare: {exc}"))
            return
        self.post_message(self.Compared(comparison.changes, notes + comparison.notes))

    @on(Compared)
    def _compared(self, message: Compared) -> None:
        if message.changes is None:
            self.app.notify(message.problem, title="Not compared", severity="error", markup=False)
            self.dismiss(None)
            return
        self.changes = changes = message.changes
        self.query_one("#surface-diff-title", Static).update(f"Compared with {self.path.name}: {counts_text(changes)}")
        if message.notes:
            notes = self.query_one("#surface-diff-notes", Static)
            notes.update("\n".join(f"note: {note}" for note in message.notes))
            notes.display = True
        self.query_one("#surface-diff-body", Static).update(changes_text(changes))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "compare-snapshot")
        self.dismiss(None)


def open_compare(app: Any) -> None:
    """Ask for the snapshot file, then compare the connected server with it."""
    try:
        main = app.main
    except LookupError:
        return
    if app.screen is not main:
        return
    connection = getattr(app, "connection", None)
    session = connection.live if connection is not None else None
    if session is None:
        app.notify(
            "No server is connected: connect one first (F7), then compare it with a snapshot.", severity="warning"
        )
        return

    def chosen(path: Path | None) -> None:
        if path is not None:
            app.push_screen(SurfaceDiffScreen(path, session))

    app.push_screen(SnapshotPathScreen(str(output_dir()) + os.sep), chosen)
