"""A long field label keeps its type and constraints on a line of their own (issue 21: wrapped at
the form's width, ``Duration (s) duration_seconds number · ≥ 0 · ≤`` / ``600`` read as a value)."""

from __future__ import annotations

import pytest
from app_helpers import choose_tool, live_app, wait_for, wait_for_tools

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_constraints_never_wrap_into_a_value_like_line(size):
    app = live_app()
    async with app.run_test(size=size) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "long_running_task")
        labels = app.main.composer.query(".field-label")
        await wait_for(pilot, lambda: any(w.size.height for w in labels), what="the labels")
        for label in labels:
            lines = [label.render_line(y).text.rstrip() for y in range(label.size.height)]
            for line in lines[1:]:
                assert line.startswith("  ") and not line.strip().isdigit(), lines
        duration = next(w for w in labels if "duration_seconds" in w.render_line(0).text)
        assert duration.size.height == 2
        assert duration.render_line(1).text.strip() == "number · ≥ 0 · ≤ 600"
