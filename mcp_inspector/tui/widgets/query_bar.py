"""The query input shared by the traffic view and the result panel, and how outputs look.

``QueryBar`` is a one-line input with a status line under it: the expression is
checked as you type (debounced; jq compiles in-process, bounded) and a valid one is
posted as ``Changed`` (``None`` when cleared); the status shows jq's error at once.
``output_lines`` renders what an expression yielded, one output a line, strings raw
(as the CLI prints them).
"""

from __future__ import annotations

import json
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Static

from ...core.query import FrameOutputs, QueryError, check_expression
from ..text.traffic_text import clean

SHOWN_OUTPUTS = 200  # outputs kept for display
SHOWN_BYTES = 100_000


def output_lines(found: FrameOutputs, seq: int = 0, cap: int = 2_000) -> Text:
    """What an expression yielded, one output a line, strings raw (as the CLI prints them), each
    cut at ``cap`` characters; under a ``#seq →`` line when it is a frame's."""
    text = Text()
    if seq:
        text.append(f"#{seq} →{'' if found.outputs or found.error else ' no output'}\n", style="dim")
    elif not found.outputs and found.error is None:
        text.append("no output", style="dim")
    for index, output in enumerate(found.outputs):
        line = output
        if output.startswith('"') and not (found.cut == "bytes" and index == len(found.outputs) - 1):
            value = json.loads(output)
            line = value if isinstance(value, str) else output
        shown = "\n".join(clean(part) for part in line[:cap].split("\n"))
        text.append(shown + ("…" if len(line) > cap else "") + "\n")
    if found.cut:
        text.append(
            f"… more outputs not shown (the first {len(found.outputs):,})\n"
            if found.cut == "count"
            else "… cut (too long to show)\n",
            style="dim",
        )
    if found.error is not None:
        text.append(f"✗ {clean(found.error)}", style="bold red")
    text.rstrip()
    return text


class QueryBar(Vertical):
    """The jq expression and, under it, the count of matching frames or why the expression is wrong.

    Hidden until ``|``; checks the expression as you type (debounced) and posts ``Changed``
    with a valid one (``None``: cleared)."""

    DEFAULT_CSS = """
    QueryBar { height: auto; display: none; background: $panel; }
    QueryBar.-shown { display: block; }
    QueryBar > Horizontal { height: 1; }
    QueryBar .query-label { width: auto; padding: 0 0 0 1; color: $text-accent; text-style: bold; }
    QueryBar Input { border: none; height: 1; width: 1fr; padding: 0 1; background: $boost; color: $foreground; }
    QueryBar Input:focus { border: none; background: $accent 20%; color: $foreground; }
    QueryBar #query-status { height: 1; padding: 0 1; color: $text-muted; }
    QueryBar #query-status.-error { color: $error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "leave",
            "Leave the query",
            id="query.leave",
            tooltip="Query (traffic, result): leave the input; the query stays (x clears it)",
        ),
    ]
    TYPING_DEBOUNCE = 0.3

    class Changed(Message):
        def __init__(self, bar: QueryBar, expression: str | None) -> None:
            super().__init__()
            self.bar = bar
            self.expression = expression

        @property
        def control(self) -> QueryBar:
            return self.bar

    class Left(Message):
        """Escape: the host puts the focus back on the log."""

    def __init__(
        self, placeholder: str = "jq expression · enter applies · esc leaves · x clears", *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.placeholder = placeholder
        self.expression: str | None = None
        self._debounce = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("jq", classes="query-label")
            yield Input(placeholder=self.placeholder, id="query-input")
        yield Static("", id="query-status")

    @property
    def input(self) -> Input:
        return self.query_one("#query-input", Input)

    def open(self) -> None:
        self.add_class("-shown")
        self.input.focus()

    def clear(self) -> None:
        self.input.value = ""
        self._publish()
        self.remove_class("-shown")

    def set_status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#query-status", Static)
        status.update(Text(text))
        status.set_class(error, "-error")

    def action_leave(self) -> None:
        if not self.input.value.strip():
            self.remove_class("-shown")
        self.post_message(self.Left())

    def _publish(self) -> None:
        if not self.is_mounted:
            return
        text = self.input.value.strip()
        if not text:
            expression = None
            self.set_status("")
        else:
            try:
                expression = check_expression(text)
            except QueryError as exc:
                self.set_status(f"✗ {exc}", error=True)
                return
        if expression != self.expression:
            self.expression = expression
            self.post_message(self.Changed(self, expression))

    @on(Input.Changed, "#query-input")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(self.TYPING_DEBOUNCE, self._publish)

    @on(Input.Submitted, "#query-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._debounce is not None:
            self._debounce.stop()
        self._publish()
        if self.expression is not None:
            self.post_message(self.Left())
