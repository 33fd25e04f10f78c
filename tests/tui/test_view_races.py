"""Widgets mounted and replaced by events that come one scheduling step apart: each test repeats
the pair of events at every step of the first one's mount (``asyncio.sleep(0)`` k times between)."""

from __future__ import annotations

import asyncio

import pytest
from app_helpers import SIZE, live_app, wait_for_tools

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_cwd")]


async def test_a_view_shown_twice_while_it_mounts_is_made_once_and_focused_once_mounted():
    """A key and a worker (the HTTP exchange's "show frame", a palette entry) showing the same view
    at once: the second show focused the first one's view before it had composed its parts (NoMatches
    for #checks-table, ending the app)."""
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        main = app.main
        for steps in range(12):
            for name in ("checks", "http", "auth"):
                first = asyncio.create_task(main.show_view(name))
                for _ in range(steps):
                    await asyncio.sleep(0)
                await main.show_view(name)
                await first
                assert len(main.query(f"#view-{name}")) == 1, (name, steps)
                assert main.current_view == name
                await main.views.get(name).remove()  # made again at the next step
                await main.show_view("main")
