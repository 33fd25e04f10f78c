"""A form for one resource template: a field per RFC 6570 variable, the expanded URI live.

Every operator works (``{x}``, ``{+x}``, ``{#x}``, ``{.x}``, ``{/x}``, ``{;x}``, ``{?x,y}``,
``{&x}``, prefixes ``{x:3}``); an exploded variable (``{/path*}``, ``{?list*}``) takes
comma-separated values, a list. An empty field leaves its variable undefined (RFC 6570
drops it from the expansion). Each field completes with ``completion/complete``
(ref ``{type: "ref/resource", uri: <template>}``, ``context.arguments`` = the other fields).
Enter in a field, or ctrl+s, asks the view to read the expanded URI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static
from uritemplate import URITemplate

from .....core.protocol.uri_template import expression_problem
from ....text.traffic_text import clean

OPERATOR_WORDS = {
    "": "",
    "+": "reserved (/ ? # kept)",
    "#": "fragment",
    ".": "label (.x)",
    "/": "path segment",
    ";": "path parameter (;x=)",
    "?": "query (?x=)",
    "&": "query continued (&x=)",
}


def template_variables(template: str) -> list[dict[str, Any]]:
    """Each variable once, in order: name, operator, explode, prefix."""
    found: dict[str, dict[str, Any]] = {}
    for variable in URITemplate(template).variables:
        operator = getattr(variable.operator, "value", "")
        for name, options in variable.variables:
            if name not in found:
                found[name] = {
                    "name": name,
                    "operator": operator,
                    "explode": bool(options.get("explode")),
                    "prefix": options.get("prefix"),
                }
    return list(found.values())


def template_problem(template: str) -> str | None:
    depth = 0
    for char in template:
        if char == "{":
            depth += 1
            if depth > 1:
                return "a `{` inside an expression"
        elif char == "}":
            depth -= 1
            if depth < 0:
                return "a `}` without its `{`"
    return "an expression is not closed (`}` missing)" if depth else None


def expand(template: str, variables: list[dict[str, Any]], values: dict[str, str]) -> str:
    """The URI for these field values (empty ones undefined; exploded ones split on commas)."""
    given: dict[str, Any] = {}
    for variable in variables:
        value = values.get(variable["name"], "")
        if not value:
            continue
        given[variable["name"]] = (
            [part.strip() for part in value.split(",") if part.strip()] if variable["explode"] else value
        )
    return URITemplate(template).expand(**given)


def make_field(
    ref: dict,
    argument: str,
    context: Callable[[], dict[str, str]],
    session: Callable[[], Any],
    value: str,
    placeholder: str,
    id: str,
) -> Input:
    """A CompletionInput when that widget is there, else a plain Input."""
    try:
        from ...form.completion_input import CompletionInput
    except ImportError:  # pragma: no cover - the widget ships with the app
        return Input(value=value, placeholder=placeholder, id=id)
    return CompletionInput(
        ref=ref, argument=argument, context=context, session=session, value=value, placeholder=placeholder, id=id
    )


class TemplateForm(VerticalScroll):
    """The fields of one template (``show(template_item)``) and its expansion."""

    BINDINGS = [
        Binding("ctrl+s", "read", "Read URI", id="resources.read-template", tooltip="Read the expanded URI"),
    ]
    DEFAULT_CSS = """
    TemplateForm { height: auto; max-height: 60%; padding: 0 1; border-bottom: solid $panel-lighten-2; }
    TemplateForm #template-title { text-style: bold; color: $text-accent; }
    TemplateForm .template-meta { color: $text-muted; }
    TemplateForm #template-fields, TemplateForm .template-field { height: auto; }
    TemplateForm .template-label { height: 1; margin-top: 1; }
    TemplateForm Input, TemplateForm Input:focus { border: none; height: 1; padding: 0 1; background: $boost; }
    TemplateForm Input:focus { background: $primary 20%; }
    TemplateForm #template-uri { margin-top: 1; height: auto; }
    TemplateForm #template-hint { height: 1; color: $text-muted; }
    TemplateForm #template-problem { color: $text-warning; height: auto; display: none; }
    TemplateForm #template-problem.-shown { display: block; }
    """

    class ReadRequested(Message):
        def __init__(self, uri: str, template: dict[str, Any]) -> None:
            super().__init__()
            self.uri = uri
            self.template = template

    def __init__(self, session: Callable[[], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.template: dict[str, Any] | None = None
        self.variables: list[dict[str, Any]] = []
        self.values: dict[str, dict[str, str]] = {}  # uriTemplate -> field values typed (kept per template)
        self.uri = ""

    @property
    def template_uri(self) -> str:
        value = (self.template or {}).get("uriTemplate")
        return value if isinstance(value, str) else ""

    def compose(self) -> ComposeResult:
        yield Static("", id="template-title")
        yield Static("", id="template-problem")
        yield Vertical(id="template-fields")
        yield Static("", id="template-uri")
        yield Static("enter, ctrl+s: read · ↓: suggestions", id="template-hint")  # fits at 80 columns

    async def show(self, template: dict[str, Any]) -> None:
        """Build the form for ``template`` (a resourceTemplates item)."""
        self.template = template
        uri_template = self.template_uri
        title = template.get("title") or template.get("name") or uri_template
        self.query_one("#template-title", Static).update(Text(f"▦ {clean(str(title))}  {clean(uri_template)}"))
        problem = (
            (template_problem(uri_template) or expression_problem(uri_template))
            if uri_template
            else "the template has no string `uriTemplate`"
        )
        try:
            self.variables = template_variables(uri_template) if uri_template else []
        except Exception as exc:  # uritemplate is lenient; anything it still refuses is shown, not raised
            self.variables, problem = [], f"cannot parse the template: {exc}"
        problem_line = self.query_one("#template-problem", Static)
        problem_line.update(Text(f"⚠ {problem}" if problem else ""))
        problem_line.set_class(bool(problem), "-shown")
        fields = self.query_one("#template-fields", Vertical)
        await fields.remove_children()
        saved = self.values.setdefault(uri_template, {})
        ref = {"type": "ref/resource", "uri": uri_template}
        widgets = []
        description = template.get("description")
        if isinstance(description, str) and description:
            widgets.append(Static(Text(clean(description)), classes="template-meta"))
        if not self.variables:
            widgets.append(Static("This template has no variables: ctrl+s reads it as it is.", classes="template-meta"))
        for index, variable in enumerate(self.variables):
            name = variable["name"]
            hint = OPERATOR_WORDS.get(variable["operator"], variable["operator"])
            extra = []
            if hint:
                extra.append(hint)
            if variable["explode"]:
                extra.append("a list: comma-separated")
            if variable["prefix"]:
                extra.append(f"first {variable['prefix']} characters")
            label = Text(name, style="bold")
            if extra:
                label.append("  " + ", ".join(extra), style="dim")
            placeholder = "comma-separated values" if variable["explode"] else f"{name} (↓ suggestions)"
            field = make_field(
                ref, name, self._field_context, self.session, saved.get(name, ""), placeholder, f"template-var-{index}"
            )
            field.variable_name = name  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
            widgets.append(Vertical(Static(label, classes="template-label"), field, classes="template-field"))
        await fields.mount_all(widgets)
        self._update_uri()

    def first_field(self) -> Input | None:
        fields = list(self.query("#template-fields Input"))
        return fields[0] if fields else None

    def field_values(self) -> dict[str, str]:
        return {getattr(field, "variable_name", ""): field.value for field in self.query("#template-fields Input")}

    def _field_context(self) -> dict[str, str]:
        return {name: value for name, value in self.field_values().items() if value}

    def _update_uri(self) -> None:
        values = self.field_values()
        self.values[self.template_uri] = values
        try:
            self.uri = expand(self.template_uri, self.variables, values) if self.template_uri else ""
        except Exception as exc:  # noqa: BLE001 - shown, never raised
            self.uri = ""
            self.query_one("#template-uri", Static).update(Text(f"cannot expand: {exc}", style="italic"))
            return
        line = Text("→ ", style="bold")
        line.append(self.uri or "(empty)", style="bold underline" if self.uri else "dim")
        self.query_one("#template-uri", Static).update(line)
        self.call_after_refresh(self._keep_uri_in_sight)

    def on_descendant_focus(self, event: Any) -> None:
        self.call_after_refresh(self._keep_uri_in_sight)

    def _keep_uri_in_sight(self) -> None:
        """A form taller than its room (several variables at 80x24) scrolls: keep the expanded
        URI (below the fields) in sight with the focused field, so what enter reads is shown."""
        if not self.is_mounted or self.max_scroll_y <= 0:
            return
        self.scroll_to_widget(self.query_one("#template-hint", Static), animate=False, immediate=True)
        focused = self.app.focused
        if focused is not None and self in focused.ancestors:
            self.scroll_to_widget(focused, animate=False, immediate=True)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        if event.input.id and event.input.id.startswith("template-var-"):
            event.stop()
            self._update_uri()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if event.input.id and event.input.id.startswith("template-var-"):
            event.stop()
            self.action_read()

    def action_read(self) -> None:
        if self.template is None:
            return
        self._update_uri()
        if not self.uri:
            self.notify("The expanded URI is empty: fill the fields.", severity="warning")
            return
        self.post_message(self.ReadRequested(self.uri, self.template))
