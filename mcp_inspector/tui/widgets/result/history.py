"""A history per tool: the last ``HISTORY_LIMIT`` results the result panel showed,
each re-openable (F10 or the palette's "result: history of the selected tool"), with the
arguments of its call: enter shows the result again and fills the composer with them.

The main screen's result panel records what it shows (``record_outcome`` and
``record_error`` are called from ``ResultPanel.show_outcome`` / ``show_error``);
the history is kept per server and tool on the app, so it outlives a reconnect
and a switch to another server and back. Re-opening shows the result again
through the same panel, without recording it twice.
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..dialogs import dialogs

HISTORY_LIMIT = 20
ARGUMENTS_SHOWN = 96  # characters of a call's arguments (JSON) in the list
MAIN_PANEL_ID = "result"  # only the main screen's panel keeps a history (not the resources or tasks views')


@dataclass
class HistoryEntry:
    tool: str
    status: str  # the panel's status line when it was shown
    kind: str  # ok / tool-error / rpc-error / transport
    at: float
    outcome: Any = None  # a ToolCallOutcome, or
    error: BaseException | None = None  # an error with its elapsed time and HTTP status
    elapsed_ms: float | None = None
    http_status: int | None = None
    arguments: dict[str, Any] | None = None  # what the call sent (None: not known)


@dataclass
class ResultHistory:
    limit: int = HISTORY_LIMIT
    entries: dict[tuple[str, str], deque[HistoryEntry]] = field(default_factory=dict)

    def add(self, server: str, entry: HistoryEntry) -> None:
        self.entries.setdefault((server, entry.tool), deque(maxlen=self.limit)).append(entry)

    def of(self, server: str, tool: str) -> list[HistoryEntry]:
        """Newest first."""
        return list(reversed(self.entries.get((server, tool), ())))


def history_of(app: Any) -> ResultHistory:
    history = getattr(app, "result_history", None)
    if history is None:
        history = app.result_history = ResultHistory()
    return history


def server_key(app: Any) -> str:
    try:
        spec = app.main.spec
    except (LookupError, AttributeError):
        return ""
    return spec.key if spec is not None else ""


def _keeps(panel: Any) -> bool:
    return panel.id == MAIN_PANEL_ID and not getattr(panel, "replaying_history", False)


def record_outcome(panel: Any, outcome: Any) -> None:
    if _keeps(panel):
        history_of(panel.app).add(
            server_key(panel.app),
            HistoryEntry(
                str(outcome.name),
                panel.status_text,
                panel.kind,
                time.time(),
                outcome=outcome,
                arguments=_arguments(getattr(outcome, "arguments", None)),
            ),
        )


def _arguments(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def abbreviated(arguments: dict[str, Any] | None, width: int = ARGUMENTS_SHOWN) -> str:
    """A call's arguments on one line, cut (with …) to ``width`` characters."""
    if arguments is None:
        return "(arguments not known)"
    text = json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "))
    text = " ".join(text.split())  # a newline inside a string value is shown escaped; none of its own
    return text if len(text) <= width else text[: width - 1] + "…"


def record_error(
    panel: Any,
    tool: str | None,
    error: BaseException,
    elapsed_ms: float | None,
    http_status: int | None,
    arguments: Any = None,
) -> None:
    """``tool``: the name of the call the panel was waiting for (an error with no call is not kept)."""
    if tool and _keeps(panel):
        history_of(panel.app).add(
            server_key(panel.app),
            HistoryEntry(
                tool,
                panel.status_text,
                panel.kind,
                time.time(),
                error=error,
                elapsed_ms=elapsed_ms,
                http_status=http_status,
                arguments=_arguments(arguments),
            ),
        )


def reopen(panel: Any, entry: HistoryEntry) -> None:
    """Show a kept result again in ``panel`` (not recorded a second time)."""
    panel.replaying_history = True
    try:
        if entry.outcome is not None:
            panel.show_outcome(entry.outcome)
        elif entry.error is not None:
            panel.show_error(entry.error, entry.elapsed_ms, http_status=entry.http_status)
    finally:
        panel.replaying_history = False
    panel.status_text = f"{panel.status_text} · from the history ({clock(entry.at)})"
    panel.query_one("#result-status", Static).update(Text(panel.status_text))


def clock(ts: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(ts))


class ResultHistoryScreen(ModalScreen[HistoryEntry | None]):
    """One tool's last results, newest first, each with its arguments: enter re-opens one (and fills
    the composer with its arguments), escape closes."""

    DEFAULT_CSS = """
    ResultHistoryScreen { align: center middle; }
    ResultHistoryScreen > Vertical {
        width: 90%;
        max-width: 110;
        height: 80%;
        border: thick $accent;
        background: $surface;
    }
    ResultHistoryScreen #history-title { padding: 0 1; background: $accent 30%; text-style: bold; }
    ResultHistoryScreen OptionList { height: 1fr; border: none; }
    ResultHistoryScreen #history-hint { color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape,q", "dismiss(None)", "Close", id="result-history.close"),
        Binding(
            "m",
            "mark",
            "Mark",
            id="result-history.mark",
            tooltip="Result history: mark the highlighted result (= then diffs another with it)",
        ),
        Binding(
            "equals_sign",
            "diff",
            "Diff",
            id="result-history.diff",
            tooltip="Result history: the highlighted result and the marked one side by side",
        ),
    ]

    def __init__(self, tool: str, entries: list[HistoryEntry], time_format: Any = None) -> None:
        super().__init__()
        self.tool = tool
        self.entries = entries
        self.time_format = time_format or clock

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                f"Results of {self.tool} (the last {HISTORY_LIMIT}, newest first)", id="history-title", markup=False
            )
            options = [
                Option(
                    Text.assemble(
                        (self.time_format(e.at), "dim"), "  ", e.status, "\n  ", (abbreviated(e.arguments), "dim")
                    ),
                    id=str(i),
                )
                for i, e in enumerate(self.entries)
            ]
            if not options:
                options = [Option(f"No result of {self.tool} yet: send a request (ctrl+s).", id="none", disabled=True)]
            yield OptionList(*options, id="history-list")
            yield Static(
                "enter: show it and fill the form with its arguments · m: mark · =: diff with the marked one · "
                "escape: close",
                id="history-hint",
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def _highlighted(self) -> HistoryEntry | None:
        index = self.query_one(OptionList).highlighted
        return self.entries[index] if index is not None and index < len(self.entries) else None

    def action_mark(self) -> None:
        entry = self._highlighted()
        if entry is None:
            return
        self.app.marked_result = entry  # type: ignore[attr-defined]  # self.app is typed as Textual's App; it is an InspectorApp
        self.notify(
            f"Marked the result of {self.time_format(entry.at)}: highlight another and press =.",
            title="Marked",
            timeout=4,
        )

    def action_diff(self) -> None:
        from ..side_diff import pretty

        entry, marked = self._highlighted(), getattr(self.app, "marked_result", None)
        if entry is None:
            return
        if marked is None:
            self.notify("Mark a result first (m), then highlight another and press =.", severity="warning")
            return
        dialogs(self).side_diff(
            f"Results of {marked.tool} and {entry.tool}",
            result_text(marked, pretty),
            result_text(entry, pretty),
            f"{self.time_format(marked.at)} (marked)",
            self.time_format(entry.at),
        )

    @on(OptionList.OptionSelected, "#history-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id and event.option.id.isdigit():
            self.dismiss(self.entries[int(event.option.id)])


def result_text(entry: HistoryEntry, pretty: Any) -> str:
    """What a kept result is, as the diff shows it: the result object, or the error."""
    if entry.outcome is not None:
        return pretty(entry.outcome.result)
    error = entry.error
    if error is not None and isinstance(getattr(error, "error", None), dict):
        return pretty({"error": error.error})  # a JSON-RPC error: its error object
    return f"{entry.status}\n{error}" if error is not None else entry.status


def open_history(app: Any) -> None:
    """F10: the selected tool's history; enter on an entry shows it in the result panel."""
    main = app.main
    if app.screen is not main:
        return
    tool = (main.current_tool or {}).get("name")
    if not tool:
        app.notify("Pick a tool first: the history is per tool.", severity="warning")
        return
    entries = history_of(app).of(server_key(app), str(tool))

    def chosen(entry: HistoryEntry | None) -> None:
        if entry is None:
            return
        reopen(main.result_panel, entry)
        composer = main.composer
        if entry.arguments is not None and (composer.tool or {}).get("name") == entry.tool:
            app.run_worker(refill(composer, entry), exit_on_error=False)

    app.push_screen(ResultHistoryScreen(str(tool), entries, getattr(main, "time_format", None)), chosen)


async def refill(composer: Any, entry: HistoryEntry) -> None:
    """The composer's form with the arguments of a call from the history (ctrl+s sends it again)."""
    await composer.set_arguments(dict(entry.arguments or {}))
    composer.set_status(f"arguments of the call at {clock(entry.at)} (from the history)")
