"""The tool-call composer: a generated form and a raw JSON editor kept in sync.

Either view can be edited; the other follows. JSON that does not parse is
reported under the editor and never overwrites the form. Sending arguments that
fail the inputSchema asks for confirmation but stays possible (testing a
server's handling of bad input is part of the job). Arguments are saved as a
draft per (server, tool), debounced, so they survive reconnects and restarts.
"""

from __future__ import annotations

import asyncio
import json
from functools import partial
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Static, TabbedContent, TabPane, TextArea

from ...core.base.json_text import JsonTextError, loads_strict
from ...core.config.drafts import DraftStore
from ...core.schema import validation
from ...core.schema.form import (
    FormSpec,
    FormValueError,
    arguments_to_values,
    build_form,
    default_values,
    fill_defaults,
    may_default,
    strip_defaults,
)
from ...core.schema.validation import Issue
from .dialogs import dialogs
from .form.schema_form import SchemaForm
from .result.json_text import json_code_editor
from .views.traffic.filter import FilterToggle

FORM_TAB = "composer-form"
JSON_TAB = "composer-json"
FORM_IN_THREAD = 500  # a schema with more top-level properties has its form built in a thread


def tool_task_support(tool: dict[str, Any] | None) -> str:
    """The tool's ``execution.taskSupport`` as it declares it: required, optional or forbidden."""
    execution = tool.get("execution") if isinstance(tool, dict) else None
    value = execution.get("taskSupport") if isinstance(execution, dict) else None
    return value if value in ("required", "optional") else "forbidden"


class ConfirmSendScreen(ModalScreen[bool]):
    """ "These arguments do not match the schema. Send anyway?" """

    BINDINGS = [Binding("escape", "dismiss(False)", "Cancel"), Binding("y", "dismiss(True)", "Send anyway", show=False)]
    DEFAULT_CSS = """
    ConfirmSendScreen { align: center middle; }
    ConfirmSendScreen > Vertical {
        width: 80;
        max-width: 95%;
        height: auto;
        max-height: 80%;
        border: thick $warning;
        background: $surface;
        padding: 1 2;
    }
    ConfirmSendScreen #confirm-issues { height: auto; max-height: 16; }
    ConfirmSendScreen #confirm-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    ConfirmSendScreen Button { margin-left: 2; }
    """

    def __init__(self, tool_name: str, issues: list[Issue]) -> None:
        super().__init__()
        self.tool_name = tool_name
        self.issues = issues

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"The arguments for {self.tool_name} do not match its inputSchema:", style="bold"))
            lines = Text()
            for issue in self.issues[:50]:
                lines.append(f"• {issue.path}: {issue.message}\n")
            if len(self.issues) > 50:
                lines.append(f"… and {len(self.issues) - 50} more\n")
            with VerticalScroll(id="confirm-issues"):
                yield Static(lines)
            yield Static("Send anyway? (servers should reject bad input; this is how you check.)")
            with Horizontal(id="confirm-buttons"):
                yield Button("Cancel", id="confirm-cancel")
                yield Button("Send anyway", id="confirm-send", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#confirm-cancel", Button).focus()

    @on(Button.Pressed, "#confirm-send")
    def _send(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-cancel")
    def _cancel(self) -> None:
        self.dismiss(False)


def _form_and_values(
    schema: Any, draft: dict[str, Any] | None, send_defaults: bool
) -> tuple[FormSpec, dict[str, Any], bool]:
    """A tool's form, its first values (the draft's, else the schema defaults) and whether the
    "send defaults" toggle is offered: no UI here, so a big schema's can run in a thread."""
    spec = build_form(schema)
    offered = any(may_default(field) for field in spec.fields())
    values = arguments_to_values(spec, draft) if draft is not None else default_values(spec)
    if draft is not None and not send_defaults:  # a draft saved without them: the form shows them again
        values = fill_defaults(spec, values)
    return spec, values, offered


def _prepare_all(schemas: list[Any]) -> None:  # in a worker thread
    for schema in schemas:
        validation.prepare(schema)


class ComposerPanel(Widget):
    """Compose a ``tools/call``: ``set_server``, ``set_tool``, then the user sends."""

    ALLOW_MAXIMIZE = True
    MAXIMIZE_PANEL = True  # ctrl+z maximizes all of it (tui/maximize.py)

    BINDINGS = [
        Binding("ctrl+s", "send", "Send", id="send-request", tooltip="Send the tools/call request"),
        Binding(
            "ctrl+t",
            "toggle_view",
            "Form/JSON",
            id="toggle-json-editor",
            tooltip="Switch between the form and the raw JSON",
        ),
    ]
    DEFAULT_CSS = """
    ComposerPanel { height: 1fr; layout: vertical; }
    ComposerPanel #composer-title { height: auto; padding: 0 1; }
    ComposerPanel #composer-description { height: auto; max-height: 2; padding: 0 1; color: $text-muted; }
    ComposerPanel TabbedContent { height: 1fr; }
    ComposerPanel TabPane { height: 1fr; padding: 0; }
    ComposerPanel #composer-empty { padding: 1 2; color: $text-muted; }
    ComposerPanel #json-editor { height: 1fr; }
    ComposerPanel #json-error { height: auto; color: $text-error; display: none; padding: 0 1; }
    ComposerPanel #json-error.has-error { display: block; }
    ComposerPanel #composer-actions { height: auto; padding: 0 1; }
    ComposerPanel #composer-actions Button { margin-right: 1; min-width: 8; }
    ComposerPanel #composer-status { width: 1fr; height: auto; color: $text-muted; padding-left: 1; }
    ComposerPanel #composer-task-row { height: auto; padding: 0 1; }
    ComposerPanel #composer-send-defaults { display: none; padding-left: 1; }
    ComposerPanel #composer-send-defaults.-offered { display: block; }
    ComposerPanel #composer-as-task { display: none; }
    ComposerPanel #composer-as-task.-offered { display: block; }
    ComposerPanel #composer-task-note { width: auto; display: none; color: $text-accent; padding-right: 1; }
    ComposerPanel #composer-task-note.-required { display: block; }
    """

    class SendRequested(Message):
        """The user wants to call ``tool_name`` (``issues``: what failed validation, if sent anyway)."""

        def __init__(
            self, tool_name: str, arguments: dict[str, Any], issues: list[Issue], as_task: bool | None = None
        ) -> None:
            super().__init__()
            self.tool_name = tool_name
            self.arguments = arguments
            self.issues = issues
            #: True: run as a task (the user turned on "run as task" for a tool that allows one);
            #: None: the session decides (a task exactly when the tool requires one).
            self.as_task = as_task

    def __init__(
        self,
        drafts: DraftStore | None = None,
        *,
        draft_delay: float = 0.5,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.drafts = drafts if drafts is not None else DraftStore()
        self.draft_delay = draft_delay
        self.server_key = ""
        self.tool: dict[str, Any] | None = None
        self.form_spec: FormSpec | None = None
        self.json_error: str | None = None
        self._draft_timer: Timer | None = None
        self._draft_pending: tuple[str, str, dict[str, Any]] | None = None
        self._draft_error_reported = False
        # Our own parts, kept by reference: they work before mount and while being torn down.
        self._title = Static("No tool selected", id="composer-title")
        self._description = Static("", id="composer-description", markup=False)
        self._json_editor = json_code_editor("{}", id="json-editor", tab_behavior="focus", soft_wrap=True)
        self._json_error = Static("", id="json-error", markup=False)
        self._status_label = Static("", id="composer-status", markup=False)
        self._as_task = FilterToggle("run as task", False, id="composer-as-task")
        self._as_task.tooltip = (
            "The tool allows a task (execution.taskSupport optional): call it as a task (tasks/get, tasks/result)"
        )
        # per form (server, tool), off at first: a field holding its schema default is left out, so the
        # server's own default handling runs (core/schema/form/defaults.py)
        self._send_defaults = FilterToggle("send defaults", False, id="composer-send-defaults")
        self._send_defaults.tooltip = (
            "On: the fields holding their schema default are sent too. Off: they are left out "
            "(the server applies its own defaults); the JSON view shows what goes"
        )
        self._defaults_choice: dict[tuple[str, str], bool] = {}
        self._task_note = Static("runs as a task (the tool requires one)", id="composer-task-note")
        self._task_note.tooltip = "The tool requires a task (execution.taskSupport required)"
        self._form_pane = TabPane("Form", id=FORM_TAB)
        self._tabs = TabbedContent(initial=FORM_TAB)
        self._empty: Static | None = Static("Pick a tool on the left to build its arguments here.", id="composer-empty")
        # The form is held here, never looked up: Textual caches query_one results under a key
        # that changes with every mount, so a query would pin every replaced form in memory.
        self._form: SchemaForm | None = None
        self._form_mounted: asyncio.Future[Any] | None = None  # the mount of self._form, until it is done
        self._loaded = asyncio.Event()  # set when the form of the tool last set is built (or its load ended)
        self._loaded.set()

    # -- layout ----------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield self._title
        yield self._description
        with self._tabs:
            with self._form_pane:
                if self._empty is not None:
                    yield self._empty
            with TabPane("JSON", id=JSON_TAB):
                yield self._json_editor
                yield self._json_error
        with Horizontal(id="composer-actions"):
            yield Button("Send", id="send-button", variant="primary", tooltip="Send (ctrl+s)", compact=True)
            yield Button(
                "Reset", id="reset-button", tooltip="Back to the schema defaults (drops the draft)", compact=True
            )
            yield self._send_defaults  # on the Send row: at 80x24 the form keeps its rows
            yield self._status_label
        with Horizontal(id="composer-task-row"):
            yield self._as_task
            yield self._task_note

    def on_mount(self) -> None:
        if self.drafts.warning:
            self.notify(self.drafts.warning, title="Drafts", severity="warning", markup=False)

    @property
    def schema_form(self) -> SchemaForm | None:
        return self._form

    @property
    def json_editor(self) -> TextArea:
        return self._json_editor

    # -- public API ------------------------------------------------------
    def set_server(self, server_key: str) -> None:
        """Drafts are per server; switching servers first saves the pending draft."""
        self._flush_draft()
        self.server_key = server_key

    def set_tool(self, tool: dict[str, Any] | None) -> None:
        """Show this tool's form, filled with its saved draft (or the schema defaults)."""
        self._flush_draft()
        self.tool = tool
        self.json_error = None
        support = tool_task_support(tool)
        self._as_task.value = False  # off by default for every tool
        name = str(tool.get("name", "")) if isinstance(tool, dict) else ""
        send_defaults = self._defaults_choice.get((self.server_key, name), False)
        self._send_defaults.set_reactive(FilterToggle.value, send_defaults)  # quietly: the old form stays as it is
        self._send_defaults.set_class(send_defaults, "-on")
        self._send_defaults.refresh()
        self._as_task.set_class(support == "optional", "-offered")
        self._task_note.set_class(support == "required", "-required")
        self._loaded.set()  # whoever waited for the previous tool's form looks again
        self._loaded = asyncio.Event()
        self.run_worker(partial(self._load_tool, tool, self._loaded), group="composer-load", exclusive=True)
        schemas = [tool.get(key) for key in ("inputSchema", "outputSchema")] if isinstance(tool, dict) else []
        large = [schema for schema in schemas if not validation.ready(schema)]
        if large:  # compiled off the event loop (a 20,000-property schema: ~0.3 s) before a send needs it
            self.run_worker(partial(_prepare_all, large), thread=True, group="schema-prepare")

    def get_arguments(self) -> dict[str, Any]:
        """The current arguments (raises FormValueError if a JSON field does not parse)."""
        form = self.schema_form
        if form is not None:
            return form.get_arguments()
        return self._parse_json_editor()[0] or {}

    async def set_arguments(self, arguments: dict[str, Any]) -> None:
        form = self.schema_form
        if form is not None:
            await form.set_arguments(arguments)
        self._sync_json_from_form()
        self._schedule_draft()

    async def wait_loaded(self) -> None:
        """Until the form of the tool last set is built (an event, not a poll; the caller bounds it)."""
        while not (loaded := self._loaded).is_set() or loaded is not self._loaded:
            await loaded.wait()

    # -- loading ---------------------------------------------------------
    async def _load_tool(self, tool: dict[str, Any] | None, loaded: asyncio.Event) -> None:
        try:
            await self._build_form(tool)
        finally:
            loaded.set()

    async def _build_form(self, tool: dict[str, Any] | None) -> None:
        if not self.is_attached:
            return
        mounting = self._form_mounted
        if mounting is not None and not mounting.done():
            # a form is removed only once mounted: removing one mid-mount prunes its Selects' parts
            # before their own Mount handler runs, which then fails on a missing child (NoMatches)
            await asyncio.wait([mounting])
        old, self._form = self._form, None
        if old is not None:
            # shielded: a newer set_tool cancels this worker (exclusive), and a removal cut short left
            # a closed form in the DOM that never idles (the screen then stopped mounting views)
            await asyncio.shield(asyncio.ensure_future(old.remove()))
        if tool is None:
            self.form_spec = None
            self._title.update("No tool selected")
            self._description.update("")
            if self._empty is None and self._form_pane.is_attached:
                self._empty = Static("Pick a tool on the left to build its arguments here.", id="composer-empty")
                await self._form_pane.mount(self._empty)
            self._set_json_text("{}")
            self._status("")  # "sent" was about another tool (another server's, after a switch)
            return
        empty, self._empty = self._empty, None
        if empty is not None:
            await empty.remove()
        name = str(tool.get("name", ""))
        heading = Text(tool.get("title") or name, style="bold")
        if tool.get("title") and tool.get("title") != name:
            heading.append(f"  {name}", style="dim")
        self._title.update(heading)
        self._description.update(str(tool.get("description") or ""))
        send_defaults = self._send_defaults.value
        draft = self.drafts.get(self.server_key, name)
        schema = tool.get("inputSchema")
        prepare = partial(_form_and_values, schema, draft, send_defaults)
        if isinstance(schema, dict) and len(schema.get("properties") or ()) > FORM_IN_THREAD:
            # 20,000 properties: ~0.5 s of building, in a thread, not on the event loop
            self.form_spec, values, offered = await asyncio.to_thread(prepare)
        else:
            self.form_spec, values, offered = prepare()
        self._send_defaults.set_class(offered, "-offered")
        if not self._form_pane.is_attached:
            return  # torn down meanwhile
        form = SchemaForm(self.form_spec, values, send_defaults=send_defaults)
        self._form = form
        # shielded like the removal: a newer set_tool cancels this worker, never the mount itself
        self._form_mounted = asyncio.ensure_future(self._form_pane.mount(form))
        await asyncio.shield(self._form_mounted)
        self._sync_json_from_form()
        self._set_json_error(None)
        self._status("draft restored" if draft is not None else "")

    # -- sync ------------------------------------------------------------
    @on(SchemaForm.Changed)
    def _form_changed(self, event: SchemaForm.Changed) -> None:
        event.stop()
        self._sync_json_from_form()
        self._schedule_draft()

    def _sync_json_from_form(self) -> None:
        form = self.schema_form
        if form is None:
            return
        try:
            arguments = form.get_arguments()
        except FormValueError as exc:
            self._status(f"not synced to JSON: {exc}")
            return
        self._set_json_text(json.dumps(arguments, indent=2, ensure_ascii=False))
        self._set_json_error(None)

    def _set_json_text(self, text: str) -> None:
        editor = self.json_editor
        if editor.text != text:
            with self.prevent(TextArea.Changed):
                editor.load_text(text)

    @on(TextArea.Changed, "#json-editor")
    async def _json_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        arguments, error = self._parse_json_editor()
        self._set_json_error(error)
        form = self.schema_form
        if arguments is None or form is None:
            return
        try:
            same = json.dumps(form.get_arguments(), sort_keys=True) == json.dumps(arguments, sort_keys=True)
        except FormValueError:
            same = False
        if not same:
            await form.set_arguments(arguments)
            left_out = [] if form.send_defaults else strip_defaults(form.spec, arguments)[1]  # typed, not sent
            if left_out:
                self._status(f"not sent (schema defaults): {', '.join(left_out)}; 'send defaults' sends them")
        self._schedule_draft()

    def _parse_json_editor(self) -> tuple[dict[str, Any] | None, str | None]:
        text = self.json_editor.text
        if not text.strip():
            return {}, None
        try:
            value = loads_strict(text)  # deep nesting, NaN, huge numbers: a reason, never a crash
        except JsonTextError as exc:
            reason = str(exc)
            return None, f"{reason[:1].upper()}{reason[1:]}. The form keeps the last valid arguments."
        if not isinstance(value, dict):
            return (
                None,
                f"The arguments must be a JSON object, not {type(value).__name__}. The form keeps the last valid "
                "arguments.",
            )
        return value, None

    def _set_json_error(self, error: str | None) -> None:
        self.json_error = error
        self._json_error.update(error or "")
        self._json_error.set_class(error is not None, "has-error")

    def action_toggle_view(self) -> None:
        tabs = self._tabs
        tabs.active = JSON_TAB if tabs.active == FORM_TAB else FORM_TAB
        if tabs.active == FORM_TAB:  # the JSON editor had the focus: the form's first field takes it (not nothing)
            self.call_after_refresh(self._focus_form)

    def _focus_form(self) -> None:
        form = self.schema_form
        fields = [w for w in form.query("*") if w.focusable] if form is not None else []
        target = fields[0] if fields else self.query_one_optional("#send-button")
        if target is not None and (self.app.focused is None or self.app.focused is self.json_editor):
            target.focus()

    @on(TabbedContent.TabActivated)
    def _tab_switched(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == FORM_TAB and self.json_error:
            self.notify("The JSON editor has an error; the form shows the last valid arguments.", severity="warning")
        if event.pane.id == JSON_TAB:
            self.json_editor.focus()

    # -- sending ---------------------------------------------------------
    @on(Button.Pressed, "#send-button")
    def _send_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_send()

    @on(Button.Pressed, "#reset-button")
    async def _reset_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        form = self.schema_form
        if form is None or self.tool is None:
            return
        self._cancel_draft_timer()
        await form.set_values(default_values(form.spec))
        self._sync_json_from_form()
        self.run_worker(
            lambda: self._delete_draft(self.server_key, str(self.tool.get("name", ""))), thread=True, group="drafts"
        )
        self._status("reset to defaults")

    def action_send(self) -> None:
        if self.tool is None:
            self.notify("Pick a tool first.", severity="warning")
            return
        dialogs(self).confirm_destructive_then(self, self.tool, self._send_now)  # the optional "destructive" question

    def _send_now(self) -> None:
        if self.tool is None:
            return
        if self._tabs.active == JSON_TAB and self.json_error:
            self.notify(f"Fix the JSON first: {self.json_error}", severity="error", markup=False)
            return
        try:
            arguments = self.get_arguments()
        except FormValueError as exc:
            self.notify(f"Cannot send: {exc}", severity="error", markup=False)
            return
        name = str(self.tool.get("name", ""))
        as_task = True if self.run_as_task else None
        schema = self.tool.get("inputSchema")
        if not validation.ready(schema):  # compile it in a thread, then send from here again
            self._status("checking the arguments against a large inputSchema…")
            self.run_worker(partial(self._prepare_then_send, schema), thread=True, group="schema-prepare")
            return
        verdict = validation.check(schema, arguments)
        issues = verdict.issues
        for note in verdict.unchecked:
            self.notify(f"inputSchema: {note}", severity="warning", markup=False)
        form = self.schema_form
        if form is not None:
            form.show_issues(issues)
        if not issues:
            self.post_message(self.SendRequested(name, arguments, [], as_task))
            self._status("sent")
            return

        def confirmed(send: bool | None) -> None:
            if send:
                self.post_message(self.SendRequested(name, arguments, issues, as_task))
                self._status(f"sent with {len(issues)} validation issue{'s' if len(issues) != 1 else ''}")
            else:
                self._status("not sent")

        self.app.push_screen(ConfirmSendScreen(name, issues), confirmed)

    def _prepare_then_send(self, schema: Any) -> None:  # in a worker thread
        validation.prepare(schema)
        self.app.call_from_thread(self._send_now)

    def on_filter_toggle_changed(self, event: FilterToggle.Changed) -> None:
        event.stop()  # "run as task" is read when sending
        if event.toggle is self._send_defaults:
            self._apply_send_defaults(self._send_defaults.value)

    def toggle_send_defaults(self) -> None:
        """The palette's "request: send untouched schema defaults (on/off)"."""
        self._send_defaults.value = not self._send_defaults.value

    def _apply_send_defaults(self, on: bool) -> None:
        form = self.schema_form
        if self.tool is not None:
            self._defaults_choice[(self.server_key, str(self.tool.get("name", "")))] = on
        if form is not None and form.send_defaults != on:
            form.set_send_defaults(on)
            self._sync_json_from_form()
            self._schedule_draft()

    @property
    def run_as_task(self) -> bool:
        """The "run as task" toggle is offered (taskSupport optional) and on."""
        return tool_task_support(self.tool) == "optional" and self._as_task.value

    def _status(self, text: str) -> None:
        self._status_label.update(text)

    def set_status(self, text: str) -> None:
        """A note beside Send (the result history says where the arguments came from)."""
        self._status(text)

    # -- drafts ----------------------------------------------------------
    def _schedule_draft(self) -> None:
        if self.tool is None:
            return
        try:
            arguments = self.get_arguments()
        except FormValueError:
            return
        self._cancel_draft_timer()
        self._draft_pending = (self.server_key, str(self.tool.get("name", "")), arguments)
        self._draft_timer = self.set_timer(self.draft_delay, self._flush_draft)

    def _cancel_draft_timer(self) -> None:
        if self._draft_timer is not None:
            self._draft_timer.stop()
            self._draft_timer = None
        self._draft_pending = None

    def _flush_draft(self) -> None:
        pending = self._draft_pending
        self._draft_pending = None
        if self._draft_timer is not None:
            self._draft_timer.stop()
            self._draft_timer = None
        if pending is not None and self.is_attached:
            self.run_worker(lambda: self._save_draft(*pending), thread=True, group="drafts")

    def _save_draft(self, server_key: str, tool_name: str, arguments: dict[str, Any]) -> None:
        try:
            self.drafts.put(server_key, tool_name, arguments)
        except OSError as exc:
            self._report_draft_error(exc)

    def _delete_draft(self, server_key: str, tool_name: str) -> None:
        try:
            self.drafts.delete(server_key, tool_name)
        except OSError as exc:
            self._report_draft_error(exc)

    def _report_draft_error(self, exc: OSError) -> None:
        if not self._draft_error_reported:
            self._draft_error_reported = True
            self.notify(
                f"Cannot save drafts to {self.drafts.path}: {exc}", title="Drafts", severity="warning", markup=False
            )

    def on_unmount(self) -> None:
        pending = self._draft_pending
        if pending is not None:
            self._save_draft(*pending)  # last chance: the app is closing
