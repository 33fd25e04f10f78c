"""Widgets mounted and replaced by events that come one scheduling step apart: each test repeats
the pair of events at every step of the first one's mount (``asyncio.sleep(0)`` k times between)."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from app_helpers import SIZE, live_app, wait_for, wait_for_tools
from composer_apps import ComposerApp, settle
from rich.console import Console
from test_forms_nested import TRIP
from textual.widgets import Button, Static

from mcp_inspector.core.session.events import ListChanged
from mcp_inspector.core.session.tooldiff import ListDiff
from mcp_inspector.tui.widgets.composer import ComposerPanel
from mcp_inspector.tui.widgets.form.fields.composites import EntriesField, ItemRow, ListField

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


async def test_a_list_rebuilt_by_json_and_by_its_own_button_at_once_shows_each_item_once(tmp_path):
    """JSON typed (the composer's task rebuilds the list) while the list's "+ add" rebuilds it (its own
    task): both removed the old rows, then both mounted theirs: 4 rows for 2 items."""
    app = ComposerApp(tmp_path / "drafts.json", tool=TRIP)
    async with app.run_test(size=(100, 50)) as pilot:
        await settle(pilot, app)
        composer = app.query_one(ComposerPanel)
        travellers, labels = composer.query_one(ListField), composer.query_one(EntriesField)
        for steps in range(4):  # it failed at each
            arguments = {"travellers": [{"name": "a"}, {"name": "b"}], "labels": {"x": "1", "y": str(steps)}}
            composer.json_editor.load_text(json.dumps({**arguments, "transport": {"kind": "train"}}))
            for _ in range(steps):
                await asyncio.sleep(0)
            travellers.query_one(".list-add-item", Button).press()
            labels.query_one(".entries-add", Button).press()
            await settle(pilot, app)
            rows = [row for row in travellers.query(ItemRow) if row.owner is travellers]
            assert [row.index for row in rows] == list(range(len(travellers.value))), steps
            assert len(labels.query(".entry")) == len(labels.value), steps


# A view is made (mounted) the first time it is shown; what the screen hands its views meanwhile (a
# server's facts, a refetched list, session events, a new session) waits for the view to have mounted:
# CI run 15 (f2f5cbf): a ServerReady during the Overview's first mount raised NoMatches
# ('#overview-server') and ended the app.
HAND_OVER_STEPS = 30  # scheduling steps into the view's first mount, one apart


async def hand_over_while_mounting(pilot, app, name: str, hand_over) -> None:
    main = app.main
    for steps in range(HAND_OVER_STEPS):
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
