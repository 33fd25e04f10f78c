"""A jq expression: checked (compiled) here, run in the child process (``sandbox``).

Compiling is bounded (jq parses the text; nothing runs), so it happens in this
process, as the user types, and is cached. What a compile error says is jq's own
message, cut to one line with its column.

Matching: a frame matches when the expression yields at least one output that is
neither ``false`` nor ``null`` (so ``select(.method == "x")`` and ``.method == "x"``
both filter). The match program stops at that first output (``first``), so
``repeat(1)`` matches at once; an error in the expression on a frame counts as
no match, and is told apart (``MATCH_ERROR``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

#: What the match program yields per frame.
MATCH_YES, MATCH_NO, MATCH_ERROR = 1, 0, -1
MAX_EXPRESSION = 10_000  # characters; a query is typed, not generated


class QueryError(ValueError):
    """The expression does not compile (``str()`` is one line: jq's message and where)."""


_PREFIX = re.compile(r"^(jq: )?error(: |\s*\(at [^)]*\):\s*)")
_WHERE = re.compile(r"\s+at <top-level>, line (\d+), column (\d+):?$")


def clean_error(message: str) -> str:
    """jq's error text as one line: ``syntax error, unexpected end of file (line 1, column 4)``."""
    lines = [line for line in str(message).splitlines() if line.strip()]
    if not lines:
        return "jq error"
    first = _PREFIX.sub("", lines[0].strip())
    where = _WHERE.search(first)
    if where is not None:
        first = first[: where.start()]
        line, column = where.groups()
        first += f" (column {column})" if line == "1" else f" (line {line}, column {column})"
    first = first.replace("\t", " ")
    return first if len(first) <= 300 else first[:299] + "…"


@lru_cache(maxsize=64)
def _compile(text: str) -> Any:
    import jq  # the C extension: loaded on first use (CLI startup time)

    return jq.compile(text)


def compile_program(text: str) -> Any:
    """A compiled jq program (cached); QueryError (one line) when it does not compile."""
    try:
        return _compile(text)
    except ValueError as exc:
        raise QueryError(clean_error(str(exc))) from None


def check_expression(expression: str) -> str:
    """The expression, checked: QueryError (one line) if it is empty, too long or does not compile."""
    text = expression.strip()
    if not text:
        raise QueryError("empty query")
    if len(text) > MAX_EXPRESSION:
        raise QueryError(f"the query is longer than {MAX_EXPRESSION:,} characters")
    if "\x00" in text:
        raise QueryError("the query contains a NUL character")
    compile_program(text)
    compile_program(match_text(text))  # what a frame is matched with must compile too
    return text


def match_text(expression: str) -> str:
    """The program that says, per input, whether ``expression`` matches it (1), not (0) or failed (-1).

    The newline keeps a trailing ``# comment`` in the expression from eating the rest.
    """
    return f"try ([first(({expression}\n) | select(. != null and . != false))] | length) catch {MATCH_ERROR}"


def is_match(value: Any) -> bool:
    """Whether one output counts as a match (not ``false``, not ``null``)."""
    return value is not None and value is not False
