"""F1 lists the Resources, Prompts and Tasks views' keys, read from their own BINDINGS (so the
help cannot disagree with them, remapped keys included), and says what each view is for."""

from __future__ import annotations

import pytest
from app_helpers import live_app, wait_for
from rich.console import Console
from textual.binding import Binding

from mcp_inspector.tui.screens.help import HelpScreen, bindings_table
from mcp_inspector.tui.widgets.views.prompts.messages import PromptMessages
from mcp_inspector.tui.widgets.views.prompts.view import PromptsView
from mcp_inspector.tui.widgets.views.resources.contents import ContentsPanel
from mcp_inspector.tui.widgets.views.resources.template_form import TemplateForm
from mcp_inspector.tui.widgets.views.resources.view import ResourcesView
from mcp_inspector.tui.widgets.views.tasks_view import TasksView

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]
VIEW_CLASSES = [ResourcesView, ContentsPanel, TemplateForm, PromptsView, PromptMessages, TasksView]


def table_text(keymap: dict[str, str]) -> list[str]:
    console = Console(width=200, record=True)
    console.print(bindings_table(keymap))
    return console.export_text().splitlines()


def test_every_binding_of_the_new_views_is_in_the_help_with_its_key():
    lines = table_text({})
    for cls in VIEW_CLASSES:
        for binding in cls.BINDINGS:
            assert isinstance(binding, Binding) and binding.id, (cls.__name__, binding)
            row = next((line for line in lines if line.rstrip().endswith(" " + binding.id)), None)
            assert row is not None, f"{binding.id} is not in the help"
            assert row.split()[0] in {"/", "esc", binding.key.split(",")[0]}, row
    for title in ("Resources (7)", "Prompts (8)", "Tasks (9)", "Completion fields"):
        assert any(line.strip() == title for line in lines), title


def test_a_remapped_view_key_shows_as_remapped():
    lines = table_text({"tasks.cancel": "x", "resources.subscribe": "ctrl+u"})
    assert next(line for line in lines if line.rstrip().endswith(" tasks.cancel")).split()[0] == "x"
    assert next(line for line in lines if line.rstrip().endswith(" resources.subscribe")).split()[0] == "ctrl+u"


async def test_f1_shows_the_new_views_and_scrolls_to_them_by_keys():
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        assert app.screen.narrow()  # 80 columns: the table laid out narrow (see the test above)
        views = str(app.screen.query_one("#help-views").render())
        for line in ("Resources (7):", "Prompts (8):", "Tasks (9):"):
            assert line in views
        scroll = app.screen.query_one("VerticalScroll")
        await pilot.press("end")
        await wait_for(pilot, lambda: scroll.scroll_y > 0 and scroll.scroll_y == scroll.max_scroll_y, what="the end")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), what="the help to close")


def test_the_composer_escape_is_in_the_help():
    row = next(line for line in table_text({}) if line.rstrip().endswith(" leave-field"))
    assert row.split()[0] == "esc" and "tool list" in row


def test_the_actions_stay_readable_in_the_help_at_80_columns():
    """The modal is ~70 columns wide at 80x24: the group titles and binding ids used to widen
    their columns until Action had 2 characters ("He…", "Qu…"). Narrow, they wrap instead."""
    console = Console(width=70, record=True)
    console.print(bindings_table({}, narrow=True))
    text = console.export_text()
    for words in ("Help", "Reconnect", "Dismiss tool changes", "Set the server's"):
        assert words in text, words


def test_the_help_columns_at_80_and_each_group_once():
    """Issue 21: the Key column was ~36 wide (the group titles sat in it) and mostly empty, the
    Binding id column took 27 of 80, "General" came twice. Narrow: the id follows the action."""
    console = Console(width=70, record=True)
    console.print(bindings_table({}, narrow=True))
    lines = console.export_text().splitlines()
    assert "Binding id" not in lines[0]
    action_at = lines[0].index("Action")
    assert action_at <= 20, lines[0]
    quit_row = next(line for line in lines if line.split()[:1] == ["ctrl+q"])
    assert quit_row.split() == ["ctrl+q", "Quit", "quit"]
    titles = [line.strip() for line in lines if line[:action_at].strip() == "" and line.strip()]
    assert titles.count("General") == 1 and titles.count("Views") == 1
    wide = Console(width=96, record=True)
    wide.print(bindings_table({}))
    head = wide.export_text().splitlines()[0]
    assert head.index("Action") <= 20 and "Binding id" in head
