"""The main screen's views: the nav bar, making each view the first time it is shown,
moving between views, and feeding the views that follow the session.

Views other than Main are mounted the first time they are shown, so their imports
(Markdown...) cost nothing before first paint. The session views (Resources, Prompts,
Tasks: ``widgets/views/session_view.SessionView``) read what they need from the live session
when they are made and whenever the connection changes, and receive the session events
that concern them (``ListFetched``, ``SessionNotice``) from here.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.text import Text
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from ...keymap import VIEW_KEYS, display_key, effective_key
from ...messages import ListFetched, OpenResource, SessionNotice
from ...widgets.view_footer import ViewFooter
from ...widgets.views.session_view import SessionView
from ...widgets.views.traffic.log import TrafficLog

# One name per view, the same on the bar, in F1, the palette and the help (issue 21: the bar
# said "2 Info", "4 Cons", "7 Res" at 80 columns while F1 said Overview, Console, Resources).
# Short enough that all eleven fit 80 columns in the bar's tightest form.
VIEWS = [
    ("main", "Main"),
    ("overview", "Info"),
    ("notifications", "Notifs"),
    ("console", "Console"),
    ("traffic", "Traffic"),
    ("http", "HTTP"),
    ("resources", "Resources"),
    ("prompts", "Prompts"),
    ("tasks", "Tasks"),
    ("auth", "Auth"),
    ("checks", "Checks"),
]

# the list kinds each session view follows
LIST_KINDS = {"resources": "resources", "resource_templates": "resources", "prompts": "prompts"}

NAV_TAIL = "  F7 Servers  F1 Help  ^p Palette"


def nav_text(current: str, keymap: dict[str, str], read_only: bool, width: int = 0, key_style: str = "bold") -> Text:
    """The views with their keys; the widest form that fits ``width`` (0: the widest).

    Narrower forms drop spaces, never words: the key is drawn bold in the accent colour, so
    ``5Traffic6HTTP`` still reads as two views.
    """
    keys = {name: display_key(effective_key(VIEW_KEYS[name], keymap)).split(",")[-1].strip() for name, _ in VIEWS}
    # the hints after the views may be cut (the footer has them too); the views may not
    # (before the key, between key and label, after the label)
    forms = [(" ", " ", " "), (" ", " ", ""), ("", " ", " "), ("", "", " "), ("", "", "")]
    text = Text()
    for before, between, after in forms:
        text = Text(no_wrap=True, overflow="ellipsis")
        for name, label in VIEWS:
            key = f"[{key_style}]{escape(keys[name])}[/]"
            chunk = Text.from_markup(f"[@click=app.show_view('{name}')]{before}{key}{between}{label}[/]")
            if name == current:
                chunk.stylize("bold reverse")
            text.append_text(chunk)
            text.append(after)
        if not width or text.cell_len <= width:
            break
    text.append(NAV_TAIL, style="dim")
    if read_only:
        text.append("   read-only", style="bold")
    return text


class NavBar(Static):
    """The views, one key each; the current one highlighted. Clickable. Narrower terminals
    get fewer spaces (never other names), so every view stays on the bar."""

    DEFAULT_CSS = """
    NavBar { height: 1; background: $panel; color: $text-muted; }
    """

    def show(self, current: str, keymap: dict[str, str], read_only: bool) -> None:
        self._shown = (current, keymap, read_only)
        self.update(nav_text(current, keymap, read_only, self.size.width, self._key_style()))

    def on_resize(self) -> None:
        shown = getattr(self, "_shown", None)
        if shown is not None:
            self.update(nav_text(*shown, self.size.width, self._key_style()))

    def _key_style(self) -> str:
        """Keys bold in the theme's accent: with no space between views they mark where each starts."""
        accent = self.app.current_theme.accent if self.is_attached else None
        return f"bold {accent}" if accent else "bold"


class ViewsMixin:
    """Making, showing and feeding the views (mixed into MainScreen)."""

    current_view: str
    _last_focus: dict[str, Widget]

    def _make_view(self, name: str) -> Widget:
        if name == "overview":
            from ...widgets.views.overview import ServerOverview

            return ServerOverview(id="view-overview")
        if name == "notifications":
            from ...widgets.views.notifications.view import NotificationsView

            return NotificationsView(self.store, time_format=self.time_format, id="view-notifications")
        if name == "console":
            from ...widgets.views.console_view import ConsoleView

            return ConsoleView(self.store, time_format=self.time_format, id="view-console")
        if name == "traffic":
            from ...widgets.views.traffic.log import TrafficPanel

            return TrafficPanel(
                self.store,
                server_spec=self.log_spec,
                time_format=self.time_format,
                marks=self.checks,
                id="view-traffic",
            )
        if name == "http":
            from ...widgets.views.http_view import HttpView

            view = HttpView(self.store, time_format=self.time_format, id="view-http")
            view.transport = self.status_bar.status.transport
            return view
        if name == "resources":
            from ...widgets.views.resources.view import ResourcesView

            return ResourcesView(self.store, time_format=self.time_format, id="view-resources")
        if name == "prompts":
            from ...widgets.views.prompts.view import PromptsView

            return PromptsView(self.store, time_format=self.time_format, id="view-prompts")
        if name == "tasks":
            from ...widgets.views.tasks_view import TasksView

            return TasksView(self.store, time_format=self.time_format, id="view-tasks")
        if name == "checks":
            from ...widgets.views.checks_view import ChecksView

            return ChecksView(self.checks, id="view-checks")
        if name == "auth":
            from ...widgets.views.auth.view import AuthView

            connection = self.connection
            read_only = self.read_only
            return AuthView(
                lambda: connection.auth,
                lambda: "recording" if read_only else connection.status.transport,
                spec_url=lambda: connection.spec.url if connection.spec is not None else None,
                id="view-auth",
            )
        raise ValueError(name)

    async def show_view(self, name: str) -> None:
        switcher = self.query_one("#views", ContentSwitcher)
        view_id = f"view-{name}"
        if self.focused is not None:
            self._last_focus[self.current_view] = self.focused
        if name != "main" and not self.has_view(view_id):
            view = self._make_view(name)
            await switcher.mount(view)
            if name == "overview" and self.facts is not None:
                view.show(self.facts)
            if isinstance(view, SessionView):
                view.set_session(self.connection.live, self.facts, self.read_only)
        switcher.current = view_id
        self.current_view = name
        if name == "overview":
            self._refresh_overview_facts()
        self._show_nav()
        self._focus_view(name)
        self.query_one(ViewFooter).show_cached()

    def has_view(self, view_id: str) -> bool:
        return bool(self.query_one("#views", ContentSwitcher).query_children(f"#{view_id}"))

    def _focus_view(self, name: str) -> None:
        """Back to where the user was in that view, or its main widget the first time."""
        previous = self._last_focus.get(name)
        if previous is not None and previous.is_attached and previous.focusable:
            previous.focus()
            return
        if name == "main":
            self.tool_list.option_list.focus()
            return
        view = self.query_one(f"#view-{name}")
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

    def _show_nav(self) -> None:
        self.query_one("#nav", NavBar).show(self.current_view, getattr(self.app, "keymap", {}) or {}, self.read_only)

    # -- session views ---------------------------------------------------
    def session_views(self) -> list[SessionView]:
        """The session views mounted so far."""
        return list(self.query_one("#views", ContentSwitcher).query_children(SessionView))

    def _session_views_changed(self) -> None:
        """The connection changed (connected, reconnected, gone): each session view looks again."""
        session = self.connection.live
        for view in self.session_views():
            view.set_session(session, self.facts, self.read_only)

    def on_list_fetched(self, message: ListFetched) -> None:
        owner = LIST_KINDS.get(message.event.kind)
        for view in self.session_views():
            if view.id == f"view-{owner}":
                view.list_fetched(message.event)

    def on_session_notice(self, message: SessionNotice) -> None:
        events = message.take_all()
        for event in events:
            self.session_notice(event)
        for view in self.session_views():
            view.session_events(events)

    def session_notice(self, event: Any) -> None:
        """The main screen's own part in a session event (the in-flight panel's task rows)."""

    async def on_open_resource(self, message: OpenResource) -> None:
        message.stop()
        await self.show_view("resources")
        self.query_one("#view-resources").open_resource(message.uri, message.contents)
