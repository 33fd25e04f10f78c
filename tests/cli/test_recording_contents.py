"""What a recording holds: strict JSON on every line, whatever the server sent, read back
whole by --open (load_session), query and replay (issue 19, item 5)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from cli_helpers import assert_no_traceback, cli, raw

import mcp_inspector
from mcp_inspector.core.base.json_text import loads_strict
from mcp_inspector.core.traffic.export import export_json, export_session
from mcp_inspector.core.traffic.loading import load_session


def test_nonfinite_ids_are_recorded_as_strict_json_and_read_back(record):
    server = raw("nonfinite-ids")
    result = cli("ping", "--record", record, "--", *server)
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    lines = record.read_bytes().splitlines()
    for line in lines:
        loads_strict(line)  # was: "Infinity is not a JSON value" on the lines of those frames

    loaded = load_session(record)
    assert loaded.skipped == 0, loaded.describe_skipped()
    entries = list(loaded.store.iter_all())
    by_raw = {entry.raw: entry for entry in entries}
    infinite = by_raw[b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}']  # the raw bytes as they came
    assert infinite.has_id and infinite.msg_id == math.inf
    not_a_number = by_raw[b'{"jsonrpc":"2.0","id":NaN,"result":{}}']
    assert not_a_number.has_id and math.isnan(not_a_number.msg_id)
    assert b'"data":-Infinity' in b"".join(by_raw)

    # the TUI's exports of what was loaded: strict too
    exported = export_session(loaded.store, record.with_name("export.jsonl")).path
    assert all(loads_strict(line) for line in exported.read_bytes().splitlines())
    assert load_session(exported).skipped == 0
    as_json = loads_strict(export_json(loaded.store, record.with_name("export.json")).path.read_bytes())
    assert [item.get("id_nonfinite") for item in as_json if "id_nonfinite" in item] == ["inf", "nan"]

    query = cli("query", record, ".method // empty", "--direction", "in")
    assert query.returncode == 0, query.stderr
    assert "unreadable" not in query.stderr
    assert "ping" in query.stdout.split() and "notifications/message" in query.stdout.split()

    replay = cli("replay", record, "--", *server)
    assert_no_traceback(replay)
    assert replay.returncode == 0, replay.stderr
    assert f"{record}: line" not in replay.stderr  # was: "line 9 is not JSON: Infinity is not a JSON value"
    assert json.loads(lines[0])["format"] == "mcp-inspector-session"


def test_a_frame_marked_after_it_was_recorded_is_marked_in_the_recording(record):
    # notifications/elicitation/complete without an elicitationId: the session marks the entry
    # after the store appended it (and the recorder wrote it); the screen showed the mark, the
    # recording did not have it
    result = cli("call", "complete", "--record", record, "--", *raw("url-required"))
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    records = [loads_strict(line) for line in record.read_bytes().splitlines()]
    complete = next(r for r in records if r.get("method") == "notifications/elicitation/complete")
    assert "problem" not in complete  # written as it came, before the session looked at it
    assert {"type": "annotation", "seq": complete["seq"], "problem": PROBLEM} in records

    loaded = load_session(record)  # --open folds it back
    assert loaded.skipped == 0
    assert loaded.store.fetch(complete["seq"]).problem == PROBLEM
    query = cli("query", record, ".method // empty", "--count")  # query and replay read past it
    assert query.returncode == 0 and "unreadable" not in query.stderr, query.stderr
    replay = cli("replay", record, "--", *raw("url-required"))
    assert replay.returncode == 0, replay.stdout + replay.stderr


PROBLEM = "notifications/elicitation/complete without an elicitationId string (2025-11-25)"


def test_the_store_changes_through_one_call():
    # "the store changed" is TrafficStore.changed() (or flag/link, which record the change):
    # no module bumps its version by hand, where an edit would miss the recorder
    package = Path(mcp_inspector.__file__).parent
    bumps = [
        f"{path.relative_to(package)}:{number}"
        for path in package.rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"store\.version\s*\+=", line) or (path.name != "store.py" and "entry.problem =" in line)
    ]
    assert bumps == []
