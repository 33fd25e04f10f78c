"""Requests in flight: progress, elapsed time, the timeout countdown, and a cancel key.

Rows read their ``PendingRequest`` on a 10 Hz timer instead of reacting to each
progress notification, so a server that floods progress cannot flood the UI;
the timer pauses while the panel is not shown (another view is current).
The countdown comes from ``pending.remaining()``, which already moves when a
progress notification resets the timeout and stops at the hard maximum.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, ProgressBar, Static

from ...core.protocol.errors import RequestCancelled, RequestTimeout
from ...core.protocol.rpc import PendingRequest
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

    def end_call(self, error: BaseException | None = None) -> None:
        """The logical call ended (for an MRTR call, whose last request may have ended long before)."""
        if waiting_for_input(self.current):
            self.call_ended = True
            self.call_error = error
            self.update_view()

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
        if pending.done and waiting_for_input(pending) and not self.call_ended:
            message.update(Text(f"the server needs input (round {max(self.round, 1)}); answer it to go on"))
            timing.update(Text(f"{self.pending.elapsed:5.1f} s since the first request"))
        elif pending.done:
            if self.finished_at is None:
                self.finished_at = time.monotonic()
                text, css = outcome_text(pending) if not self.call_ended else ended_text(self.call_error)
                self.add_class(css)
                timing.update(Text(text))
                button.display = False  # nothing left to cancel
                if pending.error is None:
                    # Finished: a full bar, not an indeterminate "--%" one.
                    total = progress.total if progress is not None and progress.total else 1
                    bar.update(total=total, progress=total)
        else:
            timing.update(Text(timing_text(pending)))

    async def cancel(self) -> None:
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

    BINDINGS = [Binding("c", "cancel_request", "Cancel request", id="cancel-request", tooltip="Cancel the selected request (sends notifications/cancelled)")]
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
    """

    def __init__(self, *, linger: float = LINGER, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.linger = linger
        self._empty = Static("No requests in flight.", id="inflight-empty")
        self._timer: ShownTimer | None = None

    def compose(self) -> ComposeResult:
        yield self._empty

    def on_mount(self) -> None:
        self._timer = ShownTimer(self, 0.1, self._tick, "inflight-rows")

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
        self._empty.display = False
        if self.is_attached:
            self.mount(row)
        else:
            self.call_later(self.mount, row)  # tracked before mount
        return row

    def _tick(self) -> None:
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

    def selected_row(self) -> InFlightRow | None:
        focused = self.app.focused
        while focused is not None and focused is not self:
            if isinstance(focused, InFlightRow):
                return focused
            focused = focused.parent  # type: ignore[assignment]
        waiting = [row for row in self.rows if not row.follow_rounds().done]
        return waiting[-1] if waiting else None

    async def action_cancel_request(self) -> None:
        row = self.selected_row()
        if row is None:
            self.notify("No request to cancel.", severity="warning")
            return
        await row.cancel()
        self.notify(f"Cancelled {describe(row.pending)} (notifications/cancelled sent)", markup=False)
