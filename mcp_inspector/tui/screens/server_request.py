"""Answering a server->client request (sampling/createMessage, elicitation/create) by hand,
for a legacy server->client request and for an MRTR input round alike.

* form-mode ``elicitation/create``: the ``ElicitationForm`` for its ``requestedSchema``
  (defaults pre-filled, checked before it is sent); a schema MCP does not allow for
  elicitation falls back to a raw JSON answer, with a note saying why;
* URL-mode ``elicitation/create``: the full URL and its host, opened in the browser only
  when the user asks (never fetched by the inspector);
* ``sampling/createMessage``: the request as text, the assistant's reply typed by hand.

Keys (ids for ``[keymap]``): ctrl+s accept, ctrl+r decline, escape cancel, ctrl+o open the URL."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...core.protocol.errors import RpcError
from ...core.protocol.json_text import JsonTextError, loads_strict, parse_frame
from ...core.protocol.jsonrpc import Kind
from ...core.schema.elicitation_form import ElicitationSchemaError, elicit_result
from ...core.traffic.entry import TrafficEntry
from ...core.traffic.store import TrafficStore
from ..keymap import display_key
from ..traffic_text import clean, mrtr_round
from ..widgets.elicitation_form import ElicitationForm

PARAMS_PARSE_LIMIT = 64 * 1024


@dataclass
class Answer:
    action: str  # accept | decline | cancel
    text: str = ""  # the raw answer typed (sampling's reply text, an elicitation's JSON content)
    result: dict | None = None  # a ready ElicitResult (the form, URL mode): sent as it is


def describe_request(method: str, params: dict | None) -> str:
    params = params or {}
    if method == "sampling/createMessage":
        lines = []
        if params.get("systemPrompt"):
            lines.append(f"System prompt: {params['systemPrompt']}")
        for message in params.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            text = content.get("text") if isinstance(content, dict) else json.dumps(content)
            lines.append(f"{message.get('role', '?') if isinstance(message, dict) else '?'}: {text}")
        lines.append(f"maxTokens: {params.get('maxTokens')}")
        return "\n".join(lines)
    if method == "elicitation/create":
        schema = params.get("requestedSchema") or {}
        return f"{params.get('message', '')}\n\nRequested schema:\n{json.dumps(schema, indent=2)}"
    return json.dumps(params, indent=2)


def elicitation_template(params: dict | None) -> str:
    """A JSON object with each requested field, pre-filled with defaults, to edit."""
    schema = (params or {}).get("requestedSchema") or {}
    values: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict):
            continue
        if "default" in prop:
            values[name] = prop["default"]
        elif prop.get("enum"):
            values[name] = prop["enum"][0]
        elif prop.get("type") in ("integer", "number"):
            values[name] = 0
        elif prop.get("type") == "boolean":
            values[name] = False
        else:
            values[name] = ""
    return json.dumps(values)


def build_reply(method: str, answer: Answer) -> dict:
    """The JSON-RPC result for an answer; raises RpcError for a refused sampling request."""
    if method == "elicitation/create":
        if answer.result is not None:
            return answer.result
        if answer.action != "accept":
            return {"action": answer.action}
        try:
            content = loads_strict(answer.text or "{}")
        except JsonTextError as exc:
            raise RpcError(-32603, f"the user's answer was not valid JSON: {exc}") from None
        return {"action": "accept", "content": content}
    if answer.action != "accept":
        raise RpcError(-1, f"the user {'declined' if answer.action == 'decline' else 'cancelled'} the {method} request")
    return {"role": "assistant", "content": {"type": "text", "text": answer.text},
            "model": "mcp-inspector (typed by a person)", "stopReason": "endTurn"}


def request_context(entry: TrafficEntry | None, store: TrafficStore) -> str | None:
    """Which request of which call asks (MRTR: "round 2 of tools/call echo (#12)"), or None for a
    legacy server->client request, which needs no more than its method."""
    if entry is None or entry.kind is not Kind.RESPONSE or entry.reply_to is None:
        return None
    request = store.get(entry.reply_to)
    if request is None:
        return None
    found = mrtr_round(request)
    first_seq, number = (found[0], found[1] + 1) if found is not None else (request.seq, 1)
    first = store.get(first_seq) or request
    what = clean(first.method or "the request")
    if len(first.raw) <= PARAMS_PARSE_LIMIT:
        try:
            message, _ = parse_frame(first.raw)
        except JsonTextError:
            message = None
        params = message.get("params") if isinstance(message, dict) else None
        name = params.get("name") or params.get("uri") if isinstance(params, dict) else None
        if isinstance(name, str):
            what += f" {clean(name[:80])}"
    return f"Input round {number} of {what} (#{first_seq}): the server needs this answer before it can reply."


def elicitation_mode(params: dict | None) -> str:
    """``form`` (also when ``mode`` is absent, as before 2025-11-25), ``url``, or the unknown mode as sent."""
    mode = (params or {}).get("mode", "form")
    return mode if isinstance(mode, str) else repr(mode)


@dataclass
class UrlFacts:
    """What the user should know about a URL before opening it."""

    url: str  # as sent, made safe for the terminal
    host: str  # the host it really goes to ("" when there is none)
    can_open: bool
    warnings: list[str]


def url_facts(url: Any) -> UrlFacts:
    """The host of a URL-mode elicitation's ``url`` and what is odd about it (the inspector never fetches it)."""
    if not isinstance(url, str) or not url:
        return UrlFacts("", "", False, ["the server sent no URL"])
    shown = clean(url)
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError as exc:
        return UrlFacts(shown, "", False, [f"not a valid URL: {exc}"])
    warnings: list[str] = []
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not host:
        warnings.append(f"not a web address ({clean(scheme) or 'no scheme'}): it will not be opened")
        return UrlFacts(shown, clean(host), False, warnings)
    if scheme == "http":
        warnings.append("http, not https: the page is not encrypted")
    if "@" in parts.netloc:
        warnings.append(f"the address has a user part before the host: it really goes to {clean(host)}")
    if not host.isascii():
        try:
            ascii_host = host.encode("idna").decode("ascii")
        except UnicodeError:
            ascii_host = "(not a valid international name)"
        warnings.append(f"an international host name, spelled {ascii_host} in ASCII: check it is the site you expect")
    if url != shown or any(ch.isspace() for ch in url):
        warnings.append("the URL holds spaces or control characters (shown as spaces): it will not be opened")
    where = clean(f"[{host}]" if ":" in host else host) + (f":{port}" if port else "")
    return UrlFacts(shown, where, url == shown and not any(ch.isspace() for ch in url), warnings)


class ServerRequestScreen(ModalScreen[Answer]):
    DEFAULT_CSS = """
    ServerRequestScreen { align: center middle; }
    ServerRequestScreen > #request-box { width: 90; max-width: 95%; height: auto; max-height: 90%; border: thick $warning; background: $surface; }
    ServerRequestScreen #request-title { background: $warning 30%; padding: 0 1; text-style: bold; }
    ServerRequestScreen #request-context { padding: 0 1; color: $text-muted; }
    ServerRequestScreen #request-note { padding: 0 1; color: $text-warning; text-wrap: nowrap; text-overflow: ellipsis; }
    ServerRequestScreen #request-body { height: auto; max-height: 40vh; padding: 0 1; }
    ServerRequestScreen #request-buttons { height: auto; align-horizontal: right; }
    ServerRequestScreen #request-buttons Button { margin: 0 1; }
    ServerRequestScreen #request-keys { padding: 0 1; color: $text-muted; text-align: right; }
    ServerRequestScreen ElicitationForm { height: auto; padding: 0 1; }
    ServerRequestScreen #url-body { height: auto; padding: 0 1; }
    ServerRequestScreen #url-body > Static { height: auto; }
    ServerRequestScreen #url-message { margin-bottom: 1; }
    ServerRequestScreen #url-host { text-style: bold; color: $text-accent; }
    ServerRequestScreen #url-full { background: $boost; }
    ServerRequestScreen .url-warning { color: $text-warning; }
    ServerRequestScreen #url-opened { color: $text-success; }
    ServerRequestScreen .url-id { color: $text-muted; }
    """
    BINDINGS = [
        Binding("ctrl+s", "answer('accept')", "Accept", id="server-request.accept"),
        Binding("ctrl+r", "answer('decline')", "Decline", id="server-request.decline"),
        Binding("escape", "answer('cancel')", "Cancel", id="cancel-server-request"),
        Binding("ctrl+o", "open_url", "Open URL", id="server-request.open-url"),
    ]

    def __init__(self, method: str, params: dict | None, context: str | None = None) -> None:
        super().__init__()
        self.method = method
        self.params = params if isinstance(params, dict) else {}
        self.context = context  # which round of which request asks (MRTR), shown under the title
        self.form: ElicitationForm | None = None
        self.url: UrlFacts | None = None
        self.note: str | None = None  # why the answer is raw JSON rather than a form
        self.opened = False  # the user opened the URL
        self._done = False
        if method == "elicitation/create":
            mode = elicitation_mode(self.params)
            if mode == "url":
                self.url = url_facts(self.params.get("url"))
            elif mode != "form":
                self.note = f"Unknown elicitation mode {clean(mode)[:40]!r}, answer as JSON."
            else:
                message = self.params.get("message")
                try:
                    self.form = ElicitationForm(message if isinstance(message, str) else "", self.params.get("requestedSchema"),
                                                id="elicitation-form")
                except ElicitationSchemaError as exc:
                    self.note = clean(f"No form for this schema, answer as JSON: {exc}")
                except Exception as exc:  # a form-engine bug must not lose the question
                    self.note = clean(f"The form failed ({exc.__class__.__name__}: {exc}), answer as JSON.")

    @property
    def kind(self) -> str:
        """``form``, ``url`` or ``raw`` (sampling, or an elicitation the form cannot take)."""
        return "form" if self.form is not None else "url" if self.url is not None else "raw"

    def compose(self) -> ComposeResult:
        with Vertical(id="request-box"):
            yield Static(f"The server asks: {self.method}" + (" (URL)" if self.url else ""), id="request-title", markup=False)
            if self.context:
                yield Static(self.context, id="request-context", markup=False)
            if self.form is not None:
                yield self.form
            elif self.url is not None:
                yield from self._compose_url(self.url)
            else:
                yield from self._compose_raw()
            yield Static(self._key_hint(), id="request-keys", markup=False)

    def _compose_raw(self) -> ComposeResult:
        elicitation = self.method == "elicitation/create"
        if self.note:
            note = Static(self.note, id="request-note", markup=False)
            note.tooltip = self.note
            yield note
        with VerticalScroll(id="request-body"):
            yield Static(describe_request(self.method, self.params), markup=False)
        yield Input(
            value=elicitation_template(self.params) if elicitation else "",
            placeholder="the reply content as JSON" if elicitation else "the assistant's reply text",
            id="request-text",
        )
        with Horizontal(id="request-buttons"):
            yield Button("Accept", variant="success", id="accept")
            yield Button("Decline", variant="warning", id="decline")
            yield Button("Cancel", id="cancel")

    def _compose_url(self, facts: UrlFacts) -> ComposeResult:
        message = self.params.get("message")
        with VerticalScroll(id="url-body"):
            if isinstance(message, str) and message:
                yield Static(message, id="url-message", markup=False)
            yield Static(f"Opens a page on {facts.host or '(no host)'}", id="url-host", markup=False)
            yield Static(facts.url or "(no URL)", id="url-full", markup=False)
            for warning in facts.warnings:
                yield Static(f"⚠ {warning}", classes="url-warning", markup=False)
            elicitation_id = self.params.get("elicitationId")
            if isinstance(elicitation_id, str):
                yield Static(f"elicitationId {clean(elicitation_id[:80])}", classes="url-id", markup=False)
            yield Static("Nothing is fetched: the page opens in your browser only if you ask.", id="url-opened", markup=False)
        with Horizontal(id="request-buttons"):
            yield Button("Open in browser", id="open-url", disabled=not facts.can_open, compact=True)
            yield Button("Cancel", id="cancel", compact=True)
            yield Button("Decline", id="decline", compact=True)
            yield Button("Accept", variant="primary", id="accept", compact=True)

    def _key_hint(self) -> str:
        keymap = getattr(self.app, "keymap", None) if self.is_attached else None
        keymap = keymap if isinstance(keymap, dict) else {}
        def key(binding_id: str, default: str) -> str:
            return display_key(keymap.get(binding_id, default)).split(",")[0]
        parts = [f"{key('server-request.accept', 'ctrl+s')} accept", f"{key('server-request.decline', 'ctrl+r')} decline",
                 f"{key('cancel-server-request', 'escape')} cancel"]
        if self.form is not None:
            parts.insert(0, "tab next field")
        if self.url is not None and self.url.can_open:
            parts.insert(0, f"{key('server-request.open-url', 'ctrl+o')} open in browser")
        return " · ".join(parts)

    def on_mount(self) -> None:
        self.query_one("#request-keys", Static).update(self._key_hint())
        self.call_after_refresh(self._fit)
        if self.form is not None:
            self.call_after_refresh(self._focus_first_field)
        elif self.url is not None:
            self.query_one("#open-url" if self.url.can_open else "#decline", Button).focus()
        else:
            self.query_one("#request-text", Input).focus()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _scroller(self) -> VerticalScroll | None:
        """The part that scrolls: the form's fields, the URL's details or the raw request."""
        if self.form is not None:
            return self.form.query_one(VerticalScroll)
        found = self.query("#url-body, #request-body")
        return found.first(VerticalScroll) if found else None

    def _fit(self) -> None:
        """Give the scrolling part what the box has left once everything else is shown, so the
        buttons stay on screen whatever the terminal size (a container of height auto does not
        shrink its children to its max-height)."""
        body = self._scroller()
        if body is None or not self.is_attached:
            return
        box = self.query_one("#request-box", Vertical)
        limit = int(self.size.height * 0.9) - box.styles.gutter.height

        def rows(widget) -> int:
            height = widget.outer_size.height + widget.styles.margin.top + widget.styles.margin.bottom
            return max(height, 1) if widget.id == "elicitation-error" else height  # room for the reason

        used = 0
        for child in box.children:
            if child is self.form and self.form is not None:
                used += child.styles.gutter.height + sum(rows(part) for part in child.children if part is not body)
            elif child is not body:
                used += rows(child)
        room = max(3, limit - used)
        if self.kind == "raw":
            room = min(room, max(3, int(self.size.height * 0.4)))  # as before: 40vh at most
        if body.styles.max_height is None or body.styles.max_height.value != room:
            body.styles.max_height = room

    def _focus_first_field(self) -> None:
        if self.form is None:
            return
        for editor in self.form.body._editors.values():
            if editor.focusable:
                editor.focus()
                return
        self.query_one("#elicitation-accept", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_url":
            return self.url is not None and self.url.can_open
        return True

    @on(Input.Submitted, "#request-text")
    def _submitted(self) -> None:
        self.action_answer("accept")

    @on(Button.Pressed, "#accept, #decline, #cancel")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "cancel")

    @on(Button.Pressed, "#open-url")
    def _open_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_open_url()

    @on(ElicitationForm.Answered)
    def _form_answered(self, event: ElicitationForm.Answered) -> None:
        event.stop()
        self._finish(Answer(event.result["action"], result=event.result))

    def action_answer(self, action: str) -> None:
        if self.form is not None:
            if action == "accept":
                if not self.form.accept():  # posts Answered when valid, else shows why on the fields
                    invalid = self.form.first_invalid()
                    if invalid is not None and invalid.focusable:
                        invalid.focus()
            else:
                self.form.refuse(action)
        elif self.url is not None:
            self._finish(Answer(action, result=elicit_result(action) if action != "accept" else {"action": "accept"}))
        else:
            self._finish(Answer(action, self.query_one("#request-text", Input).value))

    def action_open_url(self) -> None:
        """Open the URL in the browser: only ever on the user's explicit request."""
        if self.url is None or not self.url.can_open:
            return
        self.app.open_url(self.params["url"])
        self.opened = True
        self.query_one("#url-opened", Static).update(f"Opened in your browser: {self.url.host}. Accept once you are done there.")
        self.query_one("#accept", Button).focus()

    def _finish(self, answer: Answer) -> None:
        if self._done:
            return
        self._done = True
        self.dismiss(answer)


def client_handlers(app: Callable[[], Any], store: TrafficStore, cwd: Callable[[], str]) -> dict[str, Any]:
    """The handlers for what a server asks the client (legacy server->client requests, and MRTR
    input requests, which the session answers through the same handlers): roots/list from the
    working directory; sampling and elicitation answered by hand in ``ServerRequestScreen``."""

    async def answer_roots(params: dict | None, entry: TrafficEntry) -> dict:
        root = Path(cwd()).resolve()
        return {"roots": [{"uri": root.as_uri(), "name": root.name or str(root)}]}

    def by_hand(method: str):
        async def handler(params: dict | None, entry: TrafficEntry) -> dict:
            the_app = app()
            future: asyncio.Future = asyncio.get_running_loop().create_future()
            screen = ServerRequestScreen(method, params, context=request_context(entry, store))

            def answered(answer) -> None:
                if not future.done():
                    future.set_result(answer)

            the_app.push_screen(screen, callback=answered)
            try:
                answer = await future
            except BaseException:
                # the server cancelled or went away: take the question off the screen
                if screen.is_attached and the_app.screen is screen:
                    the_app.pop_screen()
                raise
            return build_reply(method, answer)

        return handler

    elicit = by_hand("elicitation/create")
    elicit.mcp_capability = {"form": {}, "url": {}}  # the modal shows URL mode too: declare it (both eras)
    return {
        "roots/list": answer_roots,
        "sampling/createMessage": by_hand("sampling/createMessage"),
        "elicitation/create": elicit,
    }
