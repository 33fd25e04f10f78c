"""The resources and resource templates, in one filterable list with two sections.

Each row: a change mark (``+`` added, ``~`` changed, ``-`` removed, as in the tool list,
after a list_changed refetch; the first listing is the baseline), a subscribed mark
``●``, the count of ``notifications/resources/updated`` received (``↻3``), ``◈`` when
the item has icons, then the title (or name), the URI (or URI template), and the
mimeType, size and annotations (audience, priority, lastModified).
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from .....core.session.tooldiff import ItemChange, ListDiff, item_key
from ....text.traffic_text import clean
from ...filter_list import MAX_SHOWN, FilterListKeys, append_mark, change_words, fit
from ...result.files import human_size

KINDS = ("resources", "resource_templates")
HEADINGS = {"resources": "Resources", "resource_templates": "Templates"}
PREFIX = {"resources": "r:", "resource_templates": "t:"}


def item_title(item: dict[str, Any]) -> str:
    for candidate in (item.get("title"), item.get("name"), item.get("uri"), item.get("uriTemplate")):
        if isinstance(candidate, str) and candidate:
            return clean(candidate)
    return "(unnamed)"


def item_uri(item: dict[str, Any]) -> str:
    for key in ("uri", "uriTemplate"):
        if isinstance(item.get(key), str):
            return clean(item[key])
    return ""


def annotation_words(item: dict[str, Any]) -> list[str]:
    """audience, priority and lastModified, short."""
    annotations = item.get("annotations")
    if not isinstance(annotations, dict):
        return []
    words = []
    audience = annotations.get("audience")
    if isinstance(audience, list) and audience:
        words.append("for " + ",".join(clean(str(a)) for a in audience))
    priority = annotations.get("priority")
    if isinstance(priority, (int, float)) and not isinstance(priority, bool):
        words.append(f"priority {priority:g}")
    modified = annotations.get("lastModified")
    if isinstance(modified, str) and modified:
        words.append("modified " + clean(modified[:10]))
    return words


def detail_line(item: dict[str, Any]) -> str:
    parts = []
    if isinstance(item.get("mimeType"), str):
        parts.append(clean(item["mimeType"]))
    size = item.get("size")
    if isinstance(size, int) and not isinstance(size, bool):
        parts.append(human_size(size))
    parts.extend(annotation_words(item))
    return " · ".join(parts)


def matches(item: dict[str, Any], needle: str) -> bool:
    if not needle:
        return True
    needle = needle.lower()
    for key in ("name", "title", "uri", "uriTemplate", "description", "mimeType"):
        value = item.get(key)
        if isinstance(value, str) and needle in value.lower():
            return True
    return False


def update_line(uri: str, when: str, width: int) -> str:
    """``↻ URI updated at TIME`` on one line of ``width``: narrower, the time alone after the
    URI's end (its file name, where the difference usually is)."""
    line = f"↻ {uri} updated at {when}"
    if width <= 0 or len(line) <= width:
        return line
    room = max(4, width - len(f"↻  {when}"))
    return f"↻ {uri if len(uri) <= room else '…' + uri[-(room - 1) :]} {when}"


class ResourceList(FilterListKeys, Vertical):
    """Filter input, the two sections, and a summary line (counts, changes)."""

    TYPE_TO_FILTER = False  # letters on the list are the view's keys (s subscribe, r read again...); / filters

    DEFAULT_CSS = """
    ResourceList { width: 42%; max-width: 52; min-width: 28; }
    ResourceList #resource-filter { margin: 0; border: none; height: 1; padding: 0 1; background: $boost; }
    ResourceList #resource-filter:focus { background: $primary 20%; }
    ResourceList #resource-options { height: 1fr; border: none; padding: 0; }
    ResourceList #resource-summary { height: auto; max-height: 3; color: $text-muted; padding: 0 1; }
    """

    class Chosen(Message):
        """Enter (or a click) on a resource or a template."""

        def __init__(self, kind: str, item: dict[str, Any]) -> None:
            super().__init__()
            self.kind = kind
            self.item = item

    class Highlighted(Message):
        """The highlight moved to a resource or a template."""

        def __init__(self, kind: str, item: dict[str, Any]) -> None:
            super().__init__()
            self.kind = kind
            self.item = item

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.items: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
        self.listed: set[str] = set()  # kinds listed at least once
        self.errors: dict[str, str] = {}
        self.marks: dict[str, str] = {}  # option key -> added | changed
        self.changes: dict[str, ItemChange] = {}  # option key -> change
        self.removed: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
        self.subscribed: set[str] = set()
        self.updates: dict[str, int] = {}
        self._ids: dict[str, tuple[str, dict[str, Any]]] = {}
        self._prompts: dict[tuple, Text] = {}  # so filtering and marks do not rebuild every row
        self.last_update: tuple[str, str] | None = None
        self.hidden_matches = 0

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter (/)", id="resource-filter", select_on_focus=False)
        yield OptionList(id="resource-options")
        yield Static("", id="resource-summary")

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#resource-options", OptionList)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#resource-filter", Input)

    # -- data ----------------------------------------------------------------
    def set_items(
        self, kind: str, items: list[dict[str, Any]], diff: ListDiff | None = None, error: str | None = None
    ) -> None:
        """A new list of ``kind``; a non-empty diff marks what changed (None: a baseline)."""
        self.items[kind] = [item for item in items if isinstance(item, dict)]
        self._prompts.clear()
        self.listed.add(kind)
        if error:
            self.errors[kind] = error
        else:
            self.errors.pop(kind, None)
        prefix = PREFIX[kind]
        if diff is not None and not diff.empty:
            for key in [k for k in self.marks if k.startswith(prefix)]:
                del self.marks[key]
                self.changes.pop(key, None)
            self.marks.update({prefix + item_key(item): "added" for item in diff.added})
            self.marks.update({prefix + change.name: "changed" for change in diff.changed})
            self.changes.update({prefix + change.name: change for change in diff.changed})
            self.removed[kind] = list(diff.removed)
        elif diff is None:
            self.removed[kind] = []
        else:
            keys = {item_key(item) for item in self.items[kind]}
            self.removed[kind] = [item for item in self.removed[kind] if item_key(item) not in keys]
        self._rebuild()

    def set_subscriptions(self, subscribed: set[str], updates: dict[str, int]) -> None:
        """New subscribed marks / update counts: only the rows whose marks changed are redrawn."""
        changed = (subscribed ^ self.subscribed) | {
            uri for uri in updates.keys() | self.updates.keys() if updates.get(uri) != self.updates.get(uri)
        }
        if not changed:
            return
        self.subscribed, self.updates = set(subscribed), dict(updates)
        if not self.is_mounted:
            return
        width = self._width()
        for uri in changed:
            option_id = PREFIX["resources"] + uri
            entry = self._ids.get(option_id)
            if entry is not None:
                self.option_list.replace_option_prompt(
                    option_id, self._prompt(*entry, self.marks.get(option_id), width)
                )

    def note_update(self, uri: str, when: str) -> None:
        """The last notifications/resources/updated: which URI, when (shown in the summary)."""
        self.last_update = (uri, when)
        if self.is_mounted:
            self._update_summary()

    def clear(self) -> None:
        self.items = {kind: [] for kind in KINDS}
        self.listed.clear()
        self.errors.clear()
        self.dismiss_changes()

    def dismiss_changes(self) -> None:
        self.marks.clear()
        self.changes.clear()
        self.removed = {kind: [] for kind in KINDS}
        self._rebuild()

    def change_for_highlighted(self) -> ItemChange | None:
        option = self._highlighted_option()
        return self.changes.get(option.id or "") if option is not None else None

    def highlighted(self) -> tuple[str, dict[str, Any]] | None:
        option = self._highlighted_option()
        return self._ids.get(option.id or "") if option is not None else None

    def _highlighted_option(self) -> Option | None:
        option_list = self.option_list
        if option_list.highlighted is None:
            return None
        return option_list.get_option_at_index(option_list.highlighted)

    def select_uri(self, uri: str) -> bool:
        """Highlight the resource with this URI (no read). False when it is not listed."""
        option_id = PREFIX["resources"] + uri
        if option_id not in self._ids:
            return False
        self.option_list.highlighted = self.option_list.get_option_index(option_id)
        return True

    def select_template(self, template: str) -> bool:
        option_id = PREFIX["resource_templates"] + template
        if option_id not in self._ids:
            return False
        self.option_list.highlighted = self.option_list.get_option_index(option_id)
        return True

    # -- rendering -------------------------------------------------------------
    def on_mount(self) -> None:
        self._built_width = 0
        self.watch(self.app, "theme", lambda _: self._restyle(), init=False)
        self._rebuild()

    def on_resize(self) -> None:
        if self.size.width != self._built_width:
            self._rebuild()

    def _restyle(self) -> None:
        self._prompts.clear()
        self._rebuild()

    def _width(self) -> int:
        """Room for a row: the list's width less a scrollbar, shown or not (the rows must not
        depend on whether the scrollbar had appeared yet when they were built)."""
        return max(12, (self.size.width or 30) - 1 - self.option_list.styles.scrollbar_size_vertical)

    def _prompt(self, kind: str, item: dict[str, Any], mark: str | None, width: int) -> Text:
        uri = item.get("uri") if kind == "resources" else None
        key = (
            (id(item), mark, width, uri in self.subscribed, self.updates.get(uri, 0))
            if isinstance(uri, str)
            else (id(item), mark, width, False, 0)
        )
        prompt = self._prompts.get(key)
        if prompt is None:
            if len(self._prompts) > 4 * MAX_SHOWN:
                self._prompts.clear()
            prompt = self._prompts[key] = self._make_prompt(kind, item, mark, width)
        return prompt

    def _make_prompt(self, kind: str, item: dict[str, Any], mark: str | None, width: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        strike = append_mark(text, mark, self._colour)
        flags = Text()
        uri = item.get("uri") if kind == "resources" else None
        if isinstance(uri, str) and uri in self.subscribed:
            flags.append("● ", style=f"bold {self._colour('success')}")
        count = self.updates.get(uri, 0) if isinstance(uri, str) else 0
        if isinstance(item.get("icons"), list) and item["icons"]:
            flags.append("◈ ", style="dim")
        tail = Text(f" ↻{count}", style=f"bold {self._colour('warning')}") if count else Text()
        text.append_text(flags)
        text.append(fit(item_title(item), max(4, width - 2 - len(flags) - len(tail))), style="bold" + strike)
        text.append_text(tail)
        text.append("\n  ")
        text.append(fit(item_uri(item), width - 2), style="dim" + strike)
        detail = detail_line(item)
        if detail:
            text.append("\n  ")
            text.append(fit(detail, width - 2), style="dim italic" + strike)
        return text

    def _rebuild(self) -> None:
        if not self.is_mounted:
            return
        needle = self.filter_input.value.strip()
        option_list = self.option_list
        previous = self._highlighted_option()
        keep = previous.id if previous is not None else None
        width = self._width()
        options: list[Option] = []
        self._ids = {}
        hidden = 0
        shown = {kind: 0 for kind in KINDS}
        for kind in KINDS:
            rows: list[Option] = []
            for item in self.items[kind]:
                if not matches(item, needle):
                    continue
                if shown[kind] >= MAX_SHOWN:
                    hidden += 1
                    continue
                option_id = PREFIX[kind] + item_key(item)
                if option_id in self._ids:  # listed twice: shown once
                    continue
                shown[kind] += 1
                self._ids[option_id] = (kind, item)
                rows.append(Option(self._prompt(kind, item, self.marks.get(option_id), width), id=option_id))
            for item in self.removed[kind]:
                option_id = "removed:" + PREFIX[kind] + item_key(item)
                if matches(item, needle) and option_id not in self._ids:
                    self._ids[option_id] = (kind, item)
                    rows.append(Option(self._prompt(kind, item, "removed", width), id=option_id, disabled=True))
            if kind in self.listed or rows:
                total = len(self.items[kind])
                count = f"{shown[kind]} of {total}" if shown[kind] != total else str(total)
                options.append(
                    Option(
                        Text(f"── {HEADINGS[kind]} ({count}) ──", style="bold dim"), id=f"heading:{kind}", disabled=True
                    )
                )
                if kind in self.errors:
                    # wrapped, up to three lines: the error code and message are the point
                    options.append(
                        Option(Text(fit("⚠ " + clean(self.errors[kind]), width * 3), style="italic"), disabled=True)
                    )
                options.extend(rows)
        self.hidden_matches = hidden
        self._built_width = self.size.width
        option_list.clear_options()
        option_list.add_options(options)
        if keep is not None and keep in self._ids:
            option_list.highlighted = option_list.get_option_index(keep)
        else:
            first = next((i for i, option in enumerate(options) if not option.disabled), None)
            if first is not None:
                option_list.highlighted = first
        self._update_summary()

    def _update_summary(self) -> None:
        resources, templates = len(self.items["resources"]), len(self.items["resource_templates"])
        line = (
            f"{resources} resource{'s' if resources != 1 else ''} · {templates} template{'s' if templates != 1 else ''}"
        )
        if self.hidden_matches:
            line += f" ({self.hidden_matches} more match: type to narrow)"
        lines = [line]
        parts = change_words(self.marks, sum(len(v) for v in self.removed.values()), self._colour)
        if parts:
            lines.append(" · ".join(parts) + " [dim]ctrl+g diff · ctrl+x dismiss[/]")
        if self.last_update is not None:
            uri, when = self.last_update
            # hidden (another view shown), the list has no size: the width it was last built for
            lines.append(escape(update_line(clean(uri), when, (self.size.width or self._built_width) - 2)))
        self.query_one("#resource-summary", Static).update("\n".join(lines))

    # -- events ------------------------------------------------------------------
    @on(Input.Changed, "#resource-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._refilter(sum(len(items) for items in self.items.values()))

    @on(Input.Submitted, "#resource-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.option_list.focus()

    @on(OptionList.OptionSelected, "#resource-options")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        chosen = self._ids.get(event.option.id or "")
        if chosen is not None:
            self.post_message(self.Chosen(*chosen))

    @on(OptionList.OptionHighlighted, "#resource-options")
    def _option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        chosen = self._ids.get(event.option.id or "")
        if chosen is not None:
            self.post_message(self.Highlighted(*chosen))
