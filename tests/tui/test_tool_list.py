"""The tool list widget on its own: titles, badges, change marks, big lists."""

from __future__ import annotations

import pytest
from app_helpers import wait_for
from textual.app import App, ComposeResult

from mcp_inspector.core.session.tooldiff import diff_items
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.widgets.tool_list import MAX_SHOWN, ToolList, badges, tool_title


class ListApp(App):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield ToolList()


def test_title_precedence_and_badges():
    assert tool_title({"name": "a", "title": "A", "annotations": {"title": "B"}}) == "A"
    assert tool_title({"name": "a", "annotations": {"title": "B"}}) == "B"
    assert tool_title({"name": "a"}) == "a"
    tool = {
        "name": "x",
        "annotations": {"readOnlyHint": True, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True},
    }
    assert [label for label, _, _ in badges(tool)] == ["read-only", "destructive", "open-world"]
    assert badges({"name": "x", "annotations": "junk"}) == []


@pytest.mark.anyio
async def test_marks_and_struck_through_removed_tools():
    before = [{"name": "keep"}, {"name": "gone", "title": "Gone"}, {"name": "edit", "description": "old"}]
    after = [{"name": "keep"}, {"name": "edit", "description": "new"}, {"name": "fresh"}]
    app = ListApp()
    async with app.run_test(size=(120, 40)) as pilot:
        tools = app.query_one(ToolList)
        tools.set_tools(before)
        tools.set_tools(after, diff_items(before, after))
        await pilot.pause()
        assert tools.marks == {"fresh": "added", "edit": "changed"}
        assert tools.change_for("edit").field_diff("description").splitlines()[-2:] == ["-old", "+new"]
        option_list = tools.option_list
        removed = option_list.get_option("removed:gone")
        assert removed.disabled
        assert any("strike" in str(span.style) for span in removed.prompt.spans)
        # an unchanged refetch keeps the marks; the next real change replaces them
        tools.set_tools(after, diff_items(after, after))
        assert tools.removed and tools.marks
        tools.dismiss_changes()
        assert not tools.removed and not tools.marks
        assert option_list.option_count == 3


@pytest.mark.anyio
async def test_ten_thousand_tools_build_only_the_shown_rows():
    many = [
        {
            "name": f"tool_{i}",
            "title": f"Tool {i}",
            "description": f"does thing {i}",
            "annotations": {"readOnlyHint": i % 2 == 0},
        }
        for i in range(10_000)
    ]
    app = ListApp()
    async with app.run_test(size=(120, 40)) as pilot:
        tools = app.query_one(ToolList)
        tools.set_tools(many)
        await pilot.pause()
        # only MAX_SHOWN rows are built (building all 10k was the slowness), the rest counted as hidden
        assert tools.option_list.option_count == MAX_SHOWN and tools.hidden_matches == 10_000 - MAX_SHOWN
        assert len(tools._ids) == MAX_SHOWN
        tools.option_list.focus()
        await pilot.press(*"tool_999")
        await wait_for(pilot, lambda: tools.option_list.option_count == 11, timeout=60, what="the filter")
        assert tools.hidden_matches == 0
        assert sorted(tools._ids) == ["tool_999", *[f"tool_999{d}" for d in range(10)]]


@pytest.mark.anyio
async def test_long_titles_keep_to_their_line_at_80_columns(server_everything, isolated_state):
    """server-everything's 17 tools overflow the list at 80x24: its scrollbar must not make the
    lines fitted to the wider list wrap ("Trigger Long Running" / "Operat…")."""
    from app_helpers import live_app, wait_for, wait_for_tools

    from mcp_inspector.core.config.servers import ServerSpec

    app = live_app(ServerSpec("everything", server_everything), timeout=30.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_tools(pilot, app)
        option_list = app.main.tool_list.option_list
        # a condition, not a bare pause: that waits 30 s for every widget and fails under load
        await wait_for(pilot, lambda: option_list.show_vertical_scrollbar, what="the list's scrollbar")
        for _ in range(3):  # every line of every tool, the list scrolled a page at a time
            shown = ["".join(s.text for s in option_list.render_line(y)) for y in range(option_list.size.height)]
            # each line of a tool starts in the marker column (a space, ~ or +): a wrapped one at 0
            assert all(line[:1] in (" ", "~", "+", "-") for line in shown if line.strip()), shown
            option_list.scroll_page_down(animate=False)
            await pilot.pause()


@pytest.mark.anyio
async def test_a_list_arriving_while_a_pick_waits_does_not_pick_the_first_tool_again(raw_server, isolated_state):
    """The first list picks its first tool (a ToolSelected on its way); the user picks another;
    a refetched list (server-everything sends tools/list_changed right after initialized) is
    handled before the first ToolSelected reaches the screen. It picked the first tool again,
    behind the user's pick: the composer stayed on it (test_tasks_view timed out under load)."""
    from app_helpers import live_app, wait_for_tools

    from mcp_inspector.core.config.servers import ServerSpec
    from mcp_inspector.core.session.events import ListChanged
    from mcp_inspector.core.session.tooldiff import ListDiff
    from mcp_inspector.tui.messages import ToolsFetched

    app = live_app(ServerSpec("raw", raw_server(), source="test"))
    injected: list[str] = []

    def hook(message) -> None:
        # the first list's pick of its first tool, about to be handled: nothing is current yet
        if isinstance(message, ToolList.ToolSelected) and not injected and app.main.current_tool is None:
            injected.append(str(message.tool.get("name")))
            tools = app.main.tool_list.tools
            assert app.main.tool_list.select_name("add")
            app.main.post_message(ToolsFetched(ListChanged("tools", list(tools), ListDiff(), "notification")))

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await wait_for_tools(pilot, app)
        await wait_for(pilot, lambda: injected, what="the first pick")
        assert injected == ["echo"]
        await wait_for(pilot, lambda: app.main.current_tool is not None, what="a current tool")
        await pilot.pause()
        assert app.main.composer.tool is not None and app.main.composer.tool.get("name") == "add"
        assert app.main.current_tool.get("name") == "add"
