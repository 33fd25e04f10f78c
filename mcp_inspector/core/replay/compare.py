"""Comparing a response with the recorded one, structurally, ignoring what varies by nature.

What is compared is the response's ``result`` or ``error`` (never the JSON-RPC id or
``jsonrpc``): result against error, the error's code, message and data, every member of
a result (content blocks, ``structuredContent``, ``isError``...) by its path, and a
``tools/list`` result as a tool list (added, removed, and for a changed tool each field
that changed, by ``core/session/tooldiff``).

Ignored by nature (both sides must have the shape, only the value may differ):

- a ``progressToken`` in any ``_meta`` (it is a request id);
- date-times: two strings that are both RFC 3339 / ISO 8601 date-times
  (``2026-11-24T02:36:58Z``, ``2026-11-24 02:36:58.123+00:00``; a date alone is not one);
- epoch times: two numbers above 10^9 under a key named ``ts``, ``time``, ``timestamp``,
  ``date``, ``created``, ``updated``, or ending in ``At``, ``_at``, ``Time``, ``_time``;
- UUIDs: two strings that are both RFC 4122 UUIDs (task ids, session ids);
- a text that is a JSON object or array on both sides is compared as JSON with these
  same rules (a ``text`` block holding the ``structuredContent`` as JSON, as the spec
  recommends), so a date-time inside it is ignored too.

And every ``--ignore PATH`` (a jq path such as ``.result.content[0].text`` or
``.result.structuredContent.items[].id``), deleted from both sides first. Every path a
difference names that is a plain jq path can be given to ``--ignore``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..base.json_text import dumps_strict, loads_strict
from ..query.expression import QueryError, check_expression
from ..query.sandbox import QuerySandbox, QueryStopped
from ..session.tooldiff import diff_items, item_key

MAX_DIFFERENCES = 50  # per response: a build that changed everything says so without drowning the report
MAX_JSON_TEXT = 1 << 20  # a text compared as JSON is parsed only up to this many characters
SHOWN = 120  # characters of a value in a difference's one-line form


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


ABSENT: Any = _Absent()

_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_TIME_KEY = re.compile(r"(ts|time|timestamp|date|created|updated|.*At|.*_at|.*Time|.*_time)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
EPOCH_FLOOR = 1_000_000_000


class IgnoreError(ValueError):
    """An ``--ignore`` path jq cannot use (one line)."""


@dataclass(slots=True)
class Difference:
    path: str  # jq-style, from the response: .result.content[0].text, .error.code
    recorded: Any
    now: Any
    note: str = ""  # e.g. "tool added"

    def describe(self) -> str:
        """``.result.content[0].text: "3" → "4"``"""
        note = f" ({self.note})" if self.note else ""
        return f"{self.path or '.'}{note}: {shown(self.recorded)} → {shown(self.now)}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        if self.recorded is not ABSENT:
            out["recorded"] = self.recorded
        if self.now is not ABSENT:
            out["now"] = self.now
        if self.note:
            out["note"] = self.note
        return out


def shown(value: Any, limit: int = SHOWN) -> str:
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def key_path(base: str, key: str) -> str:
    """``base.key``, or ``base["a key"]``; after a filter (``select(...)``, ``fromjson``) a new pipe stage."""
    base = _piped(base)
    if _IDENTIFIER.fullmatch(key):
        return f"{base}.{key}"
    quoted = json.dumps(key, ensure_ascii=False)
    return f"{base}.[{quoted}]" if not base or base.endswith(" ") else f"{base}[{quoted}]"


def _piped(path: str) -> str:
    return path + " | " if path.endswith((")", "fromjson")) else path


# -- --ignore ------------------------------------------------------------------------


IGNORE_CPU_LIMIT = 2.0  # CPU seconds an --ignore program may take on one pair of responses (or its check)


class Ignores:
    """The ``--ignore`` paths: checked up front, then deleted from both sides of each comparison.

    jq runs the way every user-supplied expression does, in the query sandbox (``core/query``):
    a child process with a CPU limit and an address-space cap, so a path that loops or grows
    is stopped with one line (:class:`IgnoreError`) and signals keep working. The paths are
    compiled here (bounded) and run as one program: ``del(PATH)`` after ``del(PATH)``, each
    leaving the response as it was when it does not fit its shape. Blocking: call ``apply``
    from a thread (``run.run_step`` does). ``close()`` stops the child (from any thread).
    """

    def __init__(self, paths: list[str] | None = None, sandbox: QuerySandbox | None = None) -> None:
        self.paths = list(paths or [])
        texts = [_check_syntax(path) for path in self.paths]
        self._program = " | ".join(f"(. as $in | try del({text}\n) catch $in)" for text in texts)
        self._sandbox = sandbox if sandbox is not None else QuerySandbox(cpu_limit=IGNORE_CPU_LIMIT)
        try:
            for path, text in zip(self.paths, texts, strict=True):
                _check_path(self._sandbox, path, text)
            if self._program:
                _compile(self._program, "--ignore")
        except BaseException:  # a usage error, or a stop signal while a check ran: no child left behind
            self.close()
            raise

    def apply(self, *messages: Any) -> list[Any]:
        """Each message with every path deleted (as it was where a path does not fit it);
        IgnoreError when jq was stopped (CPU, memory)."""
        if not self._program:
            return list(messages)
        frames = [
            dumps_strict(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
            for message in messages
        ]
        try:  # del only shrinks a value: its output fits twice the input (numbers may be spelled longer)
            found = self._sandbox.outputs(
                self._program, frames, max_outputs=1, max_bytes=2 * max(map(len, frames)) + 64
            )
        except QueryStopped as exc:
            raise IgnoreError(f"--ignore {' '.join(repr(p) for p in self.paths)}: {exc}") from None
        return [
            json.loads(outputs.outputs[0]) if outputs.outputs and not outputs.cut and outputs.error is None else message
            for message, outputs in zip(messages, found, strict=True)
        ]

    def close(self) -> None:
        self._sandbox.close()

    def __enter__(self) -> Ignores:
        return self

    def __exit__(self, *exc: object) -> None:
        self._sandbox.__exit__(*exc)


def _compile(text: str, what: str) -> str:
    try:
        return check_expression(text)
    except QueryError as exc:
        raise IgnoreError(f"{what} is not a jq path: {str(exc)[:200]}") from None


def _check_syntax(path: str) -> str:
    """PATH stripped, checked for shape and compiled (in this process: compiling runs nothing)."""
    text = path.strip()
    if not text.startswith("."):
        raise IgnoreError(f"--ignore {path!r}: a path starts with '.' (e.g. .result.content[0].text)")
    if len(text) > 1000:
        raise IgnoreError("--ignore: a path is at most 1000 characters")
    _compile(f"del({text}\n)", f"--ignore {path!r}")
    return text


def _check_path(sandbox: QuerySandbox, path: str, text: str) -> None:
    """A path expression, not any filter: jq tells when it runs (on null, where a path is empty), in the sandbox."""
    try:
        found = sandbox.value_outputs(f"[path({text}\n)]", "null", max_outputs=1, max_bytes=1 << 20)
    except QueryStopped as exc:
        raise IgnoreError(f"--ignore {path!r} could not be checked: {exc}") from None
    if found.error is not None and "Invalid path expression" in found.error:
        reason = found.error.removeprefix("jq: error: ")
        raise IgnoreError(f"--ignore {path!r} is not a jq path: {reason[:200]}")


# -- the comparison ---------------------------------------------------------------------


def compare(
    method: str, recorded: dict[str, Any], now: dict[str, Any], ignores: Ignores | None = None
) -> list[Difference]:
    """The differences between a recorded response part (``{"result": ...}`` or ``{"error": ...}``)
    and the one received now, at most MAX_DIFFERENCES (the last one then says how many more)."""
    if ignores is not None:
        recorded, now = ignores.apply(recorded, now)
    out: list[Difference] = []
    if not isinstance(recorded, dict) or not isinstance(now, dict):
        _diff(recorded, now, "", out, "")
        return out
    if ("error" in recorded) != ("error" in now):
        was, became = ("error", "result") if "error" in recorded else ("result", "error")
        out.append(
            Difference(
                f".{was}",
                recorded.get(was, ABSENT),
                ABSENT,
                f"now an {became}" if became == "error" else "now a result",
            )
        )
        out.append(Difference(f".{became}", ABSENT, now.get(became, ABSENT)))
        return out
    old_result, new_result = recorded.get("result"), now.get("result")
    if method == "tools/list" and _tool_list(old_result) and _tool_list(new_result):
        _tool_diff(old_result["tools"], new_result["tools"], out)
        old_result = {k: v for k, v in old_result.items() if k != "tools"}
        new_result = {k: v for k, v in new_result.items() if k != "tools"}
        _diff(old_result, new_result, ".result", out, "result")
    else:
        _diff(recorded, now, "", out, "")
    if len(out) > MAX_DIFFERENCES:  # the walk stopped there: how many more is not known
        out = out[:MAX_DIFFERENCES]
        out.append(
            Difference("…", ABSENT, ABSENT, f"more differences after the first {MAX_DIFFERENCES}, not looked for")
        )
    return out


def _tool_list(result: Any) -> bool:
    return (
        isinstance(result, dict)
        and isinstance(result.get("tools"), list)
        and all(isinstance(tool, dict) for tool in result["tools"])
    )


def _tool_diff(before: list[dict[str, Any]], after: list[dict[str, Any]], out: list[Difference]) -> None:
    changes = diff_items(before, after)
    for tool in changes.removed:
        out.append(Difference(_tool_path(tool), tool, ABSENT, "tool removed"))
    for tool in changes.added:
        out.append(Difference(_tool_path(tool), ABSENT, tool, "tool added"))
    for change in changes.changed:
        found: list[Difference] = []
        _diff(change.before, change.after, _tool_path(change.after), found, "")
        if found:
            for difference in found:
                difference.note = difference.note or f"tool {change.name}: {', '.join(change.fields)} changed"
            out.extend(found)
    if [item_key(t) for t in before if t] != [item_key(t) for t in after if t] and not (
        changes.added or changes.removed
    ):
        out.append(
            Difference(
                ".result.tools", [item_key(t) for t in before], [item_key(t) for t in after], "tools in another order"
            )
        )


def _tool_path(tool: dict[str, Any]) -> str:
    return f".result.tools[] | select(.name == {json.dumps(item_key(tool), ensure_ascii=False)})"


def _diff(old: Any, new: Any, path: str, out: list[Difference], key: str) -> None:
    if len(out) > MAX_DIFFERENCES:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for name in list(old) + [k for k in new if k not in old]:
            if key == "_meta" and name == "progressToken":
                continue
            _diff(old.get(name, ABSENT), new.get(name, ABSENT), key_path(path, name), out, name)
        return
    if isinstance(old, list) and isinstance(new, list):
        for index in range(max(len(old), len(new))):
            _diff(
                old[index] if index < len(old) else ABSENT,
                new[index] if index < len(new) else ABSENT,
                (path + " | .[" if path.endswith((")", "fromjson")) else path + "[") + f"{index}]",
                out,
                key,
            )
        return
    if _same(old, new, key):
        return
    if isinstance(old, str) and isinstance(new, str):
        parsed = _as_json(old), _as_json(new)
        if parsed[0] is not None and parsed[1] is not None:
            _diff(parsed[0], parsed[1], f"{path} | fromjson", out, "")
            return
    out.append(Difference(path, old, new))


def _same(old: Any, new: Any, key: str) -> bool:
    if type(old) is type(new) and old == new:
        return True
    numbers = (int, float)
    if type(old) in numbers and type(new) in numbers:  # bool is not a number here
        if old == new:
            return True
        return bool(_TIME_KEY.fullmatch(key)) and old > EPOCH_FLOOR and new > EPOCH_FLOOR
    if isinstance(old, str) and isinstance(new, str):
        for shape in (_DATE_TIME, _UUID):
            if shape.fullmatch(old) and shape.fullmatch(new):
                return True
    return False


def _as_json(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[" or len(stripped) > MAX_JSON_TEXT:
        return None
    try:
        value = loads_strict(stripped)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None
