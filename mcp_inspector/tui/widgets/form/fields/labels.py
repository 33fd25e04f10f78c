"""How a form field is labelled: its title, name, required mark, type and constraints."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.markup import escape

from .....core.schema.form import FieldSpec

ONE_LINE = 40  # cells a label keeps on one line (the form is ~40 wide beside the result at 120 columns)


def field_label(spec: FieldSpec) -> Text:
    """``Title *  name  type · constraints`` — what the field is and what it accepts."""
    text = Text(spec.label, style="bold")
    if spec.required:
        text.append(" *", style="bold red")
    if spec.title and spec.name and spec.title != spec.name:
        text.append(f"  {spec.name}", style="dim")
    hint = type_hint(spec)
    if hint:
        # a long label puts its type and constraints on a line of their own, indented: wrapped at
        # the form's width, "… number · ≥ 0 · ≤" / "600" read as the field's value (issue 21)
        gap = "\n  " if cell_len(text.plain) + 2 + cell_len(hint) > ONE_LINE else "  "
        text.append(f"{gap}{hint}", style="dim italic")
    if spec.deprecated:
        text.append("  deprecated", style="italic yellow")
    return text


def object_title(spec: FieldSpec) -> str:
    """An object or tuple field's heading (markup): its property name, then its title if it says more.

    The title alone is not enough: fields reaching one ``$ref`` model all carry the model's title
    (``origin`` and ``dest`` would both read "Place").
    """
    named = spec.name and not spec.name.isdigit()  # tuple positions are named "0", "1"...
    title = escape(spec.name if named else spec.label) + (" *" if spec.required else "")
    if named and spec.title and _plain(spec.title) != _plain(spec.name):
        title += f"  [dim]{escape(spec.title)}[/dim]"
    return title + ("  (tuple)" if spec.kind == "tuple" else "")


def _plain(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def type_hint(spec: FieldSpec) -> str:
    if spec.kind == "array" and spec.item is not None:
        kind = "choose any" if spec.item.kind == "enum" else f"list of {spec.item.kind}"
    elif spec.kind in ("object", "enum", "variant", "nested", "list", "tuple"):
        kind = {"variant": "one of", "list": "list", "tuple": "tuple"}.get(spec.kind, "")
    else:
        kind = spec.kind
    parts = [kind, *spec.hints]
    if spec.nullable:
        parts.append("nullable")
    return " · ".join(p for p in parts if p)
