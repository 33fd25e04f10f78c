"""The Tasks view (key 9): every task of this session, with what the server offers on them.

Rows come from ``session.tasks`` (core/session/tasks.py: the tasks our calls created,
those ``tasks/list`` returned and those a status notification announced), kept up to
date by the ``TaskUpdated`` events the main screen hands to ``session_event``; a
1 s timer (paused while the view is hidden) moves the ages on. ``r`` fetches
``tasks/list`` where the server offers it (2025-11-25 ``capabilities.tasks.list``; the
2026-07-28 extension has none). On the selected task: enter shows its result (the one
stored, else ``tasks/result`` / the ``tasks/get`` result, in a worker) in a ResultPanel
as a tool result is shown; ``c`` sends ``tasks/cancel``; ``p`` polls it now (``tasks/get``).
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import DataTable, Static

from ....core.base.errors import InspectorError, ProtocolViolation, TaskCancelled
from ....core.session.mcp_session import McpSession
from ....core.session.modern import TASKS_EXTENSION
from ....core.session.results import analyze_tool_result
from ....core.traffic.store import TrafficStore
from ..inflight import seconds_text, short_id
from ..result.view import ResultPanel
from ..shown_timer import ShownTimer
from .session_view import SessionView

#: (key, label, width: None sizes to the content)
COLUMNS = (
    ("task", "Task", 10),
    ("tool", "Tool", None),
    ("status", "Status", 14),
    ("message", "Message", None),
    ("age", "Age", 6),
    ("ttl", "TTL", 7),
    ("poll", "Poll", 6),
    ("updates", "Seen", 4),
)
#: the columns a narrow view keeps; the others show while the width has room for them (in this order)
REQUIRED = ("task", "tool", "status", "message")


def column_layout(width: int, tool_width: int, message_width: int) -> tuple[tuple[str, ...], int | None]:
    """The columns that fit ``width`` cells, and the Message column's width (None: its content's).
    At 80 columns Age, TTL, Poll and Seen went off-screen (the table scrolled sideways to show
    them): they are left out while there is no room, and a long message is cut to the room left."""
    room = width - 2 - (10 + max(4, tool_width) + 14 + 4 * 2)  # 2: a vertical scrollbar; 2 per cell: padding
    message_width = max(7, message_width)
    shown = list(REQUIRED)
    for key, _, column_width in COLUMNS:
        if key not in REQUIRED and column_width is not None and room - message_width >= column_width + 2:
            shown.append(key)
            room -= column_width + 2
    keys = tuple(key for key, _, _ in COLUMNS if key in shown)
    return keys, (None if message_width <= room - 2 else max(10, room - 2))


STATUS_STYLES = {
    "working": "bold",
    "input_required": "bold reverse",
    "completed": "green",
    "failed": "bold red",
    "cancelled": "yellow",
}


def declares_tasks(session: McpSession | None) -> bool:
    """The server offers tasks at all (2025-11-25 ``capabilities.tasks``; 2026-07-28 the extension)."""
    caps = getattr(session, "capabilities", None)
    if not isinstance(caps, dict):
        return False
    if getattr(session, "era", None) == "modern":
        extensions = caps.get("extensions")
        return isinstance(extensions, dict) and TASKS_EXTENSION in extensions
    return isinstance(caps.get("tasks"), dict)


def timestamp(value: Any) -> float | None:
    """An ISO 8601 time the server sent (createdAt, lastUpdatedAt) as a Unix time."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def age_text(record: Any, now: float) -> str:
    """How long ago the task was created (the server's createdAt, else when we first saw it)."""
    start = timestamp(record.task.get("createdAt")) or record.created
    seconds = max(0.0, now - start)
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def count_text(count: int) -> str:
    """A count in the 4 columns of "Seen": 20003 is "20k", not a cut "2000"."""
    if count < 10_000:
        return str(count)
    return f"{count // 1000}k" if count < 1_000_000 else f"{count // 1_000_000}M"


EMPTY_RESULT = "No task chosen: enter on a task shows its result here."


class TasksView(SessionView):
    """The tasks of this session in a table, the selected one's result below."""

    BINDINGS = [
        Binding(
            "r", "refresh_tasks", "Refresh", id="tasks.refresh", tooltip="Fetch tasks/list (where the server offers it)"
        ),
        Binding(
            "c", "cancel_task", "Cancel task", id="tasks.cancel", tooltip="Send tasks/cancel for the selected task"
        ),
        Binding("p", "poll_task", "Poll now", id="tasks.poll", tooltip="Send tasks/get for the selected task"),
        Binding(
            "enter",
            "show_result",
            "Result",
            id="tasks.result",
            show=False,
            tooltip="Show the selected task's result (tasks/result)",
        ),
        Binding(
            "escape",
            "back_to_table",
            "Back to the tasks",
            id="tasks.back",
            show=False,
            tooltip="Back to the table of tasks (from the result)",
        ),
    ]
    DEFAULT_CSS = """
    TasksView { height: 1fr; }
    TasksView #tasks-note { height: auto; padding: 0 1; background: $panel; color: $text-muted; }
    TasksView #tasks-table { height: 1fr; min-height: 5; }
    TasksView #task-result { height: 1fr; border-top: solid $panel-lighten-1; }
    """
    AGE_INTERVAL = 1.0

    def __init__(
        self, store: TrafficStore, *, time_format: Any = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(store, time_format=time_format, id=id, classes=classes)
        self.table: DataTable = DataTable(id="tasks-table", cursor_type="row", zebra_stripes=True)
        self.result_panel = ResultPanel(id="task-result")
        self._note = Static("", id="tasks-note")
        self._ages: ShownTimer | None = None
        self.listed: str = ""  # what the last refresh said
        self.mask_volatile = False  # snapshots: task ids by number, no ages or durations

    def compose(self) -> ComposeResult:
        yield self._note
        yield self.table
        yield self.result_panel

    def on_mount(self) -> None:
        self.mask_volatile = bool(getattr(self.app, "snapshot_mode", False))
        self._columns: tuple[tuple[str, ...], int | None] = ((), None)
        self.result_panel.clear(EMPTY_RESULT)
        self._ages = ShownTimer(self, self.AGE_INTERVAL, self.refresh_rows, "task-ages")
        self.refresh_rows()

    def _set_columns(self, layout: tuple[tuple[str, ...], int | None]) -> None:
        if layout == self._columns:
            return
        self._columns = layout
        keys, message_width = layout
        self.table.clear(columns=True)
        for key, label, width in COLUMNS:
            if key in keys:
                self.table.add_column(label, key=key, width=message_width if key == "message" else width)

    def on_resize(self) -> None:
        self.refresh_rows()

    def on_hide(self) -> None:
        if self._ages is not None:
            self._ages.hidden()

    def on_show(self) -> None:
        if self._ages is not None:
            self._ages.shown()

    def first_focus(self) -> Widget | None:
        return self.table

    # -- the session's tasks -------------------------------------------------
    def set_session(self, session: McpSession | None, facts: Any, read_only: bool = False) -> None:
        changed = session is not self.session
        super().set_session(session, facts, read_only)
        if changed:
            self.listed = ""
        if self.is_mounted:
            self.refresh_rows()

    def session_event(self, event: Any) -> None:
        self.session_events([event])

    def session_events(self, events: list[Any]) -> None:
        """The table is rebuilt once for all of them."""
        tasks = [event for event in events if type(event).__name__ == "TaskUpdated"]
        if not tasks or not self.is_mounted:
            return
        self.refresh_rows()
        selected = self.selected_id()
        if selected is not None and any(
            selected == event.task.get("taskId") and event.source == "result" for event in tasks
        ):
            self._show_stored(selected, quiet=True)

    def records(self) -> list[Any]:
        """Every task of the live session, the newest first."""
        tasks = getattr(self.session, "tasks", None) or {}
        return sorted(tasks.values(), key=lambda record: record.created, reverse=True)

    def note_text(self) -> str:
        session = self.session
        if self.read_only:
            return "A recording: tasks are followed on a live connection."
        if session is None:
            return "Not connected."
        count = len(getattr(session, "tasks", {}) or {})
        if not declares_tasks(session):
            text = "This server declares no tasks capability."
            return text + (f" ({count} task{'s' if count != 1 else ''} seen anyway)" if count else "")
        lists = session.can_list_tasks()
        text = f"{count} task{'s' if count != 1 else ''} in this session"
        keymap = getattr(self.app, "keymap", None) or {}

        def key(binding_id: str, default: str) -> str:  # as the user remapped it
            return keymap.get(binding_id, default)

        text += (
            f" · {key('tasks.refresh', 'r')}: tasks/list"
            if lists
            else " · this server offers no tasks/list (only the tasks seen here)"
        )
        # short enough for one line at 80 columns (the footer has the same keys)
        text += f" · enter: result · {key('tasks.cancel', 'c')}: cancel · {key('tasks.poll', 'p')}: poll"
        return text + (f"\n{self.listed}" if self.listed else "")

    def refresh_rows(self) -> None:
        """Rebuild the table from the session's records, keeping the selected task."""
        self._note.update(Text(self.note_text()))
        table = self.table
        selected = self.selected_id()
        records = self.records()
        now = time.time()
        numbers = {record.task_id: len(records) - index for index, record in enumerate(records)}
        rows = []
        for record in records:
            task = record.task
            modern = "ttlMs" in task or "pollIntervalMs" in task
            status = record.status
            message = task.get("statusMessage")
            cells = {
                "task": f"#{numbers[record.task_id]}" if self.mask_volatile else short_id(record.task_id),
                "tool": record.tool or "—",
                "status": Text(status.replace("_", " "), style=STATUS_STYLES.get(status, ""), justify="left"),
                "message": " ".join(str(message).split())[:80] if message else "",
                "age": "…" if self.mask_volatile else age_text(record, now),
                "ttl": seconds_text(task.get("ttlMs" if modern else "ttl"), 1000) or "—",
                "poll": seconds_text(task.get("pollIntervalMs" if modern else "pollInterval"), 1000) or "—",
                "updates": "…" if self.mask_volatile else count_text(record.updates),
            }
            rows.append((record.task_id, cells))
        self._set_columns(
            column_layout(
                self.size.width or 80,
                max((len(c["tool"]) for _, c in rows), default=4),
                max((len(c["message"]) for _, c in rows), default=7),
            )
        )
        table.clear()
        keys = self._columns[0]
        for task_id, cells in rows:
            table.add_row(*(cells[key] for key in keys), key=task_id)
        if selected is not None:
            ids = [record.task_id for record in records]
            if selected in ids:
                table.move_cursor(row=ids.index(selected), animate=False)

    def selected_id(self) -> str | None:
        table = self.table
        if not table.row_count or not table.is_mounted:
            return None
        try:
            key = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key
        except Exception:  # the cursor is past the rows (a cleared table)
            return None
        return key.value if key is not None else None

    def _selected_record(self) -> Any:
        task_id = self.selected_id()
        tasks = getattr(self.session, "tasks", None) or {}
        if task_id is None or task_id not in tasks:
            self.notify("No task selected." if self.session is not None else "Not connected.", severity="warning")
            return None
        return tasks[task_id]

    # -- actions ------------------------------------------------------------
    @on(DataTable.RowSelected, "#tasks-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_show_result()

    def action_back_to_table(self) -> None:
        self.table.focus()

    def action_show_result(self) -> None:
        record = self._selected_record()
        if record is not None and not self._show_stored(record.task_id):
            self._fetch_result(record.task_id)

    def _show_stored(self, task_id: str, quiet: bool = False) -> bool:
        """Show the result or error the session keeps for the task; False when it has none."""
        record = (getattr(self.session, "tasks", None) or {}).get(task_id)
        if record is None:
            return False
        if record.result is not None:
            self.result_panel.show_outcome(self._outcome(record, record.result))
            return True
        if record.error is not None:
            self.result_panel.show_error(record.error)
            return True
        if record.status == "cancelled":  # there is no result to fetch (tasks/result would be an error)
            reason = record.cancel_requested or record.task.get("statusMessage") or "the server cancelled the task"
            self.result_panel.show_error(TaskCancelled("tools/call", record.task_id, str(reason)))
            return True
        return False

    def _outcome(self, record: Any, result: dict[str, Any]) -> Any:
        from ....core.session.mcp_session import ToolCallOutcome

        tool = self.session.tool(record.tool) if record.tool and self.session is not None else None
        created, updated = timestamp(record.task.get("createdAt")), timestamp(record.task.get("lastUpdatedAt"))
        took = (updated - created) * 1000 if created is not None and updated is not None and updated >= created else 0.0
        if self.mask_volatile:
            took = 0.0
        return ToolCallOutcome(
            record.tool or f"task {short_id(record.task_id)}",
            {},
            result,
            analyze_tool_result(result, tool),
            elapsed_ms=took,
            task_id=record.task_id,
        )

    @work(group="task-result", exclusive=True, exit_on_error=False)
    async def _fetch_result(self, task_id: str) -> None:
        session = self.session
        if session is None:  # disconnected meanwhile
            return
        record = session.tasks.get(task_id)
        if record is None:
            return
        if not record.terminal:
            # no tasks/result now: it would block until the end, and beside a call following the task it
            # could take the server's requests (legacy delivers them on tasks/result)
            self.result_panel.clear(
                f"Task {short_id(task_id)} is {record.status.replace('_', ' ')}: its result shows here when it ends"
            )
            self.notify(
                f"Task {short_id(task_id)} is {record.status.replace('_', ' ')}: its result shows here when it "
                "ends (p polls it now).",
                markup=False,
            )
            return
        self.result_panel.clear(f"Fetching the result of task {short_id(task_id)} (tasks/result)…")
        self.notify(f"Fetching the result of task {short_id(task_id)}…", markup=False, timeout=3)
        try:
            result = await session.task_result(task_id)
        except (InspectorError, ProtocolViolation) as exc:
            if self.selected_id() == task_id:
                self.result_panel.show_error(exc)
            return
        if self.selected_id() == task_id:
            self.result_panel.show_outcome(self._outcome(record, result))

    def action_cancel_task(self) -> None:
        record = self._selected_record()
        if record is None:
            return
        if record.terminal:
            self.notify(
                f"Task {short_id(record.task_id)} is already {record.status}.", severity="warning", markup=False
            )
            return
        self._cancel(record.task_id)

    @work(group="task-cancel", exit_on_error=False)
    async def _cancel(self, task_id: str) -> None:
        if self.session is None:  # disconnected meanwhile
            return
        try:
            record = await self.session.cancel_task(task_id, "cancelled by the user (Tasks view)")
        except (InspectorError, ProtocolViolation) as exc:
            self.notify(f"tasks/cancel failed: {exc}", severity="error", markup=False)
            return
        self.notify(f"tasks/cancel sent: task {short_id(task_id)} is {record.status.replace('_', ' ')}.", markup=False)
        self.refresh_rows()

    def action_poll_task(self) -> None:
        record = self._selected_record()
        if record is not None:
            self._poll(record.task_id)

    @work(group="task-poll", exit_on_error=False)
    async def _poll(self, task_id: str) -> None:
        if self.session is None:  # disconnected meanwhile
            return
        try:
            record = await self.session.get_task(task_id)
        except (InspectorError, ProtocolViolation) as exc:
            self.notify(f"tasks/get failed: {exc}", severity="error", markup=False)
            return
        message = record.task.get("statusMessage")
        self.notify(
            f"tasks/get: task {short_id(task_id)} is {record.status.replace('_', ' ')}"
            + (f" ({message})" if message else ""),
            markup=False,
        )
        self.refresh_rows()

    def action_refresh_tasks(self) -> None:
        session = self.session
        if session is None:
            self.notify("Not connected.", severity="warning")
            return
        if not declares_tasks(session):
            self.notify("This server declares no tasks capability.", severity="warning")
            return
        if not session.can_list_tasks():
            self.notify(
                "This server offers no tasks/list: the view shows the tasks seen in this session.", severity="warning"
            )
            return
        self._list()

    @work(group="task-list", exclusive=True, exit_on_error=False)
    async def _list(self) -> None:
        if self.session is None:  # disconnected meanwhile
            return
        try:
            records = await self.session.list_tasks()
        except (InspectorError, ProtocolViolation) as exc:
            self.listed = f"tasks/list failed: {exc}"
        else:
            self.listed = f"tasks/list: {len(records)} task{'s' if len(records) != 1 else ''} on the server"
        self.refresh_rows()
