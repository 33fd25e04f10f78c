"""The cursor, tail mode and scrolling of a virtualised list of rows (a line-API ``ScrollView``).

Shared by ``StoreLinesView`` (traffic log, notifications, console) and
``HttpExchangeList``. The host is a ``ScrollView`` that mixes this in before
``ScrollView`` and provides:

- ``row_count`` and ``cursor_row`` (``None`` when there is no cursor);
- ``_put_cursor(row)``: remember the item at ``row`` as the cursor (by seq, by id...);
- ``sync(force)``: catch up with its source, resize, follow the tail, repaint;
- a ``tail`` reactive, a ``_cache`` of strips, ``_moving = False`` and ``_poll``
  (a ``ShownTimer`` or ``None``) set in its ``__init__``.

Textual calls an event handler of every class in the MRO that defines one, so a
host does not define ``on_resize``/``on_focus``/``on_blur``/``on_hide``/``on_show``/
``on_click`` again: it uses the hooks ``_resized`` and ``_click_handled`` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView


def row_cursor_bindings(follow_id: str) -> list[Binding]:
    """Up/down, page up/down, home and end (follow, with the binding id ``follow_id``)."""
    return [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "cursor_home", "First", show=False),
        Binding("end", "cursor_end", "Follow", id=follow_id),
    ]


class RowCursor:
    """Mixin for a ``ScrollView`` of rows: cursor movement, tail mode, scrolling without layouts."""

    SET_ROWS_NEEDS_FIXED_HEIGHT: ClassVar[bool] = True
    """Whether ``_set_rows`` skips the layout only when the view's height is set and not auto."""

    # -- hooks -------------------------------------------------------------
    #: Each host defines it (there is no sensible default): remember the item at ``row`` as the
    #: cursor, by what keeps it there when rows come and go (a seq, an exchange id).
    _put_cursor: Callable[[int], None]

    def _resized(self) -> None:
        """After a resize has synced the view (nothing here)."""

    def _click_handled(self, row: int, event: events.Click) -> bool:
        """A click on an existing ``row``: True when the host has dealt with it (the cursor stays)."""
        return False

    # -- rows and scrolling ----------------------------------------------------
    def _set_rows(self, rows: int) -> None:
        """Make the scrollable height ``rows``; without a layout of the screen when possible.

        Assigning ``virtual_size`` asks for a layout of the whole screen (it is a
        ``layout=True`` reactive), ~10 ms on the main view, 15 times a second during a
        flood. Only the scrollbar depends on the row count here: the vertical scrollbar
        is always shown (overflow-y: scroll), the view's height does not come from its
        content and the width is unchanged, so nothing else can move.
        """
        size = Size(self.scrollable_content_region.width, rows)
        current = self.virtual_size
        if size == current:
            return
        styles = self.styles
        if (
            size.width == current.width
            and self.size
            and styles.overflow_y == "scroll"
            and (not self.SET_ROWS_NEEDS_FIXED_HEIGHT or (styles.height is not None and not styles.height.is_auto))
        ):
            self.set_reactive(ScrollView.virtual_size, size)
            self._scroll_update(size)  # the scrollbar's range, and scroll_y clamped to it
        else:
            self.virtual_size = size

    def _scroll_rows(self, y: int) -> None:
        self._moving = True
        try:
            self.scroll_to(y=y, animate=False, immediate=True)
        finally:
            self._moving = False

    def _scroll_to_row(self, row: int) -> None:
        """Scroll just enough for ``row`` to be visible."""
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_y)
        if row < top:
            self._scroll_rows(row)
        elif row >= top + height:
            self._scroll_rows(row - height + 1)

    # -- polling, tail mode and repaints -------------------------------------------
    def on_hide(self) -> None:
        if self._poll is not None:
            self._poll.hidden()

    def on_show(self) -> None:
        if self._poll is not None:
            self._poll.shown()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._moving:
            return
        if new_value < old_value and self.tail:
            self.tail = False
        elif new_value > old_value and new_value >= self.max_scroll_y and not self.tail:
            self.tail = True

    def on_resize(self) -> None:
        self._cache.clear()
        self.sync(force=True)
        self._resized()

    def on_focus(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._cache.clear()
        self.refresh()

    # -- cursor ---------------------------------------------------------------
    def move_cursor_to_row(self, row: int) -> None:
        rows = self.row_count
        if not rows:
            return
        row = min(max(row, 0), rows - 1)
        self._put_cursor(row)
        self._scroll_to_row(row)
        self.refresh()

    def _step(self, delta: int) -> None:
        row = self.cursor_row
        if row is None:
            row = self.row_count - 1
        if delta < 0:
            self.tail = False
        self.move_cursor_to_row(row + delta)

    def action_cursor_up(self) -> None:
        self._step(-1)

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_page_up(self) -> None:
        self._step(-max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self._step(max(1, self.scrollable_content_region.height - 1))

    def action_cursor_home(self) -> None:
        self.tail = False
        self.move_cursor_to_row(0)

    def action_cursor_end(self) -> None:
        self.tail = True
        self.move_cursor_to_row(self.row_count - 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = round(self.scroll_y) + offset.y
        if row < self.row_count and not self._click_handled(row, event):
            self.tail = False
            self.move_cursor_to_row(row)
