"""The live traffic log: one line per frame, virtualised over the TrafficStore.

``StoreLinesView`` (store_lines.py: rows over the store, cursor, tail mode, 15 Hz
polling that pauses while hidden, a Strip cache) does the virtualising;
``TrafficLog`` adds the frame formatting, filter, jump, copy and export, and
the notifications and console views subclass ``StoreLinesView`` with their own
formatting.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Protocol

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message

from .....core.base.jsonrpc import ERROR_NAMES, Kind
from .....core.traffic.entry import TrafficEntry
from .....core.traffic.export import ExportResult, default_export_path, export_json, export_session
from .....core.traffic.store import TrafficStore
from ....text.cli_copy import cli_command_for  # noqa: F401  (also imported from here)
from ....text.traffic_text import (
    ARROWS,
    asks_for_input,
    clean,
    clock_time,
    format_latency,
    human_size,
    linked_seq,
    mrtr_round,
    preview_text,
    short_id,
)
from ...dialogs import dialogs
from ...query_bar import SHOWN_BYTES, SHOWN_OUTPUTS, QueryBar, output_lines
from ...store_lines import StoreLinesView  # noqa: F401  (also imported from here)
from .filter import CompiledFilter, TrafficFilter, TrafficFilterBar
from .query import CPU_LIMIT, NOT_FRAMES, QueryOutputs, QueryOutputsReady, QueryProgress, QueryRun, match_frames

BADGES = {
    Kind.REQUEST: "req",
    Kind.NOTIFICATION: "notif",
    Kind.RESPONSE: "resp",
    Kind.ERROR: "error",
    Kind.BATCH: "batch",
    Kind.INVALID: "INVALID",
    Kind.STDERR: "stderr",
    Kind.EVENT: "event",
}
BADGE_WIDTH = 7
#: the traffic log's mark of a frame that drew a finding of the live checks (its worst severity)
FINDING_MARKS = {"error": ("✖", "error"), "warning": ("▲", "warning"), "info": ("·", "seq")}


class FindingMarks(Protocol):
    """What the traffic log reads of the live checks (tui/server/live_checks.LiveChecks)."""

    version: int
    worst: dict[int, Any]  # seq -> Severity


class TrafficLog(StoreLinesView):
    """Every frame, stderr line and event, one line each, with filter, jump, copy and export."""

    ALLOW_MAXIMIZE = True
    MAXIMIZE_PANEL = True  # ctrl+z maximizes it (tui/maximize.py)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_entry", "Details", id="traffic.open"),
        Binding("j", "jump_linked", "Req↔resp", id="traffic.jump"),
        Binding("c", "copy_frame", "Copy frame", id="traffic.copy"),
        Binding("C", "copy_cli", "Copy as CLI", id="traffic.copy-cli"),
        Binding("e", "export_session", "Export", id="traffic.export"),
        Binding("E", "export_json", "Export JSON", id="traffic.export-json", show=False),
        Binding(
            "m",
            "mark_frame",
            "Mark for diff",
            id="traffic.mark",
            show=False,
            tooltip="Traffic log: mark the selected frame (= then diffs another with it)",
        ),
        Binding(
            "equals_sign",
            "diff_frames",
            "Diff with marked",
            id="traffic.diff",
            show=False,
            tooltip="Traffic log: the selected frame and the marked one side by side",
        ),
    ]

    class EntrySelected(Message):
        """The user chose an entry (enter)."""

        def __init__(self, log: TrafficLog, seq: int) -> None:
            super().__init__()
            self.log = log
            self.seq = seq

        @property
        def control(self) -> TrafficLog:
            return self.log

    class Exported(Message):
        """An export finished (``result``) or failed (``error``)."""

        def __init__(self, log: TrafficLog, result: ExportResult | None, error: str | None = None) -> None:
            super().__init__()
            self.log = log
            self.result = result
            self.error = error

    def __init__(
        self,
        store: TrafficStore,
        *,
        server_spec: Any = None,
        time_format: Callable[[float], str] = clock_time,
        export_dir: Path | str | None = None,
        open_detail_on_enter: bool = True,
        marks: FindingMarks | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        self.current_filter = TrafficFilter()
        self._compiled: CompiledFilter | None = None
        self.query_run: QueryRun | None = None  # the jq query narrowing the rows (views/traffic/query.py)
        self.marks = marks  # the live checks: a frame that drew a finding is marked
        self._marks_seen = -1
        super().__init__(store, time_format=time_format, name=name, id=id, classes=classes)
        self.server_spec = server_spec  # a ServerSpec, for "copy as CLI command"
        self.export_dir = Path(export_dir) if export_dir is not None else None
        self.open_detail_on_enter = open_detail_on_enter  # the shell may handle EntrySelected itself

    # -- filter -------------------------------------------------------------
    def _make_predicate(self) -> Callable[[TrafficEntry], bool] | None:
        run = self.query_run
        compiled = self._compiled = self.current_filter.compile() if self.current_filter.is_active else None
        if run is None:
            return compiled
        hits = run.hits
        if compiled is None:
            return lambda entry: entry.seq in hits
        return lambda entry: entry.seq in hits and compiled(entry)

    # -- jq query -------------------------------------------------------------
    def set_query(self, expression: str | None) -> None:
        """Show only the frames the jq ``expression`` matches (None: no query). Matching runs in a
        thread worker over the store, then on each new frame; the rows follow as it reports."""
        if self.query_run is not None:
            if self.query_run.expression == expression:
                return
            self.query_run.stop()
        self.query_run = None
        if expression is not None:
            run = self.query_run = QueryRun(expression, through=self.store.first_seq - 1)
            self.run_worker(
                lambda: match_frames(run, self.store, self.post_message, lambda: run.cancelled, run.through),
                thread=True,
                group="traffic-query",
                exclusive=True,
                exit_on_error=False,
            )
        self.refilter()

    def scan_limit(self) -> int:
        run = self.query_run
        return self.store.last_seq if run is None else min(self.store.last_seq, run.through)

    def cache_key(self, entry: TrafficEntry) -> tuple:
        marks = self.marks
        worst = marks.worst.get(entry.seq) if marks is not None else None
        return (*super().cache_key(entry), worst)

    def sync(self, force: bool = False) -> None:
        marks = self.marks
        if marks is not None and marks.version != self._marks_seen:
            self._marks_seen = marks.version
            self.refresh()  # a finding came (often after its frame was drawn): the cache key has its mark
        if self.query_run is not None and self.store.last_seq > self.query_run.through:
            self.query_run.more.set()  # the worker tests the new frames
        super().sync(force)

    def on_query_progress(self, message: QueryProgress) -> None:
        """The worker tested a chunk: take its hits and counts (the panel shows them, so it bubbles on)."""
        run = message.run
        if run is not self.query_run:
            message.stop()
            return
        if message.stopped is not None:
            run.stopped = message.stopped
            return
        run.hits.update(message.hits)
        if len(run.hits) > 2 * max(len(self.store), 1000):  # the store evicted many: forget their seqs
            first = self.store.first_seq
            run.hits.difference_update([seq for seq in run.hits if seq < first])
        run.matched += len(message.hits)
        run.tested += message.tested
        run.failed += message.failed
        run.through = max(run.through, message.through)
        self.sync(force=True)

    def on_unmount(self) -> None:
        if self.query_run is not None:
            self.query_run.stop()

    def set_filter(self, spec: TrafficFilter | None) -> None:
        """Show only the entries ``spec`` matches (None shows everything)."""
        spec = spec or TrafficFilter()
        if spec == self.current_filter:
            return
        self.current_filter = spec
        self.refilter()

    # -- formatting ---------------------------------------------------------
    def format_entry(self, entry: TrafficEntry) -> Text:
        style = self.style_for
        kind = entry.kind
        direction_style = style(entry.direction.value)
        kind_style = direction_style
        if kind in (Kind.ERROR, Kind.INVALID):
            kind_style = style("error")
        elif kind is Kind.NOTIFICATION:
            kind_style = style("notification")
        elif kind is Kind.STDERR:
            kind_style = style("stderr")
        text = Text.assemble(
            (self.time_format(entry.ts), style("time")),
            " ",
            (ARROWS[entry.direction], direction_style),
            " ",
            (BADGES[kind].ljust(BADGE_WIDTH), kind_style),
            " ",
            (f"#{entry.seq}", style("seq")),
            " ",
        )
        worst = self.marks.worst.get(entry.seq) if self.marks is not None else None
        if worst is not None:
            mark, mark_style = FINDING_MARKS[worst.value]
            text.append(f"{mark} ", style(mark_style))
        rounds = mrtr_round(entry, self.store)
        if rounds is not None and kind is Kind.REQUEST:
            text.append("↳ ", style("notification"))
        if entry.meta is not None and entry.meta.get("by_hand"):  # sent from the raw frame screen
            text.append("✎ ", style("notification"))
        if entry.method:
            text.append(clean(entry.method), direction_style + style("method"))
            text.append(" ")
        if rounds is not None:
            text.append(f"round {rounds[1]} of #{rounds[0]} ", style("notification"))
        if entry.has_id and kind is not Kind.NOTIFICATION:
            text.append(f"id={short_id(entry.msg_id)} ", style("seq"))
        if kind is Kind.ERROR and entry.error_code is not None:
            name = ERROR_NAMES.get(entry.error_code, "")
            text.append(f"{entry.error_code}{' ' + name if name else ''} ", style("error"))
        status = entry.meta.get("status") if entry.meta is not None else None
        if isinstance(status, int) and not isinstance(status, bool) and status >= 300:  # a frame an HTTP error carried
            text.append(f"HTTP {status} ", style("error"))
        if entry.reply_to is not None and kind is not Kind.NOTIFICATION:
            request = self.store.get(entry.reply_to)
            text.append(f"↩ #{entry.reply_to}", style("latency"))
            if request is not None and request.method and not entry.method:
                text.append(f" {clean(request.method)}", style("latency"))
            if entry.latency_ms is not None:
                text.append(f" {format_latency(entry.latency_ms)}", style("latency"))
            text.append(" ")
        elif entry.reply_seq is not None:
            text.append(f"↪ #{entry.reply_seq} ", style("seq"))
        if kind is Kind.RESPONSE and asks_for_input(entry):
            text.append("⋯ input required ", style("notification"))
        if entry.late:
            text.append("[late] ", style("warning"))
        if entry.problem and not (entry.late and entry.problem.startswith("late")):
            marker = "✗ " if kind is Kind.INVALID else "⚠ "
            text.append(
                marker + clean(entry.problem[:120]) + " ", style("error") if kind is Kind.INVALID else style("warning")
            )
        body = preview_text(entry.raw)
        if kind in (Kind.STDERR, Kind.EVENT):
            text.append(body, style("stderr") if kind is Kind.STDERR else style("local"))
        else:
            text.append(body, style("preview"))
        return text

    # -- actions --------------------------------------------------------------
    def _need_entry(self) -> TrafficEntry | None:
        entry = self.cursor_entry
        if entry is None:
            self.notify("No entry selected.", severity="warning")
        return entry

    def action_open_entry(self) -> None:
        entry = self._need_entry()
        if entry is None:
            return
        self.post_message(self.EntrySelected(self, entry.seq))
        if self.open_detail_on_enter:
            dialogs(self).frame_detail(self.store, entry.seq, self.time_format, on_jump=self.move_cursor_to_seq)

    def action_jump_linked(self) -> None:
        entry = self._need_entry()
        if entry is None:
            return
        target = linked_seq(entry)
        if target is None:
            self.notify(f"#{entry.seq} has no linked request or response.", severity="warning")
        elif self.store.get(target) is None:
            self.notify(f"#{target} is no longer in memory (see the session file).", severity="warning")
        elif not self.move_cursor_to_seq(target):
            self.notify(f"#{target} is hidden by the filter.", severity="warning")

    def action_copy_frame(self) -> None:
        entry = self._need_entry()
        if entry is None:
            return
        self.app.copy_to_clipboard(entry.text)
        self.notify(f"Frame #{entry.seq} ({human_size(len(entry.raw))})", title="Copied to clipboard")

    def action_copy_cli(self) -> None:
        entry = self._need_entry()
        if entry is None:
            return
        try:
            command = cli_command_for(entry, self.server_spec)
        except ValueError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.app.copy_to_clipboard(command)
        self.notify(command, title="Copied to clipboard", markup=False)

    def action_mark_frame(self) -> None:
        """``m``: remember the selected frame (one for the whole app: mark here, diff in another view)."""
        entry = self._need_entry()
        if entry is None:
            return
        self.app.marked_frame = (self.store, entry.seq)  # type: ignore[attr-defined]  # self.app is typed as Textual's App; it is an InspectorApp
        self.notify(
            f"Frame #{entry.seq} marked: select another and press = to see them side by side.",
            title="Marked",
            timeout=4,
        )

    def action_diff_frames(self) -> None:
        """``=``: the selected frame beside the marked one (screens/traffic/side_diff.py)."""
        from ...side_diff import pretty_raw

        entry = self._need_entry()
        if entry is None:
            return
        store, seq = getattr(self.app, "marked_frame", (None, None))
        marked = store.get(seq) if store is self.store and seq is not None else None
        if marked is None:
            self.notify("Mark a frame first (m), then select another and press =.", severity="warning")
            return
        dialogs(self).side_diff(
            f"Frame #{marked.seq} and frame #{entry.seq}",
            pretty_raw(marked.raw),
            pretty_raw(entry.raw),
            f"#{marked.seq} {marked.method or marked.kind.value} (marked)",
            f"#{entry.seq} {entry.method or entry.kind.value}",
        )

    def action_export_session(self) -> None:
        self._export(".jsonl")

    def action_export_json(self) -> None:
        self._export(".json")

    def _export(self, suffix: str) -> None:
        """Asks where first (a single key never writes a file unconfirmed): screens/dialogs/save_as.py."""
        path = default_export_path(suffix)
        if self.export_dir is not None:
            path = self.export_dir / path.name
        what = "the session (JSONL)" if suffix == ".jsonl" else "the session (JSON)"
        dialogs(self).ask_path(self, path, what, lambda chosen: self._write_export(chosen, suffix), create_parent=True)

    def _write_export(self, path: Path, suffix: str) -> None:
        header = {"exported_by": "mcp-inspector"}
        if self.server_spec is not None:
            header["server"] = self.server_spec.describe()

        def work() -> None:
            try:
                if suffix == ".jsonl":
                    result = export_session(self.store, path, header)
                else:
                    result = export_json(self.store, path)
            except OSError as exc:
                self.app.call_from_thread(self.notify, f"Export failed: {exc}", severity="error", markup=False)
                self.post_message(self.Exported(self, None, str(exc)))
                return
            self.app.call_from_thread(self.notify, result.describe(), title="Exported", markup=False)
            self.post_message(self.Exported(self, result))

        self.run_worker(work, thread=True, name="traffic-export", group="traffic-export")


class TrafficPanel(Vertical):
    """The filter bar and the jq query bar above the log, the query's outputs below it, wired together."""

    DEFAULT_CSS = """
    TrafficPanel { height: 1fr; }
    TrafficPanel TrafficLog { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "vertical_line",
            "query",
            "Query",
            id="traffic.query",
            tooltip="Traffic: a jq query over the frames (the count and the selected frame's outputs shown)",
        ),
        Binding(
            "x",
            "clear_query",
            "Clear query",
            id="traffic.clear-query",
            show=False,
            tooltip="Traffic: clear the jq query",
        ),
    ]
    OUTPUTS_INTERVAL = 0.2  # seconds between looks at the cursor for the outputs of the selected frame

    def __init__(
        self,
        store: TrafficStore,
        *,
        server_spec: Any = None,
        time_format: Callable[[float], str] = clock_time,
        marks: FindingMarks | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._log = TrafficLog(store, server_spec=server_spec, time_format=time_format, marks=marks)
        self._outputs_key: tuple | None = None  # (expression, seq) whose outputs are shown
        self._outputs_sandbox = None
        self._outputs_timer = None

    @property
    def log_view(self) -> TrafficLog:
        return self._log

    def compose(self) -> ComposeResult:
        yield TrafficFilterBar()
        yield QueryBar(
            'jq, e.g. select(.method == "tools/call") · enter applies · esc leaves · x clears', id="traffic-query"
        )
        yield self._log
        yield QueryOutputs(id="query-outputs")

    def on_mount(self) -> None:
        from ...shown_timer import ShownTimer

        self._outputs_timer = ShownTimer(self, self.OUTPUTS_INTERVAL, self._follow_cursor, "query-outputs")

    def on_hide(self) -> None:
        if self._outputs_timer is not None:
            self._outputs_timer.hidden()

    def on_show(self) -> None:
        if self._outputs_timer is not None:
            self._outputs_timer.shown()

    def on_unmount(self) -> None:
        if self._outputs_sandbox is not None:
            self._outputs_sandbox.close()

    @on(TrafficFilterBar.Changed)
    def _apply_filter(self, event: TrafficFilterBar.Changed) -> None:
        event.stop()
        self._log.set_filter(event.filter)

    # -- jq query -------------------------------------------------------------
    def action_query(self) -> None:
        self.query_one(QueryBar).open()

    def action_clear_query(self) -> None:
        self.query_one(QueryBar).clear()
        self._log.focus()

    @on(QueryBar.Changed)
    def _apply_query(self, event: QueryBar.Changed) -> None:
        event.stop()
        self._log.set_query(event.expression)
        outputs = self.query_one(QueryOutputs)
        outputs.set_class(event.expression is not None, "-shown")
        self._outputs_key = None
        outputs.update("")
        if event.expression is not None:
            self.query_one(QueryBar).set_status(self._log.query_run.summary(self._log.store))
            self._follow_cursor()

    @on(QueryBar.Left)
    @on(TrafficFilterBar.Left)
    def _leave_query(self, event: QueryBar.Left | TrafficFilterBar.Left) -> None:
        event.stop()
        self._log.focus()

    def on_query_progress(self, message: QueryProgress) -> None:
        message.stop()
        run = self._log.query_run
        if run is not None:
            self.query_one(QueryBar).set_status(run.summary(self._log.store), error=run.stopped is not None)

    def _follow_cursor(self) -> None:
        """The selected frame's outputs, recomputed when the cursor or the expression changed."""
        run = self._log.query_run
        entry = self._log.cursor_entry
        if run is None or entry is None:
            return
        key = (run.expression, entry.seq)
        if key == self._outputs_key:
            return
        self._outputs_key = key
        if entry.kind in NOT_FRAMES:
            self.query_one(QueryOutputs).update(Text(f"#{entry.seq} is not a frame ({entry.kind.value})", style="dim"))
            return
        self._frame_outputs(key, entry.raw)

    @work(thread=True, exclusive=True, group="traffic-query-outputs", exit_on_error=False)
    def _frame_outputs(self, key: tuple, raw: bytes) -> None:
        from .....core.query import QueryError, QuerySandbox, QueryStopped

        if self._outputs_sandbox is None:
            self._outputs_sandbox = QuerySandbox(cpu_limit=CPU_LIMIT)
        try:
            found = self._outputs_sandbox.value_outputs(key[0], raw, SHOWN_OUTPUTS, SHOWN_BYTES)
            text = output_lines(found, key[1])
        except (QueryStopped, QueryError) as exc:
            text = Text(f"#{key[1]}: {exc}", style="bold red")
        self.post_message(QueryOutputsReady(key, text))

    def on_query_outputs_ready(self, message: QueryOutputsReady) -> None:
        message.stop()
        if message.key == self._outputs_key:
            self.query_one(QueryOutputs).update(message.text)
