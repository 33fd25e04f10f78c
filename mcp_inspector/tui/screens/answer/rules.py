"""The saved sampling auto-answers (core/config/sampling_rules.py), every server's, in a list:
``delete`` removes the highlighted rule (saved at once), escape closes. Rules are added from the
sampling modal ("Always answer this server like this")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ....core.config.sampling_rules import SamplingRule, SamplingRuleError, SamplingRules
from ...text.traffic_text import clean


class SamplingRulesScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    SamplingRulesScreen { align: center middle; }
    SamplingRulesScreen > #rules-box {
        width: 100;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        border: thick $accent;
        background: $surface;
    }
    SamplingRulesScreen #rules-title { background: $accent 30%; padding: 0 1; text-style: bold; }
    SamplingRulesScreen #rules-note { padding: 0 1; color: $text-muted; }
    SamplingRulesScreen OptionList { height: auto; max-height: 20; }
    SamplingRulesScreen #rules-keys { padding: 0 1; color: $text-muted; text-align: right; }
    """
    BINDINGS = [
        Binding("delete", "remove", "Remove rule", id="sampling-rules.remove"),
        Binding("escape", "close", "Close", id="sampling-rules.close"),
    ]

    def __init__(self, path: Path | None = None) -> None:
        super().__init__()
        self.path = path
        self.rules: SamplingRules | None = None
        self.shown: list[SamplingRule] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="rules-box"):
            yield Static("Sampling rules: saved answers to sampling/createMessage", id="rules-title")
            yield Static("reading…", id="rules-note", markup=False)
            yield OptionList(id="rules-list")
            yield Static("delete remove · esc close", id="rules-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._load()

    @work(thread=True, exclusive=True, group="sampling-rules")
    def _load(self) -> None:
        rules = SamplingRules.load(self.path)
        self.app.call_from_thread(self._show, rules)

    def _show(self, rules: SamplingRules) -> None:
        self.rules = rules
        self.shown = list(rules.rules)
        listing = self.query_one(OptionList)
        before = listing.highlighted
        listing.clear_options()
        listing.add_options([Option(clean(f"{rule.server}\n  {rule.describe()}")) for rule in self.shown])
        if self.shown:
            listing.highlighted = min(before or 0, len(self.shown) - 1)
        if rules.problem:
            note = rules.problem
        elif not self.shown:
            note = (
                "No rules yet. In the sampling modal, tick 'Always answer this server like this' before "
                f"sending a reply. File: {rules.path}"
            )
        else:
            note = f"{len(self.shown)} rule{'s' if len(self.shown) != 1 else ''}, first match wins. File: {rules.path}"
        self.query_one("#rules-note", Static).update(note)

    def action_remove(self) -> None:
        index = self.query_one(OptionList).highlighted
        if self.rules is None or index is None or not 0 <= index < len(self.shown):
            return
        try:
            self.rules.remove(self.shown[index])
        except (OSError, SamplingRuleError) as exc:
            self.notify(f"Not removed: {exc}", severity="error", markup=False)
            return
        self._show(self.rules)

    def action_close(self) -> None:
        self.dismiss(None)


def rules_command(app) -> tuple[str, Callable[[], object], str]:
    """The palette entry (app.extra_commands): list and remove the saved sampling rules."""
    return (
        "sampling: saved auto-answers (list, remove)",
        lambda: app.push_screen(SamplingRulesScreen()),
        "rules saved from the sampling modal",
    )
