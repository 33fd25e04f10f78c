"""Folded sections of a big form: past ``MOUNT_AT_ONCE`` fields, the rest wait in sections of
``MOUNT_CHUNK`` that are mounted only when the user opens one (a fast first paint), and past
``MOUNT_CHUNK * MAX_SECTIONS`` fields a section holds sections."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Button

from .....core.schema.form.spec import FieldSpec

MOUNT_AT_ONCE = 20  # a big form mounts this many fields; the rest sit in folded sections
MOUNT_CHUNK = 20
#: folded sections shown at one level, at most: past MOUNT_CHUNK * MAX_SECTIONS fields, a section holds
#: sections (20,000 fields made 1,000 sections, 16 s of layout on the event loop; now 20 of 1,000 each)
MAX_SECTIONS = 50


class SectionBody(Protocol):
    """The form body whose fields a section holds (body.FormBody)."""

    def field_widgets(self, spec: FieldSpec, bare: bool = False) -> Iterable[Widget]: ...
    def refresh_message(self, key: str) -> None: ...


def sections(body: SectionBody, fields: list[FieldSpec], first: int) -> list[LazySection]:
    """Folded sections for ``fields`` (``first``: the number of the first one, from 1): of
    MOUNT_CHUNK fields each, or of as many sections (and so on) as keeps them to MAX_SECTIONS."""
    size = MOUNT_CHUNK
    while -(-len(fields) // size) > MAX_SECTIONS:
        size *= MAX_SECTIONS
    return [LazySection(body, fields[start : start + size], first + start) for start in range(0, len(fields), size)]


class LazySection(Vertical):
    """A folded run of fields of a big form: mounted only when the user opens it (fast first paint)."""

    DEFAULT_CSS = """
    LazySection { height: auto; }
    LazySection > .section-open { width: 1fr; margin-bottom: 1; }
    """

    def __init__(self, body: SectionBody, fields: list[FieldSpec], first: int) -> None:
        super().__init__()
        self.body = body
        self.fields = fields
        self.first = first
        self.opened = False
        names = ", ".join(spec.label for spec in fields[:6]) + ("…" if len(fields) > 6 else "")
        required = sum(1 for spec in fields if spec.required)
        extra = f"; {required} required" if required else ""
        self.title = f"▸ fields {first}–{first + len(fields) - 1}: {names}{extra}"

    def compose(self) -> ComposeResult:
        yield Button(self.title, classes="section-open", compact=True, tooltip="show these fields")

    async def open(self) -> None:
        if self.opened:
            return
        self.opened = True
        if len(self.fields) > MOUNT_CHUNK:  # a section of sections
            await self.query_one(".section-open").remove()
            await self.mount_all(sections(self.body, self.fields, self.first))
            return
        widgets = [widget for spec in self.fields for widget in self.body.field_widgets(spec)]
        await self.query_one(".section-open").remove()
        await self.mount_all(widgets)
        for spec in self.fields:
            for inner in spec.walk():
                self.body.refresh_message(inner.key)

    @on(Button.Pressed, ".section-open")
    async def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        await self.open()
