"""The live rules (core/checks/live.py) over a traffic store, entries appended as the rpc layer does.

The schema part was core/protocol/conformance.py's (nothing called it): its cases are kept here,
now as findings of the engine the CLI check, the TUI and recordings share.
"""

from __future__ import annotations

import json

import pytest

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.checks.catalog import RULES, finding
from mcp_inspector.core.checks.live import LiveChecker
from mcp_inspector.core.checks.model import Severity
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.store import TrafficStore


def frame(**members) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **members}).encode()


class Timeline:
    """A store with a LiveChecker listening, and helpers that append what a session would."""

    def __init__(self, transport: str = "stdio", ignore=()) -> None:
        self.store = TrafficStore()
        self.checker = LiveChecker(self.store, transport=transport, ignore=ignore)
        self.store.add_listener(self.checker)
        self.next_id = 1

    def request(self, method: str, params=None):
        msg_id = self.next_id
        self.next_id += 1
        body = {"id": msg_id, "method": method}
        if params is not None:
            body["params"] = params
        return self.store.append(Direction.OUT, Kind.REQUEST, frame(**body), method=method, msg_id=msg_id, has_id=True)

    def reply(self, request, result, problem=None):
        return self.store.append(
            Direction.IN,
            Kind.RESPONSE,
            frame(id=request.msg_id, result=result),
            msg_id=request.msg_id,
            has_id=True,
            reply_to=request.seq,
            problem=problem,
        )

    def handshake(self, version="2025-11-25", capabilities=None):
        request = self.request(
            "initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        )
        self.reply(
            request,
            {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "serverInfo": {"name": "s", "version": "1"},
            },
        )
        self.store.append(
            Direction.OUT,
            Kind.NOTIFICATION,
            frame(method="notifications/initialized"),
            method="notifications/initialized",
        )

    def notify_in(self, method: str, params=None, problem=None, reply_to=None):
        body = {"method": method}
        if params is not None:
            body["params"] = params
        return self.store.append(
            Direction.IN, Kind.NOTIFICATION, frame(**body), method=method, problem=problem, reply_to=reply_to
        )

    def rules(self) -> list[str]:
        self.checker.drain()
        assert not self.checker.errors
        return [finding.rule for finding in self.checker.findings]


def test_every_finding_names_a_registered_rule_with_its_hint_and_source():
    line = Timeline()
    line.store.append(Direction.IN, Kind.INVALID, b"Server starting...", problem="not JSON: Expecting value")
    line.handshake()
    (finding,) = line.checker.findings
    assert finding.rule == "stdout-not-jsonrpc" and finding.severity is Severity.ERROR
    assert "before the handshake" in finding.message and finding.evidence == "Server starting..."
    assert finding.hint == RULES["stdout-not-jsonrpc"].fix and finding.spec == RULES["stdout-not-jsonrpc"].source
    assert finding.seq == 1 and line.checker.by_seq[1] == [finding]


def test_stdout_garbage_after_the_handshake_says_so():
    line = Timeline()
    line.handshake()
    line.store.append(Direction.IN, Kind.INVALID, b"INFO: handling request", problem="not JSON: x")
    assert line.rules() == ["stdout-not-jsonrpc"]
    assert "after the handshake" in line.checker.findings[0].message


def test_an_invalid_body_over_http_is_a_schema_violation_not_stdout():
    line = Timeline(transport="http")
    line.store.append(Direction.IN, Kind.INVALID, b"<html>", problem="not JSON: x")
    assert line.rules() == ["schema-violation"]


def test_malformed_tool_result_is_reported_with_its_location():
    line = Timeline()
    line.handshake()
    line.reply(line.request("tools/call", {"name": "x"}), {"content": "not-a-list"})
    (finding,) = line.checker.findings if line.rules() else []
    assert finding.rule == "schema-violation"
    assert "content: Input should be a valid list" in finding.message


def test_a_content_block_error_names_only_the_member_its_type_picks():
    line = Timeline()
    line.handshake()
    line.reply(line.request("tools/call", {"name": "x"}), {"content": [{"type": "image", "data": "!!"}]})
    assert sorted(line.rules()) == ["content", "schema-violation"]
    schema = next(f for f in line.checker.findings if f.rule == "schema-violation")
    assert "ImageContent.mimeType: Field required" in schema.message and "TextContent" not in schema.message
    content = next(f for f in line.checker.findings if f.rule == "content")
    assert "without mimeType" in content.message and "not base64" in content.message


def test_valid_frames_draw_nothing():
    line = Timeline()
    line.handshake(capabilities={"tools": {"listChanged": True}})
    line.reply(line.request("tools/call", {"name": "x"}), {"content": [{"type": "text", "text": "hi"}]})
    line.reply(line.request("tools/list"), {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]})
    line.notify_in("notifications/tools/list_changed")
    assert line.rules() == []


def test_notification_with_wrong_field_types():
    line = Timeline()
    line.handshake()
    line.notify_in("notifications/progress", {"progress": "a"}, problem=None)
    assert "schema-violation" in line.rules()
    message = next(f.message for f in line.checker.findings if f.rule == "schema-violation")
    assert "progress:" in message and "progressToken:" in message


def test_unknown_notification_method_is_info():
    line = Timeline()
    line.handshake()
    line.notify_in("custom/x")
    line.checker.drain()
    (finding,) = line.checker.findings
    assert finding.severity is Severity.INFO
    assert finding.message == "custom/x is not a server notification defined by MCP 2025-11-25"


def test_outgoing_frames_and_stderr_are_not_checked():
    line = Timeline()
    line.store.append(Direction.OUT, Kind.NOTIFICATION, frame(method="bogus"), method="bogus")
    line.store.append(Direction.IN, Kind.STDERR, b"hello")
    assert line.rules() == []


def test_tasks_of_2025_11_25_are_not_schema_violations():
    """A task-augmented tools/call answers a CreateTaskResult (no content), and the server sends
    notifications/tasks/status: both are 2025-11-25 (the TUI's task calls drew errors and infos)."""
    line = Timeline()
    line.handshake()
    task = {"taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z", "ttl": 1000}
    line.reply(line.request("tools/call", {"name": "x", "task": {"ttl": 1000}}), {"task": task})
    line.notify_in("notifications/tasks/status", task)
    assert line.rules() == []


def test_older_revision_judged_by_its_own_content_types():
    line = Timeline()
    line.handshake(version="2024-11-05")
    line.reply(
        line.request("tools/call", {"name": "x"}),
        {"content": [{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]},
    )
    assert "content" in line.rules()


def test_list_changed_without_listchanged_declared():
    line = Timeline()
    line.handshake(capabilities={"tools": {}})
    line.notify_in("notifications/tools/list_changed")
    line.notify_in("notifications/prompts/list_changed")
    assert line.rules() == ["list-changed-undeclared", "list-changed-undeclared"]
    assert "declared without listChanged" in line.checker.findings[0].message
    assert "not declared" in line.checker.findings[1].message


def test_progress_backwards_and_unknown_token():
    line = Timeline()
    line.handshake()
    call = line.request("tools/call", {"name": "slow", "_meta": {"progressToken": 1}})
    for value in (1, 2, 2, 1):
        line.notify_in("notifications/progress", {"progressToken": 1, "progress": value}, reply_to=call.seq)
    line.notify_in(
        "notifications/progress",
        {"progressToken": 99, "progress": 1},
        problem="progress for a token with no request in flight",
    )
    assert line.rules() == ["progress", "progress", "progress"]
    # the unknown token is said as the frame passes; the order of values with the deferred checks
    assert "no request in flight" in line.checker.findings[0].message
    assert "from 2 to 2" in line.checker.findings[1].message and "from 2 to 1" in line.checker.findings[2].message


def test_response_ids_from_the_rpc_layers_marks():
    line = Timeline()
    line.handshake()
    request = line.request("ping")
    line.reply(request, {})
    line.reply(request, {}, problem="duplicate of #5: the request was already answered")
    line.store.append(
        Direction.IN,
        Kind.RESPONSE,
        frame(id=77, result={}),
        msg_id=77,
        has_id=True,
        problem="reply to an id with no request in flight",
    )
    assert line.rules() == ["response-id", "response-id"]


def test_server_request_before_initialized():
    line = Timeline()
    request = line.request("initialize", {"protocolVersion": "2025-11-25"})
    line.store.append(
        Direction.IN, Kind.REQUEST, frame(id=1, method="roots/list"), method="roots/list", msg_id=1, has_id=True
    )
    line.store.append(Direction.IN, Kind.REQUEST, frame(id=2, method="ping"), method="ping", msg_id=2, has_id=True)
    line.reply(
        request, {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}
    )
    assert line.rules() == ["lifecycle"]


@pytest.mark.parametrize(
    ("offered", "chosen", "drawn"),
    [
        ("2025-11-25", "2025-06-18", []),
        ("2025-11-25", "2099-01-01", ["initialize-version"]),
        ("2099-01-01", "2099-01-01", []),
    ],
)
def test_initialize_version(offered, chosen, drawn):
    line = Timeline()
    request = line.request("initialize", {"protocolVersion": offered})
    line.reply(request, {"protocolVersion": chosen, "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}})
    assert [rule for rule in line.rules() if rule != "schema-violation"] == drawn


def test_ignored_rules_are_not_reported():
    line = Timeline(ignore=["stdout-not-jsonrpc"])
    line.store.append(Direction.IN, Kind.INVALID, b"x", problem="not JSON: x")
    assert line.rules() == []


def test_deferred_work_waits_for_drain_and_is_bounded():
    line = Timeline()
    line.handshake()
    line.reply(line.request("tools/call", {"name": "x"}), {"content": "no"})
    assert line.checker.pending == 2 and line.checker.findings == []  # the initialize answer and this one
    assert line.checker.drain(budget=1) == 1
    assert line.checker.drain() == 0 and [f.rule for f in line.checker.findings] == ["schema-violation"]


class CountingRule:
    """A rule as a front end adds one: it says what it judges, and is called for that only."""

    kinds = frozenset({(Direction.IN, Kind.NOTIFICATION)})
    methods = frozenset({"custom/ping"})

    def __init__(self) -> None:
        self.seen: list[int] = []

    def observe(self, entry, state, emit) -> None:
        self.seen.append(entry.seq)
        emit(finding("lifecycle", "custom", seq=entry.seq, where=f"frame #{entry.seq}"))


def test_an_added_rule_is_called_for_its_kinds_and_methods_only():
    line = Timeline()
    rule = CountingRule()
    line.checker.add_rule(rule)
    line.handshake()
    line.notify_in("notifications/message", {"level": "info", "data": "x"})
    wanted = line.notify_in("custom/ping")
    assert rule.seen == [wanted.seq]
    assert [f.rule for f in line.checker.by_seq[wanted.seq]] == ["lifecycle"]


def test_the_deferred_queue_is_bounded_and_counts_what_it_left_out(monkeypatch):
    from mcp_inspector.core.checks import live

    monkeypatch.setattr(live, "MAX_QUEUED", 10)
    line = Timeline()
    for _ in range(15):
        line.notify_in("notifications/message", {"level": "info", "data": "x"})
    assert line.checker.pending == 10 and line.checker.skipped == 5
