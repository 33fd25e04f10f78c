"""core/replay: what the comparison ignores by nature and what it reports, and reading plans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_inspector.core.query import QuerySandbox
from mcp_inspector.core.replay.compare import ABSENT, IgnoreError, Ignores, compare
from mcp_inspector.core.replay.plan import PlanError, read_plan


def paths(differences) -> list[str]:
    return [d.path for d in differences]


def test_values_that_vary_by_nature_are_equal_when_both_sides_have_the_shape():
    recorded = {
        "result": {
            "structuredContent": {
                "created_at": "2026-11-24T02:36:58Z",
                "when": "2026-01-01 10:00:00.5+01:00",
                "ts": 1795487852.77,
                "updatedAt": 1795487852770,
                "task": "0f8fad5b-d9cb-469f-a165-70867728950e",
            },
            "_meta": {"progressToken": 4},
        }
    }
    now = {
        "result": {
            "structuredContent": {
                "created_at": "2026-11-25T00:00:00Z",
                "when": "2027-02-03T04:05:06Z",
                "ts": 1795490000.1,
                "updatedAt": 1795490000000,
                "task": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
            },
            "_meta": {"progressToken": "other"},
        }
    }
    assert compare("tools/call", recorded, now) == []


def test_shapes_still_count_a_date_is_not_a_date_time_and_a_count_is_not_a_time():
    recorded = {"result": {"day": "2026-11-24", "count": 1795487852, "created_at": "2026-11-24T02:36:58Z"}}
    now = {"result": {"day": "2026-11-25", "count": 1795487853, "created_at": "yesterday"}}
    assert paths(compare("x", recorded, now)) == [".result.day", ".result.count", ".result.created_at"]


def test_json_in_a_text_block_is_compared_as_json():
    ticket = {"id": "TCK-0001", "created_at": "2026-11-24T02:36:58Z"}
    recorded = {"result": {"content": [{"type": "text", "text": json.dumps(ticket, indent=2)}]}}
    same = {
        "result": {"content": [{"type": "text", "text": json.dumps(dict(ticket, created_at="2026-12-01T00:00:00Z"))}]}
    }
    assert compare("tools/call", recorded, same) == []
    other = {"result": {"content": [{"type": "text", "text": json.dumps(dict(ticket, id="TCK-0002"))}]}}
    (difference,) = compare("tools/call", recorded, other)
    assert difference.describe() == '.result.content[0].text | fromjson | .id: "TCK-0001" → "TCK-0002"'


def test_result_against_error_error_codes_and_is_error():
    result, error = {"result": {"content": []}}, {"error": {"code": -32602, "message": "bad"}}
    differences = compare("tools/call", result, error)
    assert [(d.path, d.note) for d in differences] == [(".result", "now an error"), (".error", "")]
    assert differences[1].recorded is ABSENT and differences[1].now == error["error"]
    code = compare("tools/call", error, {"error": {"code": -32601, "message": "bad"}})
    assert [d.describe() for d in code] == [".error.code: -32602 → -32601"]
    flagged = compare("tools/call", result, {"result": {"content": [], "isError": True}})
    assert [d.describe() for d in flagged] == [".result.isError: (absent) → true"]


def test_lists_of_another_length_and_types_that_differ():
    differences = compare(
        "x", {"result": {"a": [1, 2, 3], "b": 1, "c": True}}, {"result": {"a": [1], "b": "1", "c": 1}}
    )
    assert [d.describe() for d in differences] == [
        ".result.a[1]: 2 → (absent)",
        ".result.a[2]: 3 → (absent)",
        '.result.b: 1 → "1"',
        ".result.c: true → 1",
    ]


def test_tool_list_added_removed_changed():
    tool = {"name": "add", "description": "Adds.", "inputSchema": {"type": "object"}}
    recorded = {"result": {"tools": [tool, {"name": "gone", "inputSchema": {}}]}}
    now = {
        "result": {
            "tools": [dict(tool, inputSchema={"type": "object", "required": ["a"]}), {"name": "new", "inputSchema": {}}]
        }
    }
    differences = compare("tools/list", recorded, now)
    assert [(d.path, d.note) for d in differences] == [
        ('.result.tools[] | select(.name == "gone")', "tool removed"),
        ('.result.tools[] | select(.name == "new")', "tool added"),
        ('.result.tools[] | select(.name == "add") | .inputSchema.required', "tool add: inputSchema changed"),
    ]


def test_ignore_paths_and_their_validation():
    recorded = {"result": {"structuredContent": {"items": [{"id": 1, "v": "a"}]}, "odd key": 1}}
    now = {"result": {"structuredContent": {"items": [{"id": 2, "v": "a"}]}, "odd key": 2}}
    with Ignores([".result.structuredContent.items[].id", '.result["odd key"]', ".result.missing[0].x"]) as ignores:
        assert compare("tools/call", recorded, now, ignores) == []
    assert paths(compare("tools/call", recorded, now)) == [
        ".result.structuredContent.items[0].id",
        '.result["odd key"]',
    ]
    for bad in ("result", ".a[", "1 + 1", ".a | length"):
        with pytest.raises(IgnoreError):
            Ignores([bad])


def test_an_ignore_path_that_grows_is_stopped_in_its_sandbox_not_in_this_process():
    # was: jq in this process took all the memory and the inspector died of SIGABRT (rc -6)
    grows = '.result.content[]? as $x | .result | getpath([reduce range(40) as $i ("x"; . + .)])'
    sandbox = QuerySandbox(cpu_limit=2, memory_limit=512 << 20)
    with Ignores([grows], sandbox=sandbox) as ignores:  # on null (the check) it has nothing to walk
        listing = {"result": {"tools": []}}
        assert ignores.apply(listing, listing) == [listing, listing]
        with pytest.raises(IgnoreError, match="ran out of memory"):
            ignores.apply({"result": {"content": [1]}}, {"result": {"content": [2]}})
        # the next comparison gets a fresh child
        assert ignores.apply({"result": {"x": 1}}) == [{"result": {"x": 1}}]


def test_a_response_that_changed_everything_is_capped():
    recorded = {"result": {f"k{i}": i for i in range(500)}}
    now = {"result": {f"k{i}": -i - 1 for i in range(500)}}
    differences = compare("x", recorded, now)
    assert len(differences) == 51 and differences[-1].note == "more differences after the first 50, not looked for"


def _session(path: Path, entries: list[dict]) -> Path:
    lines = [{"type": "header", "format": "mcp-inspector-session", "version": 1}]
    lines += [dict({"seq": i + 1, "ts": 1.0}, **e) for i, e in enumerate(entries)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _frame(message: dict) -> str:
    return json.dumps(dict({"jsonrpc": "2.0"}, **message))


def test_a_session_plan_skips_the_handshake_and_folds_mrtr_rounds(tmp_path):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "progressToken": 2}
    asked = {
        "resultType": "input_required",
        "requestState": "s1",
        "inputRequests": {"q": {"method": "elicitation/create", "params": {}}},
    }
    path = _session(
        tmp_path / "s.jsonl",
        [
            {
                "dir": "out",
                "kind": "request",
                "method": "server/discover",
                "raw": _frame({"id": 1, "method": "server/discover"}),
            },
            {"dir": "in", "kind": "response", "reply_to": 1, "raw": _frame({"id": 1, "result": {}})},
            {
                "dir": "out",
                "kind": "request",
                "method": "tools/call",
                "raw": _frame({"id": 2, "method": "tools/call", "params": {"name": "t", "_meta": meta}}),
            },
            {"dir": "in", "kind": "response", "reply_to": 3, "raw": _frame({"id": 2, "result": asked})},
            {
                "dir": "out",
                "kind": "request",
                "method": "tools/call",
                "meta": {"mrtr": {"first": 3, "round": 1}},
                "raw": _frame(
                    {
                        "id": 3,
                        "method": "tools/call",
                        "params": {"name": "t", "requestState": "s1", "inputResponses": {"q": {"action": "accept"}}},
                    }
                ),
            },
            {"dir": "in", "kind": "response", "reply_to": 5, "raw": _frame({"id": 3, "result": {"content": []}})},
            {
                "dir": "out",
                "kind": "notification",
                "method": "notifications/cancelled",
                "raw": _frame({"method": "notifications/cancelled", "params": {"requestId": 2}}),
            },
        ],
    )
    plan = read_plan(path)
    (step,) = plan.steps
    assert (step.method, step.params, step.progress) == ("tools/call", {"name": "t"}, True)
    assert step.expect == {"result": {"content": []}} and step.expect_line == 7
    assert [(a.method, a.message) for a in plan.answers] == [("elicitation/create", {"result": {"action": "accept"}})]


def test_a_session_plan_keeps_legacy_answers_and_refuses_a_broken_entry(tmp_path):
    path = _session(
        tmp_path / "s.jsonl",
        [
            {
                "dir": "out",
                "kind": "request",
                "method": "tools/call",
                "raw": _frame({"id": 5, "method": "tools/call", "params": {"name": "a"}}),
            },
            {"dir": "in", "kind": "request", "method": "roots/list", "raw": _frame({"id": 0, "method": "roots/list"})},
            {"dir": "out", "kind": "response", "reply_to": 2, "raw": _frame({"id": 0, "result": {"roots": []}})},
            {"dir": "in", "kind": "response", "reply_to": 1, "raw": _frame({"id": 5, "result": {"content": []}})},
        ],
    )
    plan = read_plan(path)
    assert [(a.method, a.message) for a in plan.answers] == [("roots/list", {"result": {"roots": []}})]
    with open(path, "a") as handle:
        handle.write('{"seq": "x"}\n')
    with pytest.raises(PlanError, match="line 6 is not a session entry: 'seq' is not valid"):
        read_plan(path)
