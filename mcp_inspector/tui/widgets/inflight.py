"""Requests in flight: progress, elapsed time, the timeout countdown, and a cancel key.

Rows read their ``PendingRequest`` on a 10 Hz timer instead of reacting to each
progress notification, so a server that floods progress cannot flood the UI;
the timer pauses while the panel is not shown (another view is current).
The countdown comes from ``pending.remaining()``, which already moves when a
progress notification resets the timeout and stops at the hard maximum.

A call that became a task (core/session/tasks.py) keeps its row after its
``tools/call`` answered: the row shows the task's status, status message and how
often it was polled (``tasks/get`` requests counted by a store listener), from the
``TaskUpdated`` events the screen hands to ``task_updated``; cancel then ends the task
(``tasks/cancel``, through ``pending.cancel_hook``). The row ends when the screen says
the call ended (``end_call``).
"""

from __future__ import annotations

import json
import time
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, ProgressBar, Static

from ...core.base.errors import RequestCancelled, RequestTimeout
from ...core.protocol.rpc import PendingRequest
from ...core.session.task_model import ms_to_seconds
from ...core.traffic.entry import Direction, TrafficEntry
from ...core.traffic.store import TrafficStore
from .shown_timer import ShownTimer

LINGER = 2.0  # seconds a finished request stays visible


def describe(pending: PendingRequest) -> str:
    name = (pending.params or {}).get("name") if pending.method == "tools/call" else None
    return f"{pending.method} {name}" if name else pending.method


def timing_text(pending: PendingRequest) -> str:
    parts = [f"{pending.elapsed:5.1f} s"]
    if pending.timeout is None and pending.max_total is None:
        parts.append("no timeout")
    else:
        remaining = pending.remaining()
        if remaining is not None:
            parts.append(f"times out in {remaining:4.1f} s")
        if pending.reset_on_progress and pending.timeout is not None:
            parts.append("(resets on progress)")
        if pending.hard_deadline is not None:
            hard_left = max(0.0, pending.hard_deadline - time.perf_counter())
            parts.append(f"hard max {hard_left:.0f} s left")
    return " · ".join(parts)


def outcome_text(pending: PendingRequest) -> tuple[str, str]:
    """(text, css class) for a finished request."""
    error = pending.error
    if error is None:
        return f"done in {pending.elapsed:.2f} s", "finished-ok"
    if isinstance(error, RequestCancelled):
        return f"cancelled: {error.reason}", "finished-cancelled"
    if isinstance(error, RequestTimeout):
        return "timed out", "finished-error"
    return f"failed: {error}", "finished-error"


def waiting_for_input(pending: PendingRequest) -> bool:
    """An MRTR round ended: the server answered ``input_required`` and a retry follows."""
    result = pending.result
    return pending.error is None and isinstance(result, dict) and result.get("resultType") == "input_required"


def task_in(result: Any) -> dict[str, Any] | None:
    """The task a tools/call answered with: a 2025-11-25 CreateTaskResult ``{task}``, or a
    2026-07-28 ``resultType: "task"`` result (the Task inline)."""
    if not isinstance(result, dict):
        return None
    if result.get("resultType") == "task" and isinstance(result.get("taskId"), str):
        return result
    task = result.get("task")
    if isinstance(task, dict) and "content" not in result and isinstance(task.get("taskId"), str):
        return task
    return None


def short_id(task_id: str) -> str:
    return task_id if len(task_id) <= 10 else task_id[:8] + "…"


def seconds_text(value: Any, scale: float) -> str | None:
    """``ttl`` / ``pollInterval`` (ms) in words; None when absent or not a number."""
    seconds = ms_to_seconds(value)
    if seconds is None or seconds != seconds:  # not a number, NaN
        return None
    seconds *= 1000 / scale
    if abs(seconds) == float("inf"):  # Infinity, or an integer too big for a float
        return "∞" if seconds > 0 else "-∞"
    return f"{seconds:g} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def task_line(task: dict[str, Any], polls: int) -> Text:
    """``task 1e598510… · working · Gathering sources... · polled 3x``."""
    status = str(task.get("status", "?"))
    text = Text(f"task {short_id(str(task.get('taskId', '?')))} · ")
    text.append(status.replace("_", " "), style="bold reverse" if status == "input_required" else "bold")
    message = task.get("statusMessage")
    if status == "input_required":
        text.append(" · the server needs an answer (its form opens)", style="bold")
    if isinstance(message, str) and message:
        text.append(f" · {' '.join(message.split())[:200]}")
    text.append(f" · polled {polls}x" if polls else " · not polled yet")
    return text


class TaskPolls:
    """Counts ``tasks/get`` requests per task id in a store (a listener: one compare per entry)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self._stores: set[int] = set()

    def watch(self, store: TrafficStore | None) -> None:
        if store is not None and id(store) not in self._stores:
            self._stores.add(id(store))
            store.add_listener(self._entry)

    def _entry(self, entry: TrafficEntry) -> None:
        if entry.method == "tasks/get" and entry.direction is Direction.OUT:
            try:
                task_id = json.loads(entry.raw)["params"]["taskId"]
            except (ValueError, KeyError, TypeError):
                return
            if isinstance(task_id, str):
                self.counts[task_id] = self.counts.get(task_id, 0) + 1


def ended_text(error: BaseException | None) -> tuple[str, str]:
    if error is None:
        return "done", "finished-ok"
    if isinstance(error, RequestCancelled):
        return f"cancelled: {error.reason}", "finished-cancelled"
    return f"failed: {error}", "finished-error"


class InFlightRow(Vertical, can_focus=True):
    """One request: what, progress, time left; focus it and press c (or the button) to cancel."""

    def __init__(self, pending: PendingRequest) -> None:
        super().__init__(classes="inflight-row")
        self.pending = pending
        self.finished_at: float | None = None
        self.cancel_requested = False
        self.leaving = False  # removal scheduled
        self.round = 0  # MRTR: the round of input the server asked for (0: none)
        self._shown_round = 0
        self.current = pending  # MRTR: the newest request of this logical call (a retry with a new id)
        self.call_error: BaseException | None = None
        self.call_ended = False  # the screen said the logical call ended (MRTR: an error between rounds)
        self.task_info: dict[str, Any] | None = None  # the task this call became, as last seen
        self.polls: TaskPolls | None = None  # set by the panel
        self.started = time.perf_counter() - pending.elapsed

    def compose(self) -> ComposeResult:
        with Horizontal(classes="inflight-top"):
            yield Static(self._title(), classes="inflight-title")
            yield Button("Cancel", classes="inflight-cancel", compact=True, variant="error")
        yield ProgressBar(total=None, show_eta=False, classes="inflight-progress")
        yield Static("", classes="inflight-message")
        yield Static("", classes="inflight-timing")

    def on_mount(self) -> None:
        self.update_view()

    def _title(self) -> Text:
        text = Text(f"#{self.pending.id} {describe(self.pending)}", style="bold")
        if self.round:
            text.append(f"  · input round {self.round}", style="not bold")
        return text

    def set_round(self, number: int) -> None:
        """The server asked for input (MRTR): the same logical call goes on in round ``number``."""
        self.round = max(self.round, number)
        self.update_view()

    @property
    def task_id(self) -> str | None:
        task = self.task_info or task_in(self.current.result if self.current.done else None)
        task_id = task.get("taskId") if task else None
        return task_id if isinstance(task_id, str) else None

    @property
    def following_task(self) -> bool:
        """The call became a task and has not ended yet."""
        return not self.call_ended and self.task_id is not None and self.current.error is None

    @property
    def active(self) -> bool:
        """Something is left to wait for (and to cancel)."""
        return self.following_task or not self.follow_rounds().done

    def task_updated(self, task: dict[str, Any], source: str) -> None:
        """A TaskUpdated event for this call's task."""
        self.task_info = task
        self.update_view()

    def end_call(self, error: BaseException | None = None) -> None:
        """The logical call ended (for an MRTR call, whose last request may have ended long before)."""
        if self.task_id is not None and not self.call_ended or waiting_for_input(self.current):
            self.call_ended = True
            self.call_error = error
            self.update_view()
        elif error is not None and self.current.done and self.current.error is None and not self.call_ended:
            # answered, yet the call failed (a malformed task, a result that could not be taken): say so
            self.call_ended = True
            self.call_error = error
            if self.finished_at is not None:
                text, css = ended_text(error)
                self.remove_class("finished-ok")
                self.add_class(css)
                timing = self.query_one_optional(".inflight-timing", Static)
                if timing is not None:
                    timing.update(Text(text))

    def follow_rounds(self) -> PendingRequest:
        """The request of this call in flight now: the first, or the newest MRTR retry."""
        current = self.current
        if current.done and waiting_for_input(current):
            first = self.pending.entry.seq if self.pending.entry is not None else None
            for candidate in reversed(self.pending.connection.pending):
                meta = candidate.entry.meta if candidate.entry is not None else None
                info = meta.get("mrtr") if isinstance(meta, dict) else None
                if isinstance(info, dict) and info.get("first") == first and candidate is not current:
                    self.current = current = candidate
                    break
        return current

    def update_view(self) -> None:
        pending = self.follow_rounds()
        if self.round != self._shown_round:
            title = self.query_one_optional(".inflight-title", Static)
            if title is not None:
                self._shown_round = self.round
                title.update(self._title())
        bar = self.query_one_optional(ProgressBar)
        message = self.query_one_optional(".inflight-message", Static)
        timing = self.query_one_optional(".inflight-timing", Static)
        button = self.query_one_optional(Button)
        if bar is None or message is None or timing is None or button is None:
            return  # being composed or removed
        progress = pending.progress
        if progress is not None:
            if progress.total:
                bar.update(total=progress.total, progress=min(progress.progress, progress.total))
            else:
                bar.update(total=None)
            text = f"progress {progress.progress:g}" + (f"/{progress.total:g}" if progress.total else "")
            if progress.message:
                text += f" · {progress.message}"
            message.update(Text(text))
        if self.following_task:
            self._show_task(message, timing, button)
        elif pending.done and waiting_for_input(pending) and not self.call_ended:
            message.update(Text(f"the server needs input (round {max(self.round, 1)}); answer it to go on"))
            timing.update(Text(f"{self.pending.elapsed:5.1f} s since the first request"))
        elif pending.done:
            if self.finished_at is None:
                self.finished_at = time.monotonic()
                text, css = outcome_text(pending) if not self.call_ended else ended_text(self.call_error)
                if self.task_id is not None:
                    status = (self.task_info or {}).get("status")
                    text = f"task {status or 'ended'} · {text}"
                    message.update(task_line(self.task_info or {"taskId": self.task_id}, self.poll_count()))
                self.add_class(css)
                timing.update(Text(text))
                button.display = False  # nothing left to cancel
                if pending.error is None:
                    # Finished: a full bar, not an indeterminate "--%" one.
                    total = progress.total if progress is not None and progress.total else 1
                    bar.update(total=total, progress=total)
        else:
            timing.update(Text(timing_text(pending)))

    def poll_count(self) -> int:
        task_id = self.task_id
        return self.polls.counts.get(task_id, 0) if self.polls is not None and task_id else 0

    def _show_task(self, message: Static, timing: Static, button: Button) -> None:
        task = self.task_info or task_in(self.current.result) or {}
        line = task_line(task, self.poll_count())
        progress = self.pending.progress  # the call's progress token stays valid while its task runs
        if progress is not None:
            line.append(f" · progress {progress.progress:g}" + (f"/{progress.total:g}" if progress.total else ""))
        message.update(line)
        modern = "pollIntervalMs" in task or "ttlMs" in task
        parts = [f"{time.perf_counter() - self.started:5.1f} s"]
        interval = seconds_text(task.get("pollIntervalMs" if modern else "pollInterval"), 1000)
        if interval:
            parts.append(f"polls every {interval}")
        ttl = seconds_text(task.get("ttlMs" if modern else "ttl"), 1000)
        if ttl:
            parts.append(f"ttl {ttl}")
        if self.cancel_requested:
            parts.append("cancelling (tasks/cancel)…")
        timing.update(Text(" · ".join(parts)))
        self.set_class(task.get("status") == "input_required", "input-required")
        button.display = not self.cancel_requested

    async def cancel(self) -> None:
        if self.following_task:
            if not self.cancel_requested:
                self.cancel_requested = True
                self.update_view()
                await self.pending.cancel("cancelled by the user")  # the follow sends tasks/cancel (cancel_hook)
            return
        current = self.follow_rounds()
        if not current.done and not self.cancel_requested:
            self.cancel_requested = True
            await current.cancel("cancelled by the user")
            self.update_view()

    @on(Button.Pressed, ".inflight-cancel")
    async def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        await self.cancel()


class InFlightPanel(VerticalScroll):
    """Every request still waiting for an answer; ``track(pending)`` adds one."""

    BINDINGS = [
        Binding(
            "c",
            "cancel_request",
            "Cancel request",
            id="cancel-request",
            tooltip="Cancel the selected request (notifications/cancelled; a call running as a task: tasks/cancel)",
        )
    ]
    DEFAULT_CSS = """
    InFlightPanel { height: auto; max-height: 14; }
    InFlightPanel #inflight-empty { color: $text-muted; padding: 0 1; }
    InFlightPanel .inflight-row { height: auto; padding: 0 1; border-left: wide $primary; margin-bottom: 1; }
    InFlightPanel .inflight-row:focus { background: $boost; border-left: wide $accent; }
    InFlightPanel .inflight-top { height: auto; }
    InFlightPanel .inflight-title { width: 1fr; }
    InFlightPanel .inflight-message, InFlightPanel .inflight-timing { color: $text-muted; }
    InFlightPanel .finished-ok { border-left: wide $success; }
    InFlightPanel .finished-cancelled { border-left: wide $warning; }
    InFlightPanel .finished-error { border-left: wide $error; }
    InFlightPanel .input-required { border-left: wide $warning; background: $warning 15%; }
    """

    def __init__(
        self, *, linger: float = LINGER, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.linger = linger
        self._empty = Static("No requests in flight.", id="inflight-empty")
        self._timer: ShownTimer | None = None
        self.task_polls = TaskPolls()
        self._stilled: list[tuple[Widget, float]] = []  # bars whose animation waits for the screen to be on top

    def compose(self) -> ComposeResult:
        yield self._empty

    def on_mount(self) -> None:
        self._timer = ShownTimer(self, 0.1, self._tick, "inflight-rows", covered=self._still_bars)

    def on_hide(self) -> None:
        if self._timer is not None:
            self._timer.hidden()

    def on_show(self) -> None:
        if self._timer is not None:
            self._timer.shown()

    @property
    def rows(self) -> list[InFlightRow]:
        return [row for row in self.query(InFlightRow) if not row.leaving]

    def track(self, pending: PendingRequest) -> InFlightRow:
        row = InFlightRow(pending)
        row.polls = self.task_polls
        if pending.method == "tools/call":
            self.task_polls.watch(pending.connection.store)  # the call may become a task
        self._empty.display = False
        if self.is_attached:
            self.mount(row)
        else:
            self.call_later(self.mount, row)  # tracked before mount
        return row

    def _still_bars(self) -> None:
        """Another screen is on top (an answering modal, while the call waits for that answer):
        stop the bars' pulse. Behind a modal each of its 15 frames a second redrew the whole dimmed
        screen (~0.1 s of CPU at 120x40): a core kept busy for as long as the modal was up."""
        for bar in self.query(".inflight-progress > #bar"):
            if bar.auto_refresh is not None:
                self._stilled.append((bar, bar.auto_refresh))
                bar.auto_refresh = None

    def _tick(self) -> None:
        if self._stilled:  # on top again: the bars pulse again
            for bar, interval in self._stilled:
                if bar.is_mounted:
                    bar.auto_refresh = interval
            self._stilled.clear()
        now = time.monotonic()
        for row in self.rows:
            if not row.is_mounted:
                continue
            row.update_view()
            if row.finished_at is not None and now - row.finished_at >= self.linger:
                row.leaving = True
                row.remove()
        if not any(r.finished_at is None or now - r.finished_at < self.linger for r in self.rows):
            self._empty.display = True

    def row_for(self, first_seq: int | None) -> InFlightRow | None:
        """The row of the logical call whose first request is traffic entry ``first_seq``."""
        for row in self.rows:
            entry = row.pending.entry
            if entry is not None and entry.seq == first_seq:
                return row
        return None

    def task_updated(self, task: dict[str, Any], first_seq: int | None, source: str) -> InFlightRow | None:
        """Route a TaskUpdated to the row of the call that made the task (by its first request,
        else by the task id: a status notification can arrive before the call's answer is read)."""
        row = self.row_for(first_seq) if first_seq is not None else None
        if row is None:
            task_id = task.get("taskId")
            row = next((r for r in self.rows if task_id is not None and r.task_id == task_id), None)
        if row is not None and not row.call_ended:
            row.task_updated(task, source)
        return row

    def selected_row(self) -> InFlightRow | None:
        focused = self.app.focused
        while focused is not None and focused is not self:
            if isinstance(focused, InFlightRow):
                return focused
            focused = focused.parent  # type: ignore[assignment]  # walking up from a widget to its ancestors
        waiting = [row for row in self.rows if row.active]
        return waiting[-1] if waiting else None

    async def action_cancel_request(self) -> None:
        row = self.selected_row()
        if row is None:
            self.notify("No request to cancel.", severity="warning")
            return
        task = row.following_task
        await row.cancel()
        if task:
            self.notify(
                f"Cancelling task {short_id(row.task_id or '?')} of {describe(row.pending)} (tasks/cancel sent)",
                markup=False,
            )
        else:
            self.notify(f"Cancelled {describe(row.pending)} (notifications/cancelled sent)", markup=False)
