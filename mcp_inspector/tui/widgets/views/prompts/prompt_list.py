"""The prompt list: a filter, the prompts (title, name, arguments, an icons mark) and the
added / changed / removed marks of the last ``list_changed`` refetch (the first listing
is the baseline: nothing is marked then)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from .....core.session.tooldiff import ListDiff
from ....text.traffic_text import clean
from ...filter_list import MAX_SHOWN, FilterListKeys, append_mark, change_words, fit

ICON_MARK = "◆"  # the prompt declares icons


def shorten(text: str, limit: int) -> str:
    """Server text for the form, made safe (``clean``) and cut at ``limit`` characters with its length
    (a description of megabytes, wrapped, froze the view for seconds)."""
    if len(text) > limit:
        return clean(text[:limit]) + f"… ({len(text):,} characters)"
    return clean(text)


def prompt_title(prompt: dict[str, Any]) -> str:
    for candidate in (prompt.get("title"), prompt.get("name")):
        if isinstance(candidate, str) and candidate:
            return clean(candidate)
    return "(unnamed)"


def prompt_arguments(prompt: dict[str, Any]) -> list[dict[str, Any]]:
    """The prompt's arguments that have a name (anything else is skipped)."""
    arguments = prompt.get("arguments")
    if not isinstance(arguments, list):
        return []
    return [a for a in arguments if isinstance(a, dict) and isinstance(a.get("name"), str) and a["name"]]


def arguments_summary(prompt: dict[str, Any]) -> str:
    arguments = prompt_arguments(prompt)
    if not arguments:
        return "no arguments"
    return ", ".join(a["name"] + ("*" if a.get("required") is True else "") for a in arguments)


def matches(prompt: dict[str, Any], needle: str) -> bool:
    if not needle:
        return True
    needle = needle.lower()
    return any(isinstance(prompt.get(k), str) and needle in prompt[k].lower() for k in ("name", "title", "description"))


class PromptList(FilterListKeys, Vertical):
    """Filter input, the prompts, and a one-line summary."""

    LIST_ESCAPE_CLEARS = False  # escape on the list is the view's: back to the list

    DEFAULT_CSS = """
    PromptList { width: 30%; min-width: 30; max-width: 48; }  /* as the resource list: wider screens show more */
    PromptList #prompt-filter { margin: 0; border: none; height: 1; padding: 0 1; background: $boost; }
    PromptList #prompt-filter:focus { background: $primary 20%; }
    PromptList #prompt-options { height: 1fr; border: none; padding: 0; }
    PromptList #prompt-summary { height: auto; max-height: 3; color: $text-muted; padding: 0 1; }
    """

    class Highlighted(Message):
        """The prompt under the cursor changed (``prompt`` None: none)."""

        def __init__(self, prompt: dict[str, Any] | None) -> None:
            super().__init__()
            self.prompt = prompt

    class Chosen(Message):
        """Enter (or a click) on a prompt: go to its form."""

        def __init__(self, prompt: dict[str, Any]) -> None:
            super().__init__()
            self.prompt = prompt

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prompts: list[dict[str, Any]] = []
        self.marks: dict[str, str] = {}
        self.removed: list[dict[str, Any]] = []
        self.note = ""
        self.hidden_matches = 0
        self._ids: dict[str, dict[str, Any]] = {}

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter prompts (type)", id="prompt-filter", select_on_focus=False)
        yield OptionList(id="prompt-options")
        yield Static("", id="prompt-summary", markup=False)

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#prompt-options", OptionList)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#prompt-filter", Input)

    # -- data ------------------------------------------------------------
    def set_prompts(self, prompts: list[dict[str, Any]], diff: ListDiff | None = None) -> None:
        """A new list; ``diff`` (a refetch after list_changed) marks what changed."""
        self.prompts = [p for p in prompts if isinstance(p, dict)]
        if diff is not None:
            self.marks = {str(p.get("name")): "added" for p in diff.added}
            self.marks.update({c.name: "changed" for c in diff.changed})
            self.removed = list(diff.removed)
        names = {p.get("name") for p in self.prompts}
        self.removed = [p for p in self.removed if p.get("name") not in names]
        self._rebuild()

    def clear_marks(self) -> None:
        self.marks, self.removed = {}, []
        self._rebuild()

    def set_note(self, note: str) -> None:
        self.note = note
        self._rebuild()

    def highlighted_prompt(self) -> dict[str, Any] | None:
        options = self.option_list
        if options.highlighted is None:
            return None
        option = options.get_option_at_index(options.highlighted)
        return self._ids.get(option.id or "") if not (option.id or "").startswith("removed:") else None

    def select_name(self, name: str) -> bool:
        """Put the cursor on a prompt by name (clearing a filter that hides it)."""
        if f"p:{name}" not in self._ids and self.filter_input.value:
            self.filter_input.value = ""
            self._rebuild()
        if f"p:{name}" not in self._ids:
            return False
        self.option_list.highlighted = self.option_list.get_option_index(f"p:{name}")
        return True

    # -- drawing -----------------------------------------------------------
    def _prompt_text(self, prompt: dict[str, Any], mark: str | None, width: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        strike = append_mark(text, mark, self._colour)
        title = prompt_title(prompt)
        text.append(fit(title, width - 4), style="bold" + strike)
        if prompt.get("icons"):
            text.append(f" {ICON_MARK}", style="dim")
        name = clean(str(prompt.get("name", "")))
        second = (name + " · " if name != title else "") + arguments_summary(prompt)
        text.append("\n  " + fit(second, width - 2), style="dim" + strike)
        return text

    def _rebuild(self) -> None:
        if not self.is_mounted:
            return
        needle = self.filter_input.value.strip()
        options_widget = self.option_list
        keep = self.highlighted_prompt()
        keep_name = keep.get("name") if keep else None
        width = max(12, (options_widget.scrollable_content_region.width or self.size.width or 28) - 1)
        options: list[Option] = []
        self._ids = {}
        self.hidden_matches = 0
        for prompt in self.prompts:
            if not matches(prompt, needle):
                continue
            if len(options) >= MAX_SHOWN:
                self.hidden_matches += 1
                continue
            option_id = f"p:{prompt.get('name')}"
            if option_id in self._ids:
                continue  # a duplicate name: the first one is the one prompts/get can reach
            self._ids[option_id] = prompt
            options.append(
                Option(self._prompt_text(prompt, self.marks.get(str(prompt.get("name"))), width), id=option_id)
            )
        for prompt in self.removed:
            if not matches(prompt, needle):
                continue
            option_id = f"removed:{prompt.get('name')}"
            self._ids[option_id] = prompt
            options.append(Option(self._prompt_text(prompt, "removed", width), id=option_id, disabled=True))
        options_widget.clear_options()
        options_widget.add_options(options)
        if keep_name is not None and f"p:{keep_name}" in self._ids:
            options_widget.highlighted = options_widget.get_option_index(f"p:{keep_name}")
        elif options:
            options_widget.highlighted = 0
        self._summary(sum(1 for key in self._ids if key.startswith("p:")))
        self.post_message(self.Highlighted(self.highlighted_prompt()))

    def _summary(self, shown: int) -> None:
        total = len(self.prompts)
        line = f"{shown} of {total} prompts" if shown != total else f"{total} prompt{'s' if total != 1 else ''}"
        if self.hidden_matches:
            line += f" ({self.hidden_matches:,} more match: type to narrow)"
        changes = change_words(self.marks, len(self.removed))
        lines = [self.note] if self.note else []
        lines.append(line + (" · " + " · ".join(changes) if changes else ""))
        self.query_one("#prompt-summary", Static).update("\n".join(lines))

    def on_mount(self) -> None:
        self._rebuild()

    def on_resize(self) -> None:
        if self.prompts:
            self._rebuild()

    # -- events --------------------------------------------------------------
    @on(Input.Changed, "#prompt-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._rebuild()

    @on(Input.Submitted, "#prompt-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        prompt = self.highlighted_prompt()
        if prompt is not None:
            self.post_message(self.Chosen(prompt))
        else:
            self.option_list.focus()

    @on(OptionList.OptionHighlighted, "#prompt-options")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.post_message(self.Highlighted(self.highlighted_prompt()))

    @on(OptionList.OptionSelected, "#prompt-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        prompt = self._ids.get(event.option.id or "")
        if prompt is not None and not (event.option.id or "").startswith("removed:"):
            self.post_message(self.Chosen(prompt))
