"""The first tool listing of a connection is the baseline: a ``notifications/tools/list_changed``
that arrives while it is being fetched (server-everything sends one then) lists once more and
marks nothing; one that arrives later is a change, compared with that baseline."""

from __future__ import annotations

import pytest
from conftest import raw_server_command
from waiting import until


def tool_events(events: list) -> list:
    from mcp_inspector.core.session.events import ListChanged

    return [e for e in events if isinstance(e, ListChanged) and e.kind == "tools"]


@pytest.mark.anyio
async def test_list_changed_during_the_first_listing_is_the_baseline(connect):
    events: list = []
    async with connect(raw_server_command("changed-during-list")) as c:
        c.session.add_listener(events.append)
        tools = await c.session.list_tools()
        await c.session.ping()  # answered after any other tools/list the notification caused
        await c.session.ping()
        lists = [e for e in c.session.store if e.direction == "out" and e.method == "tools/list"]
        # listed again once, because the list changed while we listed it
        assert len(lists) == 2
        changed = tool_events(events)
        assert [e.cause for e in changed] == ["initial"], changed  # one event, the baseline
        assert {t["name"] for t in tools} == {"echo", "add", "slow"}
        assert any("arrived during the first tools/list" in e.text for e in c.session.store if e.text)


@pytest.mark.anyio
async def test_list_changed_after_the_first_listing_is_a_change(connect):
    events: list = []
    async with connect(raw_server_command("list-changed")) as c:
        c.session.add_listener(events.append)
        await c.session.list_tools()
        await c.session.call_tool("mutate", {})

        await until(lambda: not (len(tool_events(events)) < 2))
        first, second = tool_events(events)[:2]
        assert first.cause == "initial"
        assert second.cause == "notification"
        assert [t["name"] for t in second.diff.added] == ["new_tool"]
        assert [t["name"] for t in second.diff.removed] == ["echo"]
