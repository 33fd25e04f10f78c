"""A host app for the composer alone, and the Pilot steps the composer and form tests share."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Input

from mcp_inspector.core.config.drafts import DraftStore
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.screens.opener import ScreenDialogs
from mcp_inspector.tui.widgets.composer import ComposerPanel


class ComposerApp(App):
    """Just the composer, collecting what it asks to send."""

    @property
    def dialogs(self) -> ScreenDialogs:  # the screens its widgets open (widgets/dialogs.py)
        return ScreenDialogs(self)

    def __init__(
        self, drafts_path, tool: dict | None = None, *, server: str = "test", draft_delay: float = 0.1
    ) -> None:
        super().__init__()
        self.drafts_path = drafts_path
        self.initial_tool = tool
        self.server = server
        self.draft_delay = draft_delay
        self.sent: list[ComposerPanel.SendRequested] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield ComposerPanel(DraftStore(self.drafts_path), draft_delay=self.draft_delay)

    def on_mount(self) -> None:
        composer = self.query_one(ComposerPanel)
        composer.set_server(self.server)
        if self.initial_tool is not None:
            composer.set_tool(self.initial_tool)

    def on_composer_panel_send_requested(self, message: ComposerPanel.SendRequested) -> None:
        self.sent.append(message)


async def settle(pilot, app) -> None:
    """Let the form-building workers finish and the screen catch up."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def type_into(pilot, widget, text: str) -> None:
    widget.focus()
    await pilot.pause()
    if isinstance(widget, Input):
        await pilot.press("end")  # focusing an Input selects its text
    await pilot.press(*text)
