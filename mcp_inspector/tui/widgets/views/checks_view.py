"""The Checks view: what the check engine found in this session (core/checks), worst first.

The live rules judge every frame as it passes (``tui/server/live_checks.LiveChecks``); ``r`` runs
the active checks (the probes that leave the session as it was) and merges what they find. Each
row is one finding: severity, rule, where, message; the selected one's hint (how to fix it), spec
(the revision and section, or the client's documentation) and evidence are shown below. Enter
goes to its frame in the Traffic view (or its HTTP exchange). The view polls the findings'
version a few times a second while it is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Static

from ....core.checks.model import Finding
from ...text.check_text import SEVERITY_MARK, SEVERITY_STYLE, counts_text

if TYPE_CHECKING:
    from ..shown_timer import ShownTimer

POLL = 0.25  # seconds between looks at the findings while shown
MAX_ROWS = 1_000  # rows in the table (worst first): a flood of findings must not rebuild a huge table


def detail_text(item: Finding) -> Text:
    text = Text()
    text.append(f"{SEVERITY_MARK[item.severity]} {item.severity.value}", SEVERITY_STYLE[item.severity])
    text.append(f"  {item.rule}", "bold")
    if item.where:
        text.append(f"  {item.where}")
    if item.era:
        text.append(f"  ({item.era})", "dim")
    text.append(f"\n{item.message}\n")
    if item.hint:
        text.append("Fix: ", "bold")
        text.append(f"{item.hint}\n")
    if item.spec:
        text.append("Spec: ", "bold")
        text.append(f"{item.spec}\n")
    if item.evidence:
        text.append("Evidence: ", "bold")
        text.append(item.evidence, "dim")
    return text


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class ChecksView(Vertical):
    """The findings (a table), the selected one's detail, and a line with the counts and progress."""

    DEFAULT_CSS = """
    ChecksView { height: 1fr; }
    ChecksView #checks-summary { height: 1; padding: 0 1; background: $panel; }
    ChecksView DataTable { height: 1fr; }
    ChecksView #checks-detail-box { height: 9; border-top: solid $panel-lighten-2; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "r",
            "run_checks",
            "Run checks",
            id="checks.run",
            tooltip="Run checks: the active checks (the probes that keep the session as it was)",
        ),
        Binding(
            "enter",
            "jump",
            "Go to frame",
            id="checks.jump",
            show=False,
            tooltip="Go to the finding's frame or HTTP exchange",
        ),
    ]

    class Jump(Message):
        """Show the frame (``seq``) or HTTP exchange a finding is about."""

        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    class RunRequested(Message):
        """The user asked for the active checks."""

    def __init__(self, checks: Any, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.checks = checks  # tui/server/live_checks.LiveChecks
        self._shown_version = -1
        self._rows: list[Finding] = []
        self._timer: ShownTimer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="checks-summary")
        table: DataTable = DataTable(cursor_type="row", zebra_stripes=False, id="checks-table")
        table.add_column("sev", key="sev", width=9)
        table.add_column("rule", key="rule", width=24)
        table.add_column("where", key="where", width=18)
        table.add_column("message", key="message")
        yield table
        with VerticalScroll(id="checks-detail-box"):
            yield Static(id="checks-detail")

    @property
    def table(self) -> DataTable:
        return self.query_one("#checks-table", DataTable)

    def on_mount(self) -> None:
        from ..shown_timer import ShownTimer

        self._timer = ShownTimer(self, POLL, self.refresh_findings, "checks-poll")
        self.refresh_findings()

    def on_hide(self) -> None:
        if self._timer is not None:
            self._timer.hidden()

    def on_resize(self) -> None:
        self._shown_version = -1  # the message column takes what is left of the width
        self.refresh_findings()

    def on_show(self) -> None:
        if self._timer is not None:
            self._timer.shown()

    def first_focus(self) -> DataTable:
        return self.table

    # -- what is shown -----------------------------------------------------------------
    def refresh_findings(self) -> None:
        checks = self.checks
        self._summary()
        if checks.version == self._shown_version:
            return
        self._shown_version = checks.version
        table = self.table
        selected = self._rows[table.cursor_row] if self._rows and 0 <= table.cursor_row < len(self._rows) else None
        rows = sorted(checks.findings, key=lambda item: item.severity.rank)[:MAX_ROWS]
        self._rows = rows
        table.clear()
        width = max(20, table.size.width - 9 - 24 - 18 - 9)  # the message column: what is left
        for index, item in enumerate(rows):
            table.add_row(
                Text(f"{SEVERITY_MARK[item.severity]} {item.severity.value}", SEVERITY_STYLE[item.severity]),
                Text(item.rule, no_wrap=True, overflow="ellipsis"),
                Text(item.where, no_wrap=True, overflow="ellipsis"),
                Text(_fit(item.message, width), no_wrap=True),
                key=str(index),
            )
        if selected is not None and selected in rows:
            table.move_cursor(row=rows.index(selected))
        self._detail()

    def _summary(self) -> None:
        checks = self.checks
        text = Text(no_wrap=True, overflow="ellipsis")
        counts = counts_text(checks.counts)
        text.append(counts or "no findings", "bold" if counts else "dim")
        if getattr(checks, "progress", ""):
            text.append(f"  ·  {checks.progress}", "bold")
        if len(checks.findings) > MAX_ROWS:
            text.append(f"  ·  the worst {MAX_ROWS:,} shown", "dim")
        if checks.pending:
            text.append(f"  ·  {checks.pending:,} frames to schema-check", "dim")
        if checks.skipped:
            text.append(f"  ·  {checks.skipped:,} not schema-checked (a flood)", "dim")
        text.append("  ·  r runs the active checks · enter goes to the frame", "dim")
        self.query_one("#checks-summary", Static).update(text)

    def selected(self) -> Finding | None:
        row = self.table.cursor_row
        return self._rows[row] if self._rows and 0 <= row < len(self._rows) else None

    def _detail(self) -> None:
        item = self.selected()
        detail = self.query_one("#checks-detail", Static)
        if item is None:
            detail.update(
                Text(
                    "The live rules judge every frame as it passes; r runs the active checks "
                    "(ping, lists twice, unknown method and tool, reads, gets, completions).",
                    style="dim",
                )
            )
            return
        detail.update(detail_text(item))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_jump()

    # -- actions -----------------------------------------------------------------------
    def action_jump(self) -> None:
        item = self.selected()
        if item is None:
            self.notify("No finding selected.", severity="warning")
            return
        if item.seq is None and item.exchange is None:
            self.notify(f"{item.rule}: this finding is about {item.where or 'the server'}, not one frame.")
            return
        self.post_message(self.Jump(item))

    def action_run_checks(self) -> None:
        self.post_message(self.RunRequested())
