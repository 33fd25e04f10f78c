"""The Roots editor (ctrl+f, palette "connection: Roots"): the folders the client tells this server.

A modal over one server's roots (tui/server/roots.py keeps them per server). Type a path and
press enter to add it (or to replace the root being edited); in the list, enter or ``e``
edits a root, ``delete`` or ``d`` removes it. A path that is not an existing directory is
kept with a warning (a server such as server-filesystem skips it). ``ctrl+s`` applies
(dismissing with the new list), escape leaves without changing anything. What applying
does depends on the era, and the screen says it: legacy, the client sends
``notifications/roots/list_changed``; 2026-07-28, the next ``roots/list`` input request gets them.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from ....core.config.servers import root_path
from ...server.roots import root_problem

EMPTY_MEANS = (
    "No roots: roots/list is answered with an empty list (the inspector never makes roots up; "
    "server-filesystem then keeps the folders it was started with)."
)
ERA_EFFECT = {
    "legacy": "Applying sends notifications/roots/list_changed; the server asks roots/list again.",
    "modern": (
        "2026-07-28 has no roots/list_changed: the server gets the new roots the next time it asks "
        "(a roots/list input request)."
    ),
    None: "Not connected: the server gets these roots when it asks (roots/list).",
}


class RootsEditor(ModalScreen[list[str] | None]):
    DEFAULT_CSS = """
    RootsEditor { align: center middle; }
    RootsEditor > Vertical {
        width: 100;
        max-width: 96%;
        height: auto;
        max-height: 90%;
        border: thick $primary;
        background: $surface;
    }
    RootsEditor #roots-title { background: $primary 30%; padding: 0 1; text-style: bold; }
    RootsEditor #roots-effect, RootsEditor #roots-hint { color: $text-muted; padding: 0 1; }
    RootsEditor #roots-list { height: auto; min-height: 3; max-height: 12; border: round $primary 50%; }
    RootsEditor #roots-list:focus { border: round $accent; }
    RootsEditor #roots-message { padding: 0 1; height: auto; }
    RootsEditor #roots-message.-warning { color: $warning; }
    RootsEditor #roots-buttons { height: auto; align-horizontal: right; }
    RootsEditor #roots-buttons Button { margin: 0 1; min-width: 12; }
    """
    BINDINGS = [
        Binding(
            "ctrl+s",
            "apply",
            "Apply",
            id="roots-editor.apply",
            tooltip="Apply the roots (legacy: sends notifications/roots/list_changed)",
        ),
        Binding("escape", "cancel", "Cancel", id="roots-editor.cancel", tooltip="Leave, changing nothing"),
    ]

    def __init__(self, server: str, paths: list[str], era: str | None) -> None:
        super().__init__()
        self.server = server
        self.paths: list[str] = list(paths)
        self.era = era if era in ERA_EFFECT else None
        self.editing: int | None = None  # the index the input replaces on enter

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Roots of {self.server}: what roots/list answers"), id="roots-title")
            yield Static(ERA_EFFECT[self.era], id="roots-effect", markup=False)
            yield Input(placeholder="a folder, e.g. ~/project  (enter adds it)", id="roots-path")
            yield RootsList(id="roots-list")
            yield Static("", id="roots-message", markup=False)
            yield Static(
                "enter: add · tab: the list (enter/e edits, delete/d removes) · ctrl+s: apply · escape: cancel",
                id="roots-hint",
                markup=False,
            )
            with Horizontal(id="roots-buttons"):
                yield Button("Apply", id="roots-apply", variant="primary")
                yield Button("Cancel", id="roots-cancel")

    def on_mount(self) -> None:
        self._refill()
        self.query_one("#roots-path", Input).focus()

    # -- the list ----------------------------------------------------------
    def _refill(self, highlight: int | None = None) -> None:
        options = self.query_one("#roots-list", OptionList)
        options.clear_options()
        warning = f"bold {self.app.current_theme.warning or 'yellow'}"
        for path in self.paths:
            line = Text(path)
            problem = root_problem(path)
            if problem:
                line.append(f"  ⚠ {problem}", style=warning)
            options.add_option(Option(line))
        if not self.paths:
            options.add_option(Option(Text("(no roots)", style="italic dim"), disabled=True))
        else:
            options.highlighted = max(0, min(highlight or 0, len(self.paths) - 1))
        self._say("" if self.paths else EMPTY_MEANS)

    def _say(self, text: str, warning: bool = False) -> None:
        message = self.query_one("#roots-message", Static)
        message.update(text)
        message.set_class(warning, "-warning")

    @on(Input.Submitted, "#roots-path")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            self._say("Type a folder first (a path, ~/path or a file:// URI).", warning=True)
            return
        try:
            path = root_path(text)
        except ValueError as exc:
            self._say(f"Not a root: {exc}.", warning=True)
            return
        if path in self.paths and (self.editing is None or self.paths[self.editing] != path):
            self._say(f"{path} is a root already.", warning=True)
            return
        replaced = self.editing is not None and self.editing < len(self.paths)
        if replaced:
            index = self.editing
            self.paths[index] = path
        else:
            self.paths.append(path)
            index = len(self.paths) - 1
        self.editing = None
        event.input.value = ""
        event.input.placeholder = "a folder, e.g. ~/project  (enter adds it)"
        self._refill(index)
        problem = root_problem(path)
        if problem:
            self._say(f"Warning: {path} {problem}; kept, but a server will likely skip it.", warning=True)
        else:
            self._say(f"{'Changed' if replaced else 'Added'}: {path}. ctrl+s applies.")

    def edit_root(self, index: int) -> None:
        if not 0 <= index < len(self.paths):
            return
        self.editing = index
        field = self.query_one("#roots-path", Input)
        field.value = self.paths[index]
        field.placeholder = "enter replaces the root"
        field.cursor_position = len(field.value)
        field.focus()
        self._say(f"Editing {self.paths[index]}: enter replaces it (tab goes back to the list).")

    def remove_root(self, index: int) -> None:
        if not 0 <= index < len(self.paths):
            return
        removed = self.paths.pop(index)
        if self.editing is not None:
            self.editing = None
            self.query_one("#roots-path", Input).value = ""
        self._refill(index)
        if self.paths:
            self._say(f"Removed {removed}. ctrl+s applies.")

    # -- actions -------------------------------------------------------------
    def action_apply(self) -> None:
        pending = self.query_one("#roots-path", Input).value.strip()
        if pending and self.editing is None:
            self._say("The path typed is not added yet: enter adds it (or clear it), then ctrl+s.", warning=True)
            self.query_one("#roots-path", Input).focus()
            return
        self.dismiss(list(self.paths))

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#roots-apply")
    def _apply_pressed(self) -> None:
        self.action_apply()

    @on(Button.Pressed, "#roots-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()


class RootsList(OptionList):
    """The roots; enter or e edits the highlighted one, delete or d removes it."""

    BINDINGS = [
        Binding(
            "e",
            "edit_root",
            "Edit",
            id="roots-editor.edit",
            tooltip="Edit the root (enter too; the path field takes it)",
        ),
        Binding("delete,d", "remove_root", "Remove", id="roots-editor.remove", tooltip="Remove the root"),
    ]

    def _editor(self) -> RootsEditor:
        screen = self.screen
        assert isinstance(screen, RootsEditor)
        return screen

    def action_edit_root(self) -> None:
        if self.highlighted is not None:
            self._editor().edit_root(self.highlighted)

    def action_remove_root(self) -> None:
        if self.highlighted is not None:
            self._editor().remove_root(self.highlighted)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._editor().edit_root(event.option_index)


def open_roots_editor(app) -> None:
    """ctrl+f / palette "connection: Roots": edit the roots of the server on the main screen; once applied,
    keep them for that server, tell the server (legacy) and show them in the overview."""
    if isinstance(app.screen, RootsEditor):
        return
    main = app.main
    spec = main.spec
    if spec is None or main.read_only:
        app.notify("Roots are what the client tells a server: connect to one first (f7).", severity="warning")
        return
    session = main.connection.live
    era = getattr(session, "era", None)

    def applied(paths: list[str] | None) -> None:
        if paths is None or not app.roots.set(spec, paths):
            return
        live = main.connection.live if main.spec is not None and main.spec.key == spec.key else None

        async def tell() -> None:
            from ...server.roots import announce_change

            try:
                text = await announce_change(live)
            except Exception as exc:  # noqa: BLE001 - a closed connection: say so, keep the roots
                text = f"The roots are kept, but the server could not be told: {exc}"
            app.notify(text, title=f"Roots of {spec.name}: {len(paths)}", markup=False)
            for overview in main.query("#view-overview"):
                overview.show_client()

        app.run_worker(tell(), group="roots", exit_on_error=False)

    app.push_screen(RootsEditor(spec.name, app.roots.paths(spec), era), callback=applied)
