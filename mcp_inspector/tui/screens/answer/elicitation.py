"""Form-mode ``elicitation/create``: the ``ElicitationForm`` for its ``requestedSchema`` (defaults
pre-filled, checked before it is sent); a schema MCP does not allow for elicitation, or an
unknown mode, falls back to a raw JSON answer with a one-line note saying why."""

from __future__ import annotations

import json
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Static

from ....core.schema.elicitation_form import ElicitationSchemaError
from ...text.traffic_text import clean
from ...widgets.form.elicitation_form import ElicitationForm
from .base import Answer, ServerRequestScreen


def describe_elicitation(params: dict | None) -> str:
    params = params or {}
    schema = params.get("requestedSchema") or {}
    return f"{params.get('message', '')}\n\nRequested schema:\n{json.dumps(schema, indent=2)}"


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


def make_form(params: dict) -> tuple[ElicitationForm | None, str | None]:
    """The form for a form-mode request, or None and why it is answered as JSON instead."""
    message = params.get("message")
    try:
        return ElicitationForm(
            message if isinstance(message, str) else "", params.get("requestedSchema"), id="elicitation-form"
        ), None
    except ElicitationSchemaError as exc:
        return None, clean(f"No form for this schema, answer as JSON: {exc}")
    except Exception as exc:  # a form-engine bug must not lose the question
        return None, clean(f"The form failed ({exc.__class__.__name__}: {exc}), answer as JSON.")


class FormScreen(ServerRequestScreen):
    """Form-mode elicitation in the ElicitationForm: accept only with a valid answer."""

    DEFAULT_CSS = """
    FormScreen ElicitationForm { height: auto; padding: 0 1; }
    """
    kind = "form"

    def __init__(
        self, method: str, params: dict | None, context: str | None = None, form: ElicitationForm | None = None
    ) -> None:
        super().__init__(method, params, context)
        self.form = form if form is not None else make_form(self.params)[0]

    def compose_body(self) -> ComposeResult:
        yield self.form

    def hints(self) -> list[str]:
        return ["tab next field"]

    def scroller(self) -> VerticalScroll | None:
        return self.form.query_one(VerticalScroll) if self.form is not None and self.form.is_mounted else None

    def focus_first(self) -> None:
        for editor in self.form.body.editors.values():
            if editor.focusable:
                editor.focus()
                return
        self.query_one("#elicitation-accept", Button).focus()

    def answer(self, action: str) -> None:
        if action == "accept":
            if not self.form.accept():  # posts Answered when valid, else shows why on the fields
                invalid = self.form.first_invalid()
                if invalid is not None and invalid.focusable:
                    invalid.focus()
        else:
            self.form.refuse(action)

    @on(ElicitationForm.Answered)
    def _form_answered(self, event: ElicitationForm.Answered) -> None:
        event.stop()
        self.finish(Answer(event.result["action"], result=event.result))


class RawScreen(ServerRequestScreen):
    """An elicitation answered as raw JSON (a schema the form cannot take, an unknown mode),
    or any other request the inspector has no screen for."""

    kind = "raw"
    body_share = 0.4

    def __init__(self, method: str, params: dict | None, context: str | None = None, note: str | None = None) -> None:
        super().__init__(method, params, context)
        self.note = note  # why the answer is raw JSON rather than a form

    def compose_body(self) -> ComposeResult:
        elicitation = self.method == "elicitation/create"
        if self.note:
            note = Static(self.note, id="request-note", markup=False)
            note.tooltip = self.note
            yield note
        with VerticalScroll(id="request-body"):
            text = describe_elicitation(self.params) if elicitation else json.dumps(self.params, indent=2)
            yield Static(text, markup=False)
        yield Input(
            value=elicitation_template(self.params) if elicitation else "",
            placeholder="the reply content as JSON" if elicitation else "the reply as JSON",
            id="request-text",
        )
        with Horizontal(id="request-buttons"):
            yield Button("Accept", variant="success", id="accept", compact=True)
            yield Button("Decline", variant="warning", id="decline", compact=True)
            yield Button("Cancel", id="cancel", compact=True)

    def focus_first(self) -> None:
        self.query_one("#request-text", Input).focus()

    def answer(self, action: str) -> None:
        self.finish(Answer(action, self.query_one("#request-text", Input).value))

    @on(Input.Submitted, "#request-text")
    def _submitted(self) -> None:
        self.answer("accept")

    @on(Button.Pressed, "#accept, #decline, #cancel")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.answer(event.button.id or "cancel")
