"""The tool-list-changed notice does not draw over the ctrl+g diff dialog (issue 21): opening the
diff, which the notice points to, dismisses it."""

from __future__ import annotations

import pytest
from app_helpers import DEMO_SESSION, wait_for

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.screens.dialogs.tool_diff import ToolDiffScreen

pytestmark = pytest.mark.anyio


def toasts(app) -> list[str]:
    return [str(toast.render()) for toast in app.screen.query("Toast")]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_diff_dialog_is_not_covered_by_the_notice(size, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = make_app(open_file=str(DEMO_SESSION), snapshot_mode=True, config=TuiConfig())
    async with app.run_test(size=size, notifications=True) as pilot:
        main = app.main
        await wait_for(pilot, lambda: main.replay is not None and main.tool_list.tools, what="the recording")
        main.notify("1 changed  (ctrl+g shows the diff)", title="Tool list changed", timeout=60)
        await wait_for(pilot, lambda: any("ctrl+g" in t for t in toasts(app)), what="the notice")
        main.tool_list.select_name("echo")
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolDiffScreen), what="the diff dialog")
        await pilot.pause()
        assert toasts(app) == []
