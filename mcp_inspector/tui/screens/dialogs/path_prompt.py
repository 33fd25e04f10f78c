"""A modal that asks for a file path: a title, a prefilled input, a problem line and a hint.

Enter checks the path (``check``, overridden by each use) and closes with it when it passes;
escape closes with ``None``. Saving (``save_as.SaveAsScreen``) and opening a recording
(``replay_run.OpenRecordingScreen``) are its two uses; each names its widgets with its own id
prefix (``#save-as-path``, ``#open-recording-problem``...) and its bindings with its own ids.
"""

from __future__ import annotations

import os
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...widgets.result.files import output_dir


def typed_path(text: str) -> Path | None:
    """The path typed (``~`` expanded; a relative one under ``output_dir()``), or None when empty."""
    text = text.strip()
    if not text:
        return None
    path = Path(os.path.expanduser(text))
    return path if path.is_absolute() else output_dir() / path


class PathPromptScreen(ModalScreen[Path | None]):
    """Asks for a path; subclasses set ``ID_PREFIX`` and BINDINGS (escape: ``cancel``) and override ``check``."""

    ID_PREFIX = "path-prompt"
    DEFAULT_CSS = """
    PathPromptScreen { align: center middle; }
    PathPromptScreen > Vertical {
        width: 90%;
        max-width: 100;
        height: auto;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }
    PathPromptScreen .path-prompt-title { text-style: bold; }
    PathPromptScreen .path-prompt-path { margin: 1 0 0 0; }
    PathPromptScreen .path-prompt-problem { color: $text-warning; height: auto; }
    PathPromptScreen .path-prompt-hint { color: $text-muted; }
    """

    def __init__(self, title: str, suggestion: str, hint: str) -> None:
        super().__init__()
        self.title_text = title
        self.suggestion = suggestion
        self.hint = hint

    def compose(self) -> ComposeResult:
        prefix = self.ID_PREFIX
        with Vertical():
            yield Static(self.title_text, id=f"{prefix}-title", classes="path-prompt-title", markup=False)
            yield Input(self.suggestion, id=f"{prefix}-path", classes="path-prompt-path", select_on_focus=False)
            yield Static("", id=f"{prefix}-problem", classes="path-prompt-problem", markup=False)
            yield Static(self.hint, id=f"{prefix}-hint", classes="path-prompt-hint", markup=False)

    def on_mount(self) -> None:
        field = self.path_input
        field.focus()
        field.cursor_position = len(field.value)

    @property
    def path_input(self) -> Input:
        return self.query_one(f"#{self.ID_PREFIX}-path", Input)

    def show_problem(self, text: str) -> None:
        self.query_one(f"#{self.ID_PREFIX}-problem", Static).update(text)

    def check(self, text: str) -> tuple[Path | None, str]:
        """The path to close with, or None and the problem to show (the field stays open)."""
        path = typed_path(text)
        return (path, "") if path is not None else (None, "Type a path.")

    def edited(self) -> None:
        """The text changed (the problem line is cleared already)."""

    @on(Input.Changed, ".path-prompt-path")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.show_problem("")
        self.edited()

    @on(Input.Submitted, ".path-prompt-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path, problem = self.check(event.value)
        if path is None:
            self.show_problem(problem)
        else:
            self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)
