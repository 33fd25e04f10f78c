"""A Switch and a Checkbox that say their state in words, not only by colour.

Textual's Switch draws its state as a coloured slider and its Checkbox an ``X`` in one of two
colours: in a plain capture, a screen reader or a monochrome terminal both look the same on and
off. These add the word (``on``/``off``) and leave the box empty when unchecked.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList, Switch
from textual.widgets.option_list import OptionDoesNotExist

SLIDER_WIDTH = 4  # Textual's Switch content width


class _SliderThenWord:
    """The switch's slider, then `` on``/`` off`` on the same line."""

    def __init__(self, slider: object, word: str, style: Style) -> None:
        self.slider, self.word, self.style = slider, word, style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.slider, options.update_width(SLIDER_WIDTH), pad=True)  # type: ignore[arg-type]
        for index, line in enumerate(lines):
            yield from line
            if index == 0:
                yield Segment(" " + self.word.ljust(3), self.style)
            else:
                yield Segment(" " * 4)
            yield Segment.line()


class OnOffSwitch(Switch):
    """A Switch followed by the word ``on`` or ``off``."""

    def render(self) -> _SliderThenWord:
        return _SliderThenWord(super().render(), "on" if self.value else "off", self.rich_style)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return SLIDER_WIDTH + 4


class StateCheckbox(Checkbox):
    """A Checkbox whose box is empty when unchecked (Textual draws an ``X`` either way)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802  (Textual's class attribute, read per render)
        return "X" if self.value else " "


class StateSelectionList(SelectionList):
    """A SelectionList whose unchosen items have an empty box (Textual draws an ``X`` on every item)."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)
        if selection.value in self.selected or len(segments) < 2 or segments[1].text != Checkbox.BUTTON_INNER:
            return strip
        segments[1] = Segment(" ", segments[1].style)
        return Strip(segments, strip.cell_length)
