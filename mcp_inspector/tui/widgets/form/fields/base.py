"""What the composite editors share: their change message and one-line summaries."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, TextArea

from .....core.schema.form import FieldSpec, FormValueError, sub_arguments


class EditorChanged(Message):
    """A composite editor's value changed; the enclosing body reads ``editor.value``."""

    def __init__(self, editor: Widget) -> None:
        super().__init__()
        self.editor = editor

    @property
    def control(self) -> Widget:
        return self.editor


def summary(root: FieldSpec, values: dict[str, Any], width: int = 60) -> str:
    """A sub-form's current JSON on one line, cut to ``width`` (for collapsed list items)."""
    try:
        present, value = sub_arguments(root, values)
    except FormValueError:
        return "(invalid JSON inside)"
    if not present:
        return "(empty)"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _release(widget: Widget) -> None:
    """Drop ``widget``'s subscription to its screen's text-selection signal.

    Input and TextArea subscribe on mount with a callback that refers back to the widget,
    and the signal keeps it (its key is weak, its value is not) until the *screen* goes:
    without this every removed field stays in memory for the life of the main screen.
    """
    with contextlib.suppress(Exception):  # no screen any more: nothing holds it
        widget.screen.text_selection_started_signal.unsubscribe(widget)


class FormInput(Input):
    """An ``Input`` that lets go of its screen when removed (forms are rebuilt often)."""

    def on_unmount(self) -> None:
        _release(self)


class FormTextArea(TextArea):
    """A ``TextArea`` that lets go of its screen and of the app when removed.

    It also watches the app's ``theme``, and Textual drops such watchers only when the
    theme next changes: until then the app's watcher list holds every removed one.
    """

    def on_unmount(self) -> None:
        _release(self)
        try:
            watchers = getattr(self.app, "__watchers", {}).get("theme")  # where textual.reactive keeps them
        except Exception:
            return
        if isinstance(watchers, list):
            watchers[:] = [entry for entry in watchers if entry[0] is not self]
