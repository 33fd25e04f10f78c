"""What the composite editors share: their change message and one-line summaries."""

from __future__ import annotations

import json
from typing import Any

from textual.message import Message
from textual.widget import Widget

from ....core.schema_form import FieldSpec, FormValueError, sub_arguments


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
