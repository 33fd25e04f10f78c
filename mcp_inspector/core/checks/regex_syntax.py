"""Is a server's ``pattern`` a regular expression? Answered by the project's one path for server
patterns, ``core/schema/server_regex.py`` (ECMA-262 translated to RE2, bounded), never by
Python's ``re`` (it backtracks: a crafted pattern holds the GIL for ever).

A pattern broken in any dialect is an error; one RE2 cannot express (lookaround, backreferences,
a repetition over 1000) may be valid ECMA-262 and is only a warning: validators built on RE2
(Go, Rust) reject it, JavaScript and Python ones take it.
"""

from __future__ import annotations

from ..schema import server_regex
from .model import Severity

NOT_A_REGEX = "it is not a regex"


def pattern_problem(pattern: str) -> tuple[str, Severity | None] | None:
    """(what is wrong, severity: None for an error of the rule, WARNING for what only RE2
    refuses), or None for a pattern RE2 compiles."""
    compiled = server_regex.compiled(pattern)
    reason = compiled.reason
    if reason is None:
        return None
    if compiled.syntax_error:
        detail = reason[len(NOT_A_REGEX) :].strip() if reason.startswith(NOT_A_REGEX) else f"({reason})"
        return f"is not a regular expression {detail}".rstrip(), None
    return f"cannot be checked by RE2-based validators: {reason}", Severity.WARNING
