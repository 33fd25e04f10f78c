"""TrafficFilter matching rules (pure) and the filter bar's message."""

from __future__ import annotations

import pytest
from traffic_apps import ThemedApp, sample_store

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.widgets.views.traffic.filter import TEXT_SEARCH_LIMIT, TrafficFilter, TrafficFilterBar

pytestmark = pytest.mark.anyio


def matching(spec: TrafficFilter, store: TrafficStore) -> list[int]:
    predicate = spec.compile()
    return [entry.seq for entry in store if predicate(entry)]


def test_default_filter_matches_everything_and_is_inactive():
    store = sample_store()
    assert not TrafficFilter().is_active
    assert matching(TrafficFilter(), store) == [entry.seq for entry in store]


def test_method_globs_are_comma_separated():
    store = sample_store()
    spec = TrafficFilter(methods="initialize, notifications/*")
    assert {store.get(seq).method for seq in matching(spec, store)} == {
        "initialize",
        "notifications/initialized",
        "notifications/message",
    }
    # entries without a method (responses, stderr) never match a method filter
    assert all(store.get(seq).method for seq in matching(spec, store))


def test_directions_kinds_and_stderr_switch():
    store = sample_store()
    local = matching(TrafficFilter(directions=frozenset({Direction.LOCAL})), store)
    assert [store.get(seq).kind for seq in local] == [Kind.EVENT, Kind.EVENT]
    no_stderr = TrafficFilter(show_stderr=False)
    assert no_stderr.is_active
    assert Kind.STDERR not in {store.get(seq).kind for seq in matching(no_stderr, store)}


def test_text_search_is_case_insensitive_on_raw_bytes_and_regex_is_checked():
    store = sample_store()
    assert len(matching(TrafficFilter(text="SERVER READY"), store)) == 1
    assert len(matching(TrafficFilter(text=r"protocolVersion\":\"2025", regex=True), store)) == 2
    bad = TrafficFilter(text="([", regex=True)
    assert bad.error and "bad regex" in bad.error
    assert matching(bad, store) == []  # an unusable regex matches nothing instead of raising
    assert TrafficFilter(text="([").error is None  # as plain text it is fine


def test_text_search_looks_only_at_the_head_of_huge_frames():
    store = TrafficStore(cap=100)
    huge = b'{"jsonrpc":"2.0","id":1,"result":"' + b"x" * (TEXT_SEARCH_LIMIT + 10) + b'NEEDLE"}'
    store.append(Direction.IN, Kind.RESPONSE, huge)
    assert matching(TrafficFilter(text="needle"), store) == []
    assert len(matching(TrafficFilter(text="jsonrpc"), store)) == 1


class BarApp(ThemedApp):
    def __init__(self) -> None:
        super().__init__()
        self.filters: list[TrafficFilter] = []

    def compose(self):
        yield TrafficFilterBar()

    def on_traffic_filter_bar_changed(self, message: TrafficFilterBar.Changed) -> None:
        self.filters.append(message.filter)


async def test_filter_bar_posts_the_edited_filter():
    app = BarApp()
    async with app.run_test(size=(140, 5)) as pilot:
        await pilot.click("#filter-text")
        await pilot.press(*"ab")
        await pilot.click("#filter-regex")
        await pilot.click("#filter-dir-in")
        await pilot.click("#filter-kind-invalid")
        await wait_for(pilot, lambda: app.filters and Kind.INVALID not in app.filters[-1].kinds, what="the last click")
        last = app.filters[-1]
        assert last.text == "ab" and last.regex
        assert last.directions == frozenset({Direction.OUT, Direction.LOCAL})
        assert Kind.INVALID not in last.kinds and Kind.BATCH not in last.kinds and Kind.REQUEST in last.kinds
        # a bad regex is explained in the bar
        await pilot.click("#filter-text")
        await pilot.press("(")
        error = app.query_one("#filter-error")
        await wait_for(pilot, lambda: "bad regex" in str(error.render()), what="the (debounced) error")
