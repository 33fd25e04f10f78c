"""The main screen's tool calls: sending what the composer asks, the calls in flight, and what each
one's end shows (the result panel, the in-flight row, the status bar).

A call runs in a worker on the screen that only posts messages (``CallStarted``, ``CallFinished``,
``CallFailed``); the screen's handlers pass them here. The result panel follows the newest call
(``shown_call``): an earlier call that ends meanwhile is said in a notification. A -32042 answer
(URL elicitation required) asks for the URLs and calls again once they are complete.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from textual.worker import Worker

from ....core.base.errors import InspectorError, ToolExcluded, TransportFailure
from ....core.protocol.rpc import PendingRequest
from ....core.session.url_elicitation import UrlElicitationRequired
from ....core.traffic.store import TrafficStore
from ...messages import CallFailed, CallFinished, CallStarted, InputRequested
from ...text.http_text import reply_status
from ...widgets.inflight import InFlightPanel
from ...widgets.result.view import ResultPanel
from ...widgets.status_bar import StatusBar
from ...widgets.tool_list import ToolList
from .host import ScreenHost

if TYPE_CHECKING:
    from ....core.session.mcp_session import McpSession
    from ...server.switching import SwitchingConnection


class CallsHost(ScreenHost, Protocol):
    """What the calls need of the main screen."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def connection(self) -> SwitchingConnection: ...
    @property
    def timeout(self) -> float: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def status_bar(self) -> StatusBar: ...
    @property
    def tool_list(self) -> ToolList: ...
    @property
    def inflight(self) -> InFlightPanel: ...
    @property
    def result_panel(self) -> ResultPanel: ...


class Calls:
    """The tool calls of the main screen (``main.calls``)."""

    def __init__(self, host: CallsHost) -> None:
        self.host = host
        self.in_flight: set[PendingRequest] = set()
        self.shown_call: PendingRequest | None = None  # the call the result panel shows

    def send(self, tool_name: str, arguments: dict[str, Any], as_task: bool | None) -> bool:
        """The composer's Send: the call, unless the tool is excluded or there is no live session."""
        host = self.host
        excluded = host.tool_list.excluded.get(tool_name)
        if excluded is not None:
            host.notify(f"{tool_name} is excluded: {excluded}", title="Not sent", severity="error", markup=False)
            host.result_panel.show_error(ToolExcluded(tool_name, excluded))
            return False
        session = host.connection.live
        if session is None:
            reason = (
                "this is a read-only recording" if host.read_only else f"the server is {host.status_bar.status.state}"
            )
            host.notify(f"Cannot send: {reason}.", severity="error")
            return False
        if as_task and session.era == "modern":
            host.notify(
                "2026-07-28: the server decides whether a call runs as a task (the client only declares the "
                "tasks extension)",
                severity="information",
                markup=False,
            )
        elif as_task and session.task_support(tool_name) == "forbidden":
            host.notify(
                f"{tool_name}: the server does not declare tasks for tools/call, so it is called "
                "without a task (a client MUST NOT ask for one)",
                severity="warning",
                markup=False,
            )
        self.call_tool(session, tool_name, arguments, as_task)
        return True

    def call_tool(
        self, session: McpSession, name: str, arguments: dict[str, Any], as_task: bool | None = None
    ) -> Worker[None]:
        return self.host.run_worker(self._call(session, name, arguments, as_task), group="calls", exit_on_error=False)

    async def _call(self, session: McpSession, name: str, arguments: dict[str, Any], as_task: bool | None) -> None:
        post = self.host.post_message
        timeout = self.host.timeout
        try:
            # a task is followed until it ends, however long: only the ordinary call is bounded by timeout * 10
            task = as_task or session.task_support(name) == "required"
            pending = await session.begin_tool_call(
                name,
                arguments,
                as_task=as_task,
                timeout=timeout,
                reset_on_progress=True,
                max_total=None if timeout is None or task else timeout * 10,
            )
        except InspectorError as exc:
            post(CallFailed(None, exc, None))
            return
        post(CallStarted(pending))
        try:
            outcome = await session.finish_tool_call(pending)
        except InspectorError as exc:
            # since the call began (a task's tools/call itself answered long before it ended)
            post(CallFailed(pending, exc, (time.perf_counter() - pending.started) * 1000))
            return
        post(CallFinished(pending, outcome))

    # -- the worker's messages (the screen's handlers pass them on) -------------
    def started(self, message: CallStarted) -> None:
        pending = message.pending
        self.in_flight.add(pending)
        self.shown_call = pending
        self.host.inflight.track(pending)
        self.host.result_panel.show_pending(pending)
        self._update_in_flight()

    def _finish(self, pending: PendingRequest | None) -> bool:
        """Forget a finished call; True when the result panel shows it."""
        if pending is not None:
            self.in_flight.discard(pending)
        self._update_in_flight()
        return pending is None or pending is self.shown_call or self.shown_call is None

    def session_notice(self, event: Any) -> None:
        """A task's news goes to the in-flight row of the call that made it, and to the result
        panel while it shows that call."""
        from ....core.session.events import ElicitationCompleted, TaskUpdated
        from ..answer.url_required import UrlRequiredScreen

        if isinstance(event, ElicitationCompleted):  # the URL-required screen marks it done
            for screen in self.host.app.screen_stack:
                if isinstance(screen, UrlRequiredScreen):
                    screen.mark_complete(event.elicitation_id)
        if isinstance(event, TaskUpdated):
            row = self.host.inflight.task_updated(event.task, event.first_seq, event.source)
            # the result panel, while it waits for that call, says what its task is doing
            if row is not None and not row.call_ended and row.pending is self.shown_call:
                self.host.result_panel.show_task(row.pending, row.task_info or event.task, row.poll_count())

    def input_requested(self, message: InputRequested) -> None:
        row = self.host.inflight.row_for(message.first_seq)
        if row is not None:
            row.set_round(message.round)

    def _end_row(self, pending: PendingRequest | None, error: BaseException | None) -> None:
        inflight = self.host.inflight
        row = inflight.row_for(pending.entry.seq) if pending is not None and pending.entry is not None else None
        if row is not None:
            row.end_call(error)

    def finished(self, message: CallFinished) -> None:
        self._end_row(message.pending, None)
        self._note_delivery(None)
        if self._finish(message.pending):
            self.host.result_panel.show_outcome(message.outcome)
        else:
            outcome = message.outcome
            self.host.notify(
                f"{outcome.name} finished{' with isError' if outcome.is_error else ''} in {outcome.elapsed_ms:.0f} ms "
                "(an earlier call; its response is in the traffic log)",
                markup=False,
                timeout=4,
            )

    def failed(self, message: CallFailed) -> None:
        self._end_row(message.pending, message.error)
        self._note_delivery(message.error)
        if self._finish(message.pending):
            self.host.result_panel.show_error(
                message.error, message.elapsed_ms, http_status=reply_status(message.pending)
            )
        else:
            self.host.notify(str(message.error), title="An earlier call failed", severity="warning", markup=False)
        if isinstance(message.error, UrlElicitationRequired):
            self._ask_urls(message.error, message.pending)

    def _ask_urls(self, error: UrlElicitationRequired, pending: PendingRequest | None) -> None:
        """-32042: the URLs to complete (opened only on request); the call again once all are complete."""
        from ..answer.url_required import UrlRequiredScreen

        host = self.host
        session = host.connection.live
        after = pending.reply.seq if pending is not None and pending.reply is not None else host.store.last_seq
        completed = dict(session.completed_elicitations) if session is not None else {}

        def answered(answer: Any) -> None:
            if answer is None or answer.action != "accept":
                return
            if host.connection.live is not session or session is None:
                host.notify("Not retried: the server that asked is no longer connected.", severity="warning")
                return
            self.call_tool(session, error.name, error.arguments)

        host.app.push_screen(UrlRequiredScreen(error, after, completed), callback=answered)

    def _note_delivery(self, error: BaseException | None) -> None:
        """Over HTTP the connection is no process that dies: a request the transport could not deliver
        (connection refused...) says so in the status bar until a call goes through again."""
        status = self.host.connection.status
        if status.state != "connected":
            return
        detail = f"last request not delivered: {error.reason}" if isinstance(error, TransportFailure) else ""
        if detail != status.detail:
            status.detail = detail
            self._update_in_flight()

    def _update_in_flight(self) -> None:
        status = self.host.connection.status
        status.in_flight = len(self.in_flight)
        self.host.status_bar.status = status
