"""A small list to pick one thing from, by keys: up/down and enter, or an option's own letter
(shown before it); escape picks nothing. The raw frame screen's templates, log levels,
requests in flight, server requests waiting and history use it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class PickList(ModalScreen[Any]):
    DEFAULT_CSS = """
    PickList { align: center middle; }
    PickList > Vertical {
        width: 90;
        max-width: 96%;
        height: auto;
        max-height: 90%;
        border: thick $accent;
        background: $surface;
    }
    PickList #pick-title { background: $accent 30%; padding: 0 1; text-style: bold; }
    PickList #pick-note { color: $text-muted; padding: 0 1; height: auto; }
    PickList OptionList { height: auto; max-height: 20; border: none; }
    """
    BINDINGS = [Binding("escape", "cancel", "Close", id="pick-list.close", tooltip="Close the list, picking nothing")]

    def __init__(self, title: str, choices: list[tuple[str | None, str, Any]], note: str = "") -> None:
        """``choices``: (letter or None, label, value); a letter picks its choice at once."""
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text), id="pick-title")
            if self.note:
                yield Static(Text(self.note), id="pick-note")
            options = []
            for letter, label, _ in self.choices:
                line = Text()
                if letter:
                    line.append(f"{letter}  ", style="bold")
                line.append(label)
                options.append(Option(line))
            yield OptionList(*options, id="pick-options")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.choices:
            options.highlighted = 0
        options.focus()

    def on_key(self, event: Key) -> None:
        for letter, _, value in self.choices:
            if letter and event.character == letter:
                event.stop()
                self.dismiss(value)
                return

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index][2])

    def action_cancel(self) -> None:
        self.dismiss(None)
