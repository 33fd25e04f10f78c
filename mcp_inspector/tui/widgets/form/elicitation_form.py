"""``ElicitationForm``: answer a server's ``elicitation/create`` with a form.

Shows the server's message, the form for its ``requestedSchema`` (the same ``FormBody``
as the tool composer), and Accept / Decline / Cancel. Posts ``ElicitationForm.Answered``
with a ready ``ElicitResult``; invalid input is refused with the reasons on the fields
(unlike tool calls, an elicitation answer must match the schema).

    form = ElicitationForm(params["message"], params["requestedSchema"])
    ...
    def on_elicitation_form_answered(self, event): reply(event.result)
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Static

from ....core.schema.elicitation_form import (
    build_elicitation_form,
    elicit_result,
    elicitation_content,
    elicitation_issues,
)
from ....core.schema.form import FormValueError, default_values
from .fields import FormBody


class ElicitationForm(Vertical):
    """The form for one elicitation request. Raises ElicitationSchemaError for a schema MCP does not allow."""

    DEFAULT_CSS = """
    ElicitationForm { height: auto; max-height: 100%; }
    ElicitationForm #elicitation-message { height: auto; margin-bottom: 1; }
    ElicitationForm VerticalScroll { height: auto; max-height: 30; }
    ElicitationForm #elicitation-error { color: $text-error; height: auto; display: none; }
    ElicitationForm #elicitation-error.has-error { display: block; }
    ElicitationForm #elicitation-buttons { height: auto; align-horizontal: right; }
    ElicitationForm #elicitation-buttons Button { margin-left: 1; }
    """

    class Answered(Message):
        """The user answered: ``result`` is the ``ElicitResult`` to send back."""

        def __init__(self, form: ElicitationForm, result: dict[str, Any]) -> None:
            super().__init__()
            self.form = form
            self.result = result

        @property
        def control(self) -> ElicitationForm:
            return self.form

    def __init__(self, message: str, requested_schema: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message
        self.spec = build_elicitation_form(requested_schema)
        self.body = FormBody(self.spec.root, default_values(self.spec), top=True)

    def compose(self) -> ComposeResult:
        yield Static(self.message, id="elicitation-message", markup=False)
        with VerticalScroll():
            yield self.body
        yield Static("", id="elicitation-error", markup=False)
        with Horizontal(id="elicitation-buttons"):
            yield Button("Cancel", id="elicitation-cancel", compact=True)
            yield Button("Decline", id="elicitation-decline", compact=True)
            yield Button("Accept", id="elicitation-accept", variant="primary", compact=True)

    def on_mount(self) -> None:
        for empty in self.body.query(".form-empty").results(Static):  # the tool form's wording, not ours
            empty.update("The server asks for no fields: Accept sends an empty answer.")

    def first_invalid(self) -> Any:
        """The editor of the first field showing a reason (after a refused accept), or None."""
        for key, editor in self.body.editors.items():
            if self.body.message_for(key) is not None:
                return editor
        return None

    def content(self) -> dict[str, Any]:
        """The answer as it stands (raises FormValueError / ValueError when it cannot be built)."""
        return elicitation_content(self.spec, self.body.values)

    def _error(self, text: str | None) -> None:
        label = self.query_one("#elicitation-error", Static)
        label.update(text or "")
        label.set_class(bool(text), "has-error")

    def accept(self) -> bool:
        """Accept if the answer is valid: post ``Answered``; otherwise show why on the fields (False)."""
        try:
            content = self.content()
        except (FormValueError, ValueError) as exc:
            self._error(str(exc))
            return False
        issues = elicitation_issues(self.spec, content)
        if issues:
            self.body.show_issues(issues)
            self._error(f"{len(issues)} field{'s' if len(issues) != 1 else ''} to fix before accepting")
            return False
        self._error(None)
        self.post_message(self.Answered(self, elicit_result("accept", content)))
        return True

    def refuse(self, action: str) -> None:
        """Decline or cancel: post ``Answered`` with no content."""
        self.post_message(self.Answered(self, elicit_result(action)))

    @on(Button.Pressed, "#elicitation-accept")
    def _accept(self, event: Button.Pressed) -> None:
        event.stop()
        self.accept()

    @on(Button.Pressed, "#elicitation-decline, #elicitation-cancel")
    def _refuse(self, event: Button.Pressed) -> None:
        event.stop()
        self.refuse("decline" if event.button.id == "elicitation-decline" else "cancel")
