"""Each server has its own state on the main screen; switching servers keeps the working one.

Connecting goes through ``connect``: a reconnect or a restart replaces the connection of the
same server; a switch to another server (F7) first connects the new one while the old one keeps
serving (tui/server/switching.py), and only when it answered its handshake does the screen change
server (``ServerSwitched``): the previous server's state (its last tool list, the tool in the
composer, the tool filter) is put aside and the new one's taken out, so the composer never holds a tool of
another server, and a tool list is only ever compared with the same server's. A switch that
fails (``SwitchFailed``) says why and leaves everything as it was.

The first tool list of a connection is the baseline: nothing is marked, unless this server was
connected before, when it is compared with what that connection listed ("since the last
connection").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from textual.notifications import SeverityLevel

from ....core.config.servers import ServerSpec
from ....core.session.tooldiff import ListDiff, diff_items
from ...messages import ServerReady, ToolsFetched
from ...server.switching import ServerSwitched, SwitchFailed, switching_note
from ...widgets.composer import ComposerPanel
from ...widgets.result.view import ResultPanel
from ...widgets.status_bar import StatusBar
from ...widgets.tool_list import ToolList
from ..dialogs.connect import display_name
from ..dialogs.tool_diff import verdict
from .host import ScreenHost
from .watch_state import WatchState

if TYPE_CHECKING:
    from ...server.switching import SwitchingConnection


@dataclass(slots=True)
class ServerState:
    """What the main screen keeps of a server while another one is connected."""

    tools: list[dict[str, Any]] | None = None  # its last tool list: a reconnect is compared with it
    tool_name: str | None = None  # the tool in the composer (its arguments are in the drafts)
    tool_filter: str = ""  # the tool list's filter text


class ServersHost(ScreenHost, Protocol):
    """What connecting and the tool list's baseline need of the main screen; the server on screen
    (``spec``, ``log_spec``) and the tool in the composer (``current_tool``) are the screen's, set here."""

    spec: ServerSpec | None
    log_spec: ServerSpec | None
    current_tool: dict[str, Any] | None

    @property
    def read_only(self) -> bool: ...
    @property
    def connection(self) -> SwitchingConnection: ...
    @property
    def status_bar(self) -> StatusBar: ...
    @property
    def tool_list(self) -> ToolList: ...
    @property
    def composer(self) -> ComposerPanel: ...
    @property
    def result_panel(self) -> ResultPanel: ...

    def set_log_spec(self, spec: ServerSpec | None) -> None: ...


class Servers:
    """Connect, switch and reconnect, and the tool list's baseline: the main screen's ``servers``."""

    def __init__(self, host: ServersHost, watch: WatchState) -> None:
        self.host = host
        self.watch = watch  # follows the server on screen (watch_state.py)
        self.saved: dict[str, ServerState] = {}  # the servers put aside, by key
        self.previous_tools: list[dict[str, Any]] | None = None
        self._restore_tool: str | None = None
        self._first_tools = True

    # -- connecting --------------------------------------------------------
    def connect(self, spec: ServerSpec, reason: str = "connect", force: bool = False) -> None:
        host = self.host
        if host.read_only:
            host.notify(
                "This is a read-only recording; start mcp-inspector with a server to connect.", severity="warning"
            )
            return
        connection = host.connection
        bar = host.status_bar
        if connection.can_switch(spec):
            # another server while this one works: it keeps working until the new one answers
            host.notify(switching_note(spec, host.spec), title="Switching server", markup=False, timeout=4)
            bar.switching = display_name(spec)
        else:
            bar.switching = ""  # a reconnect or restart replaces a switch still waiting
            if host.spec is None or spec.key != host.spec.key:
                self._enter_server(spec)
                bar.server_name = display_name(spec)
            else:  # a reconnect or restart of the same server keeps the name it gave itself
                host.spec = host.log_spec = spec
                bar.server_name = bar.server_name or display_name(spec)
            if force and connection.session is not None:
                transport = connection.session.transport
                for name, value in (("close_grace", 0.2), ("term_grace", 1.0)):
                    if hasattr(transport, name):
                        setattr(transport, name, value)
        host.run_worker(connection.run(spec, reason), group="connection", exit_on_error=False)

    def _enter_server(self, spec: ServerSpec) -> None:
        """The screen changes server: put the current one's state aside, take out the new one's."""
        host = self.host
        old = host.spec
        if old is not None and old.key != spec.key:
            self.saved[old.key] = ServerState(
                list(self.previous_tools) if self.previous_tools is not None else None,
                (host.current_tool or {}).get("name"),
                host.tool_list.filter_input.value,
            )
        state = self.saved.pop(spec.key, None) or ServerState()
        host.spec = spec
        host.composer.set_server(spec.key)
        host.set_log_spec(spec)
        self.previous_tools = state.tools
        self._restore_tool = state.tool_name
        self._first_tools = True
        host.current_tool = None
        host.composer.set_tool(None)
        host.tool_list.reset()
        # a filter typed for another server's tools would hide these
        host.tool_list.filter_input.value = state.tool_filter
        host.result_panel.clear()
        host.status_bar.server_name = display_name(spec)
        self.watch.follow(spec)

    # -- the connection's messages (the screen's handlers pass them on) ----------
    def switched(self, message: ServerSwitched) -> None:
        self.host.status_bar.switching = ""
        self._enter_server(message.spec)
        previous = f" ({message.previous.name} was closed)" if message.previous is not None else ""
        self.host.notify(
            f"Connected to {display_name(message.spec)}{previous}.", title="Server switched", markup=False, timeout=4
        )

    def switch_failed(self, message: SwitchFailed) -> None:
        host = self.host
        host.status_bar.switching = ""
        kept = f"\nStill connected to {host.status_bar.server_name or message.current.name}." if message.current else ""
        host.notify(
            f"{message.reason}{kept}",
            title=f"Could not switch to {message.spec.name}",
            severity="error",
            markup=False,
            timeout=10,
        )
        host.connection.store.note(
            f"switch to {message.spec.name} failed: {message.reason.splitlines()[0]}; "
            "the previous server stays connected"
        )

    def ready(self, message: ServerReady) -> None:
        spec = self.host.spec
        if spec is not None:
            self.host.status_bar.server_name = display_name(spec, message.facts.server_info)

    # -- the tool list -------------------------------------------------------
    def tools_fetched(self, message: ToolsFetched) -> None:
        event = message.event
        diff: ListDiff | None = event.diff
        title = "Tool list changed"
        announce = True
        if event.cause == "initial":
            # the baseline; compared only with what an earlier connection to this server listed
            baseline = diff_items(self.previous_tools, event.items) if self.previous_tools is not None else ListDiff()
            diff, announce = baseline, not baseline.empty
            title = self.watch.tools_title() or "Tool list changed since the last connection"
        self.show_tools(event.items, diff, announce=announce, cause=event.cause, title=title)
        if event.cause == "initial":
            self.watch.tools_shown(diff)  # a restart after an edit is done (screens/main/watch_state.py)

    def show_tools(
        self,
        tools: list[dict[str, Any]],
        diff: ListDiff | None,
        announce: bool,
        cause: str,
        title: str = "Tool list changed",
    ) -> None:
        host = self.host
        tool_list = host.tool_list
        self.previous_tools = list(tools)
        tool_list.set_tools(tools, diff)
        if announce and diff is not None:
            if diff.empty:
                if cause == "refresh":
                    host.notify("The tool list is unchanged.", title="Tools refreshed", timeout=3)
            else:
                hint = "  (ctrl+g shows the diff)" if diff.changed else ""
                words, breaks = verdict(diff)  # the words of mcp-inspector diff
                severity: SeverityLevel = "warning" if breaks else "information"
                host.notify(f"{diff.summary()}\n{words}{hint}", title=title, severity=severity, markup=False, timeout=6)
        if diff is not None and diff.duplicates:
            host.notify(
                "The server listed these tool names more than once: " + ", ".join(diff.duplicates),
                severity="warning",
                markup=False,
            )
        # a tool picked whose ToolSelected is not handled yet counts as the current one: a list
        # arriving meanwhile (everything's tools/list_changed just after initialized) must not
        # pick the first tool again behind it
        name: Any = (host.current_tool or {}).get("name") or self._restore_tool or tool_list.selected_name
        self._restore_tool = None
        fresh = next((t for t in tools if t.get("name") == name), None) if name else None
        if fresh is not None:
            if fresh != host.current_tool:
                host.current_tool = fresh
                host.composer.set_tool(fresh)
            tool_list.selected_name = name
            if self._first_tools:
                tool_list.select_name(name)
        elif host.current_tool is None and tools:
            tool_list.select_name(str(tools[0].get("name")))
        self._first_tools = False
