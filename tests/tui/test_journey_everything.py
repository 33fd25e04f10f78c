"""Issue 9's "done means", walked by keyboard only against server-everything (stdio), in one
session: each new view reached by its key and once through the command palette by name;
read architecture.md; fill the dynamic text template with completion and read it; subscribe
and see an update arrive after calling toggle-subscriber-updates; get completable-prompt
with the second argument narrowed by the first; run simulate-research-query to completion
and find it in the Tasks view. Nothing is clicked or set directly: only keys are pressed,
and the test reads what the widgets show."""

from __future__ import annotations

import json

import pytest
from app_helpers import live_app, outgoing, wait_for, wait_for_tools
from textual.command import CommandPalette
from textual.widgets import Markdown

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.widgets.form.completion_input import CompletionInput

pytestmark = [pytest.mark.anyio, pytest.mark.everything, pytest.mark.usefixtures("isolated_cwd")]
ARCHITECTURE = "demo://resource/static/document/architecture.md"
DYNAMIC_TEXT = "demo://resource/dynamic/text/{resourceId}"


def sent(app, method: str) -> list[dict]:
    return [json.loads(entry.raw).get("params") for entry in outgoing(app, method)]


async def by_palette(pilot, app, words: str, view: str) -> None:
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
    await pilot.press(*words)
    palette = app.screen

    def first_hit() -> bool:
        options = palette.query_one("CommandList")
        return (
            options.option_count > 0 and words.split()[-1].lower() in str(options.get_option_at_index(0).prompt).lower()
        )

    await wait_for(pilot, first_hit, what=f"{words!r} in the palette")
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.main.current_view == view and app.screen is app.main, what=f"the {view} view")


async def choose_tool_by_keys(pilot, app, name: str) -> None:
    await pilot.press("1", "slash", "escape", *name, "enter")  # escape clears an earlier filter
    composer = app.main.composer

    def focused_in_form() -> bool:  # enter on a tool focuses its form's first field (no arguments: Send)
        form, focused = composer.schema_form, app.focused
        return (
            (composer.tool or {}).get("name") == name
            and form is not None
            and focused is not None
            and (focused in form.query("*") or focused.id == "send-button")
        )

    await wait_for(pilot, focused_in_form, what=f"the form of {name}, focused")


async def test_issue_9_done_means_by_keyboard(server_everything):
    app = live_app(ServerSpec("everything", server_everything, source="test"), timeout=30)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)

        # -- Resources, through the palette by name
        await by_palette(pilot, app, "resources", "resources")
        view = main.query_one("#view-resources")
        await wait_for(
            pilot, lambda: {"resources", "resource_templates"} <= view.resource_list.listed, what="the lists"
        )
        await pilot.press("slash", *"architecture", "enter", "enter")  # filter, to the list, read
        await wait_for(pilot, lambda: view.contents.kind == "ok" and view.contents.uri == ARCHITECTURE, what="the read")
        assert len(view.contents.query(Markdown)) == 1
        await pilot.press("s")  # subscribe to what was read
        await wait_for(pilot, lambda: ARCHITECTURE in view.session.subscribed, what="the subscription")
        assert sent(app, "resources/subscribe") == [{"uri": ARCHITECTURE}]

        # the dynamic text template: its form, completion of resourceId, the read
        await pilot.press("escape", "slash", "escape", *"dynamic/text", "enter", "enter")  # escape clears the filter
        form = view.template_form
        await wait_for(
            pilot,
            lambda: form.template_uri == DYNAMIC_TEXT and isinstance(app.focused, CompletionInput),
            what="the template's form, focused",
        )
        field = app.focused
        await pilot.press("1")
        await wait_for(pilot, lambda: field.list_open and field.suggestions, what="resourceId suggestions")
        assert sent(app, "completion/complete")[-1]["ref"] == {"type": "ref/resource", "uri": DYNAMIC_TEXT}
        await pilot.press("tab", "enter")  # take the suggestion, read
        await wait_for(
            pilot,
            lambda: (
                view.contents.kind == "ok"
                and view.contents.uri == form.uri
                and form.uri.startswith("demo://resource/dynamic/text/1")
            ),
            what="the template's read",
        )

        # toggle-subscriber-updates on the main view: updates arrive on architecture.md
        assert app.focused is field
        await pilot.press("escape")  # leaves the field (back to the list), so 1 is a view key again
        assert app.focused is view.resource_list.option_list
        await choose_tool_by_keys(pilot, app, "toggle-subscriber-updates")
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: view.resource_list.updates.get(ARCHITECTURE, 0) >= 1, timeout=15, what="an update"
        )
        await pilot.press("7")  # Resources by its key
        assert main.current_view == "resources"
        await pilot.press("slash", "escape", "escape")  # clear the filter, back to the list
        await wait_for(pilot, lambda: f"r:{ARCHITECTURE}" in view.resource_list._ids, what="the whole list")
        assert "↻" in str(view.resource_list.option_list.get_option(f"r:{ARCHITECTURE}").prompt)

        # -- Prompts by key: completable-prompt, the name narrowed by the department
        await pilot.press("8")
        prompts = main.query_one("#view-prompts")
        await wait_for(pilot, lambda: prompts.prompt_list.prompts, what="the prompts")
        await pilot.press(*"completable", "enter")  # letters on the list filter it; enter chooses
        await wait_for(pilot, lambda: (prompts.current or {}).get("name") == "completable-prompt", what="its form")
        department = app.focused
        assert isinstance(department, CompletionInput) and department.argument == "department"
        await pilot.press("E")
        await wait_for(pilot, lambda: department.suggestions == ["Engineering"], what="Engineering")
        await pilot.press("tab", "tab", "down")  # take it, next field, ask for its suggestions
        name = app.focused
        await wait_for(
            pilot, lambda: name.list_open and name.suggestions == ["Alice", "Bob", "Charlie"], what="the names"
        )
        assert sent(app, "completion/complete")[-1]["context"] == {"arguments": {"department": "Engineering"}}
        await pilot.press("down", "enter", "ctrl+s")
        await wait_for(pilot, lambda: prompts.messages.messages, what="the messages")
        assert (
            prompts.messages.messages[0]["content"]["text"] == "Please promote Bob to the head of the Engineering team."
        )
        await pilot.press("1")
        await by_palette(pilot, app, "prompts", "prompts")

        # -- simulate-research-query as a task, to completion; then the Tasks view
        await choose_tool_by_keys(pilot, app, "simulate-research-query")
        await pilot.press(*"bees", "ctrl+s")
        await wait_for(pilot, lambda: "runs as a task" in main.result_panel.status_text, timeout=10, what="the task")
        await wait_for(pilot, lambda: main.result_panel.kind == "ok", timeout=30, what="the research report")
        assert "Research Report: bees" in str(main.result_panel.payload)
        assert app.focused in main.composer.schema_form.query("*")  # the topic field keeps the focus
        await pilot.press("escape", "9")  # escape leaves the field; 9 is a view key again
        tasks = main.query_one("#view-tasks")
        assert main.current_view == "tasks"
        await wait_for(pilot, lambda: tasks.table.row_count == 1, what="the task's row")
        row = [str(cell) for cell in tasks.table.get_row_at(0)]
        assert row[1] == "simulate-research-query" and row[2] == "completed", row
        assert app.focused is tasks.table
        await pilot.press("enter")  # its result, below the table
        await wait_for(
            pilot, lambda: "Research Report: bees" in str(tasks.result_panel.payload), what="the stored result"
        )
        await pilot.press("1")
        await by_palette(pilot, app, "tasks", "tasks")
