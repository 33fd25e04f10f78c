"""What the server wrote that is not valid JSON-RPC: warnings on stderr, and ``--report``.

A server that prints logs or banners on stdout works with a lenient client and
breaks real ones, so every command watches the traffic store for frames from the
server that are invalid (``Kind.INVALID``: a line that is not JSON, not UTF-8,
too long, or JSON that is not a JSON-RPC message). The first ``SHOWN`` are
warnings on stderr as they come (one line each); at the end a summary line gives
the count. ``--report FILE`` (``-``: stderr, as one JSON line) writes the same as
a JSON document for scripts, so ``--json`` output on stdout stays the exact result::

    {"command": "tools", "exitCode": 0, "invalidFrames": 5, "notJson": 4, "tooLong": 0,
     "examples": [{"seq": 2, "problem": "not JSON: ...", "text": "Server starting..."}]}

``invalidFrames`` counts them all: ``notJson`` the lines that are not JSON (or not UTF-8),
``tooLong`` those over ``--max-frame-size`` (only their head was read, so nobody knows what
they were), and the rest is JSON that is not a valid JSON-RPC message.

``notStrictJson`` counts apart the frames that were read only by leniency and used: a bare
``NaN``/``Infinity`` (Python's json.dumps writes them), invalid UTF-8, another encoding or
a byte order mark. They are not JSON text (RFC 8259), so a strict client (JSON.parse)
rejects them; they are warned about too (the first ``SHOWN``), with their own summary line.
"""

from __future__ import annotations

import json
from typing import Any

from ...core.base.files import open_private
from ...core.base.jsonrpc import Kind
from ...core.traffic.entry import Direction, TrafficEntry
from .report import PROGRAM, write_err

SHOWN = 10  # invalid frames reported one by one; the rest only counted
EXAMPLES = 10  # kept for --report
TEXT_CUT = 200


def is_not_json(problem: str | None) -> bool:
    return bool(problem) and (problem.startswith("not JSON") or problem.startswith("not UTF-8"))


def is_too_long(problem: str | None) -> bool:
    return bool(problem) and problem.startswith("too long")


# the parser's notes (core/base/json_text.py) on a frame that is not JSON text but was read
NOT_STRICT = ("is not JSON (a bare token", "invalid UTF-", "encoded as ")


def not_strict_notes(problem: str | None) -> list[str]:
    """The notes saying a frame read (and used) was not strict JSON text."""
    if not problem:
        return []
    return [note for note in problem.split("; ") if any(mark in note for mark in NOT_STRICT)]


class ServerOutputWatch:
    """A store listener counting the server's invalid frames and warning about the first ones."""

    def __init__(self, quiet: bool = False, stdio: bool = True) -> None:
        self.quiet = quiet
        self.where = "stdout line" if stdio else "frame"
        self.count = 0
        self.not_json = 0
        self.too_long = 0
        self.not_strict = 0
        self.examples: list[dict[str, Any]] = []

    def __call__(self, entry: TrafficEntry) -> None:
        if entry.direction is not Direction.IN:
            return
        if entry.meta is not None and entry.meta.get("torn_by_shutdown"):
            return  # a line our own shutdown cut short: not the server's output
        if entry.kind is not Kind.INVALID:
            notes = not_strict_notes(entry.problem)
            if notes:
                self._not_strict(entry, "; ".join(notes))
            return
        self.count += 1
        if is_not_json(entry.problem):
            self.not_json += 1
        elif is_too_long(entry.problem):
            self.too_long += 1
        text = entry.text
        cut = text if len(text) <= TEXT_CUT else text[:TEXT_CUT] + "…"
        if len(self.examples) < EXAMPLES:
            self.examples.append({"seq": entry.seq, "problem": entry.problem, "text": cut})
        if self.count <= SHOWN and not self.quiet:
            if is_not_json(entry.problem):
                what = f"a {self.where} that is {'not UTF-8' if entry.problem.startswith('not UTF-8') else 'not JSON'}"
            else:
                what = f"an invalid {self.where} ({entry.problem})"
            write_err(f"{PROGRAM}: warning: the server wrote {what}: {cut!r}")

    def _not_strict(self, entry: TrafficEntry, notes: str) -> None:
        self.not_strict += 1
        text = entry.text
        cut = text if len(text) <= TEXT_CUT else text[:TEXT_CUT] + "…"
        if len(self.examples) < EXAMPLES:
            self.examples.append({"seq": entry.seq, "problem": notes, "text": cut})
        if self.not_strict <= SHOWN and not self.quiet:
            write_err(
                f"{PROGRAM}: warning: the server wrote a {self.where} that is not strict JSON, read anyway "
                f"({notes}): {cut!r}"
            )

    def summary(self) -> None:
        """The closing line on stderr, when the server wrote anything invalid."""
        if self.not_strict:
            hidden = f" ({self.not_strict - SHOWN} not shown)" if self.not_strict > SHOWN else ""
            write_err(
                f"{PROGRAM}: warning: the server wrote {self.not_strict} {self.where}"
                f"{'s' if self.not_strict != 1 else ''} that {'are' if self.not_strict != 1 else 'is'} not strict "
                f"JSON (read anyway){hidden}: strict clients may reject them"
            )
        if not self.count:
            return
        hidden = f" ({self.count - SHOWN} not shown)" if self.count > SHOWN else ""
        other = self.count - self.not_json - self.too_long
        kinds = ", ".join(
            f"{number} {what}"
            for number, what in (
                (self.not_json, "not JSON"),
                (self.too_long, "too long"),
                (other, "not valid JSON-RPC"),
            )
            if number
        )
        write_err(
            f"{PROGRAM}: warning: the server wrote {self.count} invalid {self.where}{'s' if self.count != 1 else ''} "
            f"({kinds}){hidden}: real MCP clients may fail on them"
        )

    def document(self, command: str | None, code: int) -> dict[str, Any]:
        return {
            "command": command,
            "exitCode": code,
            "invalidFrames": self.count,
            "notJson": self.not_json,
            "tooLong": self.too_long,
            "notStrictJson": self.not_strict,
            "examples": list(self.examples),
        }

    def write_report(self, path: str, command: str | None, code: int) -> None:
        text = json.dumps(self.document(command, code), ensure_ascii=False)
        if path == "-":
            write_err(text)
            return
        try:
            with open_private(path) as handle:  # 0600, never through a symlink, never a FIFO
                handle.write(text + "\n")
        except OSError as exc:
            write_err(f"{PROGRAM}: error: cannot write the report {path}: {exc.strerror or exc}")
