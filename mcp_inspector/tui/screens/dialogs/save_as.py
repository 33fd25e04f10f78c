"""Saving asks where: a path input prefilled with ``output_dir()/name``, and a
second enter to overwrite a file that exists.

``save_as`` is what a widget's save key calls (on the event loop): it opens the
modal and, once the user has chosen a path, writes in a worker thread, keeps the
path as ``widget.saved_path`` and says where it went (or why it could not).
``ask_path`` is the modal alone, for callers with their own writer (the traffic
log's export).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from textual.binding import Binding
from textual.widget import Widget

from ....core.base.files import write_atomic
from ...widgets.result.files import file_stem, human_size, output_dir
from .path_prompt import PathPromptScreen, typed_path


def free_name(directory: Path, stem: str, suffix: str) -> Path:
    """``directory/stem+suffix``, or ``stem-1``, ``stem-2``... when it is taken (the prefilled suggestion)."""
    safe = file_stem(stem)
    for attempt in range(1000):
        path = directory / f"{safe}{'' if attempt == 0 else f'-{attempt}'}{suffix}"
        if not path.exists():
            return path
    return directory / f"{safe}{suffix}"


def check_target(text: str, create_parent: bool = False) -> tuple[Path | None, str | None]:
    """The path typed, or why it cannot be written to (``create_parent``: the writer makes missing folders)."""
    path = typed_path(text)
    if path is None:
        return None, "Type a file name."
    if path.is_dir():
        return None, f"{path} is a folder: add a file name."
    parent = path.parent
    if create_parent and not parent.exists():
        return path, None
    if not parent.is_dir():
        return None, f"There is no folder {parent}."
    if not os.access(parent, os.W_OK):
        return None, f"The folder {parent} is not writable."
    return path, None


class SaveAsScreen(PathPromptScreen):
    """Where to save: enter saves, escape cancels; an existing file needs a second enter."""

    ID_PREFIX = "save-as"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="save-as.cancel")]

    def __init__(self, suggestion: Path, what: str = "the result", create_parent: bool = False) -> None:
        super().__init__(f"Save {what} as", str(suggestion), "enter: save · escape: cancel")
        self.create_parent = create_parent
        self.what = what
        self._confirmed_overwrite: Path | None = None

    def edited(self) -> None:
        self._confirmed_overwrite = None

    def check(self, text: str) -> tuple[Path | None, str]:
        path, problem = check_target(text, self.create_parent)
        if path is None:
            return None, problem or ""
        if path.exists() and self._confirmed_overwrite != path:
            self._confirmed_overwrite = path
            return None, f"{path} exists ({human_size(path.stat().st_size)}): enter again replaces it, escape cancels."
        return path, ""


def ask_path(
    widget: Widget, suggestion: Path, what: str, chosen: Callable[[Path], None], create_parent: bool = False
) -> None:
    """Open the modal; ``chosen(path)`` runs on the event loop once the user confirmed a path."""

    def done(path: Path | None) -> None:
        if path is None:
            widget.notify("Not saved.", timeout=2)
        else:
            chosen(path)

    widget.app.push_screen(SaveAsScreen(suggestion, what, create_parent), done)


def write_file(widget: Widget, path: Path, produce: Callable[[], bytes], what: str) -> None:
    """Write ``produce()`` to ``path`` (replacing it: the user confirmed), in a worker thread; the file is
    private (0600), like every file the inspector writes user data into."""

    def work() -> None:
        try:
            data = produce()
            # a fresh temporary file beside it (0600, never through a symlink: a planted
            # ".NAME.part" link once had its target truncated), then renamed over it
            write_atomic(path, data, prefix=f".{path.name}.")
        except (OSError, TypeError, ValueError, KeyError) as exc:
            widget.notify(f"Could not save {what}: {exc}", severity="error", markup=False)
            return
        widget.saved_path = path  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
        widget.notify(f"Saved {human_size(len(data))} to {path}", title="Saved", markup=False)

    widget.run_worker(work, thread=True, group="save-as", exit_on_error=False)


def save_as(widget: Widget, produce: Callable[[], bytes], stem: str, suffix: str, what: str) -> None:
    """Ask where (prefilled with a free name in ``output_dir()``), then write there."""
    ask_path(widget, free_name(output_dir(), stem, suffix), what, lambda path: write_file(widget, path, produce, what))
