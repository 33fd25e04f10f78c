"""The Resources view (key 7): the server's resources and resource templates, reading them,
filling templates, and subscriptions.

- The list (``resources/listing.py``) has every page of ``resources/list`` and
  ``resources/templates/list``, a filter (``/``), and after a list_changed refetch the same
  added/changed/removed marks as the tool list (ctrl+g: the diff of a changed one; ctrl+x
  dismisses them). A subscribed resource has ``●``, and ``↻N`` counts its
  ``notifications/resources/updated``.
- Enter on a resource reads it (``resources/read``) into the contents pane
  (``resources/contents.py``); enter on a template opens its form
  (``resources/template_form.py``) above the contents.
- ``s`` subscribes to the highlighted (or shown) resource, again unsubscribes (legacy
  ``resources/subscribe``; 2026-07-28 ``subscriptions/listen``); ``r`` reads the shown
  resource again. When an update arrives for the shown resource the pane says it is stale.
- A resource_link or embedded resource in a tool result opens here (``open_resource``).

Requests run in workers; their results come back to methods of this view, which own the state.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Static

from .....core.base.errors import InspectorError
from .....core.session.mcp_session import McpSession
from ...dialogs import dialogs
from ..hints import hint_text
from ..session_view import SessionView
from .contents import ContentsPanel
from .listing import KINDS, ResourceList
from .template_form import TemplateForm

ACK_WAIT = 5.0  # seconds for a 2026-07-28 listen stream's acknowledgment of a new subscription
MARKS_EVERY = 0.1  # seconds between redraws of the update marks during a flood of updates
LIST_METHODS = {"resources": "resources/list", "resource_templates": "resources/templates/list"}
READ_ONLY_NOTE = (
    "A recorded session is open (read-only): resources cannot be read or subscribed here. "
    "The recorded resources/read frames are in Traffic (5)."
)
# the hint line follows the focus (the list, a template's field, the contents); (binding id, key, what)
HINT = (
    ("", "enter", "read / open a template"),
    ("resources.subscribe", "s", "subscribe"),
    ("resources.filter", "/", "filter"),
    ("resources.reread", "r", "read again"),
    ("resources.refresh", "ctrl+l", "list again"),
)
# enter reads from any field (as ctrl+s does: the footer has it); tab goes to the next one
FIELD_HINT = (
    ("", "type", "suggestions"),
    ("", "↓", "suggest now"),
    ("", "enter", "read"),
    ("", "tab", "next field"),
    ("resources.back", "esc", "list"),
)
CONTENTS_HINT = (
    ("resources.subscribe", "s", "subscribe"),
    ("resources.reread", "r", "read again"),
    ("resources.save", "w", "save"),
    ("resources.pager", "p", "pager"),
    ("resources.json-tree", "t", "JSON tree"),
    ("resources.back", "esc", "list"),
)


class ResourcesView(SessionView):
    """See the module doc."""

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="resources.filter", tooltip="Filter resources and templates"),
        Binding(
            "s",
            "toggle_subscription",
            "Subscribe",
            id="resources.subscribe",
            tooltip="Subscribe to the highlighted resource (again: unsubscribe)",
        ),
        Binding("r", "reread", "Read again", id="resources.reread", tooltip="Read the shown resource again"),
        Binding("ctrl+l", "refresh", "List again", id="resources.refresh", tooltip="Fetch both lists again"),
        Binding(
            "t",
            "toggle_tree",
            "JSON tree",
            id="resources.json-tree",
            tooltip="Show JSON contents as a foldable tree (again: as text)",
        ),
        Binding(
            "ctrl+g",
            "show_diff",
            "Diff",
            id="resources.diff",
            show=False,
            tooltip="How the highlighted resource changed",
        ),
        Binding("ctrl+x", "dismiss_changes", "Dismiss changes", id="resources.dismiss", show=False),
        Binding("escape", "back_to_list", "Back to the list", id="resources.back", show=False),
        # Same key as the main screen's cancel-request (which cancels tool calls); this one
        # cancels the read in flight and leaves the key to the screen when there is none.
        Binding(
            "ctrl+k",
            "cancel_read",
            "Cancel read",
            id="resources.cancel-read",
            tooltip="Cancel the resources/read in flight (sends notifications/cancelled)",
        ),
    ]
    DEFAULT_CSS = """
    ResourcesView { height: 1fr; }
    ResourcesView #resources-note { height: auto; padding: 0 1; background: $warning 20%; display: none; }
    ResourcesView #resources-note.-shown { display: block; }
    ResourcesView #resources-body { height: 1fr; }
    ResourcesView #resources-right { height: 1fr; }
    ResourcesView #resources-template { display: none; }
    ResourcesView #resources-template.-shown { display: block; }
    ResourcesView #resources-contents { height: 1fr; }
    ResourcesView #resources-hint { height: 1; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shown_uri: str | None = None  # what the contents pane shows
        self.read_at_updates = 0  # updates counted for shown_uri when it was read
        self.last_update: dict[str, float] = {}  # uri -> when its last update arrived (wall clock)
        self.reads = 0  # resources/read sent by this view
        self.reading: Any = None  # the PendingRequest of the read in flight
        self._marks_due = False  # a redraw of the update marks is scheduled
        self._last_uri: str | None = None  # the URI of the last update

    def compose(self) -> ComposeResult:
        yield Static("", id="resources-note")
        with Horizontal(id="resources-body"):
            yield ResourceList(id="resources-list")
            with Vertical(id="resources-right"):
                yield TemplateForm(lambda: self.session, id="resources-template")
                yield ContentsPanel(id="resources-contents")
        yield Static(hint_text(getattr(self.app, "keymap", None) or {}, HINT), id="resources-hint", markup=False)

    @property
    def resource_list(self) -> ResourceList:
        return self.query_one(ResourceList)

    @property
    def contents(self) -> ContentsPanel:
        return self.query_one(ContentsPanel)

    @property
    def template_form(self) -> TemplateForm:
        return self.query_one(TemplateForm)

    def first_focus(self) -> Widget | None:
        return self.resource_list.option_list

    def on_descendant_focus(self, event: Any) -> None:
        widget = event.widget
        if widget is self.template_form or self.template_form in widget.ancestors:
            self._hint = FIELD_HINT
        elif widget is self.contents or self.contents in widget.ancestors:
            self._hint = CONTENTS_HINT
        else:
            self._hint = HINT
        self._show_hint()

    def on_resize(self) -> None:
        self._show_hint()

    def _show_hint(self) -> None:
        line = self.query_one("#resources-hint", Static)
        width = max(0, line.size.width - 2) or max(0, self.size.width - 2)  # less its padding
        hint = getattr(self, "_hint", HINT)
        line.update(hint_text(getattr(self.app, "keymap", None) or {}, hint, width, self._target_subscribed(hint)))

    def _target_subscribed(self, hint: tuple) -> bool:
        """The resource s would act on (the highlighted one on the list; on the contents, the shown
        one) is subscribed: the hint says "s: unsubscribe"."""
        session = self.session
        if session is None:
            return False
        if hint is CONTENTS_HINT:
            uri = self.shown_uri
        else:
            highlighted = self.resource_list.highlighted() if self.is_mounted else None
            uri = highlighted[1].get("uri") if highlighted is not None and highlighted[0] == "resources" else None
        return isinstance(uri, str) and uri in getattr(session, "subscribed", ())

    def on_mount(self) -> None:
        self.contents.show_note("Enter on a resource reads it; on a template, opens its form.")
        self._apply_session()

    # -- the session ----------------------------------------------------------
    def set_session(self, session: McpSession | None, facts: Any, read_only: bool = False) -> None:
        changed = session is not self.session or read_only != self.read_only
        super().set_session(session, facts, read_only)
        if changed and self.is_mounted:
            self._apply_session()

    def _apply_session(self) -> None:
        session = self.session
        note = ""
        if self.read_only:
            note = READ_ONLY_NOTE
        elif session is None:
            note = (
                "Not connected: the lists are as last seen; reading and subscribing need a live session "
                "(ctrl+r reconnects)."
            )
        elif not session.supports("resources"):
            note = "This server does not declare the resources capability, so it offers no resources."
        self._note(note)
        if session is None or not session.supports("resources"):
            self._refresh_marks()
            return
        self.resource_list.clear()
        fetch = []
        for kind in KINDS:
            if kind in session.lists:
                self.resource_list.set_items(kind, session.lists[kind])
            else:
                fetch.append(kind)
        self._refresh_marks()
        if fetch:
            self.run_worker(self._fetch(session, fetch), group="resources-list", exit_on_error=False)

    def _note(self, text: str) -> None:
        note = self.query_one("#resources-note", Static)
        note.update(Text(text))
        note.set_class(bool(text), "-shown")

    async def _fetch(self, session: McpSession, kinds: list[str]) -> None:
        """List every page; the ListChanged each fetch emits comes back through list_fetched."""
        for kind in kinds:
            try:
                await session.list_all(kind)
            except InspectorError as exc:
                if session is self.session and kind not in session.lists:  # (a failed page says so in list_fetched)
                    self.resource_list.set_items(kind, [], None, f"{LIST_METHODS[kind]} failed: {exc}")

    def list_fetched(self, event: Any) -> None:
        if event.kind not in KINDS:
            return
        baseline = event.kind not in self.resource_list.listed or event.cause == "initial"
        self.resource_list.set_items(event.kind, event.items, None if baseline else event.diff, event.error)
        self._refresh_marks()

    def session_event(self, event: Any) -> None:
        """A notifications/resources/updated: noted now, shown at most every MARKS_EVERY
        seconds (a flood of updates redraws the row, the summary and the stale note ten
        times a second, not once per update)."""
        uri = getattr(event, "uri", None)
        if not isinstance(uri, str) or not hasattr(event, "seq"):
            return
        self.last_update[uri] = time.time()
        self._last_uri = uri
        if not self._marks_due:
            self._marks_due = True
            self.set_timer(MARKS_EVERY, self._show_updates)

    def _show_updates(self) -> None:
        self._marks_due = False
        uri = self._last_uri
        if uri is not None:
            self.resource_list.note_update(uri, self.time_format(self.last_update[uri]))
        self._refresh_marks()

    def _refresh_marks(self) -> None:
        session = self.session
        if session is not None:
            self.resource_list.set_subscriptions(session.subscribed, session.resource_updates)
        self._show_stale()
        self._show_hint()

    def _show_stale(self) -> None:
        uri = self.shown_uri
        session = self.session
        if uri is None or session is None:
            self.contents.set_stale("")
            return
        since = session.resource_updates.get(uri, 0) - self.read_at_updates
        if since <= 0:
            self.contents.set_stale("")
            return
        when = self.last_update.get(uri)
        at = f" (last at {self.time_format(when)})" if when is not None else ""
        self.contents.set_stale(f"↻ updated {since}x since read{at} - press r to read it again")

    # -- reading -----------------------------------------------------------------
    @on(ResourceList.Chosen)
    async def _chosen(self, message: ResourceList.Chosen) -> None:
        message.stop()
        if message.kind == "resource_templates":
            form = self.template_form
            await form.show(message.item)
            form.add_class("-shown")
            first = form.first_field()
            if first is not None:
                first.focus()
            return
        uri = message.item.get("uri")
        if isinstance(uri, str):
            self.read(uri, message.item)

    @on(ResourceList.Highlighted)
    def _highlighted(self, message: ResourceList.Highlighted) -> None:
        message.stop()
        self._show_hint()  # s: subscribe or unsubscribe, as the highlighted resource is
        if self.shown_uri is None and self.contents.kind == "empty" and not self.read_only:
            self.contents.show_preview(message.kind, message.item)

    @on(TemplateForm.ReadRequested)
    def _template_read(self, message: TemplateForm.ReadRequested) -> None:
        message.stop()
        self.read(message.uri, None)

    def read(self, uri: str, item: dict[str, Any] | None = None) -> None:
        """Read ``uri`` into the contents pane (in a worker)."""
        session = self.session
        if session is None:
            self.contents.show_note(READ_ONLY_NOTE if self.read_only else f"Not connected: cannot read {uri}.")
            return
        self.contents.show_reading(uri)
        self.shown_uri = uri
        self.read_at_updates = session.resource_updates.get(uri, 0)  # (not stale while it is read)
        self.reads += 1
        self.run_worker(self._read(session, uri, item), group="resources-read", exclusive=True, exit_on_error=False)

    async def _read(self, session: McpSession, uri: str, item: dict[str, Any] | None) -> None:
        updates = session.resource_updates.get(uri, 0)
        started = time.perf_counter()
        pending = None
        try:
            pending = self.reading = await session.begin_request("resources/read", {"uri": uri})
            self.refresh_bindings()
            result = await session.finish_request(pending)
        except InspectorError as exc:
            self._read_failed(uri, exc, (time.perf_counter() - started) * 1000)
            return
        except Exception as exc:  # noqa: BLE001 - a broken session must not crash the view
            self._read_failed(uri, exc, (time.perf_counter() - started) * 1000)
            return
        finally:
            if self.reading is pending:
                self.reading = None
                self.refresh_bindings()
        try:
            self._read_done(uri, result, updates, (time.perf_counter() - started) * 1000, item)
        except Exception as exc:  # noqa: BLE001 - a result we cannot show is reported, never a crash
            self._read_failed(uri, exc, (time.perf_counter() - started) * 1000)

    def _read_done(self, uri: str, result: Any, updates: int, elapsed_ms: float, item: dict[str, Any] | None) -> None:
        if uri != self.shown_uri:
            return
        self.read_at_updates = updates
        if getattr(self.app, "snapshot_mode", False):
            elapsed_ms = None  # snapshots stay the same from run to run
        self.contents.show_contents(uri, result, elapsed_ms=elapsed_ms, item=item or self._listed(uri))
        self._show_stale()

    def _read_failed(self, uri: str, error: BaseException, elapsed_ms: float) -> None:
        if uri != self.shown_uri:
            return
        self.contents.show_read_error(uri, error, elapsed_ms)

    def _listed(self, uri: str) -> dict[str, Any] | None:
        for item in self.resource_list.items["resources"]:
            if item.get("uri") == uri:
                return item
        return None

    def open_resource(self, uri: str, contents: dict[str, Any] | None) -> None:
        """A resource_link or embedded resource from a tool result: show it here."""
        self.resource_list.select_uri(uri)
        if contents is None:
            self.read(uri, None)
            return
        self.shown_uri = uri
        self.read_at_updates = self.session.resource_updates.get(uri, 0) if self.session is not None else 0
        try:
            self.contents.show_contents(uri, {"contents": [contents]}, item=self._listed(uri), source="embedded")
        except Exception as exc:  # noqa: BLE001 - contents we cannot show are reported, never a crash
            self.contents.show_read_error(uri, exc)
        self._show_stale()

    # -- actions -------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_tree":
            return self.contents.check_action(action, parameters)
        if action == "cancel_read":  # no read in flight: ctrl+k is the main screen's again
            return self.reading is not None and not self.reading.done
        return True

    def action_cancel_read(self) -> None:
        pending = self.reading
        if pending is not None and not pending.done:
            self.run_worker(pending.cancel("cancelled by the user"), group="resources-cancel", exit_on_error=False)

    def action_toggle_tree(self) -> None:
        self.contents.action_toggle_tree()

    def action_back_to_list(self) -> None:
        self.resource_list.option_list.focus()

    def action_focus_filter(self) -> None:
        self.resource_list.filter_input.focus()

    def action_reread(self) -> None:
        if self.shown_uri is None:
            highlighted = self.resource_list.highlighted()
            if highlighted is None or highlighted[0] != "resources":
                self.notify("Nothing read yet: enter reads the highlighted resource.", severity="warning")
                return
            self.read(str(highlighted[1].get("uri")), highlighted[1])
            return
        self.read(self.shown_uri, self._listed(self.shown_uri))

    @on(ContentsPanel.SubscribeRequested)
    def _subscribe_shown(self, message: ContentsPanel.SubscribeRequested) -> None:
        message.stop()
        if self.shown_uri is None:
            self.notify("No resource is shown: s on the list subscribes to the highlighted one.", severity="warning")
            return
        self._toggle(self.shown_uri)

    def action_toggle_subscription(self) -> None:
        why_not = self.can_subscribe()
        if why_not is not None:
            self.notify(f"Cannot subscribe: {why_not}.", severity="warning", markup=False)
            return
        highlighted = self.resource_list.highlighted()
        if highlighted is not None and highlighted[0] == "resources" and isinstance(highlighted[1].get("uri"), str):
            self._toggle(highlighted[1]["uri"])
        elif self.shown_uri is not None:
            self._toggle(self.shown_uri)
        else:
            self.notify("Highlight a resource (not a template) to subscribe to it.", severity="warning")

    def can_subscribe(self) -> str | None:
        """None when subscribing is possible, else why not."""
        session = self.session
        if self.read_only:
            return "a recorded session is read-only"
        if session is None:
            return "not connected"
        return None

    def undeclared(self) -> bool:
        """A 2025-11-25 server that does not declare resources.subscribe (subscribing is tried
        anyway, with a warning, as the CLI does: the user sees what the server answers)."""
        session = self.session
        if session is None or getattr(session, "era", None) == "modern":
            return False
        resources = session.capabilities.get("resources") if isinstance(session.capabilities, dict) else None
        return not (isinstance(resources, dict) and resources.get("subscribe") is True)

    def _toggle(self, uri: str) -> None:
        why_not = self.can_subscribe()
        if why_not is not None:
            self.notify(f"Cannot subscribe: {why_not}.", severity="warning", markup=False)
            return
        session = self.session
        assert session is not None, "can_subscribe() said not connected otherwise"
        subscribe = uri not in session.subscribed
        if subscribe and self.undeclared():
            self.notify(
                "The server does not declare resources.subscribe: subscribing anyway.", severity="warning", markup=False
            )
        self.run_worker(self._subscription(session, uri, subscribe), group="resources-subscribe", exit_on_error=False)

    async def _subscription(self, session: McpSession, uri: str, subscribe: bool) -> None:
        try:
            if subscribe:
                await session.subscribe(uri)
            else:
                await session.unsubscribe(uri)
        except Exception as exc:  # noqa: BLE001 - an error answer or a lost connection, in words
            self.notify(
                f"{'resources/subscribe' if subscribe else 'resources/unsubscribe'} {uri} failed: {exc}",
                severity="error",
                markup=False,
            )
            return
        self.notify(f"{'Subscribed to' if subscribe else 'Unsubscribed from'} {uri}", markup=False)
        self._refresh_marks()
        if subscribe and getattr(session, "era", None) == "modern":
            await self._check_acknowledged(session, uri)

    async def _check_acknowledged(self, session: McpSession, uri: str) -> None:
        """2026-07-28: the listen stream's acknowledgment says which URIs the server honours; one
        it left out will never be updated, so the user is told (as the CLI's subscribe does)."""
        with anyio.move_on_after(ACK_WAIT):
            # the acknowledgment of a stream that asked for this URI (an older stream's does not count)
            ack = await session.subscriptions.acknowledgment_for(uri)
            if ack is None:  # unsubscribed meanwhile, or the session closed
                return
            honoured = ack.get("resourceSubscriptions")
            if not (isinstance(honoured, list) and uri in honoured):
                self.notify(
                    f"The server did not acknowledge the subscription to {uri} (subscriptions/listen): "
                    "no updates of it will come.",
                    severity="warning",
                    markup=False,
                    timeout=10,
                )
            return
        self.notify(
            f"subscriptions/listen was not acknowledged within {ACK_WAIT:g} s: updates of {uri} may not come.",
            severity="warning",
            markup=False,
        )

    def action_refresh(self) -> None:
        session = self.session
        if session is None or not session.supports("resources"):
            self.notify("No live session with resources to list.", severity="warning")
            return
        self.run_worker(self._fetch(session, list(KINDS)), group="resources-list", exit_on_error=False)

    def action_show_diff(self) -> None:
        change = self.resource_list.change_for_highlighted()
        if change is None:
            self.notify(
                "The highlighted item did not change (ctrl+g shows a changed one's diff).", severity="information"
            )
            return
        dialogs(self).item_diff(change)

    def action_dismiss_changes(self) -> None:
        self.resource_list.dismiss_changes()
