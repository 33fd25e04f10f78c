"""The main paths by keys alone (no click, no widget poked): pick a tool, fill its form, send,
open the result (details, history, save), cancel a call, the JSON view and back, switch views,
open a frame's detail, and answer an elicitation, on the demo server at 80x24 and 120x40."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, collect_calls, live_app, wait_for, wait_for_tools
from textual.widgets import OptionList, TextArea

from mcp_inspector.core.base.errors import RequestCancelled
from mcp_inspector.tui.messages import CallFailed, CallFinished
from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen
from mcp_inspector.tui.screens.dialogs.save_as import SaveAsScreen
from mcp_inspector.tui.screens.dialogs.tool_detail import ToolDetailScreen
from mcp_inspector.tui.screens.traffic.frame_detail import FrameDetailScreen
from mcp_inspector.tui.widgets.result.history import ResultHistoryScreen
from mcp_inspector.tui.widgets.result.view import ResultPanel

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_cwd")]


def composed(app, screen_type, selector: str):
    return lambda: isinstance(app.screen, screen_type) and bool(app.screen.query(selector))


async def pick(pilot, app, text: str, name: str) -> None:
    """/ focuses the tool filter from anywhere on the main view; typing narrows, enter picks."""
    await pilot.press("slash", *text, "enter")
    main = app.main
    await wait_for(
        pilot,
        lambda: (
            (main.composer.tool or {}).get("name") == name
            and main.composer.schema_form is not None
            and app.focused is not None
            and main.composer in app.focused.ancestors
        ),
        what=f"{name}'s form, focused",
    )


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["120x40", "80x24"])
async def test_the_main_paths_by_keys_alone(size, tmp_path):
    calls: list = []
    app = live_app()
    async with app.run_test(size=size, message_hook=collect_calls(calls)) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        panel = main.result_panel
        assert app.focused is main.tool_list.option_list

        # pick a tool by typing its name (the list sends letters to the filter), fill the form, send
        await pilot.press(*"add", "enter")
        await wait_for(
            pilot,
            lambda: (
                (main.composer.tool or {}).get("name") == "add"
                and app.focused is not None
                and main.composer in app.focused.ancestors
            ),
            what="add's first field",
        )
        await pilot.press("2", "tab", "3", "ctrl+s")
        await wait_for(pilot, lambda: len(calls) == 1 and panel.kind == "ok", what="the result of add")
        assert panel.payload["structuredContent"] == {"sum": 5}

        # escape leaves the field; the tool's details; its history; the result saved where asked
        await pilot.press("escape")
        assert app.focused is main.tool_list.option_list
        await pilot.press("ctrl+o")
        await wait_for(pilot, composed(app, ToolDetailScreen, "#tool-detail-legend"), what="the tool detail")
        await pilot.press("escape", "f10")
        await wait_for(pilot, composed(app, ResultHistoryScreen, "#history-list"), what="the result history")
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: app.screen is main and "from the history" in panel.status_text, what="the re-opened result"
        )
        for _ in range(12):  # tab reaches the result panel
            if isinstance(app.focused, ResultPanel):
                break
            await pilot.press("tab")
        assert app.focused is panel
        await pilot.press("s")
        await wait_for(pilot, composed(app, SaveAsScreen, "#save-as-path"), what="where to save")
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(panel, "saved_path", None) is not None, what="the saved result")
        assert panel.saved_path.parent == tmp_path

        # cancel a long call
        await pick(pilot, app, "long_run", "long_running_task")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: main.calls.in_flight, what="the call in flight")
        # escape leaves the field (ctrl+k would cancel from it too, while a call is in flight)
        await pilot.press("escape", "ctrl+k")
        await wait_for(pilot, lambda: len(calls) == 2, what="the cancelled call")
        assert isinstance(calls[1], CallFailed) and isinstance(calls[1].error, RequestCancelled)

        # the JSON view, then escape and a view key still work (enter on the tool: back in its form)
        assert app.focused is main.tool_list.option_list
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: app.focused is not None and main.composer in app.focused.ancestors, what="the form"
        )
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.focused, TextArea), what="the JSON editor")
        await pilot.press("escape")
        assert app.focused is main.tool_list.option_list
        await pilot.press("5")
        await wait_for(pilot, lambda: main.current_view == "traffic", what="the traffic view")

        # a frame's detail from the traffic view
        await wait_for(
            pilot, lambda: app.focused is not None and hasattr(app.focused, "cursor_entry"), what="the log focused"
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FrameDetailScreen), what="the frame detail")
        await pilot.press("escape", "1")
        await wait_for(pilot, lambda: app.screen is main and main.current_view == "main", what="the main view")

        # answer an elicitation: ask_the_client kind=elicitation, the modal by tab / typing / ctrl+s
        await pick(pilot, app, "ask_the", "ask_the_client")
        if isinstance(app.focused, TextArea):  # the composer stayed in the JSON view: ctrl+t, back to the form
            await pilot.press("ctrl+t")
            await wait_for(
                pilot,
                lambda: app.focused is not None and main.composer.schema_form in app.focused.ancestors,
                what="the form's first field",
            )
        await pilot.press("enter", "down", "down", "enter")  # open the choices: (none), sampling, elicitation
        assert main.composer.get_arguments() == {"kind": "elicitation"}
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ServerRequestScreen)
                and app.focused is not None
                and app.focused.screen is app.screen
            ),
            what="the elicitation, a field focused",
        )
        await pilot.press(*"Ada", "tab", *"36", "ctrl+s")
        await wait_for(pilot, lambda: len(calls) == 3, what="ask_the_client's result", timeout=15)
        assert isinstance(calls[2], CallFinished)
        answer = calls[2].outcome.result["content"][0]["text"]
        assert '"action": "accept"' in answer and '"name": "Ada"' in answer and '"age": 36' in answer
        assert app.screen is main and isinstance(main.tool_list.option_list, OptionList)
