"""``sampling/createMessage`` answered by a person: the request (messages by role with every
content type, system prompt, limits, model preferences, the tools offered) above a multi-line
reply editor: a text reply, or a ``tool_use`` block for one of the offered tools (its input as
JSON), with the model name and the stop reason. "Always answer like this" saves the text reply
as a rule for this server (core/config/sampling_rules.py), so the next request is answered
without asking. Decline and cancel answer with a JSON-RPC error (sampling has no "declined"
result)."""

from __future__ import annotations

import secrets
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Checkbox, Input, Select, Static, TextArea

from ....core.base.json_text import JsonTextError, loads_strict
from ....core.config.sampling_rules import STOP_REASONS
from ...widgets.toggles import StateCheckbox
from .base import Answer, ServerRequestScreen
from .sampling_text import describe_limits, describe_message, describe_preferences, describe_tools, tool_names

DEFAULT_MODEL = "mcp-inspector (typed by a person)"


class SamplingScreen(ServerRequestScreen):
    DEFAULT_CSS = """
    SamplingScreen #request-body > Static { height: auto; }
    SamplingScreen .sampling-role { text-style: bold; color: $text-accent; }
    SamplingScreen .sampling-role-assistant { color: $text-success; }
    SamplingScreen .sampling-meta { color: $text-muted; }
    SamplingScreen #sampling-options { height: 1; padding: 0 1; }
    SamplingScreen #sampling-options > Static { width: auto; padding: 0 1 0 0; color: $text-muted; }
    SamplingScreen #sampling-kind { width: 13; }
    SamplingScreen #sampling-tool { width: 1fr; max-width: 24; }
    SamplingScreen #sampling-stop { width: 15; }
    SamplingScreen #sampling-model { width: 1fr; min-width: 12; }
    SamplingScreen #sampling-reply { height: 6; margin: 0 1; }
    SamplingScreen #sampling-error { color: $text-error; padding: 0 1; height: auto; display: none; }
    SamplingScreen #sampling-error.has-error { display: block; }
    SamplingScreen #sampling-remember { height: 1; padding: 0 1; }
    SamplingScreen #sampling-remember Checkbox { width: auto; }
    SamplingScreen #sampling-match { width: 1fr; }
    SamplingScreen.-short #sampling-reply { height: 4; }
    """
    kind = "sampling"

    def __init__(self, method: str, params: dict | None, context: str | None = None, server: str | None = None) -> None:
        super().__init__(method, params, context)
        self.tools = tool_names(self.params)
        self.server = server  # the server's key: a rule is saved for it (None: no rules)
        self.remembered: dict[str, Any] | None = None  # the rule to save, once accepted

    def title_text(self) -> str:
        return "The server asks: sampling/createMessage (a message from your model)"

    def compose_body(self) -> ComposeResult:
        params = self.params
        with VerticalScroll(id="request-body"):
            if isinstance(params.get("systemPrompt"), str):
                yield Static("system prompt", classes="sampling-role")
                yield Static(params["systemPrompt"], markup=False)
            messages = params.get("messages")
            for message in messages if isinstance(messages, list) else []:
                role, lines = describe_message(message)
                yield Static(role, classes=f"sampling-role sampling-role-{role}", markup=False)
                yield Static("\n".join(lines), markup=False)
            yield Static(describe_limits(params), classes="sampling-meta", markup=False)
            preferences = describe_preferences(params.get("modelPreferences"))
            if preferences:
                yield Static(preferences, classes="sampling-meta", markup=False)
            tools = describe_tools(params)
            if tools:
                yield Static("\n".join(tools), classes="sampling-meta", id="sampling-tools", markup=False)
        yield TextArea("", id="sampling-reply", soft_wrap=True, tab_behavior="focus")
        with Horizontal(id="sampling-options"):
            yield Static("as")
            kinds = [("text", "text")] + ([("tool_use", "tool_use")] if self.tools else [])
            yield Select(kinds, value="text", allow_blank=False, compact=True, id="sampling-kind")
            if self.tools:
                yield Select(
                    [(name, name) for name in self.tools],
                    value=self.tools[0],
                    allow_blank=False,
                    compact=True,
                    id="sampling-tool",
                    disabled=True,
                )
            yield Static(" stop")
            yield Select(
                [(reason, reason) for reason in STOP_REASONS],
                value="endTurn",
                allow_blank=False,
                compact=True,
                id="sampling-stop",
            )
            yield Static(" model")
            yield Input(DEFAULT_MODEL, placeholder="model", compact=True, id="sampling-model")
        yield Static("", id="sampling-error", markup=False)
        with Horizontal(id="sampling-remember"):
            yield StateCheckbox(
                "Always answer this server like this", compact=True, id="sampling-always", disabled=self.server is None
            )
            yield Input(
                placeholder="only when the last user message holds… (optional)",
                compact=True,
                id="sampling-match",
                disabled=self.server is None,
            )
        with Horizontal(id="request-buttons"):
            yield Button("Cancel", id="cancel", compact=True)
            yield Button("Decline", id="decline", compact=True)
            yield Button("Send reply", variant="primary", id="accept", compact=True)

    def hints(self) -> list[str]:
        return ["tab next part"]

    def focus_first(self) -> None:
        self.query_one("#sampling-reply", TextArea).focus()

    def on_resize(self) -> None:
        self.set_class(self.size.height < 30, "-short")
        super().on_resize()

    # -- the reply ---------------------------------------------------------
    @on(Select.Changed, "#sampling-kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        tool_use = event.value == "tool_use"
        for tool in self.query("#sampling-tool").results(Select):
            tool.disabled = not tool_use
        self.query_one("#sampling-stop", Select).value = "toolUse" if tool_use else "endTurn"
        reply = self.query_one("#sampling-reply", TextArea)
        if tool_use and not reply.text.strip():
            reply.text = "{}"
        elif not tool_use and reply.text.strip() == "{}":
            reply.text = ""
        always = self.query_one("#sampling-always", Checkbox)
        always.disabled = tool_use or self.server is None  # a rule answers with text
        if tool_use:
            always.value = False

    def _error(self, text: str | None) -> None:
        label = self.query_one("#sampling-error", Static)
        label.update(text or "")
        label.set_class(bool(text), "has-error")

    def reply_result(self) -> dict[str, Any] | None:
        """The CreateMessageResult the editor holds, or None (with the reason shown)."""
        text = self.query_one("#sampling-reply", TextArea).text
        model = self.query_one("#sampling-model", Input).value.strip() or DEFAULT_MODEL
        stop = str(self.query_one("#sampling-stop", Select).value)
        if self.query_one("#sampling-kind", Select).value == "tool_use":
            try:
                arguments = loads_strict(text or "{}")
            except JsonTextError as exc:
                self._error(f"The tool's input is not valid JSON: {exc}")
                return None
            if not isinstance(arguments, dict):
                self._error("The tool's input must be a JSON object.")
                return None
            content = {
                "type": "tool_use",
                "id": f"toolu_{secrets.token_hex(8)}",
                "name": str(self.query_one("#sampling-tool", Select).value),
                "input": arguments,
            }
        else:
            content = {"type": "text", "text": text}
        self._error(None)
        return {"role": "assistant", "content": content, "model": model, "stopReason": stop}

    def answer(self, action: str) -> None:
        if action != "accept":
            self.finish(Answer(action))
            return
        result = self.reply_result()
        if result is None:
            self.query_one("#sampling-reply", TextArea).focus()
            return
        if self.query_one("#sampling-always", Checkbox).value and result["content"]["type"] == "text":
            match = self.query_one("#sampling-match", Input).value
            self.remembered = {
                "reply": result["content"]["text"],
                "match": match or None,
                "model": result["model"],
                "stopReason": result["stopReason"],
            }
        self.finish(Answer("accept", result["content"].get("text", ""), result=result))

    @on(Button.Pressed, "#accept, #decline, #cancel")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.answer(event.button.id or "cancel")
