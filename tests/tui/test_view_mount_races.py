"""A view is made (mounted) the first time it is shown; what the screen hands its views meanwhile
(a server's facts, a refetched list, session events, a new session) must wait for the view to have
mounted: a view still mounting has not composed its parts. CI (run 15, f2f5cbf): a ServerReady
during the Overview's first mount raised NoMatches ('#overview-server') and ended the app."""

from __future__ import annotations

import asyncio
import io

import pytest
from app_helpers import SIZE, live_app, wait_for, wait_for_tools
from rich.console import Console
from textual.widgets import Static

from mcp_inspector.core.session.events import ListChanged
from mcp_inspector.core.session.tooldiff import ListDiff

pytestmark = pytest.mark.anyio

STEPS = 30  # scheduling steps into the view's first mount, one apart


async def hand_over_while_mounting(pilot, app, name: str, hand_over) -> None:
    main = app.main
    for steps in range(STEPS):
        showing = asyncio.ensure_future(main.views.show(name))
        for _ in range(steps):
            await asyncio.sleep(0)
        hand_over(main)
        await showing
        await wait_for(pilot, lambda: main.views.get(name).is_mounted, what=f"the {name} view mounted")
        await main.views.show("main")
        await main.views.get(name).remove()  # made anew on the next show
    assert app.return_code is None and app._exception is None  # noqa: SLF001  (the app did not end on an error)


async def test_facts_and_a_new_session_during_the_overviews_first_mount():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)

        def hand_over(main) -> None:
            main.apply_facts(main.facts)
            main.views.session_changed()

        await hand_over_while_mounting(pilot, app, "overview", hand_over)
        await app.main.views.show("overview")
        table = Console(width=100, file=io.StringIO(), record=True)
        table.print(app.main.views.get("overview").query_one("#overview-server", Static).content)
        assert "mcp-inspector-demo" in table.export_text()  # the server's name, from the facts


async def test_lists_and_events_during_the_resources_views_first_mount():
    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        session = app.main.connection.live
        for kind in ("resources", "resource_templates"):  # listed already: a view made fetches nothing itself
            await session.list_all(kind)
        items = session.lists["resources"]

        def hand_over(main) -> None:
            main.views.list_fetched(ListChanged("resources", items, ListDiff(), "notification"))
            main.views.session_events([])
            main.views.session_changed()

        await hand_over_while_mounting(pilot, app, "resources", hand_over)
        await app.main.views.show("resources")
        view = app.main.views.get("resources")
        await wait_for(pilot, lambda: "resources" in view.resource_list.listed, what="the list")
