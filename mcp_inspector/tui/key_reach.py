"""Keys that reach the app from a text field (issue 21).

After picking a tool the focus is in a composer field, whose Input/TextArea binds the
readline keys (``ctrl+e`` is end-of-line). An app key marked ``reach`` in the keymap runs
before them, but only where that is wanted: "main" keys on the main screen only (a modal's own
text editor, the raw frame's included, keeps its keys), "panels" keys anywhere but in an
editable TextArea (ctrl+z stays its undo); and only when no widget between the focus and the
screen, other than the text widget itself, binds the same key (a view key the user remapped
to it wins, as it would without priority). ``end`` still goes to the end of the line.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import Input, TextArea

from .keymap import KeySpec, effective_key


def _keys(keys: str) -> set[str]:
    return {key.strip() for key in keys.split(",") if key.strip()}


def reaches(app: Any, spec: KeySpec) -> bool:
    """May ``spec`` (a priority app key) run now, before the focused widget sees its key?"""
    try:
        main = app.main
    except LookupError:
        return False
    if spec.reach == "main" and app.screen is not main:
        return False
    keymap: dict[str, str] = getattr(app, "keymap", {}) or {}
    mine = _keys(effective_key(spec, keymap))
    focused = app.focused
    for node in focused.ancestors_with_self if focused is not None else []:
        if node is app or node is app.screen:
            break
        if spec.reach == "panels" and isinstance(node, TextArea) and not node.read_only:
            return False  # an editor keeps its keys (ctrl+z: undo)
        if isinstance(node, (Input, TextArea)):
            continue  # the field's editing keys are the ones this key goes before
        for binding in type(node).BINDINGS:
            if (
                isinstance(binding, Binding)
                and binding.id != spec.id
                and _keys(keymap.get(binding.id or "", binding.key)) & mine
            ):
                return False
    return True
