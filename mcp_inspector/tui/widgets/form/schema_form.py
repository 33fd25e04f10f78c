"""``SchemaForm``: a scrolling form for one tool's inputSchema, built from a ``FormSpec``.

The fields themselves are a ``FormBody`` (see ``form_fields``): one editor per field,
sub-forms for list items, variants, free-form entries and recursive parts. This widget
owns the whole form's values, turns them into arguments and back, and says which keys
are sent although the form does not show them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from ....core.schema.form import (
    FormSpec,
    FormValueError,
    arguments_to_values,
    default_values,
    fill_defaults,
    hidden_values,
    strip_defaults,
    values_to_arguments,
)
from ....core.schema.validation import Issue
from .fields import FormBody, ListEditor
from .fields.editors import UNSET_PROMPT
from .fields.labels import field_label

__all__ = ["SchemaForm", "ListEditor", "FormValueError", "field_label", "UNSET_PROMPT"]


class SchemaForm(VerticalScroll):
    """A form for one tool's inputSchema. ``get_arguments()`` / ``set_arguments(args)``."""

    DEFAULT_CSS = """
    SchemaForm { height: 1fr; padding: 0 1; }
    SchemaForm .form-note { color: $text-warning; height: auto; display: none; }
    SchemaForm .form-note.has-note { display: block; }
    """

    class Changed(Message):
        """The user changed a value (not posted for ``set_arguments``)."""

        def __init__(self, form: SchemaForm, key: str) -> None:
            super().__init__()
            self.form = form
            self.key = key

        @property
        def control(self) -> SchemaForm:
            return self.form

    def __init__(
        self, form: FormSpec, values: dict[str, Any] | None = None, *, send_defaults: bool = True, **kwargs: Any
    ) -> None:
        """``send_defaults``: False leaves out the optional fields that hold their schema default
        (each says so); the form still shows them (core/schema/form/defaults.py)."""
        super().__init__(**kwargs)
        self.spec = form
        self.send_defaults = send_defaults
        self.body = FormBody(form.root, dict(values) if values is not None else default_values(form), top=True)
        self.body.defaults_sent = send_defaults

    @property
    def values(self) -> dict[str, Any]:
        return self.body.values

    @property
    def editors(self) -> dict[str, Widget]:
        return self.body.editors

    # -- public API ------------------------------------------------------
    def get_values(self) -> dict[str, Any]:
        return dict(self.values)

    def get_arguments(self) -> dict[str, Any]:
        """The arguments to send; raises FormValueError if a JSON field does not parse."""
        arguments = self.all_arguments()
        return arguments if self.send_defaults else strip_defaults(self.spec, arguments)[0]

    def all_arguments(self) -> dict[str, Any]:
        """What the form shows, the fields holding their schema default included."""
        return values_to_arguments(self.spec, self.values)

    async def set_arguments(self, arguments: dict[str, Any]) -> None:
        """Show these arguments (anything the form cannot show is kept and sent back as is); while
        defaults are left out, an optional field they leave out shows its default (sent the same)."""
        values = arguments_to_values(self.spec, arguments)
        await self.set_values(values if self.send_defaults else fill_defaults(self.spec, values))

    def set_send_defaults(self, on: bool) -> None:
        self.send_defaults = on
        self.body.defaults_sent = on
        self.body.refresh_messages()

    async def set_values(self, values: dict[str, Any]) -> None:
        await self.body.set_values(dict(values))
        self._refresh_extras()

    def show_issues(self, issues: Iterable[Issue]) -> None:
        """Put whole-schema validation issues next to their fields (and inside sub-forms)."""
        self.body.show_issues(list(issues))

    def message_for(self, key: str) -> str | None:
        """The message shown under a top-level field right now (None when it is fine)."""
        return self.body.message_for(key)

    # -- building --------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("", classes="form-note", id="form-extras")
        yield self.body

    def on_mount(self) -> None:
        self._refresh_extras()

    def on_form_body_changed(self, event: FormBody.Changed) -> None:
        if event.body is self.body:
            event.stop()
            self._refresh_extras()
            self.post_message(self.Changed(self, event.key))

    def _refresh_extras(self) -> None:
        """Say which keys are sent although the form does not show them."""
        if not self.is_mounted:
            return
        kept = hidden_values(self.spec.root, self.values)  # inside list items and variants too
        note = self.query_one("#form-extras", Static)
        if kept:
            note.update(Text(f"Also sent, not shown in the form (edit in the JSON view): {', '.join(kept)}"))
        note.set_class(bool(kept), "has-note")
