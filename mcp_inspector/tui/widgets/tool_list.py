"""The tool list: filterable, with annotation badges and change markers.

An OptionList (virtualised; fine up to ~10k tools) under a filter Input.
Typing while the list has focus goes to the filter. After a list change the
added, modified and removed tools are marked (removed ones struck through)
until the next change or ``dismiss_changes``.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...core.session.tooldiff import ItemChange, ListDiff
from ..text.traffic_text import clean
from .filter_list import MAX_SHOWN, FilterListKeys, append_mark, change_words, fit

# annotation hint -> (full label, short chip shown in the list, colour variable)
BADGES = (
    ("readOnlyHint", "read-only", "RO", "$success"),
    ("destructiveHint", "destructive", "DESTR", "$error"),
    ("idempotentHint", "idempotent", "IDEM", "$secondary"),
    ("openWorldHint", "open-world", "OPEN", "$warning"),
)
BADGE_LEGEND = "RO read-only · DESTR destructive · IDEM idempotent · OPEN open-world"


def tool_title(tool: dict[str, Any]) -> str:
    """The display name the spec recommends: title, then annotations.title, then name."""
    annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
    for candidate in (tool.get("title"), annotations.get("title"), tool.get("name")):
        if isinstance(candidate, str) and candidate:
            return candidate
    return "(unnamed)"


def badges(tool: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(label, chip, css variable) for each annotation hint that is true."""
    annotations = tool.get("annotations")
    if not isinstance(annotations, dict):
        return []
    return [(label, chip, colour) for key, label, chip, colour in BADGES if annotations.get(key) is True]


EXCLUDED_KEY = "x-inspector-excluded"


def excluded_tool(name: str, reason: str) -> dict[str, Any]:
    """A stand-in for a tool the client must not call: its name and why it was left out."""
    return {
        "name": name,
        "description": f"Excluded from the tool list: {reason}",
        "inputSchema": {"type": "object"},
        EXCLUDED_KEY: reason,
    }


def matches(tool: dict[str, Any], needle: str) -> bool:
    if not needle:
        return True
    needle = needle.lower()
    for key in ("name", "title", "description"):
        value = tool.get(key)
        if isinstance(value, str) and needle in value.lower():
            return True
    return needle in tool_title(tool).lower()


def match_rank(tool: dict[str, Any], needle: str) -> int:
    """How well a shown tool matches the filter: 0 its name starts with it, 1 its name or title
    holds it, 2 only its description does."""
    needle = needle.lower()
    name = str(tool.get("name", "")).lower()
    if not needle or name.startswith(needle):
        return 0
    return 1 if needle in name or needle in tool_title(tool).lower() else 2


MIN_WIDTH = 22  # the tool list's narrowest (the filter's placeholder fits)
CHROME = 4  # the list's border, its scrollbar (2) and the cell kept free beside the rows
WIDTH_SAMPLE = 2000  # tools looked at for the list's width (a huge list: its first ones)


class ToolList(FilterListKeys, Vertical):
    """Filter input, list of tools, and a one-line summary of the last change."""

    BINDINGS = [
        # the app's ctrl+z maximizes the focused panel; here it widens the list (app.tcss) instead
        Binding(
            "ctrl+z",
            "widen",
            "Wider list",
            id="tools.widen",
            show=False,
            tooltip="Tool list: wider (half the screen) or back to its width",
        ),
    ]

    DEFAULT_CSS = """
    ToolList { width: 32; }
    ToolList #tool-filter { margin: 0; border: none; height: 1; padding: 0 1; background: $boost; }
    ToolList #tool-filter:focus { background: $primary 20%; }
    ToolList #tool-options { height: 1fr; border: none; padding: 0; }
    ToolList #tool-summary { height: auto; max-height: 3; color: $text-muted; padding: 0 1; }
    """

    class ToolSelected(Message):
        """The user chose a tool (enter or click)."""

        def __init__(self, tool: dict[str, Any], by_user: bool = True) -> None:
            super().__init__()
            self.tool = tool
            self.by_user = by_user  # False when the app chose it (first tool, reconnect)

    class DiffRequested(Message):
        def __init__(self, change: ItemChange) -> None:
            super().__init__()
            self.change = change

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tools: list[dict[str, Any]] = []
        self.marks: dict[str, str] = {}
        self.removed: list[dict[str, Any]] = []
        self.changes: dict[str, ItemChange] = {}
        self.selected_name: str | None = None
        self._ids: dict[str, dict[str, Any]] = {}
        self._prompts: dict[tuple, Text] = {}  # (id(tool), mark, width) -> prompt, so filtering does not rebuild them
        self.hidden_matches = 0
        self.excluded: dict[str, str] = {}  # name -> why the client left it out (2026-07-28 HTTP)

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter tools (type)", id="tool-filter", select_on_focus=False)
        yield OptionList(id="tool-options")
        yield Static("", id="tool-summary")

    def action_widen(self) -> None:
        self.toggle_class("-widened")
        self.fit_width()

    # -- width -----------------------------------------------------------
    def natural_width(self) -> int:
        """Cells the longest row would take whole: the marker, then a title, or a name and its chips."""
        widest = 0
        for tool in self.tools[:WIDTH_SAMPLE]:
            name, title = str(tool.get("name", "")), tool_title(tool)
            chips = sum(len(chip) + 1 for _, chip, _ in badges(tool))
            if name == title:
                widest = max(widest, 2 + cell_len(title) + chips)
            else:
                widest = max(widest, 2 + cell_len(title), 2 + cell_len(name) + chips)
        return widest

    def fit_width(self, screen_width: int | None = None) -> None:
        """As wide as the longest row needs, within 3/10 of the screen (at least MIN_WIDTH): at 80
        columns the form keeps the room (the list had 30 of 80), at 140 names are whole (they were
        cut at 30). The widened list (ctrl+z) is the stylesheet's, not this."""
        if not self.is_mounted:
            return
        if self.has_class("-widened"):
            self.styles.width = None
            return
        screen_width = screen_width or self.app.size.width
        cap = max(MIN_WIDTH, screen_width * 3 // 10)
        wanted = self.natural_width() + CHROME if self.tools else MIN_WIDTH
        width = max(MIN_WIDTH, min(cap, wanted))
        if self.styles.width is None or self.styles.width.value != width:
            self.styles.width = width

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#tool-options", OptionList)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#tool-filter", Input)

    # -- data ----------------------------------------------------------
    def set_tools(self, tools: list[dict[str, Any]], diff: ListDiff | None = None) -> None:
        """Show a new list; a non-empty diff marks what changed since the last one."""
        self.tools = list(tools)
        self._prompts.clear()
        self.fit_width()
        if diff is not None and not diff.empty:
            self.marks = {str(t.get("name")): "added" for t in diff.added}
            self.marks.update({c.name: "changed" for c in diff.changed})
            self.changes = {c.name: c for c in diff.changed}
            self.removed = list(diff.removed)
        elif diff is not None:
            # a refetch with no change keeps nothing stale
            self.removed = [t for t in self.removed if t.get("name") not in {x.get("name") for x in tools}]
        self._rebuild()

    def reset(self) -> None:
        """Another server: no tools, no marks, nothing selected (its own list comes next, as a baseline)."""
        self.marks = {}
        self.changes = {}
        self.removed = []
        self.selected_name = None
        self.set_tools([])

    def set_excluded(self, excluded: dict[str, str]) -> None:
        """Tools the session left out of the list, and why; shown dimmed in their own section."""
        if excluded != self.excluded:
            self.excluded = dict(excluded)
            self._rebuild()

    def dismiss_changes(self) -> None:
        self.marks.clear()
        self.changes.clear()
        self.removed.clear()
        self._rebuild()

    def change_for(self, name: str | None) -> ItemChange | None:
        return self.changes.get(name) if name else None

    def highlighted_tool(self) -> dict[str, Any] | None:
        option_list = self.option_list
        if option_list.highlighted is None:
            return None
        option = option_list.get_option_at_index(option_list.highlighted)
        return self._ids.get(option.id or "")

    def select_name(self, name: str) -> bool:
        """Highlight and choose a tool by name, as if the user pressed enter on it."""
        for option_id, tool in self._ids.items():
            if tool.get("name") == name and not option_id.startswith("removed:"):
                index = self.option_list.get_option_index(option_id)
                self.option_list.highlighted = index
                self.selected_name = name
                self.post_message(self.ToolSelected(tool, by_user=False))
                return True
        return False

    # -- rendering -----------------------------------------------------
    def on_mount(self) -> None:
        self.watch(self.app, "theme", lambda _: self._restyle(), init=False)
        self._built_width = 0

    def on_resize(self) -> None:
        if self.size.width != self._built_width and self.tools:
            self._rebuild()

    def _restyle(self) -> None:
        self._prompts.clear()
        self._rebuild()

    def _prompt(self, tool: dict[str, Any], mark: str | None, width: int) -> Text:
        key = (id(tool), mark, width)
        prompt = self._prompts.get(key)
        if prompt is None:
            prompt = self._prompts[key] = self._make_prompt(tool, mark, width)
        return prompt

    def _make_prompt(self, tool: dict[str, Any], mark: str | None, width: int) -> Text:
        """Two lines: marker + title, then name and annotation chips, cut to the width."""
        text = Text(no_wrap=True, overflow="ellipsis")
        name = str(tool.get("name", ""))
        title = tool_title(tool)
        strike = append_mark(text, mark, self._colour)
        chips = badges(tool)
        chips_width = sum(len(chip) + 1 for _, chip, _ in chips)
        if name == title:
            # no title of its own: the chips go on its one row (a second row held only them)
            text.append(fit(title, max(4, width - 2 - chips_width)), style="bold" + strike)
        else:
            text.append(fit(title, width - 2), style="bold" + strike)
            text.append("\n  ")
            text.append(fit(name, max(4, width - 2 - chips_width)), style="dim" + strike)
        background = self._chip_background()
        for _, chip, variable in chips:
            colour = self._colour(f"badge-{chip.lower()}") or self._colour(variable.lstrip("$"))
            text.append(" ")
            # on a background of its own: readable on the highlighted row too (the cursor's colour)
            text.append(chip, style=f"bold {colour}{f' on {background}' if background else ''}{strike}")
        return text

    def _chip_background(self) -> str:
        theme = self.app.current_theme if self.is_attached else None
        return (theme.surface or theme.background or "") if theme is not None else ""

    def _rebuild(self) -> None:
        if not self.is_mounted:
            return
        needle = self.filter_input.value.strip()
        option_list = self.option_list
        previous = self.highlighted_tool()
        keep = (previous or {}).get("name") or self.selected_name
        # room for the vertical scrollbar even before it shows: a list that grows past the height gets
        # one, and lines fitted to the wider list then wrapped ("Trigger Long Running / Operat…")
        room = option_list.scrollable_content_region.width or self.size.width or 30
        if not option_list.show_vertical_scrollbar:
            room -= option_list.styles.scrollbar_size_vertical
        width = max(12, room - 1)
        options: list[Option] = []
        self._ids = {}
        seen: set[str] = set()
        hidden = 0
        for tool in self.tools:
            if not matches(tool, needle):
                continue
            if len(options) >= MAX_SHOWN:
                hidden += 1
                continue
            name = str(tool.get("name", ""))
            option_id = name if name not in seen else f"{name}#{len(seen)}"
            seen.add(option_id)
            self._ids[option_id] = tool
            options.append(Option(self._prompt(tool, self.marks.get(name), width), id=option_id))
        self.hidden_matches = hidden
        for tool in self.removed:
            if not matches(tool, needle):
                continue
            option_id = f"removed:{tool.get('name')}"
            if option_id in self._ids:
                continue
            self._ids[option_id] = tool
            options.append(Option(self._prompt(tool, "removed", width), id=option_id, disabled=True))
        shown_excluded = [
            (name, reason)
            for name, reason in sorted(self.excluded.items())
            if matches({"name": name, "description": reason}, needle)
        ]
        if shown_excluded:
            options.append(
                Option(
                    Text(f"── excluded ({len(shown_excluded)}) ──", style="dim italic"),
                    id="excluded-heading",
                    disabled=True,
                )
            )
            for name, reason in shown_excluded:
                option_id = f"excluded:{name}"
                tool = excluded_tool(name, reason)
                self._ids[option_id] = tool
                prompt = Text(no_wrap=True, overflow="ellipsis", style="dim")
                prompt.append("⊘ " + fit(clean(name), width - 2), style="strike")
                prompt.append("\n  " + fit(clean(reason), width - 2), style="italic")
                options.append(Option(prompt, id=option_id))
        self._built_width = self.size.width
        option_list.clear_options()
        option_list.add_options(options)
        if keep is not None and keep in self._ids and match_rank(self._ids[keep], needle) < 2:
            option_list.highlighted = option_list.get_option_index(keep)
        elif options:
            # the best match, not a tool kept only because its description mentions the word
            # (enter after typing "simulate" chose toggle-subscriber-updates: "Toggles simulated ...")
            option_list.highlighted = self._best_index(options, needle)
        self._update_summary(len(self._ids) - sum(1 for i in self._ids if i.startswith(("removed:", "excluded:"))))

    def _best_index(self, options: list[Option], needle: str) -> int:
        best, best_rank = 0, 3
        for index, option in enumerate(options):
            tool = self._ids.get(option.id or "")
            if tool is None or option.disabled or (option.id or "").startswith("excluded:"):
                continue
            rank = match_rank(tool, needle)
            if rank < best_rank:
                best, best_rank = index, rank
                if rank == 0:
                    break
        return best

    def _update_summary(self, shown: int) -> None:
        total = len(self.tools)
        lines = [f"{shown} of {total} tools" if shown != total else f"{total} tools"]
        if self.hidden_matches:
            lines[0] += f" ({self.hidden_matches} more match: type to narrow)"
        changes = change_words(self.marks, len(self.removed), self._colour)
        if self.excluded:
            changes.append(f"{len(self.excluded)} excluded")
        if changes:
            lines.append(" · ".join(changes))
            if len(changes) > (1 if self.excluded else 0):
                lines.append("[dim]^g diff · ^x dismiss[/]")
        self.query_one("#tool-summary", Static).update("\n".join(lines))

    # -- events --------------------------------------------------------
    @on(Input.Changed, "#tool-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._refilter(len(self.tools))

    @on(Input.Submitted, "#tool-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.option_list.focus()
        if self.option_list.highlighted is not None:
            self.option_list.action_select()

    @on(OptionList.OptionSelected, "#tool-options")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        tool = self._ids.get(event.option.id or "")
        if tool is not None:
            self.selected_name = str(tool.get("name"))
            self.post_message(self.ToolSelected(tool))
