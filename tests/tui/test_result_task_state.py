"""While a tools/call runs as a task, the result panel says what the task is doing (its id,
status and status message, as the in-flight row does), not "waiting for tools/call"; the
result replaces it when the task ends. The demo's long_job (taskSupport "required", 2025-11-25)."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, choose_tool, live_app, wait_for, wait_for_tools

from mcp_inspector.tui.messages import CallFinished

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


async def test_the_result_panel_follows_the_task_of_the_call_it_waits_for():
    done: list = []
    seen: list[str] = []
    app = live_app(timeout=20)

    def hook(message) -> None:
        if isinstance(message, CallFinished):
            done.append(message)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "long_job")
        await app.main.composer.set_arguments({"steps": 3, "duration_seconds": 3})
        app.main.tool_list.option_list.focus()
        panel = app.main.result_panel
        shown_task = panel.show_task

        def show_task(*args, **kwargs) -> bool:  # every task state the panel is given, however fast they come
            changed = shown_task(*args, **kwargs)
            if changed and panel.status_text not in seen:
                seen.append(panel.status_text)
            return changed

        panel.show_task = show_task  # type: ignore[method-assign]
        await pilot.press("ctrl+s")
        # first the task's state in the panel, then the end (the states are taken as the panel gets them: a
        # busy CI worker can hold the screen's queue long enough that a short job's whole story is handled
        # between two looks of a poll)
        await wait_for(pilot, lambda: bool(done), timeout=20, what="long_job to finish")
        task_id = done[0].outcome.task_id
        assert task_id
        tasked = [s for s in seen if "runs as a task" in s]
        assert tasked, seen
        assert any(f"task {task_id[:8]}" in s and "working" in s and "Step " in s for s in tasked), tasked
        assert all("(request id " in s and "tools/call long_job" in s for s in tasked)
        await wait_for(pilot, lambda: panel.kind == "ok", what="the result")
        assert "long_job finished 3 steps" in str(panel.payload)
