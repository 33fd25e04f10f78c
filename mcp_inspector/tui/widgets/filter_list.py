"""What the filterable lists (tools, prompts, resources) share: the change marks, cutting a
line to a width, and the keys of a filter Input over an OptionList."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.widgets import Input, OptionList

MARKS = {"added": ("+", "tool-added"), "changed": ("~", "tool-changed"), "removed": ("-", "tool-removed")}
MAX_SHOWN = 1000  # options built at once; more matches are counted, and typing narrows them
DEBOUNCE_ABOVE = 1000  # with more items than this, the filter waits for a pause in typing
FILTER_KEYS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-.")


def fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def append_mark(text: Text, mark: str | None, colour: Callable[[str], str]) -> str:
    """The row's change mark (or two spaces); returns the style suffix for its words (struck when removed)."""
    if mark:
        glyph, variable = MARKS[mark]
        text.append(f"{glyph} ", style=f"bold {colour(variable)}")
    else:
        text.append("  ")
    return " strike" if mark == "removed" else ""


def change_words(marks: dict[str, str], gone: int, colour: Callable[[str], str] | None = None) -> list[str]:
    """``+2 new``, ``~1 changed``, ``-3 gone`` for the counts that are not 0 (as markup in the
    marks' colours when ``colour`` is given)."""
    counts = {"added": 0, "changed": 0}
    for kind in marks.values():
        if kind in counts:
            counts[kind] += 1
    counts["removed"] = gone
    words = []
    for kind, label in (("added", "new"), ("changed", "changed"), ("removed", "gone")):
        if counts[kind]:
            word = f"{MARKS[kind][0]}{counts[kind]} {label}"
            words.append(f"[{colour(MARKS[kind][1])}]{word}[/]" if colour is not None else word)
    return words


class FilterListKeys:
    """Mixed into a widget with a ``filter_input`` over an ``option_list``: down in the filter goes
    to the list; escape clears the filter, and escape in an empty filter goes back to the list (where
    the digits switch views again); letters typed on the list go to the filter."""

    TYPE_TO_FILTER = True  # letters (and backspace) pressed on the list edit the filter
    LIST_ESCAPE_CLEARS = True  # escape on the list clears the filter (False: the view's escape binding has it)
    ESCAPE_TO_LIST = True  # escape in an empty filter goes back to the list (False: the view's escape has it)
    _filter_timer: Any = None

    filter_input: Input
    option_list: OptionList
    app: Any
    is_attached: bool

    def _colour(self, variable: str) -> str:
        return self.app.theme_variables.get(variable, "") if self.is_attached else ""

    def _refilter(self, items: int) -> None:
        """Filter again: now, or after a pause in typing when there are more than DEBOUNCE_ABOVE items."""
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        if items > DEBOUNCE_ABOVE:
            self._filter_timer = self.set_timer(0.12, self._rebuild)  # type: ignore[attr-defined]  # a mixin: self is the list widget
        else:
            self._rebuild()  # type: ignore[attr-defined]  # a mixin: self is the list widget

    def on_key(self, event: events.Key) -> None:
        field = self.filter_input
        if field.has_focus:
            if event.key == "down":
                event.stop()
                self.option_list.focus()
            elif event.key == "escape" and field.value:
                event.stop()
                field.value = ""
            elif event.key == "escape" and self.ESCAPE_TO_LIST:
                event.stop()
                self.option_list.focus()
            return
        if not self.TYPE_TO_FILTER:
            return
        if event.character and event.character in FILTER_KEYS:
            event.stop()
            event.prevent_default()
            field.focus()
            field.insert_text_at_cursor(event.character)
        elif event.key == "backspace" and field.value:
            event.stop()
            field.value = field.value[:-1]
        elif event.key == "escape" and field.value and self.LIST_ESCAPE_CLEARS:
            event.stop()
            field.value = ""
