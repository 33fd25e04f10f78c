"""Answering a server->client request (sampling/createMessage, elicitation/create)
by hand: show what the server asks, then accept with text, decline or cancel.
Deliberately simple; a later issue builds full forms for these."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...core.protocol.errors import RpcError
from ...core.protocol.json_text import JsonTextError, loads_strict


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


class ServerRequestScreen(ModalScreen[Answer]):
    DEFAULT_CSS = """
    ServerRequestScreen { align: center middle; }
    ServerRequestScreen > Vertical { width: 90; max-width: 95%; height: auto; max-height: 90%; border: thick $warning; background: $surface; }
    ServerRequestScreen #request-title { background: $warning 30%; padding: 0 1; text-style: bold; }
    ServerRequestScreen VerticalScroll { height: auto; max-height: 20; padding: 0 1; }
    ServerRequestScreen Horizontal { height: auto; align-horizontal: right; }
    ServerRequestScreen Button { margin: 0 1; }
    """
    BINDINGS = [Binding("escape", "answer('cancel')", "Cancel", id="cancel-server-request")]

    def __init__(self, method: str, params: dict | None) -> None:
        super().__init__()
        self.method = method
        self.params = params

    def compose(self) -> ComposeResult:
        elicitation = self.method == "elicitation/create"
        with Vertical():
            yield Static(f"The server asks: {self.method}", id="request-title", markup=False)
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
