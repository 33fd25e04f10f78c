"""The main screen's views: making each the first time it is shown, moving between them (the
focus each had is kept), and feeding the views that follow the session.

Views other than Main are mounted the first time they are shown, so their imports
(Markdown...) cost nothing before first paint. The session views (Resources, Prompts,
Tasks: ``widgets/views/session_view.SessionView``) read what they need from the live session
when they are made and whenever the connection changes, and receive the session events
that concern them (``ListFetched``, ``SessionNotice``) through the screen's handlers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual.css.query import QueryType
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from ....core.config.servers import ServerSpec
from ....core.session.events import ListChanged
from ....core.traffic.store import TrafficStore
from ...messages import ServerFacts
from ...server.live_checks import LiveChecks
from ...widgets.status_bar import StatusBar
from ...widgets.tool_list import ToolList
from ...widgets.view_footer import ViewFooter
from ...widgets.views.session_view import SessionView
from ...widgets.views.traffic.log import TrafficLog
from .host import ScreenHost
from .nav_bar import NavBar

if TYPE_CHECKING:
    from ...server.switching import SwitchingConnection

# the list kinds each session view follows
LIST_KINDS = {"resources": "resources", "resource_templates": "resources", "prompts": "prompts"}


class ViewsHost(ScreenHost, Protocol):
    """What the views need of the main screen (what they show, and where they are mounted)."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def time_format(self) -> Callable[[float], str]: ...
    @property
    def log_spec(self) -> ServerSpec | None: ...
    @property
    def checks(self) -> LiveChecks: ...
    @property
    def connection(self) -> SwitchingConnection: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def facts(self) -> ServerFacts | None: ...
    @property
    def status_bar(self) -> StatusBar: ...
    @property
    def tool_list(self) -> ToolList: ...
    @property
    def focused(self) -> Widget | None: ...

    def query_one(self, selector: str, expect_type: type[QueryType]) -> QueryType: ...
    def refresh_overview_facts(self) -> None: ...


class ViewSwitcher:
    """The views of the main screen (``main.views``): which one is shown, and the rest made on demand."""

    def __init__(self, host: ViewsHost) -> None:
        self.host = host
        self.current = "main"
        self._last_focus: dict[str, Widget] = {}
        self._mounting: dict[str, asyncio.Future[None]] = {}  # view id -> its first show's mount, until done

    @property
    def _switcher(self) -> ContentSwitcher:
        return self.host.query_one("#views", ContentSwitcher)

    def _make(self, name: str) -> Widget:
        host = self.host
        if name == "overview":
            from ...widgets.views.overview import ServerOverview

            return ServerOverview(id="view-overview")
        if name == "notifications":
            from ...widgets.views.notifications.view import NotificationsView

            return NotificationsView(host.store, time_format=host.time_format, id="view-notifications")
        if name == "console":
            from ...widgets.views.console_view import ConsoleView

            return ConsoleView(host.store, time_format=host.time_format, id="view-console")
        if name == "traffic":
            from ...widgets.views.traffic.log import TrafficPanel

            return TrafficPanel(
                host.store,
                server_spec=host.log_spec,
                time_format=host.time_format,
                marks=host.checks,
                id="view-traffic",
            )
        if name == "http":
            from ...widgets.views.http_view import HttpView

            view = HttpView(host.store, time_format=host.time_format, id="view-http")
            view.transport = host.status_bar.status.transport
            return view
        if name == "resources":
            from ...widgets.views.resources.view import ResourcesView

            return ResourcesView(host.store, time_format=host.time_format, id="view-resources")
        if name == "prompts":
            from ...widgets.views.prompts.view import PromptsView

            return PromptsView(host.store, time_format=host.time_format, id="view-prompts")
        if name == "tasks":
            from ...widgets.views.tasks_view import TasksView

            return TasksView(host.store, time_format=host.time_format, id="view-tasks")
        if name == "checks":
            from ...widgets.views.checks_view import ChecksView

            return ChecksView(host.checks, id="view-checks")
        if name == "auth":
            from ...widgets.views.auth.view import AuthView

            connection = host.connection
            read_only = host.read_only
            return AuthView(
                lambda: connection.auth,
                lambda: "recording" if read_only else connection.status.transport,
                spec_url=lambda: connection.spec.url if connection.spec is not None else None,
                id="view-auth",
            )
        raise ValueError(name)

    async def show(self, name: str) -> None:
        switcher = self._switcher
        view_id = f"view-{name}"
        focused = self.host.focused
        if focused is not None:
            self._last_focus[self.current] = focused
        if name != "main":
            mounting = self._mounting.get(view_id)
            if mounting is None and not self.has(view_id):
                mounting = self._mounting[view_id] = asyncio.ensure_future(self._mount(name, view_id))
            if mounting is not None:
                # a second show while the view mounts (a key and a worker, e.g. the HTTP exchange's frame)
                # waits for it too: focusing a view not yet composed raised NoMatches. Shielded: a
                # cancelled caller never cuts the mount short.
                await asyncio.shield(mounting)
        switcher.current = view_id
        self.current = name
        if name == "overview":
            self.host.refresh_overview_facts()
        self.show_nav()
        self._focus(name)
        self.host.query_one("ViewFooter", ViewFooter).show_cached()

    async def _mount(self, name: str, view_id: str) -> None:
        try:
            view = self._make(name)
            await self._switcher.mount(view)
            facts = self.host.facts
            if name == "overview" and facts is not None:
                self.overview_facts(facts)
            if isinstance(view, SessionView):
                view.set_session(self.host.connection.live, facts, self.host.read_only)
        finally:
            del self._mounting[view_id]

    def has(self, view_id: str) -> bool:
        return bool(self._switcher.query_children(f"#{view_id}"))

    def get(self, name: str) -> Widget:
        """A view made already (``has(f"view-{name}")``)."""
        return self._switcher.get_child_by_id(f"view-{name}")

    def _focus(self, name: str) -> None:
        """Back to where the user was in that view, or its main widget the first time."""
        previous = self._last_focus.get(name)
        if previous is not None and previous.is_attached and previous.focusable:
            previous.focus()
            return
        if name == "main":
            self.host.tool_list.option_list.focus()
            return
        view: Any = self.get(name)
        targets = (
            [view] if view.can_focus else [w for w in view.query("*") if w.can_focus and not isinstance(w, (Static,))]
        )
        if name == "traffic":
            targets = list(view.query(TrafficLog)) or targets
        elif name == "http":
            targets = [view.exchange_list]
        elif name == "auth":
            targets = [view.step_list]
        elif name == "checks":
            targets = [view.table]
        elif isinstance(view, SessionView) and view.first_focus() is not None:
            targets = [view.first_focus()]
        if targets:
            targets[0].focus()

    def show_nav(self) -> None:
        keymap = getattr(self.host.app, "keymap", {}) or {}
        self.host.query_one("#nav", NavBar).show(self.current, keymap, self.host.read_only)

    def overview_facts(self, facts: ServerFacts) -> None:
        """The Overview (once made and mounted: ``show`` hands it the facts then) shows these facts."""
        from ...widgets.views.overview import ServerOverview

        for view in self._switcher.query_children(ServerOverview):
            if view.is_mounted:
                view.show(facts)

    # -- session views ---------------------------------------------------
    def session_views(self) -> list[SessionView]:
        """The session views mounted so far. One still mounting has not composed its parts yet: it is
        left out, and ``show`` hands it the session (the latest lists, facts, marks) once it has mounted."""
        return [view for view in self._switcher.query_children(SessionView) if view.is_mounted]

    def session_changed(self) -> None:
        """The connection changed (connected, reconnected, gone): each session view looks again."""
        host = self.host
        session = host.connection.live
        for view in self.session_views():
            view.set_session(session, host.facts, host.read_only)

    def list_fetched(self, event: ListChanged) -> None:
        owner = LIST_KINDS.get(event.kind)
        for view in self.session_views():
            if view.id == f"view-{owner}":
                view.list_fetched(event)

    def session_events(self, events: list[Any]) -> None:
        for view in self.session_views():
            view.session_events(events)

    async def open_resource(self, uri: str, contents: dict[str, Any] | None) -> None:
        from ...widgets.views.resources.view import ResourcesView

        await self.show("resources")
        self._switcher.get_child_by_id("view-resources", ResourcesView).open_resource(uri, contents)
