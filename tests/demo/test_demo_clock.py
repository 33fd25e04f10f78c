"""demo://clock: a subscribable resource that changes by itself."""

from __future__ import annotations

import json
import time

CLOCK = "demo://clock"


def updates(server) -> list[dict]:
    return [m for m in server.notifications("notifications/resources/updated") if m["params"]["uri"] == CLOCK]


def test_clock_is_listed_and_readable(demo):
    resources = {r["uri"]: r for r in demo.call("resources/list")["resources"]}
    assert resources[CLOCK]["mimeType"] == "application/json" and "subscribe" in resources[CLOCK]["description"]
    body = json.loads(demo.call("resources/read", {"uri": CLOCK})["contents"][0]["text"])
    assert body["ticks"] == 0 and body["subscribed"] is False and body["time"].endswith("Z")


def test_clock_sends_updates_while_subscribed_and_stops_after_unsubscribe(start_demo):
    server = start_demo("--tick-interval", "0.05")
    server.ran_for(0.2)  # four tick intervals of the server's own loop
    assert updates(server) == []  # nothing before subscribing
    assert server.call("resources/subscribe", {"uri": CLOCK}) == {}
    for _ in range(3):
        server.wait_for(lambda m: m.get("method") == "notifications/resources/updated" and m["params"]["uri"] == CLOCK)
    body = json.loads(server.call("resources/read", {"uri": CLOCK})["contents"][0]["text"])
    assert body["ticks"] >= 3 and body["subscribed"] is True
    assert server.call("resources/unsubscribe", {"uri": CLOCK}) == {}
    updates(server)  # drop any sent before the unsubscribe landed
    ticks = json.loads(server.call("resources/read", {"uri": CLOCK})["contents"][0]["text"])["ticks"]
    server.ran_for(0.3)  # six intervals of the server's loop: a running ticker would have sent several
    assert updates(server) == []
    after = json.loads(server.call("resources/read", {"uri": CLOCK})["contents"][0]["text"])
    assert after["ticks"] == ticks and after["subscribed"] is False
    # Subscribing again restarts it; twice is the same as once (one ticker).
    server.call("resources/subscribe", {"uri": CLOCK})
    server.call("resources/subscribe", {"uri": CLOCK})
    server.wait_for(lambda m: m.get("method") == "notifications/resources/updated")
    started = time.monotonic()
    server.wait_for(lambda m: m.get("method") == "notifications/resources/updated")
    server.wait_for(lambda m: m.get("method") == "notifications/resources/updated")
    assert time.monotonic() - started >= 0.08  # two intervals apart, not doubled up


def test_clock_default_interval_is_about_a_second(demo):
    demo.call("resources/subscribe", {"uri": CLOCK})
    started = time.monotonic()
    demo.wait_for(lambda m: m.get("method") == "notifications/resources/updated", timeout=30)
    # not before its interval; the upper bound is loose (a busy 2-core machine), it only tells 1 s from a minute
    assert 0.8 <= time.monotonic() - started < 20
    # touch_resource keeps working on it too.
    assert "sent notifications/resources/updated" in demo.tool("touch_resource", {"uri": CLOCK})["content"][0]["text"]


def test_eof_while_subscribed_exits_promptly(start_demo):
    server = start_demo("--tick-interval", "0.05")
    server.call("resources/subscribe", {"uri": CLOCK})
    server.wait_for(lambda m: m.get("method") == "notifications/resources/updated")
    started = time.monotonic()
    assert server.close() == 0
    assert time.monotonic() - started < 30  # the ticker does not keep it alive; the bound is loose
