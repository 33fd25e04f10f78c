"""The main screen: the views, the status bar, and the wiring between the
connection and the widgets.

The connection worker and the call workers only post messages; the handlers
here own the state (current tool, calls in flight, what the server declared)
and update the widgets, or hand the message to the part it concerns: the views
(view_switcher.py), the checks (checks_state.py), watch and restart (watch_state.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Input, TextArea
from textual.worker import Worker

from ....core.base.errors import InspectorError, ToolExcluded
from ....core.base.framing import MAX_LINE_BYTES
from ....core.config.servers import ServerSpec
from ....core.proxy.viewer import LiveFeed
from ....core.traffic.store import TrafficStore
from ...messages import (
    CallFailed,
    CallFinished,
    CallStarted,
    ConnectionChanged,
    ConnectionProblem,
    InputRequested,
    ListFetched,
    OpenResource,
    ServerFacts,
    ServerReady,
    SessionNotice,
    ToolsFetched,
)
from ...server.connection import session_facts
from ...server.replay import RecordedArguments, Replay, recorded_outcome
from ...server.switching import ServerSwitched, SwitchFailed, SwitchingConnection
from ...text.traffic_text import clock_time
from ...widgets.composer import ComposerPanel
from ...widgets.inflight import InFlightPanel
from ...widgets.result.view import ResultPanel
from ...widgets.status_bar import StatusBar
from ...widgets.tool_list import EXCLUDED_KEY, ToolList
from ...widgets.view_footer import ViewFooter
from ...widgets.views.checks_view import ChecksView
from ...widgets.views.traffic.log import TrafficLog
from .attach_state import AttachFollower
from .calls import Calls
from .checks_state import ChecksState
from .nav_bar import NavBar
from .recording import Recording
from .server_state import Servers
from .view_switcher import ViewSwitcher
from .watch_state import FilesChanged, WatchFailed, WatchState

if TYPE_CHECKING:
    from ....core.session.mcp_session import McpSession


class MainScreen(Screen):
    """Tools, composer + result, and live traffic together; other views one key away."""

    # The layout adapts (app.tcss): below 110 columns the composer sits over the result instead
    # of beside it; below 32 rows the live traffic strip gives its rows to them (5: the Traffic view).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    ALLOW_IN_MAXIMIZED_VIEW = "ViewFooter"  # ctrl+z (tui/maximize.py): the panel and the footer's keys
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    # Same id as the composer's own binding, so one keymap entry remaps both;
    # this one makes ctrl+s send from anywhere on the main view.
    BINDINGS = [
        Binding("ctrl+s", "send_request", "Send", id="send-request", show=False),
        # Same id as the in-flight panel's "c": cancels the selected (or newest) request from anywhere,
        # a text field included (priority) while a call is in flight; with none, ctrl+k is the field's.
        Binding("ctrl+k", "cancel_request", "Cancel request", id="cancel-request", show=False, priority=True),
        # a composer field keeps the digits (1-9 switch views elsewhere): escape leaves it for the tool list
        Binding("escape", "leave_field", "Back to the tools", id="leave-field", show=False),
    ]

    def __init__(
        self,
        store: TrafficStore,
        spec: ServerSpec | None,
        *,
        open_file: str | None = None,
        timeout: float = 60.0,
        snapshot_mode: bool = False,
        time_format: Callable[[float], str] | None = None,
        cwd: str | None = None,
        max_frame_bytes: int = MAX_LINE_BYTES,
        watch: list[str] | None = None,
        rerun: bool = False,
        live_feed: LiveFeed | None = None,
    ) -> None:
        """``watch``: the paths to watch for ``spec`` ("" infers them; screens/main/watch_state.py).
        ``live_feed``: a running proxy's session to show, read-only (attach_state.py)."""
        super().__init__()
        self.store = store
        self.spec = spec
        self.open_file = open_file
        self.live_feed = live_feed
        self.read_only = open_file is not None or live_feed is not None
        self.timeout = timeout
        self.snapshot_mode = snapshot_mode
        self.time_format = time_format or clock_time
        self.cwd = cwd or os.getcwd()
        # the current server's connection, and the one a switch waits for (tui/server/switching.py)
        self.connection = SwitchingConnection(self.post_message, store, timeout, self._handlers(), max_frame_bytes)
        self.checks_state = ChecksState(self)  # live checks on every session (checks_state.py)
        self.checks = self.checks_state.live
        self.facts: ServerFacts | None = None
        self.current_tool: dict[str, Any] | None = None
        self.file_watch = WatchState(self, watch, rerun)  # watch and restart (watch_state.py)
        self.servers = Servers(self, self.file_watch)  # connect, switch, the tool list's baseline (server_state.py)
        # a running proxy's session, followed (attach_state.py)
        self.attach = (
            AttachFollower(self, live_feed, self.checks_state, self.servers) if live_feed is not None else None
        )
        self.calls = Calls(self)  # the tool calls and those in flight (calls.py)
        self.log_spec = spec  # for "copy as CLI command" in the traffic logs (from the header for a recording)
        self.views = ViewSwitcher(self)  # the views, made when first shown (view_switcher.py)
        # a recording fills the composer with each tool's recorded arguments (and saves no drafts)
        self.recorded_arguments = RecordedArguments() if self.read_only else None
        self.recording = (  # --open FILE, loaded when mounted (recording.py)
            Recording(self, open_file, self.recorded_arguments, self.checks_state, self.servers)
            if open_file is not None
            else None
        )

    # -- layout --------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield NavBar(id="nav")
        yield StatusBar(mask_volatile=self.snapshot_mode, id="status")
        with ContentSwitcher(initial="view-main", id="views"), Horizontal(id="view-main"):
            yield ToolList(id="tools")
            with Vertical(id="centre"):
                with Horizontal(id="work"):
                    yield ComposerPanel(drafts=self.recorded_arguments, id="composer")
                    with Vertical(id="result-column"):
                        yield ResultPanel(id="result")
                        yield InFlightPanel(id="inflight")
                yield TrafficLog(
                    self.store,
                    server_spec=self.log_spec,
                    time_format=self.time_format,
                    marks=self.checks,
                    id="live-traffic",
                )
        yield ViewFooter()

    @property
    def tool_list(self) -> ToolList:
        return self.query_one("#tools", ToolList)

    @property
    def composer(self) -> ComposerPanel:
        return self.query_one("#composer", ComposerPanel)

    @property
    def result_panel(self) -> ResultPanel:
        return self.query_one("#result", ResultPanel)

    @property
    def inflight(self) -> InFlightPanel:
        return self.query_one("#inflight", InFlightPanel)

    @property
    def status_bar(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    @property
    def replay(self) -> Replay | None:
        """The recording shown, once loaded (each tool's recorded outcome)."""
        return self.recording.replay if self.recording is not None else None

    # -- the views (view_switcher.py) -------------------------------------
    @property
    def current_view(self) -> str:
        return self.views.current

    async def show_view(self, name: str) -> None:
        await self.views.show(name)

    def has_view(self, view_id: str) -> bool:
        return self.views.has(view_id)

    def on_list_fetched(self, message: ListFetched) -> None:
        self.views.list_fetched(message.event)

    def on_session_notice(self, message: SessionNotice) -> None:
        events = message.take_all()
        for event in events:
            self.calls.session_notice(event)  # the in-flight rows, the result panel
        self.views.session_events(events)

    async def on_open_resource(self, message: OpenResource) -> None:
        message.stop()
        await self.views.open_resource(message.uri, message.contents)

    def on_mount(self) -> None:
        # what a live session learns later (the subscriptions/listen acknowledgement) shows on the overview
        self.set_interval(1.0, self.refresh_overview_facts, name="overview-facts")
        self.checks_state.start()
        self.views.show_nav()
        self.tool_list.option_list.focus()
        if self.attach is not None:
            self.composer.disabled = True
            self.attach.start()
        elif self.recording is not None:
            self.composer.disabled = True
            self.recording.load()
        elif self.spec is not None:
            self.composer.set_server(self.spec.key)
            self.connect(self.spec)
            if self.file_watch.given:
                self.file_watch.start(announce=False)

    def on_resize(self, event: events.Resize) -> None:
        self.tool_list.fit_width(event.size.width)

    def on_unmount(self) -> None:
        self.file_watch.stop(quiet=True)
        if self.live_feed is not None:
            self.live_feed.close()

    # -- the Checks view (checks_state.py) -------------------------------
    async def on_checks_view_jump(self, message: ChecksView.Jump) -> None:
        message.stop()
        await self.checks_state.jump(message.finding)

    def on_checks_view_run_requested(self, message: ChecksView.RunRequested) -> None:
        message.stop()
        self.checks_state.run()

    # -- watch and restart (watch_state.py) -------------------------------
    def on_files_changed(self, message: FilesChanged) -> None:
        self.file_watch.files_changed(message)

    def on_watch_failed(self, message: WatchFailed) -> None:
        self.file_watch.watch_failed(message)

    def show_watch_text(self, text: str) -> None:
        bar = self.query_one_optional("#status", StatusBar)
        if bar is not None:  # not while the screen is being taken down
            bar.watching_text = text

    # -- connection (connect, switch, reconnect: server_state.py) -------
    def connect(self, spec: ServerSpec, reason: str = "connect", force: bool = False) -> None:
        self.servers.connect(spec, reason, force)

    def on_server_switched(self, message: ServerSwitched) -> None:
        self.servers.switched(message)

    def on_switch_failed(self, message: SwitchFailed) -> None:
        self.servers.switch_failed(message)

    def on_tools_fetched(self, message: ToolsFetched) -> None:
        self.servers.tools_fetched(message)

    def set_log_spec(self, spec: ServerSpec | None) -> None:
        """The server the traffic logs' "copy as CLI command" names."""
        self.log_spec = spec
        for log in self.query(TrafficLog):
            log.server_spec = spec

    def on_connection_changed(self, message: ConnectionChanged) -> None:
        status = message.status
        status.in_flight = len(self.calls.in_flight)
        self.status_bar.status = status
        if self.has_view("view-http"):
            self.query_one("#view-http").transport = status.transport
        if status.state != "connected":
            self.views.session_changed()
        if status.state in ("exited", "failed"):
            self.file_watch.start_failed()
            tail = "\n".join(status.stderr_tail[-3:])
            text = status.detail + (f"\n{tail}" if tail else "")
            self.notify(
                text or status.state,
                title=f"{status.server}: {status.state}",
                severity="error",
                markup=False,
                timeout=8,
            )

    def on_server_ready(self, message: ServerReady) -> None:
        self.apply_facts(message.facts)
        self.views.session_changed()
        self.file_watch.server_ready(message.facts.capabilities)
        self.servers.ready(message)  # the name the server gave itself

    def refresh_overview_facts(self) -> None:
        session = self.connection.live
        if session is None or self.current_view != "overview" or self.facts is None:
            return
        facts = session_facts(session)
        if facts != self.facts:
            self.apply_facts(facts)

    def apply_facts(self, facts: ServerFacts) -> None:
        self.facts = facts
        self.tool_list.set_excluded(facts.excluded_tools)
        self.views.overview_facts(facts)

    def on_connection_problem(self, message: ConnectionProblem) -> None:
        self.notify(message.text, severity=message.severity, markup=False)

    # -- tools ---------------------------------------------------------
    @on(ToolList.ToolSelected)
    def _tool_selected(self, event: ToolList.ToolSelected) -> None:
        tool = event.tool
        changed = tool is not self.current_tool
        self.current_tool = tool
        if changed:
            self.composer.set_tool(tool)
        if EXCLUDED_KEY in tool:
            self.result_panel.show_error(ToolExcluded(str(tool.get("name")), str(tool[EXCLUDED_KEY])))
            return
        if event.by_user and not self.read_only:
            self._focus_composer(tool)
        if self.read_only and self.replay is not None:
            outcome = recorded_outcome(self.replay, self.store, str(tool.get("name")))
            if outcome is None:
                self.result_panel.clear()
            elif isinstance(outcome, BaseException):
                self.result_panel.show_error(outcome, None)
            else:
                self.result_panel.show_outcome(outcome)

    @work(group="focus-composer", exclusive=True, exit_on_error=False)
    async def _focus_composer(self, tool: dict[str, Any]) -> None:
        """After enter on a tool: focus the first field once its form is built.

        No time bound: on a loaded machine a form can take seconds, and focusing what was there
        before it (the Send button) left the user below the form. If the user moved the focus
        meanwhile, it stays where they put it; another tool picked cancels this (exclusive).
        """
        composer = self.composer
        before = self.focused
        await composer.wait_loaded()
        if self.focused is not before:
            return
        # the form's first field (not the Form/JSON tabs above it); a tool without arguments: Send
        form = composer.schema_form
        fields = [w for w in form.query("*") if w.focusable] if form is not None else []
        target = fields[0] if fields else composer.query_one_optional("#send-button")
        if target is not None and target.focusable:
            # Focusing would center the input alone, computed while the new form may still be laid
            # out (a scroller 1 row high on a loaded machine left the label above the view): the
            # field, label included, is brought to the top once, after the refresh, instead.
            field = next((a for a in target.ancestors if a.has_class("field")), None)
            target.focus(scroll_visible=field is None)
            if field is not None:
                self.call_after_refresh(field.scroll_visible, animate=False, top=True)

    def action_leave_field(self) -> None:
        """Escape in the composer (the other views have their own escape): back to the tool list."""
        focused = self.focused
        if self.current_view == "main" and focused is not None and self.composer in focused.ancestors_with_self:
            self.tool_list.option_list.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_request":  # in a text field only while there is something to cancel (BINDINGS)
            if self._view_cancels_its_own():
                return False
            return self.inflight.selected_row() is not None or not isinstance(self.focused, (Input, TextArea))
        return True

    def _view_cancels_its_own(self) -> bool:
        """The focused view (Resources, Prompts) has its own request in flight for ctrl+k to cancel."""
        node = self.focused
        while node is not None and node is not self:
            for action in ("cancel_read", "cancel_get"):
                if hasattr(node, f"action_{action}") and node.check_action(action, ()):
                    return True
            node = node.parent
        return False

    async def action_cancel_request(self) -> None:
        await self.inflight.action_cancel_request()

    def action_send_request(self) -> None:
        if self.current_view != "main":
            return
        if self.read_only:
            self.notify("This is a read-only recording: requests cannot be sent.", severity="warning")
            return
        self.composer.action_send()

    def refresh_tools(self) -> None:
        session = self.connection.live
        if session is None:
            self.notify(
                "Not connected." if not self.read_only else "A recording cannot be refreshed.", severity="warning"
            )
            return
        self._refresh_tools(session)

    @work(group="refresh-tools", exclusive=True, exit_on_error=False)
    async def _refresh_tools(self, session) -> None:
        try:
            await session.list_all("tools", cause="refresh")
        except InspectorError as exc:
            self.post_message(ConnectionProblem(f"tools/list failed: {exc}", "error"))

    def show_tool_diff(self) -> None:
        from ..dialogs.tool_diff import ToolDiffScreen

        tools = self.tool_list
        highlighted = tools.highlighted_tool()
        change = tools.change_for((highlighted or {}).get("name")) or tools.change_for(
            (self.current_tool or {}).get("name")
        )
        if change is None and tools.changes:
            change = next(iter(tools.changes.values()))
        if change is None:
            self.notify(
                "No modified tool to compare (the diff appears after notifications/tools/list_changed).",
                severity="information",
            )
            return
        self.app.push_screen(ToolDiffScreen(change))

    def dismiss_tool_changes(self) -> None:
        self.tool_list.dismiss_changes()

    # -- calling (calls.py) ------------------------------------------------
    @on(ComposerPanel.SendRequested)
    def _send_requested(self, event: ComposerPanel.SendRequested) -> None:
        event.stop()
        as_task = getattr(event, "as_task", None)
        if self.calls.send(event.tool_name, event.arguments, as_task):
            self.file_watch.remember_call(event.tool_name, event.arguments, as_task)  # --rerun sends it again

    def call_tool(
        self, session: McpSession, name: str, arguments: dict[str, Any], as_task: bool | None = None
    ) -> Worker[None]:
        return self.calls.call_tool(session, name, arguments, as_task)

    def on_call_started(self, message: CallStarted) -> None:
        self.calls.started(message)

    def on_input_requested(self, message: InputRequested) -> None:
        self.calls.input_requested(message)

    def on_call_finished(self, message: CallFinished) -> None:
        self.calls.finished(message)

    def on_call_failed(self, message: CallFailed) -> None:
        self.calls.failed(message)

    # -- HTTP ------------------------------------------------------------
    def on_http_exchange_list_opened(self, message) -> None:
        self.open_exchange_detail(message.exchange_id)

    def open_exchange_detail(self, exchange_id: int) -> None:
        from ..traffic.http_detail import HttpExchangeScreen

        def chosen(seq: int | None) -> None:
            if seq is not None:
                self.run_worker(self.show_frame(seq), exit_on_error=False)

        self.app.push_screen(HttpExchangeScreen(self.store, exchange_id, time_format=self.time_format), callback=chosen)

    async def show_frame(self, seq: int) -> None:
        """The traffic view with its cursor on ``seq``."""
        await self.show_view("traffic")
        log = self.query_one("#view-traffic").log_view
        log.sync(force=True)
        if not log.move_cursor_to_seq(seq):
            self.notify(f"#{seq} is hidden by the traffic filter.", severity="warning")

    async def show_exchange(self, exchange_id: int, open_detail: bool = True) -> None:
        """The HTTP view with its cursor on an exchange (and its detail open)."""
        await self.show_view("http")
        view = self.query_one("#view-http")
        view.exchange_list.sync(force=True)
        if not view.select(exchange_id):
            self.notify(f"HTTP exchange #{exchange_id} is no longer in memory.", severity="warning")
            return
        if open_detail:
            self.open_exchange_detail(exchange_id)

    # -- server -> client requests ---------------------------------------
    def _handlers(self) -> dict[str, Any]:
        from ...server.roots import asking_spec, roots_answer
        from ..answer.server_request import client_handlers

        # roots/list (also an MRTR input request): the roots the user gave that server, never made up
        roots = roots_answer(lambda: self.app.roots, lambda: asking_spec(self.connection))
        return client_handlers(lambda: self.app, self.store, roots=roots, origin=self._server_asking)

    def _server_asking(self, spec: ServerSpec | None) -> tuple[str, bool]:
        """How to name the server a request comes from, and whether it is not the one on screen
        (during a switch the new server may ask before its handshake is over)."""
        from ..dialogs.connect import display_name

        current = self.connection.current
        if spec is None:
            spec = current.spec
        if spec is None:
            return self.status_bar.server_name or "the server", False
        info = None
        for each in (current, self.connection.candidate):
            if each is not None and each.spec is spec and each.session is not None:
                info = each.session.server_info
        return display_name(spec, info), current.spec is None or current.spec.key != spec.key

    # -- notifications view --------------------------------------------
    def on_notifications_view_set_level_requested(self, message) -> None:
        session = self.connection.live
        if session is None:
            self.notify("Not connected.", severity="warning")
            return
        self._set_level(session, message.level)

    @work(group="set-level", exclusive=True, exit_on_error=False)
    async def _set_level(self, session, level: str) -> None:
        from ...widgets.views.notifications.view import apply_log_level  # legacy logging/setLevel or modern _meta

        severity, text = await apply_log_level(session, level)
        self.post_message(ConnectionProblem(text, severity))
