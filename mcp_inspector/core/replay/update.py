"""``--update``: the responses received now become the file's expectations, in place.

The file keeps its format and everything else in it: in a session file, the line of
each recorded response is rewritten with the new response (same id, same seq, its
``kind`` and ``error_code`` set to match); in a hand-written file, each request line
becomes ``{"send": FRAME, "expect": RESPONSE}``. A step that got no response keeps
its old expectation; a step of a session file whose request had no recorded response
gets none (there is no line to rewrite). The file is replaced atomically and stays 0600.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base.files import write_atomic
from ..base.json_text import dumps_strict, loads_strict
from ..traffic.recording import record_line
from .plan import MAX_FILE, PlanError
from .run import ReplayReport


def updated_lines(report: ReplayReport) -> dict[int, bytes]:
    """Line number -> its new text (no newline), for every expectation that changes."""
    plan = report.plan
    new: dict[int, bytes] = {}
    for outcome in report.outcomes:
        step, now = outcome.step, outcome.now
        if now is None or step.notification or now == step.expect:
            continue
        if plan.kind == "jsonl":
            value = plan.lines[step.line - 1]
            frame = value.get("send") if isinstance(value, dict) and "send" in value else value
            new[step.line] = dumps_strict({"send": frame, "expect": now}, ensure_ascii=False).encode("utf-8")
        elif step.expect_line:
            new[step.expect_line] = b""  # filled from the file's own line below
    return new


def _rewrite_record(line: bytes, now: dict[str, Any]) -> bytes:
    record = loads_strict(line)
    old = loads_strict(record["raw"]) if isinstance(record.get("raw"), str) else {}
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": old.get("id") if isinstance(old, dict) else None}
    message.update(now)
    record.pop("raw_b64", None)
    record["raw"] = dumps_strict(message, ensure_ascii=False, separators=(",", ":"))
    if "error" in now:
        record["kind"] = "error"
        code = now["error"].get("code") if isinstance(now["error"], dict) else None
        if type(code) is int:
            record["error_code"] = code
        else:
            record.pop("error_code", None)
    else:
        record["kind"] = "response"
        record.pop("error_code", None)
    return record_line(record).encode("ascii")


def write_update(report: ReplayReport) -> int:
    """Rewrite the plan's file with the new expectations; the number of expectations changed."""
    plan = report.plan
    new = updated_lines(report)
    if not new:
        return 0
    by_line = {o.step.expect_line: o.now for o in report.outcomes if o.step.expect_line and o.now is not None}
    path = Path(plan.path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE + 1)
    except OSError as exc:
        raise PlanError(f"cannot read {path} again: {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    for number, text in new.items():
        index = number - 1
        if index >= len(lines):
            continue
        if plan.kind == "session":
            try:
                text = _rewrite_record(lines[index], by_line[number])
            except (ValueError, KeyError, TypeError):
                raise PlanError(f"{path}: line {number} changed since it was read; not updated") from None
        lines[index] = text
    try:
        write_atomic(path, b"\n".join(lines))
    except OSError as exc:
        raise PlanError(f"cannot update {path}: {exc.strerror or exc}") from None
    return len(new)
