"""The Prompts view (8): the server's prompts, an argument form with completion as you
type, ``prompts/get``, and the messages rendered by role.

Left, the prompt list (filter; title, name, arguments with required ones starred, an
icons mark; added/changed/removed marks after a list_changed refetch). Right, the
highlighted prompt's description and one ``CompletionInput`` per argument (``ref/prompt``,
``context.arguments`` from the other fields), then the got prompt (``PromptMessages``).
Required arguments are checked before anything is sent. ``prompts/get`` runs in a worker;
its outcome comes back as a message. What is typed is kept per prompt while the view lives.
"""

from __future__ import annotations

import json
import time
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, Static

from .....core.base.errors import InspectorError, RequestCancelled, RpcError
from .....core.base.jsonrpc import ERROR_NAMES
from .....core.session.mcp_session import McpSession
from ....text.http_text import explain_error
from ....text.traffic_text import clean
from ...form.completion_input import CompletionInput
from ..hints import hint_text
from ..session_view import SessionView
from .messages import PromptMessages
from .prompt_list import PromptList, prompt_arguments, prompt_title, shorten
from .recorded import recorded_prompts

# the hint line follows the focus (the list, a field, the messages); (binding id, key, what), shown
# as the user remapped the keys (hints.py, as the Resources view's)
# (c and s, the messages' keys, are on the messages' line: they are not keys of the list)
HINT = (
    ("", "enter", "form"),
    ("prompts.get", "ctrl+s", "get"),
    ("prompts.back", "esc", "list"),
    ("prompts.filter", "/", "filter"),
)
FIELD_HINT = (
    ("", "type", "suggestions"),
    ("", "↓", "suggest now"),
    ("", "enter", "next field"),
    ("prompts.get", "ctrl+s", "get"),
    ("prompts.back", "esc", "list"),
)
NO_COMPLETIONS_HINT = (
    ("", "no suggestions", "the server has no completions"),
    ("", "enter", "next"),
    ("prompts.get", "ctrl+s", "get"),
    ("prompts.back", "esc", "list"),
)
NAME_CHARS, DESCRIPTION_CHARS = 200, 2000  # of a title or name, of a description, in the form
MAX_FIELDS = 30  # argument fields in a form (each costs a few widgets to mount: 2,000 froze the view for minutes)
MESSAGES_HINT = (
    ("prompts.copy", "c", "copy JSON"),
    ("prompts.save", "s", "save"),
    ("", "tab", "blocks"),
    ("save-block", "w", "save media"),
    ("prompts.open-resource", "enter", "open link"),
    ("prompts.back", "esc", "list"),
)


class PromptGot(Message):
    def __init__(self, name: str, arguments: dict[str, str], result: Any, elapsed_ms: float) -> None:
        super().__init__()
        self.name, self.arguments, self.result, self.elapsed_ms = name, arguments, result, elapsed_ms


class PromptFailed(Message):
    def __init__(self, name: str, error: BaseException, elapsed_ms: float) -> None:
        super().__init__()
        self.name, self.error, self.elapsed_ms = name, error, elapsed_ms


class PromptsListed(Message):
    def __init__(self, session: McpSession, items: list[dict[str, Any]] | None, error: str | None = None) -> None:
        super().__init__()
        self.session, self.items, self.error = session, items, error


class PromptForm(VerticalScroll):
    """The argument form. A tab stop of its own only when it scrolls (to scroll a long description
    by keys); otherwise tab went to it and no key did anything visible there."""

    def allow_focus(self) -> bool:
        return self.max_scroll_y > 0


class PromptsView(SessionView):
    """The prompts of the live session (see the module doc)."""

    BINDINGS = [
        Binding(
            "ctrl+s", "get_prompt", "Get prompt", id="prompts.get", tooltip="Send prompts/get with the form's arguments"
        ),
        # priority, and only while a get is in flight: otherwise ctrl+k stays the fields' own key
        Binding(
            "ctrl+k",
            "cancel_get",
            "Cancel get",
            id="prompts.cancel",
            priority=True,
            tooltip="Cancel the prompts/get in flight",
        ),
        Binding("escape", "back_to_list", "List", id="prompts.back", show=False, tooltip="Back to the prompt list"),
        Binding("slash", "filter", "Filter", id="prompts.filter", show=False, tooltip="Filter the prompts"),
    ]
    DEFAULT_CSS = """
    PromptsView { height: 1fr; }
    PromptsView #prompts-body { height: 1fr; }
    PromptsView #prompt-list { border-right: vkey $panel-lighten-2; }
    PromptsView #prompt-detail { width: 1fr; }
    PromptsView #prompt-form { height: auto; max-height: 100%; padding: 0 1; }
    PromptsView.-has-result #prompt-form { max-height: 50%; }
    PromptsView #prompt-messages { display: none; }
    PromptsView.-has-result #prompt-messages { display: block; }
    PromptsView .prompt-head { height: auto; }
    PromptsView .arg-label { height: auto; margin-top: 1; }
    PromptsView .arg-label.required { text-style: bold; }
    PromptsView CompletionInput { border: none; height: 1; padding: 0 1; background: $boost; }
    PromptsView CompletionInput:focus { border: none; background: $primary 20%; }
    PromptsView CompletionInput.-missing { background: $error 30%; }
    PromptsView .prompt-get { margin-top: 1; }
    PromptsView #prompt-status { height: auto; max-height: 4; padding: 0 1; background: $panel; }
    PromptsView #prompt-status.ok { background: $success 20%; }
    PromptsView #prompt-status.error { background: $error 30%; }
    PromptsView #prompt-status.pending { background: $primary 20%; }
    PromptsView #prompts-hint { height: 1; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.prompt_list = PromptList(id="prompt-list")
        self.form = PromptForm(id="prompt-form")
        self.status = Static("", id="prompt-status", markup=False)
        self.messages = PromptMessages(id="prompt-messages")
        self.current: dict[str, Any] | None = None  # the prompt whose form is shown
        self.drafts: dict[str, dict[str, str]] = {}  # prompt name -> argument -> value
        self.getting: str | None = None  # the prompt being got
        self.get_pending: Any = None  # its PendingRequest, once sent
        self.recorded: dict[str, Any] = {}  # a recording's prompts/get results, by prompt name
        self._listed = False  # a list arrived (ListFetched or our own fetch)
        self._fetching: Any = None  # the session whose list is being fetched

    def compose(self) -> ComposeResult:
        with Horizontal(id="prompts-body"):
            yield self.prompt_list
            with Vertical(id="prompt-detail"):
                yield self.form
                yield self.status
                yield self.messages
        yield Static(hint_text({}, HINT), id="prompts-hint", markup=False)

    async def on_mount(self) -> None:
        self.status.display = False
        await self._show_form(None)
        self._apply_session()

    def first_focus(self) -> Widget | None:
        return self.prompt_list.option_list

    def on_descendant_focus(self, event: Any) -> None:
        """The hint line follows the focus: the fields' keys, the messages' keys, else the view's."""
        widget = event.widget
        if isinstance(widget, CompletionInput):
            hint = FIELD_HINT if widget.usable_session() is not None or self._live() is None else NO_COMPLETIONS_HINT
        elif widget is self.messages or self.messages in widget.ancestors:
            hint = MESSAGES_HINT
        else:
            hint = HINT
        self._hint = hint
        self._show_hint()

    def on_resize(self) -> None:
        self._show_hint()

    def _show_hint(self) -> None:
        line = self.query_one("#prompts-hint", Static)
        width = max(0, line.size.width - 2) or max(0, self.size.width - 2)  # less its padding
        line.update(hint_text(getattr(self.app, "keymap", None) or {}, getattr(self, "_hint", HINT), width))

    # -- the session ---------------------------------------------------------
    def set_session(self, session: McpSession | None, facts: Any, read_only: bool = False) -> None:
        changed = session is not self.session
        super().set_session(session, facts, read_only)
        if self.is_mounted:
            self._apply_session(changed)

    def _apply_session(self, changed: bool = True) -> None:
        """Follow the session; called again for the same session (e.g. after a tools refetch),
        it leaves the list and its marks alone."""
        session = self.session
        if session is not None and not changed and (self._listed or self._fetching is session):
            return
        if changed:
            self.prompt_list.clear_marks()  # a new session's first list is a new baseline
        if session is None:
            if self.read_only:
                self._show_recorded()
            else:
                self.prompt_list.set_note("Not connected: the list is as it was last seen.")
            return
        if not session.supports("prompts"):
            self.prompt_list.set_prompts([])
            self.prompt_list.set_note("The server declares no prompts capability.")
            return
        self.prompt_list.set_note("")
        items = session.lists.get("prompts")
        if items is not None:
            self._listed = True
            self.prompt_list.set_prompts(items, None)
        elif self._fetching is not session:
            self._listed = False
            self._fetching = session
            self.prompt_list.set_note("Listing prompts…")
            self._fetch(session)

    def _show_recorded(self) -> None:
        """A recording: the prompts as listed in it, and its prompts/get results (nothing is sent)."""
        listed, self.recorded = recorded_prompts(self.store)
        if listed is None:
            self.prompt_list.set_note("A read-only recording: no prompts/list was recorded.")
            return
        self._listed = True
        self.prompt_list.set_prompts(listed)
        self.prompt_list.set_note("A read-only recording: the prompts as recorded; nothing is sent.")

    def on_show(self) -> None:
        if self.read_only and not self._listed:  # the recording may have finished loading since
            self._show_recorded()

    @work(group="prompts-list", exclusive=True, exit_on_error=False)
    async def _fetch(self, session: McpSession) -> None:
        try:
            items = await session.list_all("prompts")
        except InspectorError as exc:
            self.post_message(PromptsListed(session, None, f"prompts/list failed: {exc}"))
            return
        self.post_message(PromptsListed(session, list(items)))

    def on_prompts_listed(self, message: PromptsListed) -> None:
        if self._fetching is message.session:
            self._fetching = None
        if message.session is not self.session:
            return  # an older session's list
        if message.error:
            self.prompt_list.set_note(message.error)
        elif not self._listed and message.items is not None:
            self._listed = True
            self.prompt_list.set_note("")
            self.prompt_list.set_prompts(message.items)
        elif self.prompt_list.note == "Listing prompts…":
            self.prompt_list.set_note("")

    def list_fetched(self, event: Any) -> None:
        if getattr(event, "kind", None) != "prompts":
            return
        first = not self._listed or event.cause == "initial"
        self._listed = True
        self.prompt_list.set_prompts(event.items, None if first else event.diff)
        self.prompt_list.set_note(f"prompts/list: {event.error}" if event.error else "")
        if self.current is not None:  # the shown prompt may have changed or gone
            fresh = next(
                (p for p in event.items if isinstance(p, dict) and p.get("name") == self.current.get("name")), None
            )
            if fresh != self.current:
                self.call_later(self._show_form, fresh)

    # -- the form ----------------------------------------------------------------
    @on(PromptList.Highlighted)
    async def _highlighted(self, event: PromptList.Highlighted) -> None:
        event.stop()
        if event.prompt != self.current or event.prompt is None:
            await self._show_form(event.prompt)

    @on(PromptList.Chosen)
    async def _chosen(self, event: PromptList.Chosen) -> None:
        event.stop()
        if event.prompt != self.current:
            await self._show_form(event.prompt)
        fields = self.fields()
        (fields[0] if fields else self.form.query_one(".prompt-get", Button)).focus()

    async def _show_form(self, prompt: dict[str, Any] | None) -> None:
        self.current = prompt
        form = self.form
        await form.remove_children()
        if prompt is None:
            await form.mount(
                Static(
                    Text("No prompt selected." if self.prompt_list.prompts else "No prompts.", style="dim"),
                    classes="prompt-head",
                )
            )
            return
        name = str(prompt.get("name", ""))
        draft = self.drafts.setdefault(name, {})
        head = Text()
        head.append(shorten(prompt_title(prompt), NAME_CHARS), style="bold")
        if prompt_title(prompt) != clean(name):
            head.append(f"  {shorten(name, NAME_CHARS)}", style="dim")
        if prompt.get("icons"):
            head.append("  ◆ icons", style="dim")
        if isinstance(prompt.get("description"), str):
            head.append("\n" + shorten(prompt["description"], DESCRIPTION_CHARS))
        widgets: list[Widget] = [Static(head, classes="prompt-head")]
        arguments = prompt_arguments(prompt)
        if not arguments:
            widgets.append(Static(Text("This prompt takes no arguments.", style="dim"), classes="arg-label"))
        elif len(arguments) > MAX_FIELDS:
            left_out = arguments[MAX_FIELDS:]
            required = [a["name"] for a in left_out if a.get("required") is True]
            note = (
                f"This prompt declares {len(arguments):,} arguments: the form has fields for the first {MAX_FIELDS}; "
                "the others are not sent (the CLI's get takes them all as k=v)."
            )
            if required:
                note += f" Required among them: {clean(', '.join(required[:10]))}{' …' if len(required) > 10 else ''}."
            widgets.append(Static(Text(note, style="bold"), classes="arg-label"))
        ref = {"type": "ref/prompt", "name": name}
        for argument in arguments[:MAX_FIELDS]:
            arg_name = argument["name"]
            required = argument.get("required") is True
            label = Text()
            label.append(
                shorten(argument.get("title") if isinstance(argument.get("title"), str) else arg_name, NAME_CHARS)
            )
            if isinstance(argument.get("title"), str) and argument["title"] != arg_name:
                label.append(f" ({shorten(arg_name, NAME_CHARS)})", style="dim")
            label.append(" *required" if required else " optional", style="bold red" if required else "dim")
            if isinstance(argument.get("description"), str):
                label.append(f" — {shorten(argument['description'], DESCRIPTION_CHARS)}", style="dim")
            widgets.append(Static(label, classes="arg-label" + (" required" if required else "")))
            widgets.append(
                CompletionInput(
                    ref=ref,
                    argument=arg_name,
                    context=self.form_values,
                    session=self._live,
                    value=draft.get(arg_name, ""),
                    placeholder=shorten(arg_name, NAME_CHARS),
                    classes="prompt-arg",
                )
            )
        widgets.append(Button("Get prompt (ctrl+s)", classes="prompt-get", compact=True))
        await form.mount_all(widgets)

    def fields(self) -> list[CompletionInput]:
        return list(self.form.query(CompletionInput))

    def form_values(self) -> dict[str, str]:
        return {field.argument: field.value for field in self.fields()}

    def _live(self) -> Any | None:
        return None if self.read_only else self.session

    @on(Input.Changed, ".prompt-arg")
    def _arg_changed(self, event: Input.Changed) -> None:
        event.stop()
        field = event.input
        if isinstance(field, CompletionInput) and self.current is not None:
            self.drafts.setdefault(str(self.current.get("name")), {})[field.argument] = event.value
            if event.value:
                field.remove_class("-missing")

    @on(Input.Submitted, ".prompt-arg")
    def _arg_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field: the next field, or get the prompt from the last one."""
        event.stop()
        fields = self.fields()
        if event.input in fields and fields.index(event.input) < len(fields) - 1:
            fields[fields.index(event.input) + 1].focus()
        else:
            self.action_get_prompt()

    @on(Button.Pressed, ".prompt-get")
    def _get_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_get_prompt()

    # -- getting ------------------------------------------------------------------
    def action_get_prompt(self) -> None:
        prompt = self.current
        if prompt is None:
            self._status("Choose a prompt first.", "error")
            return
        name = str(prompt.get("name", ""))
        session = self._live()
        if session is None and self.read_only and name in self.recorded:
            self.add_class("-has-result")
            problems = self.messages.show_result(name, self.recorded[name])
            self._status(
                f"{'⚠' if problems else '✓'} {name} · the result as recorded (read-only)", "error" if problems else "ok"
            )
            return
        if session is None:
            self._status(
                f"Cannot get the prompt: this is a read-only recording (no prompts/get of {name} in it)."
                if self.read_only
                else "Cannot get the prompt: not connected.",
                "error",
            )
            return
        if self.getting is not None:
            self._status(f"Still getting {self.getting}…", "pending")
            return
        values = self.form_values()
        missing = [
            a["name"]
            for a in prompt_arguments(prompt)[:MAX_FIELDS]
            if a.get("required") is True and not values.get(a["name"])
        ]
        if missing:
            for field in self.fields():
                field.set_class(field.argument in missing, "-missing")
            self._status(
                f"Not sent: fill the required argument{'s' if len(missing) > 1 else ''} {', '.join(missing)}.", "error"
            )
            next(f for f in self.fields() if f.argument in missing).focus()
            return
        arguments = {k: v for k, v in values.items() if v}
        self.getting = name
        self._status(f"… getting {name} (ctrl+k cancels)", "pending")
        self.refresh_bindings()
        self._get(session, name, arguments)

    @work(group="prompts-get", exit_on_error=False)
    async def _get(self, session: McpSession, name: str, arguments: dict[str, str]) -> None:
        started = time.perf_counter()
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        try:
            self.get_pending = await session.begin_request("prompts/get", params)
            result = await session.finish_request(self.get_pending)
        except InspectorError as exc:
            self.post_message(PromptFailed(name, exc, (time.perf_counter() - started) * 1000))
            return
        except Exception as exc:  # noqa: BLE001 - a broken session must not crash the view
            self.post_message(PromptFailed(name, exc, (time.perf_counter() - started) * 1000))
            return
        self.post_message(PromptGot(name, arguments, result, (time.perf_counter() - started) * 1000))

    def _got(self) -> None:
        self.getting = self.get_pending = None
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_get":
            return self.get_pending is not None and not self.get_pending.done
        return True

    def action_cancel_get(self) -> None:
        pending = self.get_pending
        if pending is not None and not pending.done:
            self.run_worker(pending.cancel("cancelled by the user"), group="prompts-cancel", exit_on_error=False)

    def on_prompt_got(self, message: PromptGot) -> None:
        self._got()
        self.add_class("-has-result")
        problems = self.messages.show_result(message.name, message.result)
        count = len(self.messages.messages)
        took = self._took(message.elapsed_ms)
        if problems:
            self._status(f"⚠ {message.name}: malformed result ({'; '.join(problems)}){took}", "error")
        else:
            self._status(f"✓ {message.name} · {count} message{'s' if count != 1 else ''}{took}", "ok")
        self.messages.focus()

    def on_prompt_failed(self, message: PromptFailed) -> None:
        self._got()
        self.add_class("-has-result")
        error = message.error
        took = self._took(message.elapsed_ms, " · after ")
        if isinstance(error, RpcError):
            label = ERROR_NAMES.get(error.code)
            self._status(
                f"✖ {message.name}: JSON-RPC error {error.code}{f' ({label})' if label else ''}: {error.message}{took}",
                "error",
            )
            lines = Text("The server refused prompts/get (an error response).", style="dim")
            meaning = explain_error(error.code, error.message, error.data)
            if meaning:
                lines.append("\n" + meaning)
            if error.data is not None:
                lines.append("\ndata: " + json.dumps(error.data, ensure_ascii=False)[:2000])
            self.messages.show_text(lines)
        elif isinstance(error, RequestCancelled):
            self._status(f"⊘ {message.name}: cancelled{took}", "error")
            self.messages.show_text(Text(f"{error.reason} (notifications/cancelled was sent)"))
        else:
            self._status(f"✖ {message.name}: {type(error).__name__}: {error}{took}", "error")
            self.messages.show_text(Text(str(error)))

    def _took(self, elapsed_ms: float, prefix: str = " · ") -> str:
        if getattr(self.app, "snapshot_mode", False):
            return ""  # timings vary from run to run
        return f"{prefix}{elapsed_ms:,.0f} ms"

    def _status(self, text: str, kind: str) -> None:
        self.status.update(Text(text))
        self.status.set_classes(kind)
        self.status.display = True

    # -- keys ---------------------------------------------------------------------
    def action_back_to_list(self) -> None:
        self.prompt_list.option_list.focus()

    def action_filter(self) -> None:
        self.prompt_list.filter_input.focus()
