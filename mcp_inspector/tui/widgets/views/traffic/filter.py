"""What the traffic log shows: a filter value plus the compact bar that edits it.

The filter matches against the raw bytes (text search encodes the needle
instead of decoding every frame), so filtering a log full of 50 MB frames
stays cheap. The bar never touches the log; it posts ``TrafficFilterBar.Changed``
and whoever hosts both applies it with ``TrafficLog.set_filter``.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field, replace

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static

from .....core.base.jsonrpc import Kind
from .....core.traffic.entry import Direction, TrafficEntry

ALL_DIRECTIONS = frozenset(Direction)
ALL_KINDS = frozenset(Kind)
#: Only the first part of a frame is searched by the text filter (a 50 MB frame must not stall the UI).
TEXT_SEARCH_LIMIT = 1_000_000


@dataclass(frozen=True)
class TrafficFilter:
    """Which entries to show. The default shows everything."""

    methods: str = ""  # comma-separated globs, e.g. "tools/*, notifications/progress"
    directions: frozenset[Direction] = field(default_factory=lambda: ALL_DIRECTIONS)
    kinds: frozenset[Kind] = field(default_factory=lambda: ALL_KINDS)
    text: str = ""  # substring of the raw frame (case-insensitive), or a regex
    regex: bool = False
    show_stderr: bool = True

    @property
    def is_active(self) -> bool:
        return self != TrafficFilter()

    @property
    def error(self) -> str | None:
        """Why the text is not a usable regex, or None."""
        if self.regex and self.text:
            try:
                re.compile(self.text)
            except re.error as exc:
                return f"bad regex: {exc}"
        return None

    def compile(self) -> CompiledFilter:
        return CompiledFilter(self)

    def matches(self, entry: TrafficEntry) -> bool:
        """Convenience for one-off checks; views use ``compile()`` once."""
        return self.compile()(entry)

    def with_(self, **changes) -> TrafficFilter:
        return replace(self, **changes)


class CompiledFilter:
    """A filter turned into a fast predicate (globs and regex compiled once)."""

    def __init__(self, spec: TrafficFilter) -> None:
        self.spec = spec
        globs = [part.strip() for part in spec.methods.split(",") if part.strip()]
        self._method_re = re.compile("|".join(fnmatch.translate(glob) for glob in globs)) if globs else None
        self._search = None
        if spec.text:
            if spec.regex:
                try:
                    pattern = re.compile(spec.text.encode("utf-8"), re.IGNORECASE)
                except re.error:
                    pattern = None  # an unusable regex matches nothing; the bar shows why
                self._search = (lambda raw: pattern.search(raw) is not None) if pattern else (lambda raw: False)
            else:
                needle = spec.text.lower().encode("utf-8")
                self._search = lambda raw: needle in raw.lower()
        self._everything = not spec.is_active

    def __call__(self, entry: TrafficEntry) -> bool:
        if self._everything:
            return True
        spec = self.spec
        if entry.direction not in spec.directions or entry.kind not in spec.kinds:
            return False
        if not spec.show_stderr and entry.kind is Kind.STDERR:
            return False
        if self._method_re is not None and (entry.method is None or not self._method_re.match(entry.method)):
            return False
        if self._search is not None:
            raw = entry.raw if len(entry.raw) <= TEXT_SEARCH_LIMIT else entry.raw[:TEXT_SEARCH_LIMIT]
            if not self._search(raw):
                return False
        return True


class FilterToggle(Static, can_focus=True):
    """A one-cell-high on/off switch ("[x] in") that fits in a single-line bar."""

    DEFAULT_CSS = """
    FilterToggle { width: auto; height: 1; padding: 0 1 0 0; color: $text-muted; }
    FilterToggle.-on { color: $text; text-style: bold; }
    FilterToggle:focus { background: $accent 30%; }
    """
    BINDINGS = [("space", "toggle", "Toggle"), ("enter", "toggle", "Toggle")]

    value: reactive[bool] = reactive(True)

    class Changed(Message):
        def __init__(self, toggle: FilterToggle) -> None:
            super().__init__()
            self.toggle = toggle

    def __init__(self, label: str, value: bool = True, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.label = label
        self.set_reactive(FilterToggle.value, value)

    def render(self) -> str:
        return f"{'■' if self.value else '□'} {self.label}"

    def on_mount(self) -> None:
        self.set_class(self.value, "-on")

    def watch_value(self, value: bool) -> None:
        self.set_class(value, "-on")
        self.post_message(self.Changed(self))

    def action_toggle(self) -> None:
        self.value = not self.value

    def on_click(self) -> None:
        self.value = not self.value


#: toggles shown in the bar: id suffix -> (label, value)
DIRECTION_TOGGLES = {"out": ("→out", Direction.OUT), "in": ("←in", Direction.IN), "local": ("·local", Direction.LOCAL)}
KIND_TOGGLES = {
    "request": ("req", (Kind.REQUEST,)),
    "response": ("resp", (Kind.RESPONSE,)),
    "notification": ("notif", (Kind.NOTIFICATION,)),
    "error": ("err", (Kind.ERROR,)),
    "invalid": ("invalid", (Kind.INVALID, Kind.BATCH)),
    "stderr": ("stderr", (Kind.STDERR,)),
    "event": ("event", (Kind.EVENT,)),
}


class TrafficFilterBar(Horizontal):
    """Two short inputs (method globs, text) and toggles; posts ``Changed`` on every edit.

    One row when there is room; below ``STACK_BELOW`` columns the inputs and the toggles
    take a row each (at 80 columns one row cut the toggles off)."""

    STACK_BELOW = 112
    DEFAULT_CSS = """
    TrafficFilterBar { height: 1; width: 1fr; background: $panel; }
    TrafficFilterBar.-stacked { layout: vertical; height: 2; }
    TrafficFilterBar #filter-inputs { width: 1fr; height: 1; }
    TrafficFilterBar #filter-toggles { width: auto; height: 1; }
    TrafficFilterBar.-stacked #filter-toggles { width: 1fr; }
    TrafficFilterBar Input { border: none; height: 1; padding: 0 1; width: 22; background: $boost; color: $foreground; }
    TrafficFilterBar Input:focus { border: none; background: $accent 20%; color: $foreground; }
    TrafficFilterBar #filter-text { width: 1fr; min-width: 12; }
    TrafficFilterBar .separator { width: 1; color: $text-muted; }
    TrafficFilterBar #filter-error { width: auto; color: $error; }
    """

    class Changed(Message):
        """The user edited the filter; apply ``filter`` to the log."""

        def __init__(self, bar: TrafficFilterBar, filter: TrafficFilter) -> None:
            super().__init__()
            self.bar = bar
            self.filter = filter

        @property
        def control(self) -> TrafficFilterBar:
            return self.bar

    class Left(Message):
        """Escape in an empty field of the bar: the host puts the focus back on the log."""

    def __init__(
        self, initial: TrafficFilter | None = None, *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._initial = initial or TrafficFilter()
        self.filter = self._initial
        self._debounce = None

    def compose(self) -> ComposeResult:
        spec = self._initial
        with Horizontal(id="filter-inputs"):
            yield Input(spec.methods, placeholder="method glob", id="filter-methods")
            yield Input(spec.text, placeholder="search text", id="filter-text")
            yield FilterToggle("re", spec.regex, id="filter-regex")
        with Horizontal(id="filter-toggles"):
            yield Static("│", classes="separator")
            for key, (label, direction) in DIRECTION_TOGGLES.items():
                yield FilterToggle(label, direction in spec.directions, id=f"filter-dir-{key}")
            yield Static("│", classes="separator")
            for key, (label, kinds) in KIND_TOGGLES.items():
                on_ = all(kind in spec.kinds for kind in kinds) and (key != "stderr" or spec.show_stderr)
                yield FilterToggle(label, on_, id=f"filter-kind-{key}")
            yield Static("", id="filter-error")

    def on_resize(self, event) -> None:
        self.set_class(event.size.width < self.STACK_BELOW, "-stacked")

    def current(self) -> TrafficFilter:
        """Read the filter from the controls."""
        directions = frozenset(
            direction
            for key, (_, direction) in DIRECTION_TOGGLES.items()
            if self.query_one(f"#filter-dir-{key}", FilterToggle).value
        )
        kinds: set[Kind] = set()
        for key, (_, members) in KIND_TOGGLES.items():
            if self.query_one(f"#filter-kind-{key}", FilterToggle).value:
                kinds.update(members)
        return TrafficFilter(
            methods=self.query_one("#filter-methods", Input).value.strip(),
            directions=directions,
            kinds=frozenset(kinds),
            text=self.query_one("#filter-text", Input).value,
            regex=self.query_one("#filter-regex", FilterToggle).value,
            show_stderr=self.query_one("#filter-kind-stderr", FilterToggle).value,
        )

    def _publish(self) -> None:
        if not self.is_mounted:
            return
        new = self.current()
        self.query_one("#filter-error", Static).update(new.error or "")
        if new != self.filter:
            self.filter = new
            self.post_message(self.Changed(self, new))

    #: Typing waits this long for the next key before refiltering (a rescan of 200k entries takes ~0.1 s).
    TYPING_DEBOUNCE = 0.15

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(self.TYPING_DEBOUNCE, self._publish)

    def on_key(self, event: events.Key) -> None:
        """Escape in a field: the first clears it, the next leaves it for the log (where digits switch views)."""
        field = self.app.focused
        if event.key != "escape" or not isinstance(field, Input) or field not in self.query(Input):
            return
        event.stop()
        if field.value:
            field.value = ""
        else:
            self.post_message(self.Left())

    @on(Input.Submitted)
    def _input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._debounce is not None:
            self._debounce.stop()
        self._publish()

    @on(FilterToggle.Changed)
    def _toggle_changed(self, event: FilterToggle.Changed) -> None:
        event.stop()
        self._publish()
