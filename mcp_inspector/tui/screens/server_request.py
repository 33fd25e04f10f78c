"""Answering a server->client request (sampling/createMessage, elicitation/create)
by hand: show what the server asks, then accept with text, decline or cancel.
Deliberately simple; a later issue builds full forms for these."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...core.protocol.errors import RpcError
from ...core.protocol.json_text import JsonTextError, loads_strict, parse_frame
from ...core.protocol.jsonrpc import Kind
from ...core.traffic.entry import TrafficEntry
from ...core.traffic.store import TrafficStore
from ..traffic_text import clean, mrtr_round

PARAMS_PARSE_LIMIT = 64 * 1024


@dataclass
class Answer:
    action: str  # accept | decline | cancel
    text: str = ""


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


class ServerRequestScreen(ModalScreen[Answer]):
    DEFAULT_CSS = """
    ServerRequestScreen { align: center middle; }
    ServerRequestScreen > Vertical { width: 90; max-width: 95%; height: auto; max-height: 90%; border: thick $warning; background: $surface; }
    ServerRequestScreen #request-title { background: $warning 30%; padding: 0 1; text-style: bold; }
    ServerRequestScreen #request-context { padding: 0 1; color: $text-muted; }
    ServerRequestScreen VerticalScroll { height: auto; max-height: 40vh; padding: 0 1; }
    ServerRequestScreen Horizontal { height: auto; align-horizontal: right; }
    ServerRequestScreen Button { margin: 0 1; }
    """
    BINDINGS = [Binding("escape", "answer('cancel')", "Cancel", id="cancel-server-request")]

    def __init__(self, method: str, params: dict | None, context: str | None = None) -> None:
        super().__init__()
        self.method = method
        self.params = params
        self.context = context  # which round of which request asks (MRTR), shown under the title

    def compose(self) -> ComposeResult:
        elicitation = self.method == "elicitation/create"
        with Vertical():
            yield Static(f"The server asks: {self.method}", id="request-title", markup=False)
            if self.context:
                yield Static(self.context, id="request-context", markup=False)
            with VerticalScroll():
                yield Static(describe_request(self.method, self.params), markup=False)
            yield Input(
                value=elicitation_template(self.params) if elicitation else "",
                placeholder="the reply content as JSON" if elicitation else "the assistant's reply text",
                id="request-text",
            )
            with Horizontal():
                yield Button("Accept", variant="success", id="accept")
                yield Button("Decline", variant="warning", id="decline")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#request-text", Input).focus()

    @on(Input.Submitted, "#request-text")
    def _submitted(self) -> None:
        self.action_answer("accept")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id or "cancel")

    def action_answer(self, action: str) -> None:
        self.dismiss(Answer(action, self.query_one("#request-text", Input).value))


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

    return {
        "roots/list": answer_roots,
        "sampling/createMessage": by_hand("sampling/createMessage"),
        "elicitation/create": by_hand("elicitation/create"),
    }
