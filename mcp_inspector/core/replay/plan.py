"""What a replay sends: the client's requests of a recording, in order, with what came back.

Two kinds of file are read:

- an mcp-inspector session file (``--record``): the client requests (``dir: out``) in
  order, each with the response it got; the handshake (``initialize``,
  ``notifications/initialized``, ``server/discover``) is left out, since the replaying
  session does its own; a 2026-07-28 MRTR retry round (its entry's ``meta.mrtr``) is
  folded into its first request, whose expected response is the last round's; the
  client's answers to server requests (legacy responses, MRTR ``inputResponses``) are
  kept per method, in order, to answer the same questions the same way.
- a hand-written JSONL file: each line is a JSON-RPC request or notification, or
  ``{"send": FRAME, "expect": RESPONSE}``, or ``{"answer": {"method": M, "result": R}}``
  (``"error": E`` for an error answer) for a server request. Blank lines and lines
  starting with ``#`` are skipped.

Reading is bounded by the file: a line longer than ``max_line`` or the whole file
longer than ``MAX_FILE`` is refused with one line (:class:`PlanError`), never held.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.files import NotRegularFile, open_regular
from ..base.json_text import loads_strict
from ..base.jsonrpc import Kind, classify_message
from ..traffic.entry import Direction, TrafficEntry
from ..traffic.http_records import is_http
from ..traffic.recording import FORMAT_NAME, MAX_LINE, is_annotation, record_to_entry

MAX_FILE = 256 << 20  # a replay holds its expectations in memory: a bigger file is refused
HANDSHAKE = ("initialize", "server/discover", "notifications/initialized")
#: Notifications the replaying session sends itself when it has to (a timeout cancels).
NOT_REPLAYED = HANDSHAKE + ("notifications/cancelled",)
ANSWERED_METHODS = ("sampling/createMessage", "elicitation/create", "roots/list")
#: ``_meta`` keys of a request that the replaying session puts there itself.
OWN_META = ("progressToken",)
MODERN_META_PREFIX = "io.modelcontextprotocol/"


TORN: Any = object()  # what _read_lines yields for a torn last line


class PlanError(Exception):
    """The file cannot be replayed (``str()`` is one line for the user)."""


@dataclass
class Step:
    """One message to send; ``expect`` is the response message recorded for it (a request)."""

    method: str
    params: dict[str, Any] | None
    notification: bool = False
    expect: dict[str, Any] | None = None  # {"result": ...} or {"error": ...}
    line: int = 0  # where it is in the file
    expect_line: int = 0  # session files: the line of the recorded response (``--update`` rewrites it)
    progress: bool = False  # the recorded request asked for progress

    @property
    def label(self) -> str:
        """``tools/call add``: the method, and the tool, prompt or resource it is about."""
        params = self.params or {}
        for key in ("name", "uri"):
            value = params.get(key)
            if isinstance(value, str):
                return f"{self.method} {value[:80]}"
        return self.method


@dataclass
class Answer:
    """A recorded answer to a server request: ``{"result": ...}`` or ``{"error": {...}}``."""

    method: str
    message: dict[str, Any]


@dataclass
class Plan:
    path: Path
    kind: str  # "session" or "jsonl"
    steps: list[Step] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    header: dict[str, Any] | None = None
    skipped: list[str] = field(default_factory=list)  # one line each: what was left out and why
    lines: list[Any] = field(default_factory=list)  # jsonl: each line's parsed value (None: blank or comment)

    @property
    def requests(self) -> list[Step]:
        return [step for step in self.steps if not step.notification]


def read_plan(path: str | os.PathLike[str], max_line: int = MAX_LINE) -> Plan:
    """The plan of a session file or a hand-written JSONL file; PlanError if it is neither."""
    path = Path(path)
    try:
        fd = open_regular(path)  # a FIFO, device or directory is refused, never waited on
    except IsADirectoryError:
        raise PlanError(f"{path} is a directory, not a recording") from None
    except NotRegularFile as exc:
        raise PlanError(f"{path} is {exc.strerror}") from None
    except OSError as exc:
        raise PlanError(f"cannot open {path}: {exc.strerror or exc}") from None
    handle = os.fdopen(fd, "rb")
    size = os.fstat(fd).st_size
    if size > MAX_FILE:
        handle.close()
        raise PlanError(f"{path} is too large to replay ({size} bytes; the limit is {MAX_FILE})")
    with handle:
        lines = _read_lines(handle, path, max_line)
        first = next(lines, None)
        if first is None:
            raise PlanError(f"{path} is empty: nothing to replay")
        number, value = first
        if isinstance(value, dict) and value.get("type") == "header":
            if value.get("format") != FORMAT_NAME:
                raise PlanError(f"{path}: line 1 is a header of another format ({str(value.get('format'))[:60]!r})")
            plan = Plan(path, "session", header=value)
            _session_plan(plan, lines)
        else:
            plan = Plan(path, "jsonl")
            plan.lines.extend([None] * (number - 1))
            _jsonl_line(plan, number, value)
            for number, value in lines:
                plan.lines.extend([None] * (number - 1 - len(plan.lines)))
                _jsonl_line(plan, number, value)
    if not plan.steps:
        raise PlanError(f"{path} has no client request to replay" + (f" ({plan.skipped[0]})" if plan.skipped else ""))
    return plan


def _read_lines(handle: Any, path: Path, max_line: int):
    """(line number, parsed JSON) for each non-blank, non-comment line; PlanError on a line
    that is too long or not JSON (a torn last line included: a replay must not guess)."""
    number = 0
    while True:
        line = handle.readline(max_line + 1)
        if not line:
            return
        number += 1
        if len(line) > max_line and not line.endswith(b"\n"):
            raise PlanError(f"{path}: line {number} is longer than {max_line} bytes")
        text = line.strip()
        if not text or text.startswith(b"#"):
            continue
        try:
            value = loads_strict(text)
        except ValueError as exc:
            if not line.endswith(b"\n"):  # the last line, torn (a recording cut short by a crash)
                yield number, TORN
                return
            raise PlanError(f"{path}: line {number} is not JSON: {str(exc).removeprefix('not JSON: ')}") from None
        yield number, value


# -- session files -------------------------------------------------------------


def _message(entry: TrafficEntry) -> dict[str, Any] | None:
    try:
        value = loads_strict(entry.raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def response_part(message: dict[str, Any]) -> dict[str, Any]:
    """What a response is compared by: ``{"result": ...}`` or ``{"error": ...}`` (no id, no jsonrpc)."""
    if "error" in message:
        return {"error": message.get("error")}
    return {"result": message.get("result")}


def strip_own_meta(params: Any) -> tuple[dict[str, Any] | None, bool]:
    """The params without what the replaying session adds itself (the progress token, the
    2026-07-28 ``_meta`` of every request); and whether a progress token was there."""
    if not isinstance(params, dict):
        return None, False
    params = dict(params)
    meta = params.get("_meta")
    progress = False
    if isinstance(meta, dict):
        progress = "progressToken" in meta
        meta = {k: v for k, v in meta.items() if k not in OWN_META and not k.startswith(MODERN_META_PREFIX)}
        if meta:
            params["_meta"] = meta
        else:
            del params["_meta"]
    return params, progress


def _session_plan(plan: Plan, lines) -> None:
    by_seq: dict[int, Step] = {}  # seq of a recorded request -> its step
    server_requests: dict[int, str] = {}  # seq of a server request -> its method
    inputs: dict[int, dict[str, str]] = {}  # seq of a request -> {input key: method} it was asked
    rounds: dict[int, Step] = {}  # seq of an MRTR retry -> the step of its first request
    for number, value in lines:
        if value is TORN:
            plan.skipped.append(f"line {number}: a torn last line (the recording was cut short)")
            continue
        if is_annotation(value) or is_http(value):  # a later note on an entry, an HTTP exchange: nothing to replay
            continue
        try:
            entry = record_to_entry(value)
        except ValueError as exc:
            raise PlanError(f"{plan.path}: line {number} is not a session entry: {exc}") from None
        if entry.kind in (Kind.STDERR, Kind.EVENT) or entry.direction is Direction.LOCAL:
            continue
        message = _message(entry)
        if message is None:
            if entry.direction is Direction.OUT:
                plan.skipped.append(f"line {number}: a frame that is not a JSON object")
            continue
        if entry.direction is Direction.OUT:
            _session_out(plan, number, entry, message, by_seq, server_requests, inputs, rounds)
        elif entry.kind is Kind.REQUEST:
            server_requests[entry.seq] = entry.method or ""
        elif entry.kind in (Kind.RESPONSE, Kind.ERROR) and entry.reply_to is not None:
            step = by_seq.get(entry.reply_to) or rounds.get(entry.reply_to)
            if step is not None:
                step.expect = response_part(message)
                step.expect_line = number
                result = message.get("result")
                if isinstance(result, dict) and isinstance(result.get("inputRequests"), dict):
                    inputs[entry.reply_to] = {
                        k: v.get("method") for k, v in result["inputRequests"].items() if isinstance(v, dict)
                    }


def _session_out(
    plan: Plan,
    number: int,
    entry: TrafficEntry,
    message: dict[str, Any],
    by_seq: dict[int, Step],
    server_requests: dict[int, str],
    inputs: dict[int, dict[str, str]],
    rounds: dict[int, Step],
) -> None:
    method = message.get("method")
    if entry.kind in (Kind.RESPONSE, Kind.ERROR):
        answered = server_requests.get(entry.reply_to) if entry.reply_to is not None else None
        if answered in ANSWERED_METHODS:
            plan.answers.append(Answer(answered, response_part(message)))
        return
    if not isinstance(method, str) or method in NOT_REPLAYED:
        return
    mrtr = (entry.meta or {}).get("mrtr")
    if isinstance(mrtr, dict) and entry.kind is Kind.REQUEST:
        # a retry round: its inputResponses are the answers given; its response is the step's
        first = by_seq.get(mrtr.get("first"))
        if first is None:
            plan.skipped.append(f"line {number}: an MRTR retry of a request that is not in the file")
            return
        asked = {}
        for seq, keys in inputs.items():
            if by_seq.get(seq) is first or rounds.get(seq) is first:
                asked.update(keys)
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        responses = params.get("inputResponses")
        if isinstance(responses, dict):
            for key, answer in responses.items():
                if asked.get(key) in ANSWERED_METHODS and isinstance(answer, dict):
                    plan.answers.append(Answer(asked[key], {"result": answer}))
        rounds[entry.seq] = first
        return
    params, progress = strip_own_meta(message.get("params"))
    step = Step(method, params, notification=entry.kind is Kind.NOTIFICATION, line=number, progress=progress)
    plan.steps.append(step)
    if not step.notification:
        by_seq[entry.seq] = step


# -- hand-written files ------------------------------------------------------------


def _jsonl_line(plan: Plan, number: int, value: Any) -> None:
    where = f"{plan.path}: line {number}"
    if value is TORN:
        raise PlanError(f"{where} is not JSON (torn: it ends without a newline)")
    plan.lines.append(value)
    if not isinstance(value, dict):
        raise PlanError(f"{where} is a JSON {type(value).__name__}, not a JSON-RPC message or a send/expect object")
    if "answer" in value:
        answer = value["answer"]
        if (
            not isinstance(answer, dict)
            or answer.get("method") not in ANSWERED_METHODS
            or ("result" in answer) == ("error" in answer)
        ):
            raise PlanError(
                f'{where}: an answer is {{"method": one of {", ".join(ANSWERED_METHODS)}, '
                '"result": ...}} or with "error"'
            )
        plan.answers.append(Answer(answer["method"], response_part(answer)))
        return
    frame, expect = (value.get("send"), value.get("expect")) if "send" in value else (value, None)
    if not isinstance(frame, dict):
        raise PlanError(f'{where}: "send" is not a JSON-RPC message')
    frame = _completed(frame)
    info = classify_message(frame)
    if info.kind not in (Kind.REQUEST, Kind.NOTIFICATION):
        problem = f": {info.problem}" if info.problem else ""
        raise PlanError(f"{where} is not a JSON-RPC request or notification ({info.kind.value}{problem})")
    if info.method in HANDSHAKE:
        plan.skipped.append(f"line {number}: {info.method} (the replaying session does its own)")
        return
    if expect is not None:
        if not isinstance(expect, dict) or ("result" in expect) == ("error" in expect):
            raise PlanError(f'{where}: "expect" is a response: an object with "result" or "error"')
        expect = response_part(expect)
    params, progress = strip_own_meta(frame.get("params"))
    plan.steps.append(
        Step(
            info.method or "",
            params,
            notification=info.kind is Kind.NOTIFICATION,
            expect=expect,
            line=number,
            progress=progress,
        )
    )


def _completed(frame: dict[str, Any]) -> dict[str, Any]:
    """A hand-written frame may leave out ``jsonrpc`` and a request's ``id`` (the replay
    gives its own ids anyway): a method outside ``notifications/`` without an id is a request."""
    method = frame.get("method")
    if not isinstance(method, str):
        return frame
    frame = dict(frame)
    frame.setdefault("jsonrpc", "2.0")
    if "id" not in frame and not method.startswith("notifications/"):
        frame["id"] = 0
    return frame
