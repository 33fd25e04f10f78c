"""Two texts side by side, the lines that differ marked (``-`` on the left, ``+`` on the right).

Used for a replayed response against the recorded one, two frames of the traffic log,
and two results of a tool's history. The texts are JSON pretty-printed with sorted keys
(so the order of members is not a difference), aligned by ``difflib``. Narrower than
``SIDE_BY_SIDE_MIN`` columns, the two sides are stacked (left above right), each still
marked. Both sides are bounded (``MAX_LINES`` lines, ``PARSE_LIMIT`` bytes parsed).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...core.base.json_text import JsonTextError, parse_frame

SIDE_BY_SIDE_MIN = 100  # columns: below this the sides are stacked
MAX_LINES = 4000  # lines of each side shown and compared
PARSE_LIMIT = 2 * 1024 * 1024  # bytes: a bigger frame is shown as text, not reformatted

REMOVED = "bold red"
ADDED = "bold green"


def pretty(value: Any) -> str:
    """A value as the diff shows it: JSON, indented, keys sorted."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def pretty_raw(raw: bytes) -> str:
    """A frame's bytes as the diff shows them: pretty JSON when it parses (and is not huge), else its text."""
    if len(raw) <= PARSE_LIMIT:
        try:
            message, _ = parse_frame(raw)
        except JsonTextError:
            pass
        else:
            return pretty(message)
    return raw[:PARSE_LIMIT].decode("utf-8", errors="replace")


@dataclass(slots=True)
class Row:
    left: str | None
    right: str | None
    changed: bool


def _lines(text: str) -> list[str]:
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES] + [f"… ({len(lines) - MAX_LINES} more lines not shown)"]
    return lines


def diff_rows(left: str, right: str) -> list[Row]:
    """The two texts' lines aligned: equal lines paired, changed ones marked."""
    a, b = _lines(left), _lines(right)
    rows: list[Row] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            rows.extend(Row(x, y, False) for x, y in zip(a[i1:i2], b[j1:j2], strict=True))
            continue
        olds, news = a[i1:i2], b[j1:j2]
        for index in range(max(len(olds), len(news))):
            rows.append(
                Row(olds[index] if index < len(olds) else None, news[index] if index < len(news) else None, True)
            )
    return rows


def _cell(line: str | None, changed: bool, mark: str, style: str) -> Text:
    if line is None:
        return Text("")
    if changed:
        return Text.assemble((f"{mark} ", style), (line, style))
    return Text(f"  {line}")


class SideBySideDiff(VerticalScroll, can_focus=True):
    """The rows of ``diff_rows``, in two columns when wide enough, else stacked."""

    DEFAULT_CSS = """
    SideBySideDiff { height: 1fr; padding: 0 1; }
    SideBySideDiff > Static { width: 100%; }
    """

    def __init__(self, left: str, right: str, left_title: str, right_title: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.left_title = left_title
        self.right_title = right_title
        self.rows = diff_rows(left, right)
        self.stacked: bool | None = None

    @property
    def changed_rows(self) -> int:
        return sum(1 for row in self.rows if row.changed)

    def compose(self):
        yield Static("", id="side-diff-body")

    def on_mount(self) -> None:
        self._render_rows()

    def on_resize(self) -> None:
        self._render_rows()

    def _render_rows(self) -> None:
        width = self.size.width or self.app.size.width
        stacked = width < SIDE_BY_SIDE_MIN
        if stacked == self.stacked:
            return
        self.stacked = stacked
        self.query_one("#side-diff-body", Static).update(self._stacked() if stacked else self._table())

    def _table(self) -> Table:
        table = Table(box=None, padding=(0, 1), expand=True, show_header=True, header_style="bold underline")
        table.add_column(self.left_title, ratio=1, overflow="fold")
        table.add_column(self.right_title, ratio=1, overflow="fold")
        for row in self.rows:
            table.add_row(_cell(row.left, row.changed, "-", REMOVED), _cell(row.right, row.changed, "+", ADDED))
        return table

    def _stacked(self) -> Text:
        out = Text()
        for title, side, mark, style in (
            (self.left_title, "left", "-", REMOVED),
            (self.right_title, "right", "+", ADDED),
        ):
            if side == "right":
                out.append("\n")
            out.append(title + "\n", style="bold underline")
            for row in self.rows:
                line = getattr(row, side)
                if line is not None:
                    out.append_text(_cell(line, row.changed, mark, style))
                    out.append("\n")
        return out
